from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from leaderboard.accounts.throttle import throttled_login, throttled_reset
from leaderboard.web import scoring, views

app_name = "web"

urlpatterns = [
    path("", views.problem_list, name="problems"),
    path("problems/<slug:name>/", views.problem_detail, name="problem"),
    path("problems/<slug:name>/templates/<str:filename>", views.template_download, name="template"),
    path("submit/", views.submit, name="submit"),
    path("scoring/", scoring.scoring, name="scoring"),
    path("submissions/<int:submission_id>/", views.submission_detail, name="submission"),
    path("submissions/<int:submission_id>/status.json", views.submission_status, name="submission_status"),
    path("submissions/<int:submission_id>/cancel", views.submission_cancel_view, name="submission_cancel"),
    path("submissions/<int:submission_id>/source.py", views.submission_source, name="submission_source"),
    path(
        "submissions/<int:submission_id>/profile/<int:number>.csv",
        views.submission_profile_csv,
        name="submission_profile_csv",
    ),
    path("submissions/<int:submission_id>/diff", views.submission_diff, name="submission_diff"),
    path("users/<str:username>/", views.user_detail, name="user"),
    path("signup/", views.signup, name="signup"),
    path("login/", throttled_login(views.SignInView.as_view()), name="login"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    # Password reset by email (Django's own views; the email goes out by settings.EMAIL_BACKEND).
    path(
        "password-reset/",
        throttled_reset(
            auth_views.PasswordResetView.as_view(
                template_name="web/password_reset.html",
                email_template_name="web/password_reset_email.txt",
                subject_template_name="web/password_reset_subject.txt",
                success_url=reverse_lazy("web:password_reset_sent"),
                extra_context={"step": "ask"},
            )
        ),
        name="password_reset",
    ),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="web/password_reset.html",
            extra_context={"step": "sent", "timeout_hours": settings.PASSWORD_RESET_TIMEOUT // 3600},
        ),
        name="password_reset_sent",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="web/password_reset.html",
            success_url=reverse_lazy("web:password_reset_done"),
            extra_context={"step": "choose"},
        ),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="web/password_reset.html", extra_context={"step": "done"}
        ),
        name="password_reset_done",
    ),
    path("account/email/", views.account_email, name="account_email"),
    path("account/tokens/", views.tokens, name="tokens"),
    path("account/tokens/<int:token_id>/revoke", views.token_revoke, name="token_revoke"),
]
