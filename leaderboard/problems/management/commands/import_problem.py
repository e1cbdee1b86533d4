"""`manage.py import_problem PATH`: a problem folder in GPU MODE's reference-kernels layout becomes a problem
here (runner.reference_kernels), then the database is synced so that the site offers it."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.problems.services import problem_sync_all


class Command(BaseCommand):
    help = (
        "Import a reference-kernels problem folder (task.yml, reference.py, task.py) as a problem under "
        "problems/ (or --into one of KERNELBOARD_PROBLEM_DIRS) and sync it to the site."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the folder that holds task.yml")
        parser.add_argument("--name", help="the problem's name here (default: the folder's name)")
        parser.add_argument(
            "--into", help="a folder of problems: problems/ (default) or one of KERNELBOARD_PROBLEM_DIRS"
        )
        parser.add_argument("--replace", action="store_true", help="write over a problem of that name")

    def handle(self, *args, path, name, into, replace, **options):
        from runner.problem import problem_dirs
        from runner.reference_kernels import ImportRefused, import_folder

        roots = problem_dirs()
        target = Path(into).resolve() if into else roots[0]
        if target not in roots:
            listed = ", ".join(str(r) for r in roots)
            raise CommandError(
                f"{target} is not where problems are looked for ({listed}); add it to "
                "KERNELBOARD_PROBLEM_DIRS on the web host and on every worker first"
            )
        try:
            imported = import_folder(Path(path), target, name, replace=replace)
        except ImportRefused as exc:
            raise CommandError(f"cannot import {path}: {exc}") from None
        self.stdout.write(f"{imported.name}: written to {imported.path}")
        self.stdout.write("  runs on: " + ("CPU and GPUs" if imported.cpu else "GPUs only"))
        for note in imported.notes:
            self.stdout.write(f"  note: {note}")
        for r in problem_sync_all():
            if r.name == imported.name:
                self.stdout.write(
                    f"{r.name}: {r.change}, version {r.version}; workers need this folder too "
                    "(and docker hosts a rebuilt runner image: scripts/docker.sh)"
                )
