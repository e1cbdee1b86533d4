"""The few pages that are not the API: a health probe, and the error pages: JSON under /api/, a page in the
site's layout (with its navigation) everywhere else."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

log = logging.getLogger(__name__)

TITLES = {
    400: "Bad request",
    403: "Not allowed",
    404: "Not found",
    413: "Too large",
    429: "Too many attempts",
    500: "Something went wrong on our side",
}
CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    413: "request_too_large",
    500: "server_error",
}


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the web process can reach its database; what `serve` and load balancers wait for."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


def too_large_message() -> str:
    """The words the API uses for an oversized request, with the limit a source must keep to."""
    limit = settings.SUBMISSION_MAX_SOURCE_BYTES
    return f"The request body is too large for a submission: a source may be at most {limit / 1024:.0f} KiB."


def error_page(
    request: HttpRequest, status: int, message: str, *, hint: str = "", back: str = "", back_label: str = ""
) -> HttpResponse:
    """An error as a page of the site (with its navigation), or as the API's JSON under /api/."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": CODES.get(status, "error"), "message": message}, status=status)
    context = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
        "hint": hint,
        "back": back,
        "back_label": back_label,
    }
    try:
        html = render_to_string("web/error.html", context, request=request)
    except Exception:  # the page itself failed (the database is down, say): plain words still go out
        if status < 500:
            raise
        log.exception("the error page could not be rendered")
        html = f"<!doctype html><title>{status}</title><h1>{TITLES[500]}</h1><p>{message}</p>"
    return HttpResponse(html, status=status)


def bad_request(request: HttpRequest, exception=None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        return request_too_large(request)
    return error_page(
        request, 400, "The request could not be understood. Go back, reload the page and try again."
    )


def request_too_large(request: HttpRequest) -> HttpResponse:
    return error_page(
        request,
        413,
        too_large_message(),
        hint="Upload the file instead of pasting it if it is long, and keep it under the limit.",
        back="/submit/",
        back_label="Back to the submit form",
    )


def permission_denied(request: HttpRequest, exception=None) -> HttpResponse:
    return error_page(request, 403, "You are not allowed to see or do this.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return error_page(
        request,
        403,
        "The form was sent without a valid security token (CSRF).",
        hint="Reload the page and send the form again; if it keeps happening, allow this site's cookies.",
    )


def not_found(request: HttpRequest, exception=None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": "not_found", "message": f"There is no API endpoint at {request.path}; see /api/docs."},
            status=404,
        )
    detail = exception.args[0] if exception is not None and exception.args else ""
    # Http404's own message, when a view wrote one for the visitor; the resolver's dict is not for them.
    message = detail if isinstance(detail, str) and detail else f"There is no page at {request.path}."
    return error_page(request, 404, message)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(
        request, 500, "The server failed to answer this request. It is logged; please try again in a minute."
    )
