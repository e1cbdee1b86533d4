"""The submission page, its status JSON and its source: who sees what (alice submits, bob is another
contestant, staff review), and what a judged run shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import testbed

from runner.vocabulary import DEVICE_KINDS

SOURCE_MARK = "writing into the buffer C saves an allocation"  # a comment of the submitted source


def test_alice_sees_her_pending_submission_and_its_source(as_user, alice, submit):
    submission = submit(alice)
    page = as_user(alice).get(f"/submissions/{submission.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "queued" in html and 'position <b id="live-position">1</b>' in html
    assert "4 test cases" in html  # the plan of a cpu test run
    assert SOURCE_MARK in html
    assert "web/submission.js" in html  # it polls while queued


def test_bob_cannot_see_alices_pending_source(as_user, alice, bob, submit):
    private = submit(alice, mode="test")
    ranked = submit(alice, mode="leaderboard")
    as_bob = as_user(bob)
    # A test-mode submission is alice's experiment: for bob it does not exist.
    assert as_bob.get(f"/submissions/{private.pk}/").status_code == 404
    assert as_bob.get(f"/submissions/{private.pk}/status.json").status_code == 404
    # A ranked one has a public page, but its source is hers (the problem sets no deadline).
    page = as_bob.get(f"/submissions/{ranked.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert SOURCE_MARK not in html and "visible to its author and staff" in html
    assert as_bob.get(f"/submissions/{ranked.pk}/source.py").status_code == 404


def test_anonymous_visitors_see_no_source_either(client, alice, submit):
    ranked = submit(alice, mode="leaderboard")
    page = client.get(f"/submissions/{ranked.pk}/")
    assert page.status_code == 200 and SOURCE_MARK not in page.content.decode()
    assert client.get(f"/submissions/{ranked.pk}/source.py").status_code == 404


def test_staff_see_everything(as_user, alice, staff, submit):
    private = submit(alice, mode="test")
    as_staff = as_user(staff)
    page = as_staff.get(f"/submissions/{private.pk}/")
    assert page.status_code == 200 and SOURCE_MARK in page.content.decode()
    download = as_staff.get(f"/submissions/{private.pk}/source.py")
    assert download.status_code == 200 and SOURCE_MARK in download.content.decode()
    assert download["Content-Disposition"] == f'attachment; filename="submission_{private.pk}.py"'


@pytest.mark.parametrize("days, visible", [(-1, True), (1, False)])
def test_others_see_the_source_after_the_deadline(as_user, alice, bob, submit, monkeypatch, days, visible):
    from leaderboard.web import access

    deadline = datetime.now(UTC) + timedelta(days=days)
    monkeypatch.setattr(access, "_deadline_of", lambda name, version: deadline)
    ranked = submit(alice, mode="leaderboard")
    html = as_user(bob).get(f"/submissions/{ranked.pk}/").content.decode()
    assert (SOURCE_MARK in html) is visible
    if not visible:
        assert "after the problem's deadline" in html


def test_logs_and_scan_are_as_private_as_the_source(as_user, alice, bob, judged):
    scan = [
        {"rule": "open-file", "line": 3, "text": "open('/proc/self/maps')", "why": "reads process memory"}
    ]
    submission = judged(alice, logs="SECRET-PRINTED-LINE", scan=scan)
    mine = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert "SECRET-PRINTED-LINE" in mine and "open-file" in mine
    theirs = as_user(bob).get(f"/submissions/{submission.pk}/").content.decode()
    assert "SECRET-PRINTED-LINE" not in theirs and "open-file" not in theirs
    assert "The logs could show the source" in theirs


def test_status_json_while_queued_and_once_judged(as_user, alice, submit, judged):
    queued = submit(alice)
    status = as_user(alice).get(f"/submissions/{queued.pk}/status.json")
    assert status.status_code == 200 and status["Cache-Control"] == "no-store"
    body = status.json()
    assert body["state"] == "queued" and body["final"] is False and body["queue_position"] == 1
    assert body["plan"] == {"test": 4} and body["wall_limit_s"] == 180

    done = judged(alice, score_s=2e-3)
    body = as_user(alice).get(f"/submissions/{done.pk}/status.json").json()
    assert body["state"] == "passed" and body["final"] is True and body["score_s"] == pytest.approx(2e-3)
    assert body["queue_position"] is None and body["plan"] == {"test": 4, "benchmark": 4, "secret": 4}


def test_a_judged_run_shows_cases_timings_rates_environment(client, alice, judged):
    submission = judged(alice, score_s=2e-3)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert html.count("vectoradd[size=256]") >= 2 and "PASSED" in html
    assert "2 ms ± 40 us" in html  # mean ± stderr, with units
    assert "32.8 MFLOP/s" in html and "197 MB/s" in html  # achieved rates...
    # ...against the cpu peak of runner/floors.py, whatever the measured table says today
    assert f"{100 * 393216 / 2e-3 / DEVICE_KINDS['cpu'].bytes_per_s:.3g} %" in html
    assert "Energy is not measured on this device" in html
    assert "<svg" in html and "time per call (log scale)" in html and "physical floor" in html
    assert "torch" in html and "2.13.0+cpu" in html and "16 GiB" in html  # environment, limits with units
    assert "sandbox" in html.lower() and "isolated by the tests&#x27; imagination" in html
    assert (
        "The runner's text report" in html
        and "=== PASSED: 3 passed · score 2 ms (95 % interval 1.98 ms to 2.02 ms) ===" in html
    )
    # The score with its interval, as the text report and the API give it; each case's median with its own
    assert "95 % interval 1.98 ms to 2.02 ms" in html.split("</h1>")[1].split("</div>")[0]
    assert (
        "median (95 % interval)" in html and "1.98 ms to 2.02 ms" in html.split('<table class="list cases')[1]
    )
    assert 'href="/scoring/"' in html


def test_flags_show_their_evidence(client, alice, judged, floor_flag):
    submission = judged(alice, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "badge flagged" in html and "below the physical floor" in html
    assert "floor_s" in html and "3.6e-06" in html  # the evidence, key by key
    assert "Review in the admin" not in html  # only for staff


def test_a_missing_submission_is_404(client, db):
    assert client.get("/submissions/999999/").status_code == 404
    assert client.get("/submissions/999999/status.json").status_code == 404


def test_a_queued_submission_shows_the_work_ahead_and_an_estimate_from_recent_runs(
    as_user, alice, bob, submit
):
    from datetime import timedelta

    from django.utils import timezone

    from leaderboard.submissions.models import Submission

    now = timezone.now()
    for seconds in (10, 20, 30):  # finished runs of vectoradd in test mode on the cpu: typically 20 s
        done = submit(bob, note=f"done {seconds}")
        Submission.objects.filter(pk=done.pk).update(
            state="passed", started_at=now - timedelta(seconds=seconds), finished_at=now
        )
    running = submit(bob, note="running")
    Submission.objects.filter(pk=running.pk).update(state="running", worker="cpu@a", started_at=now)
    for i in range(2):
        submit(bob, note=f"ahead {i}")
    mine = submit(alice)
    submit(bob, mode="leaderboard", note="another mode, behind")

    body = as_user(alice).get(f"/submissions/{mine.pk}/status.json").json()
    assert (body["queue_position"], body["waiting_ahead"], body["running_now"]) == (3, 2, 1)
    assert body["typical_run_s"] == 20.0
    assert body["wait_estimate_s"] == 60.0  # two queued and one running ahead, one worker, 20 s each
    html = as_user(alice).get(f"/submissions/{mine.pk}/").content.decode()
    assert (
        'position <b id="live-position">3</b>' in html
        and '<span id="live-ahead">2</span> waiting ahead' in html
    )
    assert 'starts in about <b id="live-wait-s">60</b> s' in html

    first = submit(alice, mode="benchmark", note="no history")  # no run of this mode yet: no estimate
    body = as_user(alice).get(f"/submissions/{first.pk}/status.json").json()
    assert body["typical_run_s"] is None and body["wait_estimate_s"] is None


def test_a_running_submission_shows_the_judges_case_count_and_a_true_bar(as_user, alice, submit):
    from leaderboard.submissions.services import submission_progress
    from runner.spec import CaseResult, RunReport

    submission = submit(alice)
    claimed = testbed.claim(submission, worker="cpu@a")
    me = as_user(alice)
    status = lambda: me.get(f"/submissions/{submission.pk}/status.json").json()  # noqa: E731
    assert status()["progress"] is None
    assert '<p id="live-progress" hidden>' in me.get(f"/submissions/{submission.pk}/").content.decode()

    # The third of four cases: the first of two benchmark cases after two tests, with its median time.
    case = {"done": 3, "total": 4, "case": "vectoradd[size=127]", "status": "passed", "kind": "benchmark"}
    case |= {"kind_done": 1, "kind_total": 2, "median_s": 1.234e-5}
    submission_progress(submission_id=submission.pk, worker="cpu@a", attempt=claimed.attempts, progress=case)
    shown = status()["progress"]
    assert {k: shown[k] for k in case} == case
    assert (shown["time"], shown["words"]) == (
        "12.3 us",
        "benchmark 1 of 2 passed · vectoradd[size=127] · 12.3 us",
    )
    html = me.get(f"/submissions/{submission.pk}/").content.decode()
    assert (
        '<p id="live-progress"><span id="live-kind">benchmark</span> <b id="live-done">1</b> of '
        '<b id="live-total">2</b> <span id="live-case-status" class="status-passed">passed</span> · '
        '<span class="muted mono" id="live-case">vectoradd[size=127]</span><span id="live-time-wrap"> · '
        '<b id="live-time">12.3 us</b> per call</span></p>' in html
    )
    assert 'data-done="3" data-total="4"' in html  # the bar's share, set by the script (no inline style)

    report = RunReport(
        verdict="passed", cases=[CaseResult(id="vectoradd[size=31]", kind="test", status="passed")]
    )
    testbed.report_on(claimed, report, worker="cpu@a")
    assert status()["progress"] is None and status()["final"]  # once final, the run's cases say it


def test_a_test_case_shows_no_time_and_a_row_from_before_phases_counts_the_whole_run(as_user, alice, submit):
    from leaderboard.submissions.services import submission_progress

    submission = submit(alice)
    claimed = testbed.claim(submission, worker="cpu@a")
    me = as_user(alice)
    page = lambda: me.get(f"/submissions/{submission.pk}/").content.decode()  # noqa: E731
    status = lambda: me.get(f"/submissions/{submission.pk}/status.json").json()["progress"]  # noqa: E731
    test = {"done": 1, "total": 4, "case": "vectoradd[size=31]", "status": "failed", "kind": "test"}
    test |= {"kind_done": 1, "kind_total": 4, "median_s": None}
    submission_progress(submission_id=submission.pk, worker="cpu@a", attempt=claimed.attempts, progress=test)
    assert (status()["time"], status()["words"]) == ("", "test 1 of 4 failed · vectoradd[size=31]")
    assert '<span id="live-time-wrap" hidden>' in page()

    old = {"done": 2, "total": 4, "case": "vectoradd[size=64]", "status": "passed"}
    submission_progress(submission_id=submission.pk, worker="cpu@a", attempt=claimed.attempts, progress=old)
    assert status()["words"] == "case 2 of 4 passed · vectoradd[size=64]"
    assert '<span id="live-kind">case</span> <b id="live-done">2</b> of <b id="live-total">4</b>' in page()


def test_a_test_mode_run_shows_no_empty_timing_columns(as_user, alice, judged):
    html = as_user(alice).get(f"/submissions/{judged(alice, mode='test').pk}/").content.decode()
    assert "<td>vectoradd[size=31]</td>" in html and "Time per call" not in html and "Floor</th>" not in html
    timed = as_user(alice).get(f"/submissions/{judged(alice, score_s=2e-3).pk}/").content.decode()
    assert "Time per call" in timed and "Floor</th>" in timed


def test_skipped_cases_are_one_line_with_the_reason(client, alice, judged):
    submission = judged(alice, verdict="failed", case_message="wrong output on call 0", skipped=11)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert (
        html.count('class="case-skipped"') == 1 and "11 cases skipped</span>: an earlier case failed" in html
    )
    assert "<td>vectoradd[size=1024]</td>" not in html  # no row of its own (the text report keeps them)


# --- a test-mode report, the diffs there are, tracebacks (issue 31, item 9) ---------------------------------


def test_a_test_mode_report_shows_no_empty_sections_and_no_raw_records(as_user, alice, judged):
    env = {"python": "3.11", "contestant_threads": {"runtime": 1, "after_import": 2, "most": 2}}
    submission = judged(alice, mode="test", env=env)
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert "Energy" not in html.split('id="cases"')[1].split("</section>")[0]  # nothing timed, nothing to say
    row = html.split("<th>contestant_threads</th>")[1].split("</tr>")[0]  # (PostgreSQL orders the keys)
    assert all(part in row for part in ("runtime: 1", "after_import: 2", "most: 2")) and "{" not in row
    assert "Limits it ran under" in html
    run = submission.run
    run.report = {**run.report, "limits": {}, "env": {}}  # a run refused before it started has neither
    run.save(update_fields=["report"])
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert "Limits it ran under" not in html and 'id="limits"' not in html


def test_a_first_submission_offers_no_diff_that_would_be_a_404(as_user, alice, judged):
    first = judged(alice, score_s=2e-3)
    html = as_user(alice).get(f"/submissions/{first.pk}/").content.decode()
    assert "Diff against previous" not in html and "Diff against best" not in html  # it is its own best
    second = judged(alice, score_s=3e-3)
    html = as_user(alice).get(f"/submissions/{second.pk}/").content.decode()
    assert "Diff against previous" in html and "Diff against best" in html
    for against in ("previous", "best"):
        assert as_user(alice).get(f"/submissions/{second.pk}/diff?against={against}").status_code == 200


def test_the_authors_traceback_shows_no_host_path(as_user, alice, judged):
    logs = (
        "Traceback (most recent call last):\n"
        '  File "/work/main/runner/contestant/harness.py", line 226, in run\n'
        '  File "/tmp/kb-job-f1445ayx/submission.py", line 3, in custom_kernel\n'
        "RuntimeError: boom\n"
    )
    submission = judged(alice, mode="test", verdict="error", logs=logs)
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    shown = html.split('<pre class="logs">')[1].split("</pre>")[0]
    assert "/work/main" not in html and "kb-job-f1445ayx" not in html
    assert "…/harness.py" in shown and "…/submission.py" in shown and "RuntimeError: boom" in shown
