from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "leaderboard.web"
    label = "web"
    verbose_name = "Web pages and reviews"
