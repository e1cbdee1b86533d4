from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from leaderboard.accounts.models import ApiToken, User
from leaderboard.accounts.validators import apply_username_rules


class UserCreationFormWithRules(AdminUserCreationForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        apply_username_rules(self.fields["username"])


class UserChangeFormWithRules(UserChangeForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        apply_username_rules(self.fields["username"])


@admin.register(User)
class LeaderboardUserAdmin(UserAdmin):
    add_form = UserCreationFormWithRules
    form = UserChangeFormWithRules
    list_display = ("username", "is_agent", "is_staff", "date_joined")
    list_filter = ("is_agent", "is_staff", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("Leaderboard", {"fields": ("is_agent",)}))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("hint", "user", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("digest", "hint", "created_at", "last_used_at")
    search_fields = ("user__username", "name")
