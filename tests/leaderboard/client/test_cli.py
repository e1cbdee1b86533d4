"""The `kernelboard` command line against a live server (the real API, on the test database); profile runs:
`--mode profile` is taken, the tables come at the end of the report, and `--profile-csv DIR` writes the same
files as `python -m runner run --profile-csv`."""

import csv
import io
import os
import re
import subprocess
import sys

import pytest
from django.utils import timezone
from testbed import (
    CORRECT_VECTORADD,
    FORMULA_OPERATOR,
    ROOT,
    claim,
    finish,
    free_port,
    make_submission,
    profile_report,
    report_on,
    vectoradd_source,
)

from leaderboard.client.report import render_report
from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import worker_beat
from runner.report import format_time, profile_filename


def kernelboard(*args, url, token=None, home=None, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELBOARD_")}
    env.update({"KERNELBOARD_URL": url, "XDG_CONFIG_HOME": str(home or ROOT / "nonexistent")})
    if token:
        env["KERNELBOARD_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "leaderboard.client", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_client_loads_without_django_or_celery():
    code = (
        "import sys, leaderboard.client.cli; "
        "print([m for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'kombu', 'torch')])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_problems_are_listed(live_server, problems):
    result = kernelboard("problems", url=live_server.url)
    assert result.returncode == 0, result.stderr
    assert "vectoradd  Vector addition" in result.stdout


def test_submit_without_wait_prints_the_id(live_server, problems, alice, broker):
    result = kernelboard(
        "submit",
        "vectoradd",
        str(CORRECT_VECTORADD),
        "--device",
        "cpu",
        "--mode",
        "test",
        url=live_server.url,
        token=alice.token,
    )
    assert result.returncode == 0, result.stderr
    submission = Submission.objects.get(pk=int(result.stdout.strip()))
    assert submission.user == alice.user and submission.language == "pytorch" and submission.mode == "test"
    assert f"Submitted #{submission.pk}: vectoradd on cpu, mode test, pytorch." in result.stderr


def test_the_token_can_come_from_the_config_file(live_server, problems, alice, broker, tmp_path):
    (tmp_path / "kernelboard").mkdir()
    (tmp_path / "kernelboard" / "config.toml").write_text(f'token = "{alice.token}"\n')
    result = kernelboard("submit", "vectoradd", str(CORRECT_VECTORADD), url=live_server.url, home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert Submission.objects.get(pk=int(result.stdout)).user == alice.user


def test_without_a_token_it_says_where_to_put_one(live_server, problems):
    result = kernelboard("submit", "vectoradd", str(CORRECT_VECTORADD), url=live_server.url)
    assert result.returncode == 2
    assert "no API token." in result.stderr and "then set KERNELBOARD_TOKEN=kb_..." in result.stderr


def test_the_servers_refusal_reaches_the_user(live_server, problems, alice, tmp_path):
    big = tmp_path / "big.py"
    big.write_text("# " + "x" * (1100 * 1024))
    result = kernelboard("submit", "vectoradd", str(big), url=live_server.url, token=alice.token)
    assert result.returncode == 2
    assert "kernelboard: The source is 1100.0 KiB; the limit is 1024 KiB. (HTTP 413)" in result.stderr


def test_an_unreachable_server_is_explained():
    result = kernelboard("problems", url=f"http://127.0.0.1:{free_port()}")
    assert result.returncode == 2
    assert "Could not reach the server" in result.stderr


def test_status_of_a_judged_submission_prints_the_report(live_server, judged, alice):
    passed = judged(alice, score_s=1.23e-5)
    result = kernelboard("status", str(passed.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "vectoradd[size=31] PASSED"
    assert lines[1].startswith("vectoradd[size=256] PASSED 12.3 us")
    assert re.fullmatch(r"=+ 3 passed in [0-9.]+s \(verdict: passed\) =+", lines[-1])
    failed = judged(alice, verdict="failed", public="failed", secret=None)
    result = kernelboard("status", str(failed.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 1
    assert "FAILED: it was failed" in result.stdout and "2 failed" in result.stdout


def test_rankings_show_agents_marked(live_server, judged, alice, robo):
    judged(alice, score_s=2e-5)
    judged(robo, score_s=1e-5)
    result = kernelboard("rankings", "vectoradd", "--device", "cpu", url=live_server.url)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].split()[:4] == ["1.", "robo", "(agent)", "10"]
    assert lines[2].split()[:3] == ["2.", "alice", "20"]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(1.234e-5, "12.3 us"), (0.0456, "45.6 ms"), (2.5, "2.5 s"), (5e-8, "50 ns"), (None, "-")],
)
def test_times_read_in_the_best_unit(seconds, text):
    assert format_time(seconds) == text


def test_the_report_is_one_line_per_case_then_a_summary():
    report = render_report(
        {
            "state": "failed",
            "message": "vectoradd[size=64]: 12 of 4096 values differ",
            "started_at": "2026-01-01T00:00:00+00:00",
            "finished_at": "2026-01-01T00:00:03.5+00:00",
            "score_s": None,
            "cases": [
                {
                    "id": "vectoradd[size=31]",
                    "kind": "test",
                    "status": "passed",
                    "mean_s": None,
                    "message": "",
                },
                {
                    "id": "vectoradd[size=64]",
                    "kind": "test",
                    "status": "failed",
                    "mean_s": None,
                    "message": "12 of 4096 values differ",
                },
            ],
        }
    )
    lines = report.splitlines()
    assert lines[:3] == [
        "vectoradd[size=31] PASSED",
        "vectoradd[size=64] FAILED",
        "    12 of 4096 values differ",
    ]
    assert lines[-1].strip("= ") == "1 failed, 1 passed in 3.50s (verdict: failed)"


def test_waiting_prints_a_line_per_new_case_as_the_judge_reports_it(live_server, problems, alice, broker):
    """The worker's part (the judge's progress onto the row, then the report) is played through the
    services; the client is the real one, polling the live API."""
    import time

    from leaderboard.submissions.services import submission_progress
    from runner.spec import CaseResult, RunReport

    submission = make_submission(alice.user)
    claimed = claim(submission, worker="cpu@a")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELBOARD_")}
    env.update({"KERNELBOARD_URL": live_server.url, "KERNELBOARD_TOKEN": alice.token})
    follow = subprocess.Popen(
        [sys.executable, "-m", "leaderboard.client", "status", str(submission.pk), "--wait", "--poll", "0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ids = [f"vectoradd[size={n}]" for n in (31, 64, 127, 256)]
    time.sleep(1.5)  # the client is up and polling
    for done, case_id in enumerate(ids, start=1):
        status = "failed" if done == 3 else "passed"
        # Two tests, then two benchmarks with their median times.
        kind, kind_done = ("test", done) if done <= 2 else ("benchmark", done - 2)
        median = 1e-5 * done if kind == "benchmark" else None
        progress = {"done": done, "total": len(ids), "case": case_id, "status": status, "kind": kind}
        progress |= {"kind_done": kind_done, "kind_total": 2, "median_s": median}
        submission_progress(
            submission_id=submission.pk, worker="cpu@a", attempt=claimed.attempts, progress=progress
        )
        time.sleep(0.6)  # several polls per case
    cases = [CaseResult(id=i, kind="test", status="failed" if i == ids[2] else "passed") for i in ids]
    report = RunReport(verdict="failed", message="it was failed", cases=cases)
    report_on(claimed, report, worker="cpu@a")
    out, err = follow.communicate(timeout=60)
    assert follow.returncode == 1, err
    lines = [line for line in err.splitlines() if " of 2 " in line]
    assert lines == [
        f"#{submission.pk} test 1 of 2 passed · vectoradd[size=31]",
        f"#{submission.pk} test 2 of 2 passed · vectoradd[size=64]",
        f"#{submission.pk} benchmark 1 of 2 failed · vectoradd[size=127] · 30 us",
        f"#{submission.pk} benchmark 2 of 2 passed · vectoradd[size=256] · 40 us",
    ]
    assert "vectoradd[size=127] FAILED" in out


def test_submit_takes_the_profile_mode(live_server, problems, alice, broker):
    result = kernelboard(
        "submit",
        "vectoradd",
        str(CORRECT_VECTORADD),
        "--mode",
        "profile",
        url=live_server.url,
        token=alice.token,
    )
    assert result.returncode == 0, result.stderr
    assert Submission.objects.get(pk=int(result.stdout.strip())).mode == "profile"
    assert "mode profile" in result.stderr


def test_status_prints_the_tables_and_writes_one_csv_per_case(
    live_server, problems, no_limits, alice, tmp_path
):
    report = profile_report()
    submission = finish(claim(make_submission(alice.user, mode="profile")), report)
    out = tmp_path / "tables"
    result = kernelboard(
        "status", str(submission.pk), "--profile-csv", str(out), url=live_server.url, token=alice.token
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first = lines.index(report.profiles[0]["text"].splitlines()[0])
    assert lines[first : first + 3] == report.profiles[0]["text"].splitlines()[:3]
    assert first > lines.index("vectoradd[size=4096] PASSED") and "(verdict: passed)" in lines[-1]
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(profile_filename(p["case"]) for p in report.profiles)
    for entry in report.profiles:
        written = (out / profile_filename(entry["case"])).read_bytes().decode()
        assert written == entry["csv"]  # CRLF rows and the neutralised formula, unchanged
    assert ["'" + FORMULA_OPERATOR, "1", "1.000", "1.000"] in list(csv.reader(io.StringIO(written)))
    assert f"wrote {out}" in result.stderr


def test_profile_csv_of_a_run_without_tables_says_so(live_server, judged, alice, tmp_path):
    ranked = judged(alice)
    result = kernelboard(
        "status",
        str(ranked.pk),
        "--profile-csv",
        str(tmp_path / "none"),
        url=live_server.url,
        token=alice.token,
    )
    assert result.returncode == 0
    assert f"no profile tables to write: #{ranked.pk} is a leaderboard run without any" in result.stderr
    assert not (tmp_path / "none").exists()


# --- list, show, cancel, devices; where the token comes from ---------------------------------------------


def test_help_says_where_the_token_goes():
    result = kernelboard("--help", url="http://127.0.0.1:9")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())  # argparse wraps the epilog
    assert "make one on the server's page SERVER/account/tokens/ (signed in)" in text
    assert "KERNELBOARD_TOKEN=kb_..." in text and "config.toml" in text
    for command in ("list", "show", "cancel", "devices"):
        assert command in result.stdout


def test_without_a_token_it_names_the_servers_token_page(live_server, problems):
    result = kernelboard("list", url=live_server.url)
    assert result.returncode == 2
    assert f"make one on the server's page {live_server.url}/account/tokens/ (signed in)" in result.stderr
    assert "create_api_token" not in result.stderr


def test_a_refused_token_names_the_token_page_too(live_server, problems):
    result = kernelboard("list", url=live_server.url, token="kb_not-a-token")
    assert result.returncode == 2
    assert "That API token is not valid" in result.stderr
    assert f"{live_server.url}/account/tokens/" in result.stderr


def test_list_shows_ones_own_submissions_newest_first(live_server, judged, alice, bob):
    passed = judged(alice, score_s=1.23e-5)
    queued = make_submission(
        alice.user, source=vectoradd_source("queued"), device_kind="h100", language="cuda"
    )
    judged(bob, score_s=2e-5)  # not alice's
    result = kernelboard("list", url=live_server.url, token=alice.token)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].split()[0] == f"#{queued.pk}" and lines[0].split()[3:] == [
        "vectoradd",
        "h100",
        "test",
        "cuda",
        "queued",
    ]
    assert lines[1].split()[0] == f"#{passed.pk}" and lines[1].split()[-3:] == ["passed", "12.3", "us"]
    result = kernelboard("list", "--problem", "trimul", url=live_server.url, token=alice.token)
    assert result.stdout.strip() == "No submissions to trimul yet."


def test_show_gives_the_details_then_the_report(live_server, judged, alice):
    passed = judged(alice, score_s=1.23e-5)
    result = kernelboard("show", str(passed.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Submission #{passed.pk}: vectoradd (version {passed.problem_version.content_hash})"
    assert lines[1].startswith("  device cpu, mode leaderboard, language pytorch, source sha256 ")
    assert lines[2] == "  state passed"
    assert any(line.startswith("  Attempt 1 on cpu@fixture") for line in lines)
    assert "vectoradd[size=256] PASSED 12.3 us" in result.stdout
    assert re.search(r"=+ 3 passed in [0-9.]+s \(verdict: passed\) =+", lines[-1])


def test_cancel_takes_a_queued_submission_off_the_queue(live_server, problems, alice, charlie, no_limits):
    queued = make_submission(alice.user)
    result = kernelboard("show", str(queued.pk), url=live_server.url, token=alice.token)
    assert f"`kernelboard cancel {queued.pk}` takes it off the queue" in result.stdout
    refused = kernelboard("cancel", str(queued.pk), url=live_server.url, token=charlie.token)
    assert refused.returncode == 2
    assert f"You have no submission #{queued.pk}. (HTTP 404)" in refused.stderr
    result = kernelboard("cancel", str(queued.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Cancelled #{queued.pk} (vectoradd on cpu): it will not be judged."
    assert Submission.objects.get(pk=queued.pk).state == "cancelled"
    again = kernelboard("cancel", str(queued.pk), url=live_server.url, token=alice.token)
    assert again.returncode == 2
    assert "is cancelled already: only a queued one can be cancelled. (HTTP 409)" in again.stderr
    shown = kernelboard("status", str(queued.pk), url=live_server.url, token=alice.token)
    assert shown.returncode == 1
    assert "CANCELLED: Cancelled by its author before it was judged." in shown.stdout


def test_cancel_of_a_running_submission_is_refused_in_words(live_server, problems, alice):
    running = claim(make_submission(alice.user))
    result = kernelboard("cancel", str(running.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 2
    assert "is being judged now and cannot be cancelled" in result.stderr
    assert Submission.objects.get(pk=running.pk).state == "running"


def test_devices_and_a_refused_device_kind(live_server, problems, alice, settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())
    result = kernelboard("devices", url=live_server.url)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split(None, 1) == ["cpu", "1 worker, free: a submission starts at once"]
    assert lines[1].split(None, 1) == ["h100", "no worker now: submissions are refused"]
    result = kernelboard(
        "submit",
        "vectoradd",
        str(CORRECT_VECTORADD),
        "--device",
        "h100",
        url=live_server.url,
        token=alice.token,
    )
    assert result.returncode == 2
    assert "No worker judges the h100 device kind now" in result.stderr and "(HTTP 503)" in result.stderr
    assert not Submission.objects.filter(device_kind="h100").exists()


def test_one_score_the_same_on_the_pages_the_api_and_the_cli(live_server, judged, alice, bob, robo, client):
    """Issue 30: one run's score, read from the rankings page, the submission page, the API and the CLI,
    is the same figure with the same 95 % interval; entries whose intervals overlap share a rank
    everywhere, and a rank beyond doubt does not."""
    alices = judged(alice, score_s=1.00e-5, interval=(0.97e-5, 1.04e-5))
    judged(bob, score_s=1.02e-5, interval=(0.99e-5, 1.06e-5))  # overlaps alice's: tied
    judged(robo, score_s=2.00e-5, interval=(1.95e-5, 2.05e-5))  # slower beyond doubt
    shown = "10 us (95 % interval 9.7 us to 10.4 us)"

    ranking = client.get("/api/problems/vectoradd/rankings?device=cpu").json()["entries"]
    assert [(e["user"], e["rank"], e["tied_with"]) for e in ranking] == [
        ("alice", 1, ["bob"]),
        ("bob", 1, ["alice"]),
        ("robo", 3, []),
    ]
    assert (ranking[0]["score_s"], ranking[0]["score_low_s"], ranking[0]["score_high_s"]) == (
        1.00e-5,
        0.97e-5,
        1.04e-5,
    )

    lines = kernelboard("rankings", "vectoradd", "--device", "cpu", url=live_server.url).stdout.splitlines()
    assert lines[1].split()[:2] == ["1=", "alice"] and shown in lines[1]
    assert lines[2].split()[:2] == ["1=", "bob"] and lines[3].split()[:2] == ["3.", "robo"]

    status = kernelboard("status", str(alices.pk), url=live_server.url, token=alice.token).stdout
    assert f"score: {shown}: the geometric mean" in status

    board = client.get("/problems/vectoradd/?tab=rankings&device=cpu").content.decode()
    row = board[board.index('data-user="alice"') :].split("</tr>")[0]
    assert "1=" in row and "tied with bob" in row and "10 us" in row and "9.7 us to 10.4 us" in row
    client.force_login(alice.user)
    page = client.get(f"/submissions/{alices.pk}/").content.decode()
    assert "95 % interval 9.7 us to 10.4 us" in page.split("</h1>")[1].split("</div>")[0]
    assert client.get("/scoring/").status_code == 200


def test_status_says_when_no_worker_serves_a_queued_submissions_kind(live_server, problems, alice):
    # Queued while the refusal was off (or while an h100 worker served, since gone).
    queued = make_submission(alice.user, device_kind="h100", language="cuda")
    result = kernelboard("status", str(queued.pk), url=live_server.url, token=alice.token)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "queued, but no worker serves h100 now"
    worker_beat(name="h100@test", device_kinds=["h100"], started_at=timezone.now())
    result = kernelboard("status", str(queued.pk), url=live_server.url, token=alice.token)
    assert result.stdout.strip() == "queued (position 1)"


def test_an_exploration_candidate_judged_before_is_shared_at_once(
    live_server, problems, robo, broker, tmp_path
):
    from runner.spec import CaseResult, RunReport, Stats

    candidate = vectoradd_source("a candidate")
    stats = Stats(n=10, windows=2, mean=3e-5, std=0.0, stderr=0.0, min=3e-5, max=3e-5, median=3e-5)
    first = finish(
        claim(make_submission(robo.user, mode="explore", source=candidate)),
        RunReport(
            verdict="passed",
            problem="vectoradd",
            mode="benchmark",
            device="cpu",
            score_s=3e-5,
            cases=[CaseResult(id="vectoradd[size=256]", kind="benchmark", status="passed", stats=stats)],
        ),
    )
    path = tmp_path / "candidate.py"
    path.write_text(candidate)
    args = ("submit", "vectoradd", str(path), "--mode", "explore")
    result = kernelboard(*args, "--wait", url=live_server.url, token=robo.token)
    assert result.returncode == 0, result.stderr
    assert f"Identical code was judged as #{first.pk}: this one shares that run." in result.stderr
    assert "vectoradd[size=256] PASSED" in result.stdout
    fresh = kernelboard(*args, "--fresh", url=live_server.url, token=robo.token)
    assert fresh.returncode == 0, fresh.stderr
    assert Submission.objects.get(pk=int(fresh.stdout.strip())).state == "queued"  # judged again, as asked
