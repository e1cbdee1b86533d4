"""The platform records `passed` only where runner.vocabulary.passed agrees: a report whose verdict says
passed while a flag or a case says otherwise contradicts itself, and is recorded as an error, never ranked."""

from __future__ import annotations

import testbed

from leaderboard.submissions.models import Run, State, Submission
from runner.spec import CaseResult, RunReport


def test_a_report_that_says_passed_beside_a_flag_is_not_recorded_as_passed(problems, alice):
    claimed = testbed.claim(testbed.make_submission(alice.user, mode="leaderboard"))
    report = RunReport(
        verdict="passed",
        problem="vectoradd",
        mode="leaderboard",
        device="cpu",
        score_s=1e-5,
        cases=[CaseResult(id="vectoradd[size=31]", kind="test", status="passed")],
        flags=[{"kind": "late-write", "message": "an output changed after done", "evidence": {}}],
    )
    assert testbed.report_on(claimed, report) == State.ERROR
    row = Submission.objects.get(pk=claimed.pk)
    assert row.state == State.ERROR and "says otherwise" in row.message, row.message
    assert Run.objects.get(submission=row).verdict == State.ERROR


def test_a_report_that_passed_is_recorded_as_passed(problems, alice):
    claimed = testbed.claim(testbed.make_submission(alice.user))
    report = RunReport(
        verdict="passed",
        problem="vectoradd",
        mode="test",
        device="cpu",
        cases=[CaseResult(id="vectoradd[size=31]", kind="test", status="passed")],
    )
    assert testbed.report_on(claimed, report) == State.PASSED
