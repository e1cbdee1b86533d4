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
