"""`manage.py create_contest NAME --problem P [--problem Q] --start WHEN --end WHEN`: a new contest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from leaderboard.contests.services import contest_create
from leaderboard.errors import NotFound, Refusal
from leaderboard.problems.selectors import problem_get


def _moment(text: str, now: datetime) -> datetime:
    """`now`, `+90m` / `+2h` / `+3d` from now, or an ISO 8601 time (UTC when it names no zone)."""
    if text == "now":
        return now
    if text.startswith("+") and text[-1:] in "mhd" and text[1:-1].isdigit():
        unit = {"m": "minutes", "h": "hours", "d": "days"}[text[-1]]
        return now + timedelta(**{unit: int(text[1:-1])})
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a time: write now, +90m, +2h, +3d or 2026-12-24T18:00") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = "Make a contest over one or more problems, from --start to --end (UTC)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="its address: /contests/NAME/")
        parser.add_argument("--title", default="", help="default: the name")
        parser.add_argument("--problem", action="append", required=True, help="a problem's name; repeat")
        parser.add_argument("--start", default="now", help="now, +90m, +2h, +3d or an ISO 8601 time")
        parser.add_argument("--end", required=True, help="as --start")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--grace-minutes",
            type=int,
            default=None,
            help="how long after the end the board waits for verdicts of submissions made before it (60)",
        )

    def handle(self, *args, name, title, problem, start, end, description, grace_minutes, **options):
        now = timezone.now()
        try:
            problems = [problem_get(name=p) for p in problem]
            contest = contest_create(
                name=name,
                title=title or name,
                problems=problems,
                starts_at=_moment(start, now),
                ends_at=_moment(end, now),
                description=description,
                judging_grace=None if grace_minutes is None else timedelta(minutes=grace_minutes),
            )
        except (NotFound, Refusal) as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"Contest {contest.name!r} over {', '.join(p.name for p in problems)}: "
            f"{contest.starts_at:%Y-%m-%d %H:%M:%S} to {contest.ends_at:%Y-%m-%d %H:%M:%S} UTC, "
            f"at /contests/{contest.name}/"
        )
