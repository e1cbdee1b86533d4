"""Log-in throttling: after LOGIN_MAX_FAILURES failed log-ins within LOGIN_FAILURE_WINDOW_S, for one
username or from one address, further attempts are refused (HTTP 429, saying when to try again) without
the password being checked. Counted in Django's cache. A successful log-in clears the username's count;
the address's count runs out with its window (otherwise logging in to one's own account would reset it
between guesses at others)."""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse


def _max_failures() -> int:
    return getattr(settings, "LOGIN_MAX_FAILURES", 10)


def _window_s() -> int:
    return getattr(settings, "LOGIN_FAILURE_WINDOW_S", 15 * 60)


def client_address(request: HttpRequest) -> str:
    """The visitor's address: behind a trusted proxy (BEHIND_PROXY) the last X-Forwarded-For entry, the
    one the proxy itself added; else REMOTE_ADDR."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.SECURE_PROXY_SSL_HEADER and forwarded:
        return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _keys(request: HttpRequest, username: str) -> tuple[str, str]:
    name = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    address = hashlib.sha256(client_address(request).encode()).hexdigest()[:32]
    return f"login-failures:user:{name}", f"login-failures:addr:{address}"


def retry_after_s(request: HttpRequest, username: str) -> int | None:
    """Seconds until a log-in may be tried again, or None when it may be tried now."""
    now = time.time()
    waits = []
    for key in _keys(request, username):
        entry = cache.get(key)
        if entry and entry["count"] >= _max_failures() and entry["since"] + _window_s() > now:
            waits.append(entry["since"] + _window_s() - now)
    return math.ceil(max(waits)) if waits else None


def record_failure(request: HttpRequest, username: str) -> None:
    now = time.time()
    for key in _keys(request, username):
        entry = cache.get(key)
        if not entry or entry["since"] + _window_s() <= now:
            entry = {"count": 0, "since": now}
        entry["count"] += 1
        cache.set(key, entry, timeout=math.ceil(entry["since"] + _window_s() - now) + 1)


def clear(request: HttpRequest, username: str) -> None:
    user_key, _ = _keys(request, username)
    cache.delete(user_key)


def refusal_message(wait_s: int) -> str:
    at = datetime.fromtimestamp(time.time() + wait_s, tz=UTC).strftime("%H:%M UTC")
    minutes = max(1, math.ceil(wait_s / 60))
    return (
        f"Too many failed log-ins for this account or from your address: try again in {minutes} "
        f"minute{'s' if minutes != 1 else ''} (at {at}). Forgot your password? Ask the site's staff."
    )


def throttled_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps a log-in view (the site's, the admin's): refuses a POST while throttled, counts a POST that
    does not log in, clears the username's count on one that does."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        username = request.POST.get("username", "")
        wait_s = retry_after_s(request, username)
        if wait_s is not None:
            from leaderboard.server.views import error_page

            response = error_page(
                request, 429, refusal_message(wait_s), back=request.path, back_label="Log in"
            )
            response["Retry-After"] = str(wait_s)
            return response
        response = view(request, *args, **kwargs)
        if request.user.is_authenticated and response.status_code in (301, 302, 303):
            clear(request, username)
        else:
            record_failure(request, username)
        return response

    return wrapper
