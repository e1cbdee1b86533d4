"""A worker's own record (models.Worker): each Celery worker writes, from a thread of its own, the device kinds
it serves and a beat every WORKER_BEAT_INTERVAL_S, and marks itself stopped on a clean shutdown. The submit
form, the API and the sweeper read these rows to tell a device kind that can judge now from one that cannot
(docs/platform.md, "Workers and device kinds"). A killed worker's beat goes stale after WORKER_STALE_AFTER_S.

Celery's own broadcast ping (what /healthz/platform asks) costs a round trip to every worker and a timeout;
a row costs one query, so that every page and every submission can ask.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from leaderboard.submissions import reconnect
from leaderboard.submissions.services import worker_beat, worker_stopped
from runner.vocabulary import JUDGING_QUEUES

logger = logging.getLogger(__name__)


class WorkerBeat:
    """Beats for one worker process until stopped; a beat that cannot reach the database is tried again at
    the next interval (the row then goes stale for a while, as it should: nothing can be claimed either)."""

    def __init__(self, *, name: str, queues: Iterable[str], interval_s: float | None = None) -> None:
        self.name = name
        # Its judging queues: device kinds ("cpu") and their exploration queues ("cpu.explore").
        self.device_kinds = sorted({q for q in queues if q in JUDGING_QUEUES})
        self.interval_s = settings.WORKER_BEAT_INTERVAL_S if interval_s is None else interval_s
        self.started_at = timezone.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-beat", daemon=True)

    def start(self) -> None:
        if self.device_kinds:
            self._beat()  # at once, so that the worker counts as serving from the moment it is ready
            self._thread.start()

    def stop(self) -> None:
        """A clean shutdown: no more beats, and the row says it stopped."""
        if not self.device_kinds:
            return
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        try:
            reconnect.refresh()
            worker_stopped(name=self.name)
        except DatabaseError:
            logger.warning("worker %s could not record that it stopped", self.name, exc_info=True)

    def _beat(self) -> None:
        try:
            reconnect.refresh()
            worker_beat(name=self.name, device_kinds=self.device_kinds, started_at=self.started_at)
        except DatabaseError as exc:
            reconnect.drop()
            logger.warning("worker %s could not record its beat: %s", self.name, exc)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval_s):
                self._beat()
        finally:
            connection.close()
