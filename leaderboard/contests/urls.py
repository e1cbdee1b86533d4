from django.urls import path

from leaderboard.contests import views

app_name = "contests"

urlpatterns = [
    path("", views.contests, name="list"),
    path("<slug:name>/", views.contest_detail, name="contest"),
]
