"""Sign-up, log-in, log-out, password reset by email and the API token page (a token shown once)."""

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


# --- password reset by email --------------------------------------------------------------------------------


def test_sign_up_takes_an_optional_email(client, db):
    response = client.post(
        "/signup/",
        {
            "username": "erin",
            "email": "erin@example.org",
            "password1": "kernels-are-fun-42",
            "password2": "kernels-are-fun-42",
        },
    )
    assert response.status_code == 302
    assert get_user_model().objects.get(username="erin").email == "erin@example.org"


def test_a_password_reset_followed_through_the_emailed_link(client, alice, mailoutbox):
    alice.email = "alice@example.org"
    alice.save()
    assert 'id="forgot-password"' in client.get("/login/").content.decode()
    asked = client.post("/password-reset/", {"email": "alice@example.org"}, follow=True)
    assert "a link to choose a new password is on its way" in asked.content.decode()
    (mail,) = mailoutbox
    assert mail.to == ["alice@example.org"] and "alice" in mail.body
    link = next(word for word in mail.body.split() if "/password-reset/" in word)
    path = link.split("testserver", 1)[1]
    form = client.get(path, follow=True)  # Django moves the token out of the address, into the session
    assert "Choose a new password for <strong>alice</strong>" in form.content.decode()
    chosen = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-new-kernel-pw-77", "new_password2": "a-new-kernel-pw-77"},
        follow=True,
    )
    assert "Your password is set" in chosen.content.decode()
    logged_in = Client().post("/login/", {"username": "alice", "password": "a-new-kernel-pw-77"})
    assert logged_in.status_code == 302
    # The link works once.
    assert "This link does not work" in Client().get(path, follow=True).content.decode()


def test_a_reset_for_an_unknown_address_says_the_same_and_sends_nothing(client, alice, mailoutbox):
    asked = client.post("/password-reset/", {"email": "nobody@example.org"}, follow=True)
    assert "a link to choose a new password is on its way" in asked.content.decode()
    assert not mailoutbox


def test_the_embedded_default_writes_emails_to_the_log_and_production_can_use_smtp():
    import os
    import subprocess
    import sys

    from testbed import ROOT

    code = "from django.conf import settings; print(settings.EMAIL_BACKEND)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")}
    env["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"
    embedded = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert embedded.stdout.strip() == "django.core.mail.backends.console.EmailBackend"
    smtp = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**env, "EMAIL_HOST": "smtp.example.org"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert smtp.stdout.strip() == "django.core.mail.backends.smtp.EmailBackend"


def test_reset_requests_are_limited_per_email_and_per_address(alice, mailoutbox, settings):
    settings.PASSWORD_RESET_MAX_PER_EMAIL = 2
    settings.PASSWORD_RESET_MAX_PER_ADDRESS = 3
    alice.email = "alice@example.org"
    alice.save()

    def ask(email: str):
        return Client().post("/password-reset/", {"email": email}, REMOTE_ADDR="10.0.0.1")

    assert [ask("alice@example.org").status_code for _ in range(2)] == [302, 302]
    refused = ask("alice@example.org")  # no one fills alice's inbox
    assert refused.status_code == 429 and "Too many password reset requests for this email address" in (
        refused.content.decode()
    )
    assert int(refused["Retry-After"]) > 0 and len(mailoutbox) == 2
    assert ask("nobody@example.org").status_code == 302  # the refusal counted nothing: 3 of 3
    from_here = ask("someone@example.org")
    assert from_here.status_code == 429 and "from your address" in from_here.content.decode()


def test_a_user_gives_the_address_for_resets_with_their_password(as_user, alice, client):
    c = as_user(alice)
    assert "/account/email/" in c.get("/account/tokens/").content.decode()
    wrong = c.post("/account/email/", {"email": "alice@example.org", "password": "not-hers"})
    assert wrong.status_code == 400 and "That is not your password." in wrong.content.decode()
    alice.refresh_from_db()
    assert alice.email == ""
    saved = c.post(
        "/account/email/", {"email": "alice@example.org", "password": "pw-alice-1234"}, follow=True
    )
    assert "Password reset links now go to alice@example.org." in saved.content.decode()
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"
    assert client.get("/account/email/").status_code == 302  # a log-in first
