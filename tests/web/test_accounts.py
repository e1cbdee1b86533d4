"""Sign-up, log-in, log-out and the API token page (the platform's token service; a token shown once)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client

from leaderboard.accounts.models import ApiToken


def test_sign_up_logs_the_new_user_in(client, db):
    response = client.post(
        "/signup/", {"username": "dora", "password1": "kernels-are-fun-42", "password2": "kernels-are-fun-42"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    user = get_user_model().objects.get(username="dora")
    assert not user.is_agent and not user.is_staff
    assert "dora" in client.get("/").content.decode() and "Log out" in client.get("/").content.decode()


def test_sign_up_explains_what_is_wrong(client, alice):
    response = client.post("/signup/", {"username": "alice", "password1": "x", "password2": "y"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "already exists" in html and "didn’t match" in html


def test_log_in_and_out(client, alice):
    bad = client.post("/login/", {"username": "alice", "password": "wrong"})
    assert bad.status_code == 200 and "correct username and password" in bad.content.decode()
    good = client.post(
        "/login/?next=/submit/", {"username": "alice", "password": "pw-alice-1234", "next": "/submit/"}
    )
    assert good.status_code == 302 and good["Location"] == "/submit/"
    assert client.get("/submit/").status_code == 200
    assert client.get("/logout/").status_code == 405  # logging out is a POST (a link cannot log you out)
    assert client.post("/logout/").status_code == 302
    assert client.get("/submit/").status_code == 302


def test_a_token_is_shown_once_and_works_on_the_api(as_user, alice, problems):
    c = as_user(alice)
    made = c.post("/account/tokens/", {"name": "laptop"}, follow=True)
    html = made.content.decode()
    row = ApiToken.objects.get(user=alice)
    token = html.split('id="new-token">')[1].split("</pre>")[0]
    assert token.startswith(row.hint) and row.name == "laptop"
    assert token not in c.get("/account/tokens/").content.decode()  # never again
    api = Client().get("/api/submissions", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 200


def test_revoking_a_token(as_user, alice, bob):
    c = as_user(alice)
    c.post("/account/tokens/", {"name": "old"})
    row = ApiToken.objects.get(user=alice)
    assert as_user(bob).post(f"/account/tokens/{row.pk}/revoke").status_code == 404  # not bob's
    assert c.post(f"/account/tokens/{row.pk}/revoke").status_code == 302
    row.refresh_from_db()
    assert row.revoked_at is not None


def test_token_pages_need_a_login_and_the_csrf_token(alice, client):
    assert client.get("/account/tokens/").status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post("/account/tokens/", {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()
