"""Refusals that a user can meet, each with the HTTP status the API answers and a message in their words.

Services raise them; the API turns them into `{"error": code, "message": ...}` with the status.
"""

from __future__ import annotations


class Refusal(Exception):
    """A request the platform will not carry out, for a reason the user can act on."""

    status = 400
    code = "invalid_request"

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


class NotFound(Refusal):
    status = 404
    code = "not_found"


class SourceTooLarge(Refusal):
    status = 413
    code = "source_too_large"


class LimitReached(Refusal):
    status = 429
    code = "limit_reached"


class Conflict(Refusal):
    """The submission is not in a state that allows it (cancelling one that is being judged or final)."""

    status = 409
    code = "conflict"


class NoWorker(Refusal):
    """No worker serves the device kind now: a submission there would wait for nobody."""

    status = 503
    code = "no_worker"
