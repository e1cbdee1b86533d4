from django.apps import AppConfig


class ServerConfig(AppConfig):
    name = "leaderboard.server"
    verbose_name = "Serving the platform"
