"""The domain's words are defined once (runner/vocabulary.py); every other place that names them agrees."""

from django.conf import settings

from leaderboard.api.endpoints import api
from leaderboard.client import cli
from leaderboard.submissions.models import FINAL_STATES, VERDICT_STATES, DeviceKind, Mode, State
from runner import vocabulary
from runner.floors import floor_seconds
from runner.spec import MODES
from runner.vocabulary import DEVICE_KINDS, CaseKind, Verdict, case_plan, scored_kind


def test_device_kinds_agree_everywhere():
    kinds = list(DEVICE_KINDS)
    assert list(settings.DEVICE_KINDS) == kinds
    # one ranked queue per kind, then one exploration queue per kind
    assert [q.name for q in settings.CELERY_TASK_QUEUES] == kinds + [f"{k}.explore" for k in kinds]
    assert DeviceKind.values == kinds
    assert [label for _, label in DeviceKind.choices] == [d.label for d in DEVICE_KINDS.values()]
    assert list(cli.DEVICE_KINDS) == kinds
    for key, kind in DEVICE_KINDS.items():
        assert kind.runner_device in ("cpu", "cuda")
        assert floor_seconds(key, 1e9, 1e9) > 0  # every kind has its peaks, so its floor


def test_modes_and_states_agree_everywhere():
    modes = [m.value for m in vocabulary.Mode]
    assert list(MODES) == modes  # the runner's
    # the platform's: the runner's, and the exploration tier's, judged as a benchmark
    assert Mode.values == list(cli.MODES) == list(vocabulary.SUBMISSION_MODES) == [*modes, "explore"]
    assert vocabulary.judged_as("explore") == "benchmark" and vocabulary.judged_as("test") == "test"
    # A submission's states: the judge's verdicts, and cancelled, the one final state no judge gives.
    assert State.values == ["queued", "running", *[v.value for v in Verdict], "cancelled"]
    assert list(VERDICT_STATES) == [v.value for v in Verdict]
    assert list(FINAL_STATES) == [*VERDICT_STATES, "cancelled"]


def test_the_api_schema_lists_the_same_words():
    schema = api.get_openapi_schema()
    text = str(schema)
    for key in DEVICE_KINDS:
        assert f"'{key}'" in text
    submission_in = schema["components"]["schemas"]["SubmissionIn"]["properties"]
    assert submission_in["device"]["enum"] == list(DEVICE_KINDS)
    assert submission_in["mode"]["enum"] == list(vocabulary.SUBMISSION_MODES)


def test_the_mode_plan():
    assert case_plan("test") == (CaseKind.TEST,)
    assert case_plan("benchmark") == (CaseKind.BENCHMARK,)
    assert case_plan("leaderboard") == (CaseKind.TEST, CaseKind.BENCHMARK, CaseKind.SECRET)
    assert scored_kind("leaderboard") == CaseKind.SECRET and scored_kind("benchmark") == CaseKind.BENCHMARK
