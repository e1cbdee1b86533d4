from django.apps import AppConfig


class ContestsConfig(AppConfig):
    name = "leaderboard.contests"
    label = "contests"
    verbose_name = "Contests"
