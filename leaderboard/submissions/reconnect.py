"""Living through a dropped or restarted database.

Django opens a connection per thread and reuses it (CONN_MAX_AGE); once the server drops it, every later
query on that thread fails with "the connection is closed" until someone closes it. Django does that at the
start and end of a web request and Celery at the start and end of a task; the long-lived loops (the
sweeper, `serve`, a worker's heartbeat thread) and the writes at the end of a long judging have no such
boundary, so they call `refresh()` per round and `retrying()` for writes that are safe to repeat.

A write is safe to repeat when it is a compare-and-set: a second try after a first that did commit (the
answer was lost with the connection) changes nothing, and the caller checks what the row says.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

# What a lost, refused or restarting server raises; an IntegrityError or a bad query is not retried.
DISCONNECTED = (OperationalError, InterfaceError)

T = TypeVar("T")


def refresh() -> None:
    """Close this thread's connection if it is broken or too old, so that the next query opens a fresh
    one. Inside a transaction nothing is closed (that would end the transaction)."""
    if connection.in_atomic_block:
        return
    try:
        connection.close_if_unusable_or_obsolete()
    except DISCONNECTED:
        drop()


def drop() -> None:
    """Forget this thread's connection after an error that may have broken it; the next query reconnects."""
    if connection.in_atomic_block:
        return
    try:
        connection.close()
    except Exception:  # closing a dead socket can fail; it is closed either way
        connection.connection = None


def retrying(
    write: Callable[[], T],
    *,
    what: str,
    give_up_after_s: float,
    first_wait_s: float = 0.2,
    longest_wait_s: float = 5.0,
    on_failure: Callable[[BaseException], None] | None = None,
) -> T:
    """Run `write` (which must be safe to repeat), trying again with a growing wait while the database does
    not answer, for up to `give_up_after_s`; then the last error is raised. Inside a caller's transaction it
    runs once: a transaction cannot be resumed on a new connection."""
    if connection.in_atomic_block:
        return write()
    deadline = time.monotonic() + give_up_after_s
    wait = first_wait_s
    tries = 0
    while True:
        refresh()
        tries += 1
        try:
            return write()
        except DISCONNECTED as exc:
            drop()
            if on_failure is not None:
                on_failure(exc)
            if time.monotonic() + wait > deadline:
                logger.error(
                    "%s: the database did not answer after %d tries; giving up: %s", what, tries, exc
                )
                raise
            logger.warning(
                "%s: the database did not answer (%s); trying again in %.1f s", what, str(exc).strip(), wait
            )
            time.sleep(wait)
            wait = min(wait * 2, longest_wait_s)
