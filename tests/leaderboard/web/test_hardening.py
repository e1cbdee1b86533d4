"""Hardening (issue 14, item 7): an oversized submit request answered like the API (413, in words, a page
of the site), log-in throttled per username and per address (429, saying when), one username rule for
every path that makes a user."""

from __future__ import annotations

import io

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from leaderboard.submissions.models import Submission

NAV = '<header class="site">'
KERNEL = "def custom_kernel(data):\n    A, B, C = data\n    return A + B\n"


def _form(**changes):
    return {"problem": "vectoradd", "language": "pytorch", "device_kind": "cpu", "mode": "test", **changes}


# --- oversized submissions --------------------------------------------------------------------------------


def test_a_10_mb_paste_is_refused_like_the_api_as_a_page(as_user, alice, problems):
    big = "#" * (10 * 1024 * 1024)
    response = as_user(alice).post("/submit/", _form(source=big))
    html = response.content.decode()
    assert response.status_code == 413
    assert "The request body is too large for a submission" in html and "1024 KiB" in html
    assert NAV in html and "Bad Request" not in html
    assert not Submission.objects.exists()
    # The API says the same words for the same request.
    from leaderboard.accounts.services import api_token_create

    _, token = api_token_create(user=alice)
    api = Client().post(
        "/api/submissions",
        data={"problem": "vectoradd", "source": big},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert (
        api.status_code == 413 and "The request body is too large for a submission" in api.json()["message"]
    )


def test_a_paste_refused_before_the_csrf_check_is_still_413(alice, problems):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    strict.get("/submit/")
    token = strict.cookies["csrftoken"].value
    big = "#" * (django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    response = strict.post("/submit/", _form(source=big, csrfmiddlewaretoken=token))
    assert response.status_code == 413 and "too large for a submission" in response.content.decode()


def test_a_10_mb_upload_is_refused_with_413_in_words(as_user, alice, problems):
    upload = SimpleUploadedFile("huge.py", b"#" * (10 * 1024 * 1024))
    response = as_user(alice).post("/submit/", _form(source="", upload=upload))
    html = response.content.decode()
    assert response.status_code == 413
    assert "The file is 10240.0 KiB; the limit is 1024 KiB." in html and NAV in html
    assert not Submission.objects.exists()


def test_a_paste_over_the_source_limit_is_413_too(as_user, alice, problems):
    response = as_user(alice).post("/submit/", _form(source=KERNEL + "#" * (1100 * 1024)))
    assert response.status_code == 413 and "the limit is 1024 KiB" in response.content.decode()


# --- log-in throttling ------------------------------------------------------------------------------------


@pytest.fixture
def three_tries(settings):
    settings.LOGIN_MAX_FAILURES = 3
    settings.LOGIN_MAX_ACCOUNT_FAILURES = 5
    settings.LOGIN_MAX_ADDRESS_FAILURES = 5
    settings.LOGIN_FAILURE_WINDOW_S = 900


def _log_in(client, username, password, address="10.0.0.1", path="/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def test_the_defaults_are_10_failures_in_15_minutes():
    assert django_settings.LOGIN_MAX_FAILURES == 10 and django_settings.LOGIN_FAILURE_WINDOW_S == 900
    assert django_settings.LOGIN_MAX_ACCOUNT_FAILURES == django_settings.LOGIN_MAX_ADDRESS_FAILURES == 50


def test_failures_for_one_account_from_one_address_refuse_even_the_right_password(client, alice, three_tries):
    for _ in range(3):
        assert _log_in(client, "alice", "wrong").status_code == 200
    refused = _log_in(client, "alice", "pw-alice-1234")
    html = refused.content.decode()
    assert refused.status_code == 429
    assert "Too many failed log-ins for this account from your address" in html
    assert "try again in 15 minutes" in html and "Reset it from the log-in page" in html and NAV in html
    assert 890 <= int(refused["Retry-After"]) <= 900
    assert "_auth_user_id" not in client.session


def test_one_accounts_failures_never_lock_out_its_address(alice, bob, three_tries):
    for _ in range(10):  # 3 failures, then refusals, which count nothing
        _log_in(Client(), "alice", "wrong")
    assert _log_in(Client(), "bob", "pw-bob-1234").status_code == 302  # same address, another account
    assert _log_in(Client(), "alice", "pw-alice-1234", "10.0.0.2").status_code == 302  # the owner elsewhere


def test_guesses_spread_over_addresses_lock_the_account(client, alice, three_tries):
    for i in range(5):
        assert _log_in(client, "alice", "wrong", f"10.0.1.{i}").status_code == 200
    refused = _log_in(client, "alice", "pw-alice-1234", "10.0.2.1")
    assert (
        refused.status_code == 429 and "Too many failed log-ins for this account:" in refused.content.decode()
    )
    assert _log_in(client, "bob", "x", "10.0.2.1").status_code == 200  # bob is not concerned


def test_one_address_guessing_many_accounts_is_refused(client, alice, three_tries):
    for name in ("bob", "carol", "dave", "erin", "frank"):
        assert _log_in(client, name, "wrong", "10.9.9.9").status_code == 200
    refused = _log_in(client, "alice", "pw-alice-1234", "10.9.9.9")
    assert refused.status_code == 429 and "from your address" in refused.content.decode()
    assert _log_in(client, "alice", "pw-alice-1234", "10.8.8.8").status_code == 302  # another address


def test_a_successful_log_in_clears_the_accounts_count(alice, three_tries):
    for _ in range(2):
        for _ in range(2):
            assert _log_in(Client(), "alice", "wrong").status_code == 200
        # Without the clearing, alice would be at 3 failures of 3 at the second round's log-in.
        assert _log_in(Client(), "alice", "pw-alice-1234").status_code == 302


def test_successful_log_ins_do_not_fill_the_addresss_count(db, three_tries):
    from django.contrib.auth import get_user_model

    for i in range(8):  # an office behind one address, more people than the address's limit
        get_user_model().objects.create_user(username=f"user{i}", password="pw-office-1234")
        assert _log_in(Client(), f"user{i}", "pw-office-1234").status_code == 302


def test_parallel_guesses_get_no_more_than_the_limit(alice, three_tries):
    """Each attempt takes its slot before the password is checked: 12 guesses at once, 3 get checked."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import RequestFactory

    from leaderboard.accounts import throttle

    def attempt(_):
        request = RequestFactory().post("/login/", {"username": "alice"}, REMOTE_ADDR="10.0.0.1")
        try:
            return throttle.take_attempt(request, "alice")
        finally:
            connection.close()  # each thread's own connection to the cache's table

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(attempt, range(12)))
    assert sum(not isinstance(r, throttle.Refused) for r in results) == 3


def test_the_refusal_ends_with_its_window(client, alice, three_tries, monkeypatch):
    import time

    from leaderboard.accounts import throttle

    for _ in range(3):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "alice", "pw-alice-1234").status_code == 429
    later = time.time() + 901
    monkeypatch.setattr(throttle.time, "time", lambda: later)
    assert _log_in(client, "alice", "pw-alice-1234").status_code == 302


def test_the_admins_log_in_is_throttled_too(client, staff, three_tries):
    for _ in range(3):
        assert _log_in(client, "staff", "wrong", path="/admin/login/").status_code == 200
    assert _log_in(client, "staff", "pw-staff-1234", path="/admin/login/").status_code == 429
    assert _log_in(client, "staff", "pw-staff-1234", path="/login/").status_code == 429  # one count


# --- usernames --------------------------------------------------------------------------------------------


def test_sign_up_refuses_a_slash_in_words(client, db):
    response = client.post(
        "/signup/", {"username": "a/b", "password1": "kernels-42-fun", "password2": "kernels-42-fun"}
    )
    html = response.content.decode()
    assert response.status_code == 400 and "has a slash" in html and "letters, digits" in html
    assert not get_user_model().objects.exists()
    for bad in ("a b", "-lead", "x" * 41, "dora@example"):
        assert (
            client.post(
                "/signup/", {"username": bad, "password1": "kernels-42-fun", "password2": "kernels-42-fun"}
            ).status_code
            == 400
        ), bad
    assert (
        client.post(
            "/signup/",
            {"username": "dora.k_9-x", "password1": "kernels-42-fun", "password2": "kernels-42-fun"},
        ).status_code
        == 302
    )


def test_create_api_token_refuses_a_slash_in_words(db):
    with pytest.raises(CommandError, match="has a slash"):
        call_command("create_api_token", "a/b", stdout=io.StringIO(), stderr=io.StringIO())
    assert not get_user_model().objects.exists()
    out = io.StringIO()
    call_command("create_api_token", "carol", stdout=out, stderr=io.StringIO())
    assert out.getvalue().startswith("kb_")


def test_one_validator_serves_every_path():
    from leaderboard.accounts import services
    from leaderboard.accounts.validators import validate_username
    from leaderboard.web.forms import SignUpForm

    assert SignUpForm().fields["username"].validators == [validate_username]
    assert services.validate_username is validate_username


def test_the_admins_user_forms_apply_the_same_rules(as_user, staff):
    from leaderboard.accounts.validators import validate_username

    admin = as_user(staff)
    page = admin.get("/admin/accounts/user/add/")
    assert page.status_code == 200
    assert page.context["adminform"].form.fields["username"].validators == [validate_username]
    response = admin.post(
        "/admin/accounts/user/add/",
        {
            "username": "x@y",
            "password1": "kernels-42-fun",
            "password2": "kernels-42-fun",
            "usable_password": "true",
        },
    )
    assert response.status_code == 200 and "letters, digits" in response.content.decode()
    assert not get_user_model().objects.filter(username="x@y").exists()  # Django's own rules allow @
    change = admin.get(f"/admin/accounts/user/{staff.pk}/change/")
    assert change.context["adminform"].form.fields["username"].validators == [validate_username]


def test_an_existing_user_with_an_old_name_still_gets_a_token(db):
    from leaderboard.accounts.services import user_get_or_create

    get_user_model().objects.create(username="old+name")
    user, created = user_get_or_create(username="old+name")
    assert not created and user.username == "old+name"
