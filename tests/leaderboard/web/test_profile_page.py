"""A profile run on the site: each case's per-operator table on the submission page (escaped, in a box that
scrolls on its own), a CSV download at /submissions/ID/profile/N.csv for its author and staff only, and the
profile mode on the submit page.

Most tests store a report whose tables the judge's own code rendered (testbed.profile_report); one test
runs the real judge once and follows its report to the page and the download."""

import csv
import io
import tempfile
from pathlib import Path

import pytest
import testbed
from testbed import FORMULA_OPERATOR, profile_report

from leaderboard.submissions.models import Submission

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def profiled(submit):
    """A profile run of the user's, judged through the services with the report given (default: two cases)."""

    def make(user, report=None, *, mode: str = "profile"):
        return testbed.finish(testbed.claim(submit(user, mode=mode)), report or profile_report())

    return make


def test_the_author_sees_each_cases_table_escaped_in_its_own_box(as_user, alice, profiled):
    submission = profiled(alice)
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert '<section id="profiles">' in html
    for number, case in ((1, "vectoradd[size=256]"), (2, "vectoradd[size=4096]")):
        assert f'<div class="table-wrap"><pre class="profile">{case}: 3 call(s) of custom_kernel' in html
        assert f'href="/submissions/{submission.pk}/profile/{number}.csv" download>CSV</a>' in html
    assert "aten::add" in html and "Self CPU (us)" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html


def test_the_csv_downloads_unchanged_with_its_formula_neutralised(as_user, alice, profiled):
    submission = profiled(alice)
    response = as_user(alice).get(f"/submissions/{submission.pk}/profile/1.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="submission_{submission.pk}_vectoradd_size=256_.csv"'
    )
    body = response.content.decode()
    assert body == submission.run.report["profiles"][0]["csv"]
    names = [row["operator"] for row in csv.DictReader(io.StringIO(body))]
    assert "'" + FORMULA_OPERATOR in names and not any(n.startswith("=") for n in names)


def test_another_user_gets_404_and_staff_get_the_tables(as_user, client, alice, bob, staff, profiled):
    submission = profiled(alice)
    page, download = f"/submissions/{submission.pk}/", f"/submissions/{submission.pk}/profile/1.csv"
    as_bob = as_user(bob)
    assert as_bob.get(page).status_code == 404 and as_bob.get(download).status_code == 404
    assert client.get(download).status_code == 404  # nobody logged in
    as_staff = as_user(staff)
    assert "aten::add" in as_staff.get(page).content.decode()
    assert as_staff.get(download).status_code == 200


def test_a_public_page_never_shows_its_profiles_to_others(as_user, alice, bob, profiled):
    """A leaderboard run's page is public, its tables are not: access.can_see_profiles, not the page's rule."""
    report = profile_report()
    report.mode = "leaderboard"
    submission = profiled(alice, report, mode="leaderboard")
    as_bob = as_user(bob)
    html = as_bob.get(f"/submissions/{submission.pk}/").content.decode()
    assert 'id="profiles"' not in html and "profile/1.csv" not in html
    assert "aten::add" not in html  # nor in the runner's text report, which repeats the tables
    assert as_bob.get(f"/submissions/{submission.pk}/profile/1.csv").status_code == 404
    assert 'id="profiles"' in as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()


def test_a_missing_table_and_a_malformed_one(as_user, alice, profiled):
    from runner.judge.profile import profile_of

    report = profile_report(("vectoradd[size=256]",))
    report.profiles = [profile_of("vectoradd[size=256]", 3, "checked and right", {"profile": []}, "cpu")]
    submission = profiled(alice, report)
    as_alice = as_user(alice)
    html = as_alice.get(f"/submissions/{submission.pk}/").content.decode()
    assert "sent a malformed profile (not a table of rows)" in html and "profile/1.csv" not in html
    assert as_alice.get(f"/submissions/{submission.pk}/profile/1.csv").status_code == 404
    assert as_alice.get(f"/submissions/{submission.pk}/profile/2.csv").status_code == 404


def test_the_submit_page_offers_the_profile_mode_and_takes_it(as_user, alice, problems):
    as_alice = as_user(alice)
    html = as_alice.get("/submit/?problem=vectoradd").content.decode()
    assert 'value="profile"' in html and "Profile (per-operator tables)" in html
    assert '<th class="num">profile</th>' in html  # its limits are in the table with the others'
    response = as_alice.post(
        "/submit/",
        {
            "problem": "vectoradd",
            "language": "pytorch",
            "device_kind": "cpu",
            "mode": "profile",
            "source": testbed.vectoradd_source("profile"),
        },
    )
    assert response.status_code == 302
    queued = Submission.objects.get(user=alice)
    assert queued.mode == "profile" and response["Location"] == f"/submissions/{queued.pk}/"
    page = as_alice.get(response["Location"])  # queued: its plan, no tables yet
    assert page.status_code == 200 and 'id="profiles"' not in page.content.decode()


@pytest.mark.judge
def test_a_real_profile_run_reaches_the_page_and_the_download(as_user, alice, submit):
    """The one real judge run of these tests: vectoradd's template profiled without a sandbox (the runner's
    own tests cover the sandboxes), its report stored as a worker stores it."""
    from runner import JobSpec, execute

    submission = submit(alice, mode="profile")
    claimed = testbed.claim(submission)
    report = execute(JobSpec(problem="vectoradd", source=claimed.source.text, mode="profile", sandbox="none"))
    assert report.verdict == "passed", report.message
    submission = testbed.finish(claimed, report)
    as_alice = as_user(alice)
    html = as_alice.get(f"/submissions/{submission.pk}/").content.decode()
    assert html.count('<pre class="profile">') == len(report.profiles) > 0
    assert "aten::add" in html and "outputs checked and right" in html
    body = as_alice.get(f"/submissions/{submission.pk}/profile/1.csv").content.decode()
    assert body == report.profiles[0]["csv"] and body.startswith("operator,calls,self_cpu_us,cpu_us")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
def test_the_page_fits_a_390_px_phone(live_server, alice, profiled, problems):
    """The widest table (a long operator's name) scrolls inside its box; the page, and the submit page with
    its four modes, stay 390 px wide."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from django.conf import settings
    from django.test import Client

    report = profile_report()
    long_name = "aten::" + "very_long_operator_name_" * 4
    report.profiles[0]["text"] += "\n" + long_name.ljust(100) + "  " + "1.0".rjust(15) * 2 + "  1".rjust(9)
    submission = profiled(alice, report)
    session = Client()
    session.force_login(alice)
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="kb-chromium-"),
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
            headless=True,
            viewport={"width": 390, "height": 844},
        )
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": session.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        page = context.new_page()
        page.goto(f"{live_server.url}/submissions/{submission.pk}/")
        assert page.locator("#profiles pre.profile").count() == 2
        width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        box = page.evaluate("(e => [e.scrollWidth, e.clientWidth])(document.querySelector('pre.profile'))")
        page.goto(f"{live_server.url}/submit/?problem=vectoradd")  # its limits table has a profile column now
        submit_width = page.evaluate("document.documentElement.scrollWidth")
        context.close()
    assert width <= inner, f"the page is {width} px wide on a {inner} px screen"
    assert submit_width <= inner, f"the submit page is {submit_width} px wide on a {inner} px screen"
    assert box[0] > box[1], "the table is wider than its box, so the box scrolls"
