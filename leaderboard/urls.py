"""URLs: the API under /api/, the admin, a health probe, the agent-run pages and the web pages."""

from django.contrib import admin
from django.urls import include, path

from leaderboard.api.endpoints import api
from leaderboard.server.health import platform_health
from leaderboard.server.metrics import metrics
from leaderboard.server.views import healthz

urlpatterns = [
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("healthz/platform", platform_health, name="platform-health"),
    path("metrics", metrics, name="metrics"),
    path("agents/", include("leaderboard.agentruns.urls")),
    path("", include("leaderboard.web.urls")),
]

handler404 = "leaderboard.server.views.not_found"
