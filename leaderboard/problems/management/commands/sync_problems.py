"""`manage.py sync_problems`: make the database match the problems/ folders."""

from django.core.management.base import BaseCommand

from leaderboard.problems.services import problem_sync_all


class Command(BaseCommand):
    help = (
        "Sync problems from the problems/ folders; a changed problem gets a new version (scores do not mix)."
    )

    def handle(self, *args, **options):
        results = problem_sync_all()
        if not results:
            self.stdout.write("No problems found under problems/.")
        for r in results:
            if r.change == "new version":
                line = f"{r.name}: new version {r.version} (was {r.previous_version}); rankings restart"
            elif r.change == "new":
                line = f"{r.name}: added, version {r.version}"
            elif r.change == "retired":
                line = f"{r.name}: its folder is gone; closed to new submissions"
            else:
                line = f"{r.name}: unchanged, version {r.version}"
            self.stdout.write(line)
