"""Counters of what happens inside workers and sweepers, summed across the cluster in the database.

A Prometheus counter in a worker process would die with it and count one process only; these rows are what
/metrics reports. Counting never fails the work it counts: an error here is logged and forgotten.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError
from django.db.models import F

from leaderboard.submissions.models import Tally

logger = logging.getLogger(__name__)

DUPLICATE_DELIVERIES = "duplicate_deliveries"  # a message whose submission was no longer queued
HEARTBEAT_FAILURES = "heartbeat_failures"  # a beat that could not reach the database
LATE_RESULTS_DROPPED = "late_results_dropped"  # a report that came after its attempt was taken back
RESENDS = "resends"  # an id sent to the broker again by the sweeper
BROKER_LOSSES = "broker_losses"  # times the sweeper found the broker had lost its messages
PUBLISH_FAILURES = "publish_failures"  # an id that could not be sent (the broker was down)
REPORTS_CUT = "reports_cut"  # a report the database refused whole, stored without its texts (an alert)


def tally(name: str, by: int = 1) -> None:
    try:
        if not Tally.objects.filter(name=name).update(value=F("value") + by):
            _, created = Tally.objects.get_or_create(name=name, defaults={"value": by})
            if not created:  # another process created it in between
                Tally.objects.filter(name=name).update(value=F("value") + by)
    except DatabaseError:
        logger.warning("could not count %s", name, exc_info=True)


def tallies() -> dict[str, int]:
    return dict(Tally.objects.values_list("name", "value"))
