"""`manage.py sweep`: take back submissions whose worker stopped, and resend ids the broker may have lost."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError

from leaderboard.submissions.services import submission_sweep


class Command(BaseCommand):
    help = (
        "Re-queue running submissions whose heartbeat stopped (ending them as error after "
        "SUBMISSION_MAX_ATTEMPTS), and resend queued ones waiting longer than REQUEUE_AFTER_S. "
        "Loops every SWEEP_INTERVAL_S unless --once. Safe to run several at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="sweep once and exit")
        parser.add_argument("--interval", type=float, default=None, help="seconds between sweeps")

    def handle(self, *args, once, interval, **options):
        interval = settings.SWEEP_INTERVAL_S if interval is None else interval
        while True:
            try:
                result = submission_sweep()
            except DatabaseError as exc:  # the database restarts or is busy: try again next round
                if once:
                    raise
                self.stderr.write(f"sweep: {exc}")
                time.sleep(interval)
                continue
            if once or result.requeued or result.ended or result.resent:
                self.stdout.write(
                    f"sweep: {result.requeued} re-queued, {result.ended} ended as error, {result.resent} resent",
                )
                self.stdout.flush()
            if once:
                return
            time.sleep(interval)
