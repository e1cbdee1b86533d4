"""`manage.py sweep`: take back submissions whose worker stopped, and resend ids the broker lost."""

import sys

from django.core.management.base import BaseCommand

from leaderboard.submissions.sweeper import Sweeper


class Command(BaseCommand):
    help = (
        "Re-queue running submissions whose heartbeat stopped (ending them as error after "
        "SUBMISSION_MAX_ATTEMPTS), and resend queued ones the broker lost. Loops every SWEEP_INTERVAL_S "
        "unless --once; exits with status 1 if the database does not answer for SWEEP_GIVE_UP_S. Safe to run "
        "several at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="sweep once and exit")
        parser.add_argument("--interval", type=float, default=None, help="seconds between sweeps")

    def handle(self, *args, once, interval, **options):
        sweeper = Sweeper(say=self._say, interval_s=interval)
        if once:
            result = sweeper.round()
            if result is None:
                sys.exit(1)
            self._say(
                f"sweep: {result.requeued} re-queued, {result.ended} ended as error, {result.resent} resent"
            )
            return
        sys.exit(sweeper.run())

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
