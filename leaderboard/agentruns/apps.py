from django.apps import AppConfig


class AgentRunsConfig(AppConfig):
    name = "leaderboard.agentruns"
    verbose_name = "Agent runs"
    default_auto_field = "django.db.models.BigAutoField"
