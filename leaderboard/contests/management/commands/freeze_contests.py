"""`manage.py freeze_contests`: store the final board of every contest that has ended and is due (its
submissions judged, or its judging grace over). The pages do it too at their first read; run this from a
scheduler so that a board is stored however quiet the site is."""

from django.core.management.base import BaseCommand

from leaderboard.contests.services import contests_freeze_due


class Command(BaseCommand):
    help = "Store the final standings of every contest that has ended and whose submissions are judged."

    def handle(self, *args, **options):
        frozen = contests_freeze_due()
        for contest in frozen:
            self.stdout.write(f"froze {contest.name}")
        if not frozen:
            self.stdout.write("nothing to freeze")
