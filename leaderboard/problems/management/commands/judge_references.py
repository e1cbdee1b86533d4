"""`manage.py judge_references`: judge each problem's reference on this host's device kind, in leaderboard
mode as a submission would be, and keep its score as the baseline the problem page shows. Run it on a worker
host of that kind (it runs the judge here, in the worker's sandbox)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from leaderboard.problems.models import Problem
from leaderboard.problems.services import reference_score_record
from runner import JobSpec, execute
from runner.problem import load_problem
from runner.vocabulary import DEVICE_KINDS


class Command(BaseCommand):
    help = "Judge each problem's reference on a device kind and keep its score as the problem's baseline."

    def add_arguments(self, parser):
        parser.add_argument("--device-kind", default="cpu", choices=sorted(DEVICE_KINDS))
        parser.add_argument("--problem", action="append", help="only this problem (repeatable)")

    def handle(self, *args, device_kind: str, problem: list[str] | None, **options):
        problems = Problem.objects.filter(is_active=True, current_version__isnull=False)
        if problem:
            problems = problems.filter(name__in=problem)
            missing = set(problem) - {p.name for p in problems}
            if missing:
                raise CommandError(f"no such problem: {', '.join(sorted(missing))}")
        failed = 0
        for row in problems.select_related("current_version"):
            loaded = load_problem(row.name)
            if loaded.version != row.current_version.content_hash:
                raise CommandError(
                    f"{row.name}: this folder's version differs from the database's: sync first"
                )
            report = execute(
                JobSpec(
                    problem=row.name,
                    source=loaded.reference_as_submission,
                    mode="leaderboard",
                    device=DEVICE_KINDS[device_kind].runner_device,
                    device_kind=device_kind,
                    sandbox=settings.RUNNER_SANDBOX,
                    threads=settings.RUNNER_THREADS,
                    case_budget_s=settings.RUNNER_CASE_BUDGET_S,
                )
            )
            kept = reference_score_record(version=row.current_version, device_kind=device_kind, report=report)
            if kept is None:
                failed += 1
                self.stderr.write(
                    f"{row.name}: the reference did not pass ({report.verdict}: {report.message})"
                )
            else:
                self.stdout.write(
                    f"{row.name}: the reference scores {report.score_s * 1e6:.4g} us on {device_kind}"
                )
        if failed:
            raise CommandError(f"{failed} reference(s) did not pass")
