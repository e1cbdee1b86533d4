"""URLs: the API under /api/, the admin, a health probe, the agent-run pages and the web pages."""

from django.contrib import admin
from django.urls import include, path

from leaderboard.accounts.throttle import throttled_login
from leaderboard.api.endpoints import api
from leaderboard.server.health import platform_health
from leaderboard.server.metrics import metrics
from leaderboard.server.views import healthz

urlpatterns = [
    path("api/", api.urls),
    path("admin/login/", throttled_login(admin.site.login)),  # the same throttle as the site's log-in
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("healthz/platform", platform_health, name="platform-health"),
    path("metrics", metrics, name="metrics"),
    path("agents/", include("leaderboard.agentruns.urls")),
    path("contests/", include("leaderboard.contests.urls")),
    path("", include("leaderboard.web.urls")),
]

handler400 = "leaderboard.server.views.bad_request"
handler403 = "leaderboard.server.views.permission_denied"
handler404 = "leaderboard.server.views.not_found"
handler500 = "leaderboard.server.views.server_error"
