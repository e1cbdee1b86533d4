from django.apps import AppConfig


class ProblemsConfig(AppConfig):
    name = "leaderboard.problems"
    verbose_name = "Problems"
