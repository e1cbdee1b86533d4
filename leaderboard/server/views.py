"""The few pages that are not the API: a health probe and JSON for unknown API paths."""

from django.db import connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the web process can reach its database; what `serve` and load balancers wait for."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


def not_found(request: HttpRequest, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": "not_found", "message": f"There is no API endpoint at {request.path}; see /api/docs."},
            status=404,
        )
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)
