"""manage.py create_api_token USER [--agent]: a token shown once, stored as a hash."""

import hashlib
from io import StringIO

from django.core.management import call_command

from leaderboard.accounts.models import ApiToken, User


def create(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("create_api_token", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def test_it_prints_only_the_token_and_stores_only_its_hash(client, db):
    token, note = create("dana")
    assert token.startswith("kb_") and "\n" not in token
    assert "shown only this once" in note
    user = User.objects.get(username="dana")
    assert not user.is_agent and not user.has_usable_password()
    row = ApiToken.objects.get(user=user)
    assert row.digest == hashlib.sha256(token.encode()).hexdigest()
    stored = [str(v) for v in ApiToken.objects.filter(pk=row.pk).values().first().values()]
    assert token not in stored
    # The token works.
    response = client.get("/api/submissions", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200


def test_agent_flag_and_a_second_token_for_an_existing_user(db):
    first, _ = create("robo", "--agent")
    second, note = create("robo")
    assert first != second and "existing agent 'robo'" in note
    assert User.objects.get(username="robo").is_agent
    assert ApiToken.objects.filter(user__username="robo").count() == 2
