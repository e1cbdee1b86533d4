"""`manage.py create_api_token USER [--agent]`: print a new API token for USER, creating the user if needed."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.accounts.services import api_token_create, user_get_or_create
from leaderboard.errors import Refusal


class Command(BaseCommand):
    help = (
        "Print a new API token for USER (made if missing; --agent marks it as an agent). "
        "Only the token goes to stdout, so that TOKEN=$(manage.py create_api_token alice) works."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--agent", action="store_true", help="mark the user as an AI agent")
        parser.add_argument("--name", default="", help="a label for the token, e.g. the machine it is for")

    def handle(self, *args, username, agent, name, **options):
        try:
            user, created = user_get_or_create(username=username, is_agent=agent)
        except Refusal as exc:
            raise CommandError(exc.message) from None
        _, token = api_token_create(user=user, name=name)
        kind = "agent" if user.is_agent else "user"
        what = "created" if created else "existing"
        self.stderr.write(
            f"A new API token for {what} {kind} {user.username!r}. It is shown only this once; "
            "use it as KERNELBOARD_TOKEN or `Authorization: Bearer <token>`."
        )
        self.stdout.write(token)
