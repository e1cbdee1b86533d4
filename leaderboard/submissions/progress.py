"""The judge's progress onto the row while it runs: execute()'s on_progress, throttled, written by a
thread of its own.

The runner calls on_progress from the thread that reads the judge's stream, which must never wait on the
database (the judge would block on a full pipe), so the callback only keeps the latest case and wakes this
writer. The writer writes at most one row update per MIN_INTERVAL_S (about two a second, however fast
cases finish) and, when the judging ends, the last case it was told of: the row always ends with the last
case heard. Each write is submission_progress's compare-and-set, so a worker that lost the row writes
nothing. Progress is advisory: a write that fails is logged and the judging goes on.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from django.db import DatabaseError, connection

from leaderboard.submissions import reconnect
from leaderboard.submissions.services import submission_progress
from runner import textsafe
from runner.vocabulary import CaseKind

logger = logging.getLogger(__name__)

MIN_INTERVAL_S = 0.5  # between two writes of one submission's progress


def progress_of(case: dict[str, Any]) -> dict[str, Any]:
    """What the row keeps of a case frame: its fields, of their types (the frame is signed by the judge,
    but the row outlives this code): the place in the run and in its phase, the case and its status, and a
    timed case's median seconds per call. Never an input: the judge sends none, a secret case included."""
    median = case.get("median_s")
    return {
        "done": int(case["done"]),
        "total": int(case["total"]),
        "case": textsafe.safe_text(str(case["case"]), 300),
        "status": str(case["status"])[:32],
        "kind": case["kind"] if case.get("kind") in set(CaseKind) - {CaseKind.RUN} else "",
        "kind_done": int(case.get("kind_done") or 0),
        "kind_total": int(case.get("kind_total") or 0),
        "median_s": float(median) if isinstance(median, int | float) and math.isfinite(median) else None,
    }


class ProgressWriter:
    """`with ProgressWriter(...) as on_progress: execute(spec, on_progress=on_progress)`."""

    def __init__(
        self, *, submission_id: int, worker: str, attempt: int, min_interval_s: float = MIN_INTERVAL_S
    ) -> None:
        self.submission_id, self.worker, self.attempt = submission_id, worker, attempt
        self.min_interval_s = min_interval_s
        self.writes = 0  # row updates made (the tests count them)
        self._lock = threading.Lock()
        self._pending: dict[str, Any] | None = None  # the latest case heard and not yet written
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"progress-{submission_id}", daemon=True)

    def __enter__(self) -> ProgressWriter:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join()

    def __call__(self, case: dict[str, Any]) -> None:
        """on_progress: keep the latest case and wake the writer; never touches the database."""
        with self._lock:
            self._pending = progress_of(case)
        self._wake.set()

    def _run(self) -> None:
        last = 0.0
        try:
            while True:
                self._wake.wait()
                stopping = self._stop.is_set()
                wait = last + self.min_interval_s - time.monotonic()
                if wait > 0 and not stopping:
                    self._stop.wait(wait)  # throttled; a stop ends the wait to write the last case now
                    continue
                self._wake.clear()
                with self._lock:
                    pending, self._pending = self._pending, None
                if pending is not None:
                    self._write(pending)
                    last = time.monotonic()
                if stopping:
                    return
        finally:
            connection.close()  # this thread's own connection

    def _write(self, progress: dict[str, Any]) -> None:
        reconnect.refresh()  # the connection of a long run may have outlived a restart of the database
        try:
            mine = submission_progress(
                submission_id=self.submission_id, worker=self.worker, attempt=self.attempt, progress=progress
            )
        except (DatabaseError, ValueError) as exc:  # advisory: a refused write must not end the judging
            reconnect.drop()
            logger.warning("progress of submission %s not written: %s", self.submission_id, exc)
            return
        self.writes += mine
