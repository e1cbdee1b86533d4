"""submission_create: what a user gets when they submit, and what they are refused."""

import base64
import json

import pytest
from django.utils import timezone
from testbed import vectoradd_source

from leaderboard.errors import LimitReached, NotFound, Refusal, SourceTooLarge
from leaderboard.problems.models import Problem
from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.services import submission_create, worker_beat


def create(persona, **overrides):
    fields = {
        "problem": "vectoradd",
        "device_kind": "cpu",
        "mode": "test",
        "language": "pytorch",
        "source": vectoradd_source(),
    }
    return submission_create(user=persona.user, **{**fields, **overrides})


def test_a_submission_is_queued_with_its_source_in_its_own_table(problems, alice):
    submission = create(alice)
    submission.refresh_from_db()
    assert submission.state == State.QUEUED
    assert submission.attempts == 0
    assert submission.problem_version == Problem.objects.get(name="vectoradd").current_version
    assert submission.source.text == vectoradd_source()
    assert len(submission.source.sha256) == 64
    assert submission.source.size_bytes == len(vectoradd_source().encode())


def test_its_id_reaches_the_cpu_queue_only_when_the_row_is_committed(
    problems, alice, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        submission = create(alice)
        assert broker.client().llen("cpu") == 0  # not before the commit
    assert len(callbacks) == 1
    callbacks[0]()
    raw = broker.client().lpop("cpu")
    message = json.loads(raw)
    assert message["headers"]["task"] == "leaderboard.judge"
    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert args == [submission.pk]  # the queue carries the id, nothing else
    assert kwargs == {}


def test_a_gpu_submission_goes_to_its_own_queue(problems, alice, broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        create(alice, device_kind="h100", language="cuda")
    assert broker.client().llen("h100") == 1
    assert broker.client().llen("cpu") == 0


def test_an_oversized_source_is_refused_with_413(problems, alice, settings):
    settings.SUBMISSION_MAX_SOURCE_BYTES = 1024
    with pytest.raises(SourceTooLarge) as refused:
        create(alice, source="x = 1\n" * 400)
    assert refused.value.status == 413
    assert "the limit is 1 KiB" in refused.value.message
    assert not Submission.objects.exists()


def test_too_many_in_flight_is_refused_with_429(problems, alice, bob, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 2
    # A worker serves cpu: queued submissions it cannot run would not count (test_nothing_traps.py).
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())
    create(alice)
    create(alice)
    with pytest.raises(LimitReached) as refused:
        create(alice)
    assert refused.value.status == 429
    assert "2 submissions queued or running" in refused.value.message
    create(bob)  # the limit is per user


def test_too_many_in_an_hour_is_refused_with_when_to_come_back(problems, alice, settings):
    settings.SUBMISSION_MAX_IN_FLIGHT = 0
    settings.SUBMISSION_MAX_PER_HOUR = 3
    for _ in range(3):
        create(alice)
    with pytest.raises(LimitReached) as refused:
        create(alice)
    assert "3 submissions in the last hour" in refused.value.message
    assert 3500 < refused.value.retry_after_s <= 3601


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"problem": "nosuch"}, "There is no problem called 'nosuch'"),
        ({"device_kind": "h1000"}, "The device kind 'h1000' is not one we know"),
        ({"mode": "fast"}, "The mode 'fast'"),
        ({"language": "fortran"}, "The language 'fortran'"),
        ({"source": "  \n"}, "The source is empty"),
        ({"language": "cuda"}, "CUDA submissions need a GPU"),
        ({"language": "triton", "mode": "leaderboard"}, "Triton runs in its interpreter"),
    ],
)
def test_refusals_say_why_in_words(problems, alice, overrides, words):
    with pytest.raises(Refusal) as refused:
        create(alice, **overrides)
    assert words in refused.value.message
    assert not Submission.objects.exists()


def test_an_unknown_problem_is_a_404(problems, alice):
    with pytest.raises(NotFound):
        create(alice, problem="nosuch")


def test_a_retired_problem_takes_no_new_submissions(problems, alice):
    Problem.objects.filter(name="vectoradd").update(is_active=False)
    with pytest.raises(Refusal, match="closed to new submissions"):
        create(alice)
