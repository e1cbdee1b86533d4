"""submission_finish on hostile text, on PostgreSQL and on SQLite: a believed report is recorded once, with its
verdict, whatever its strings hold. A NUL byte (refused by PostgreSQL) and lone surrogates (refused by every
database) used to fail the write and leave the row `running` for the sweeper to queue again: another secret
run, chosen by the contestant. Real databases: the session's (PostgreSQL where it answers) in this process,
and SQLite in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
HOSTILE = "x\x00y \ud800 \udfff \x1b[2J"


def hostile_report():
    from runner.spec import CaseResult, RunReport, Stats

    stats = Stats(n=10, windows=3, mean=1e-5, std=0.0, stderr=1e-8, min=1e-5, max=1e-5, median=1e-5)
    return RunReport(
        verdict="passed",
        message=HOSTILE,
        problem="vectoradd",
        mode="leaderboard",
        device="cpu",
        score_s=1e-5,
        logs=HOSTILE * 100,
        cases=[
            CaseResult(id="vectoradd[size=31]", kind="test", status="passed", message=HOSTILE),
            CaseResult(
                id="vectoradd[size=256]", kind="secret", status="passed", message=HOSTILE, stats=stats
            ),
        ],
        flags=[],
        env={"cpu": HOSTILE},
    )


def scenario() -> dict:
    """Two believed hostile reports on this process's database: one as the platform stores it, one with its
    cleaning switched off (what a report the database refuses anyway gets). What each row ended as."""
    import testbed

    from leaderboard.problems.services import problem_sync_all
    from leaderboard.submissions import services
    from leaderboard.submissions.models import Run, Submission
    from leaderboard.submissions.tallies import tallies

    problem_sync_all()
    alice = testbed.make_persona("alice")
    found = {}
    for name in ("cleaned", "refused"):
        claimed = testbed.claim(testbed.make_submission(alice.user, source=testbed.vectoradd_source(name)))
        if name == "refused":  # defence in depth: the database itself refuses the raw text
            services.textsafe.clean, saved = (lambda report: report), services.textsafe.clean
        try:
            final = testbed.report_on(claimed, hostile_report())
        finally:
            if name == "refused":
                services.textsafe.clean = saved
        row = Submission.objects.get(pk=claimed.pk)
        runs = Run.objects.filter(submission=row)
        run = runs.first()
        found[name] = {
            "final": final,
            "state": row.state,
            "attempts": row.attempts,
            "runs": runs.count(),
            "message": row.message,
            "score_s": run.score_s if run else None,
            "statuses": list(run.cases.values_list("status", flat=True)) if run else [],
            "logs": run.report.get("logs", "") if run else "",
        }
    found["reports_cut"] = tallies().get("reports_cut", 0)
    return found


def check(found: dict) -> None:
    from leaderboard.submissions.services import UNSTORED_NOTE

    for name in ("cleaned", "refused"):
        row = found[name]
        assert row["final"] == row["state"] == "passed", row
        assert row["attempts"] == 1 and row["runs"] == 1, row
        assert row["score_s"] == 1e-5 and row["statuses"] == ["passed", "passed"], row
        assert "\x00" not in row["message"] and "\x00" not in row["logs"]
    assert found["cleaned"]["message"].startswith("x\\x00y \ufffd \ufffd \\x1b[2J"), found["cleaned"]
    assert "x\\x00y" in found["cleaned"]["logs"]
    assert found["refused"]["message"].startswith(UNSTORED_NOTE), found["refused"]
    assert found["reports_cut"] == 1  # the operator's alert: counted, never retried


@pytest.mark.django_db(transaction=True)
def test_a_hostile_report_is_recorded_once_on_the_sessions_database(problems):
    check(scenario())


def test_a_hostile_report_is_recorded_once_on_sqlite(tmp_path):
    root = HERE.parents[2]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE", "DJANGO"))},
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "KERNELBOARD_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        "PYTHONPATH": os.pathsep.join([str(root), str(HERE.parent), str(HERE)]),
        "SUBMISSION_REFUSE_UNSERVED": "false",  # no worker: the scenario judges through the services
    }
    script = (
        "import json, django; django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', interactive=False, verbosity=0)\n"
        "import test_submission_finish_hostile as t\n"
        "print('RESULT ' + json.dumps(t.scenario()))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, timeout=300)
    out = done.stdout.decode()
    assert done.returncode == 0, out + done.stderr.decode(errors="replace")[-3000:]
    check(json.loads(out.rsplit("RESULT ", 1)[1]))


@pytest.mark.django_db(transaction=True)
def test_the_metrics_count_reports_stored_without_their_texts(client, problems):
    from leaderboard.submissions.tallies import REPORTS_CUT, tally

    tally(REPORTS_CUT)
    assert "kernelboard_reports_cut_total 1.0" in client.get("/metrics").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_pages_and_the_api_show_a_hostile_run_as_text(client, problems, alice):
    import testbed

    claimed = testbed.claim(testbed.make_submission(alice.user))
    assert testbed.report_on(claimed, hostile_report()) == "passed"
    client.force_login(alice.user)
    for url, headers in (
        (f"/submissions/{claimed.pk}/", {}),
        (f"/submissions/{claimed.pk}/status.json", {}),
        (f"/api/submissions/{claimed.pk}", alice.auth),
    ):
        response = client.get(url, headers=headers)
        assert response.status_code == 200, url
        text = response.content.decode("utf-8")
        assert "x\\x00y" in text or "x\\\\x00y" in text, url
        assert "\x00" not in text and "\x1b" not in text and "\\u0000" not in text, url
        assert "\\ud8" not in text.lower() and "\\udf" not in text.lower(), url
