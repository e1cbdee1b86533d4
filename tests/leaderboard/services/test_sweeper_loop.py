"""The sweeper's loop (leaderboard/submissions/sweeper.py) without processes: what it does round by round."""

from unittest import mock

from django.db import OperationalError

from leaderboard.submissions.models import Beat
from leaderboard.submissions.sweeper import Sweeper


def test_a_broker_loss_found_while_the_database_is_down_is_not_forgotten(transactional_db, broker):
    said = []
    sweeper = Sweeper(say=said.append, interval_s=0, give_up_after_s=60)
    broken = OperationalError("the connection is closed")
    with mock.patch("leaderboard.submissions.sweeper.submission_sweep", side_effect=broken) as sweep:
        assert sweeper.round() is None  # the marker is found missing (a new broker), the writes fail
    assert sweep.call_args.kwargs["broker_lost"] is True
    with mock.patch("leaderboard.submissions.sweeper.submission_sweep", wraps=None) as sweep:
        sweep.return_value = mock.Mock(requeued=0, ended=0, resent=0)
        sweeper.round()  # the marker is there now; the loss is still acted on, and nothing is taken back
    assert sweep.call_args.kwargs == {"broker_lost": True, "take_back": False}
    assert Beat.objects.filter(name="sweeper").exists()
    assert any("answers again" in line for line in said)


def test_it_gives_up_after_give_up_after_s(transactional_db, broker):
    sweeper = Sweeper(say=lambda line: None, interval_s=0.05, give_up_after_s=0.3)
    with mock.patch(
        "leaderboard.submissions.sweeper.submission_sweep", side_effect=OperationalError("server closed")
    ):
        assert sweeper.run() == 1


def test_serves_loop_stops_the_platform_with_status_1_when_the_database_stays_down(
    transactional_db, broker, settings
):
    import threading

    from leaderboard.server.management.commands.serve import Command

    settings.SWEEP_INTERVAL_S = 0.05
    settings.SWEEP_GIVE_UP_S = 0.3
    command = Command()
    with mock.patch(
        "leaderboard.submissions.sweeper.submission_sweep",
        side_effect=OperationalError("the connection is closed"),
    ):
        assert command._supervise([], threading.Event()) == 1


def test_serves_loop_sweeps_again_once_the_database_answers(transactional_db, broker, settings):
    import threading

    from leaderboard.server.management.commands.serve import Command

    settings.SWEEP_INTERVAL_S = 0.05
    stop = threading.Event()
    calls = []

    def flaky(**kwargs):
        calls.append(kwargs)
        if len(calls) <= 2:
            raise OperationalError("the connection is closed")
        stop.set()
        return mock.Mock(requeued=0, ended=0, resent=0)

    with mock.patch("leaderboard.submissions.sweeper.submission_sweep", side_effect=flaky):
        assert Command()._supervise([], stop) == 0
    assert len(calls) == 3 and calls[-1]["take_back"] is False  # back, after the outage: no take-back yet
