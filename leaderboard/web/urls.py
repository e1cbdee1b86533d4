from django.urls import path

from leaderboard.accounts.throttle import throttled_login
from leaderboard.web import views

app_name = "web"

urlpatterns = [
    path("", views.problem_list, name="problems"),
    path("problems/<slug:name>/", views.problem_detail, name="problem"),
    path("problems/<slug:name>/templates/<str:filename>", views.template_download, name="template"),
    path("submit/", views.submit, name="submit"),
    path("submissions/<int:submission_id>/", views.submission_detail, name="submission"),
    path("submissions/<int:submission_id>/status.json", views.submission_status, name="submission_status"),
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
    path("account/tokens/", views.tokens, name="tokens"),
    path("account/tokens/<int:token_id>/revoke", views.token_revoke, name="token_revoke"),
]
