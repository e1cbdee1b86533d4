"""URLs: the API under /api/, the admin, a health probe, and the web and agent-run pages when present."""

import importlib.util

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

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
]


def _has_urls(app: str) -> bool:
    return app in settings.OPTIONAL_APPS and importlib.util.find_spec(f"{app}.urls") is not None


# The agent-run pages and the web pages join when their apps exist (settings.OPTIONAL_APPS adds the apps).
if _has_urls("leaderboard.agentruns"):
    urlpatterns.append(path("agents/", include("leaderboard.agentruns.urls")))
if _has_urls("leaderboard.web"):
    urlpatterns.append(path("", include("leaderboard.web.urls")))
else:
    urlpatterns.append(path("", RedirectView.as_view(url="/api/docs", permanent=False)))

handler404 = "leaderboard.server.views.not_found"
