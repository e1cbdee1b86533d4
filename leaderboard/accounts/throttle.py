"""Log-in throttling, counted in the cache every web process shares (settings.CACHES), so that the limit is
the same however many processes answer and survives their restart.

Three counts, each over the last LOGIN_FAILURE_WINDOW_S: failed log-ins to one account from one address
(LOGIN_MAX_FAILURES), to one account from any address (LOGIN_MAX_ACCOUNT_FAILURES: guesses spread over
addresses), and from one address to any account (LOGIN_MAX_ADDRESS_FAILURES: one password tried on many
accounts). A log-in is refused (HTTP 429, saying when to try again, the password not checked) while any of its
counts is full. A refused log-in counts nothing, so one account's failures stop at the first limit, below the
address's: a forgotten password never locks out the others behind the same address (an office, a NAT).

Each attempt takes a numbered slot in each count before its password is checked (`cache.add`, atomic in
Redis and in the database cache), so parallel requests cannot all pass a check that none of them has yet
counted; a successful log-in gives back its address slot and clears its account's counts. The address's
other failures run out with the window (otherwise logging in to one's own account would reset it between
guesses at others). A slot holds the time of its attempt: the window slides, and a refusal ends when the
oldest failure leaves it.

Password reset requests (each may send an email) are counted the same way, every one of them, from one
address (PASSWORD_RESET_MAX_PER_ADDRESS) and for one email address (PASSWORD_RESET_MAX_PER_EMAIL).
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse


@dataclass(frozen=True)
class Count:
    """One of the three counts: its cache keys' prefix, its limit, and how a refusal names it."""

    prefix: str
    limit: int
    what: str

    def slots(self) -> list[str]:
        return [f"{self.prefix}:{i}" for i in range(self.limit)]


def _window_s() -> int:
    return settings.LOGIN_FAILURE_WINDOW_S


def client_address(request: HttpRequest) -> str:
    """The visitor's address: behind a trusted proxy (BEHIND_PROXY) the last X-Forwarded-For entry, the
    one the proxy itself added; else REMOTE_ADDR."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.SECURE_PROXY_SSL_HEADER and forwarded:
        return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def counts_for(request: HttpRequest, username: str) -> tuple[Count, Count, Count]:
    """The three counts a log-in as `username` from this request's address falls under."""
    name = _digest(username.strip().lower())
    address = _digest(client_address(request))
    return (
        Count(
            f"login:pair:{name}:{address}",
            settings.LOGIN_MAX_FAILURES,
            "for this account from your address",
        ),
        Count(f"login:user:{name}", settings.LOGIN_MAX_ACCOUNT_FAILURES, "for this account"),
        Count(f"login:addr:{address}", settings.LOGIN_MAX_ADDRESS_FAILURES, "from your address"),
    )


@dataclass(frozen=True)
class Refused:
    wait_s: int
    what: str


def take_attempt(request: HttpRequest, username: str) -> list[str] | Refused:
    """Claim a slot in each count for this log-in attempt: the slots' keys, or, when a count is full,
    Refused (with the seconds until its oldest failure leaves the window) and nothing claimed."""
    return take_slots(counts_for(request, username))


def reset_counts_for(request: HttpRequest, email: str) -> tuple[Count, Count]:
    """The counts a password reset request falls under: from this address, and for this email address (so
    that no one fills another's inbox with reset emails)."""
    return (
        Count(
            f"reset:addr:{_digest(client_address(request))}",
            settings.PASSWORD_RESET_MAX_PER_ADDRESS,
            "from your address",
        ),
        Count(
            f"reset:email:{_digest(email.strip().lower())}",
            settings.PASSWORD_RESET_MAX_PER_EMAIL,
            "for this email address",
        ),
    )


def take_slots(counts) -> list[str] | Refused:
    """Claim a slot in each of `counts`, or none of them and Refused when one is full."""
    now, window = time.time(), _window_s()
    held = cache.get_many([key for count in counts for key in count.slots()])
    taken: list[str] = []
    for count in counts:
        live = sorted(held[k] for k in count.slots() if k in held and held[k] + window > now)
        claimed = _claim(count, held, now, window)
        if claimed is None:
            cache.delete_many(taken)
            wait = live[0] + window - now if len(live) >= count.limit else 1
            return Refused(max(1, math.ceil(wait)), count.what)
        taken.append(claimed)
    return taken


def _claim(count: Count, held: dict, now: float, window: int) -> str | None:
    empty = [k for k in count.slots() if k not in held]
    for key in empty:  # atomic: of two attempts after one slot, one gets it
        if cache.add(key, now, timeout=window):
            return key
    # A slot whose attempt left the window but that the cache still holds (its expiry is rounded to the
    # second): overwritten. Two attempts could take the same one within that second; at most one is lost.
    stale = [k for k in count.slots() if k in held and held[k] + window <= now]
    for key in stale:
        cache.set(key, now, timeout=window)
        return key
    return None


def succeeded(request: HttpRequest, username: str, taken: list[str]) -> None:
    """A log-in that worked: its account's counts start again, and its own address slot is given back."""
    pair, user, _ = counts_for(request, username)
    cache.delete_many([*pair.slots(), *user.slots(), *taken])


def refusal_message(refused: Refused, what: str = "failed log-ins") -> str:
    at = datetime.fromtimestamp(time.time() + refused.wait_s, tz=UTC).strftime("%H:%M UTC")
    minutes = max(1, math.ceil(refused.wait_s / 60))
    advice = " Forgot your password? Reset it from the log-in page." if what == "failed log-ins" else ""
    return (
        f"Too many {what} {refused.what}: try again in {minutes} "
        f"minute{'s' if minutes != 1 else ''} (at {at}).{advice}"
    )


def _refusal(request: HttpRequest, refused: Refused, what: str, back_label: str) -> HttpResponse:
    from leaderboard.server.views import error_page

    response = error_page(
        request, 429, refusal_message(refused, what), back=request.path, back_label=back_label
    )
    response["Retry-After"] = str(refused.wait_s)
    return response


def throttled_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps a log-in view (the site's, the admin's): refuses a POST while a count is full, counts every
    POST before the view checks the password, and clears the account's counts on one that logs in."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        username = request.POST.get("username", "")
        taken = take_attempt(request, username)
        if isinstance(taken, Refused):
            return _refusal(request, taken, "failed log-ins", "Log in")
        response = view(request, *args, **kwargs)
        if request.user.is_authenticated and response.status_code in (301, 302, 303):
            succeeded(request, username, taken)
        return response

    return wrapper


def throttled_reset(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps the password reset request view: every POST counts (it may send an email), from its address
    and for the email address it names, PASSWORD_RESET_MAX_PER_ADDRESS and PASSWORD_RESET_MAX_PER_EMAIL in
    the window; past either it answers 429 and sends nothing."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method == "POST":
            taken = take_slots(reset_counts_for(request, request.POST.get("email", "")))
            if isinstance(taken, Refused):
                return _refusal(request, taken, "password reset requests", "Reset your password")
        return view(request, *args, **kwargs)

    return wrapper
