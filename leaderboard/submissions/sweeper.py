"""The sweeper's loop, shared by `manage.py sweep` and `serve`: a round every SWEEP_INTERVAL_S that

- checks its database connection first (a restarted database leaves it closed: it is reopened),
- asks the broker whether it lost its messages (then every queued id is sent again at once),
- takes back submissions whose worker stopped beating, and resends ids the broker does not hold,
- stores the final board of each contest that is due (leaderboard.contests),
- records that it completed a round (`Beat` "sweeper", what the health check reads).

A round that fails because the database does not answer is tried again next interval; if none completes
for SWEEP_GIVE_UP_S the loop ends with status 1, so that whatever supervises it restarts it and someone
hears of it. After an outage it takes nothing back for one HEARTBEAT_TIMEOUT_S: the workers could not
beat either, and must first get the chance to.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from leaderboard.submissions import broker, reconnect
from leaderboard.submissions.models import Beat
from leaderboard.submissions.services import SweepResult, submission_sweep
from leaderboard.submissions.tallies import BROKER_LOSSES, tally

logger = logging.getLogger(__name__)

BEAT_NAME = "sweeper"


class Sweeper:
    def __init__(
        self,
        *,
        say: Callable[[str], None],
        interval_s: float | None = None,
        give_up_after_s: float | None = None,
    ) -> None:
        self.say = say
        self.interval_s = settings.SWEEP_INTERVAL_S if interval_s is None else interval_s
        self.give_up_after_s = settings.SWEEP_GIVE_UP_S if give_up_after_s is None else give_up_after_s
        self.failing_since: float | None = None
        self.recovered_at: float | None = None
        self.broker_down = False
        # A loss found in a round whose database writes then failed: the marker is back in the broker, so the
        # loss would be forgotten; it is kept until a round completes.
        self.loss_pending = False

    def round(self) -> SweepResult | None:
        """One sweep. None when the database did not answer (and the loop should go on, for now)."""
        reconnect.refresh()
        lost = self._broker_lost() or self.loss_pending
        self.loss_pending = lost
        grace = settings.HEARTBEAT_TIMEOUT_S
        # Not in the round that finds the database back, nor for `grace` after it.
        take_back = self.failing_since is None and (
            self.recovered_at is None or time.monotonic() - self.recovered_at >= grace
        )
        try:
            result = submission_sweep(broker_lost=lost, take_back=take_back)
            # Contests read the submissions; imported here so that submissions import no app above them.
            from leaderboard.contests.services import contests_freeze_due

            frozen = contests_freeze_due()
            Beat.objects.update_or_create(name=BEAT_NAME, defaults={"at": timezone.now()})
            self.loss_pending = False
        except DatabaseError as exc:
            reconnect.drop()
            if self.failing_since is None:
                self.failing_since = time.monotonic()
            down_s = time.monotonic() - self.failing_since
            self.say(
                f"sweeper: the database did not answer ({str(exc).strip()}); "
                f"trying again in {self.interval_s:g} s (down {down_s:.0f} s, giving up after "
                f"{self.give_up_after_s:g} s)"
            )
            return None
        if self.failing_since is not None:
            self.say(
                f"sweeper: the database answers again after {time.monotonic() - self.failing_since:.0f} s; "
                f"workers get {grace:g} s to beat before anything is taken back"
            )
            self.failing_since = None
            self.recovered_at = time.monotonic()
        if lost:
            tally(BROKER_LOSSES)
            self.say(
                "sweeper: the broker did not hold the sweeper's marker (it is new, or restarted without its "
                f"messages): every queued submission was sent again ({result.resent})"
            )
        for contest in frozen:
            self.say(f"sweeper: contest {contest.name} ended and its final standings are stored")
        if result.unserved:
            self.say(
                f"sweeper: {result.unserved} queued for a device kind with no worker for "
                f"{settings.SUBMISSION_UNSERVED_TIMEOUT_S:g} s were taken off the queue (cancelled)"
            )
        if result.requeued or result.ended or result.resent:
            self.say(
                f"sweeper: {result.requeued} re-queued, {result.ended} ended as error, {result.resent} resent"
            )
        return result

    def _broker_lost(self) -> bool:
        try:
            lost = broker.broker_lost_messages()
        except Exception as exc:  # a broker that is down cannot be resent to either; take-backs go on
            if not self.broker_down:
                self.say(f"sweeper: the broker did not answer ({exc}); trying again next round")
            self.broker_down = True
            return False
        if self.broker_down:
            self.say("sweeper: the broker answers again")
            self.broker_down = False
        return lost

    def gave_up(self) -> bool:
        return (
            self.failing_since is not None and time.monotonic() - self.failing_since >= self.give_up_after_s
        )

    def run(
        self, stop: threading.Event | None = None, *, before_round: Callable[[], None] | None = None
    ) -> int:
        """Sweep until `stop` is set (0), or until the database has not answered for give_up_after_s (1)."""
        stop = stop or threading.Event()
        while not stop.is_set():
            if before_round is not None:
                before_round()
            self.round()
            if self.gave_up():
                self.say(
                    f"sweeper: the database has not answered for {self.give_up_after_s:g} s; stopping, so that "
                    "the sweeper is restarted"
                )
                return 1
            stop.wait(self.interval_s)
        return 0
