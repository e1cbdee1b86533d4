from django.urls import path

from leaderboard.agentruns import views

app_name = "agentruns"

urlpatterns = [
    path("", views.run_list, name="list"),
    path("runs/<int:run_id>/", views.run_detail, name="detail"),
]
