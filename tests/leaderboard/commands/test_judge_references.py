"""manage.py judge_references: the reference judged as a leaderboard submission on a device kind, its score
kept per problem version as the baseline the problem page shows."""

from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.problems.models import Problem, ReferenceScore
from leaderboard.problems.services import reference_score_record
from runner.spec import RunReport


def test_only_a_passed_reference_with_a_score_is_kept_and_a_new_one_replaces_it(problems):
    version = Problem.objects.get(name="vectoradd").current_version
    failed = RunReport(verdict="failed", message="wrong output", score_s=None)
    assert reference_score_record(version=version, device_kind="cpu", report=failed) is None
    first = RunReport(verdict="passed", score_s=2e-3, score_low_s=1.9e-3, score_high_s=2.1e-3)
    reference_score_record(version=version, device_kind="cpu", report=first)
    again = RunReport(verdict="passed", score_s=1.5e-3)
    reference_score_record(version=version, device_kind="cpu", report=again)
    assert list(ReferenceScore.objects.values_list("device_kind", "score_s")) == [("cpu", 1.5e-3)]


def test_the_rankings_tab_shows_the_baseline_per_device_kind(client, problems):
    version = Problem.objects.get(name="vectoradd").current_version
    assert 'class="baseline"' not in client.get("/problems/vectoradd/").content.decode()
    for kind, score in (("h100", 2.5e-5), ("cpu", 1.2e-3)):
        reference_score_record(
            version=version, device_kind=kind, report=RunReport(verdict="passed", score_s=score)
        )
    html = client.get("/problems/vectoradd/").content.decode()
    baseline = html[html.index('<p class="baseline">') :].split("</p>")[0]
    assert baseline.index("<b>CPU</b>") < baseline.index("<b>NVIDIA H100</b>")  # the vocabulary's order
    assert '<span class="mono">1.2 ms</span>' in baseline and '<span class="mono">25 us</span>' in baseline
    assert 'class="baseline"' not in client.get("/problems/softmax/").content.decode()


@pytest.mark.slow
@pytest.mark.judge  # the real runner judges the reference (tests/conftest.py)
def test_the_command_judges_the_reference_with_the_real_runner(problems, settings):
    settings.RUNNER_CASE_BUDGET_S = 0.05  # the score's digits are not what is checked
    out = StringIO()
    call_command("judge_references", "--problem", "vectoradd", "--device-kind", "cpu", stdout=out)
    kept = ReferenceScore.objects.get(version__problem__name="vectoradd", device_kind="cpu")
    assert kept.score_s > 0 and "vectoradd: the reference scores" in out.getvalue()
