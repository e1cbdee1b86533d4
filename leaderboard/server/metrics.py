"""`/metrics`: the platform's state for Prometheus, read from the database at each scrape.

Workers and sweepers are many short or distant processes; a counter in one of them would die with it and
count one process only. So everything here is read from the rows (queues, attempts, runs) and from the
`Tally` counters the workers and sweepers keep in the database: any web process answers for the cluster.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from leaderboard.submissions.models import Attempt, Outcome, Run, State, Submission
from leaderboard.submissions.tallies import tallies
from runner.vocabulary import EXPLORE

# Tally name -> (metric name, help)
TALLIED = {
    "resends": ("kernelboard_resends", "Submission ids sent to the broker again by the sweeper"),
    "duplicate_deliveries": (
        "kernelboard_duplicate_deliveries",
        "Messages whose submission was no longer queued when a worker got them (judged nothing)",
    ),
    "late_results_dropped": (
        "kernelboard_late_results_dropped",
        "Reports of workers that finished after their attempt had been taken back",
    ),
    "heartbeat_failures": (
        "kernelboard_heartbeat_failures",
        "Heartbeats that could not reach the database",
    ),
    "broker_losses": (
        "kernelboard_broker_losses",
        "Times the sweeper found that the broker had lost its messages (or was new)",
    ),
    "publish_failures": (
        "kernelboard_publish_failures",
        "Submission ids that could not be sent to the broker",
    ),
    "reports_cut": (
        "kernelboard_reports_cut",
        "Reports the database refused whole, stored without their texts (verdict kept; an operator's alert)",
    ),
}


class PlatformCollector:
    def collect(self):
        now = timezone.now()
        depth = GaugeMetricFamily(
            "kernelboard_queue_depth", "Submissions queued (the ranked tier's)", labels=["device_kind"]
        )
        # Exploration candidates wait on queues of their own (docs/platform.md, "The exploration tier"): an
        # agent's thousand candidates must not hide a ranked queue that stopped moving.
        explore_depth = GaugeMetricFamily(
            "kernelboard_explore_queue_depth", "Exploration candidates queued", labels=["device_kind"]
        )
        oldest = GaugeMetricFamily(
            "kernelboard_queue_oldest_age_seconds",
            "Age of the oldest queued submission (since it was made)",
            labels=["device_kind"],
        )
        running = GaugeMetricFamily("kernelboard_running", "Submissions being judged", labels=["device_kind"])
        queued = {
            row["device_kind"]: row
            for row in Submission.objects.filter(state=State.QUEUED)
            .exclude(mode=EXPLORE)
            .values("device_kind")
            .annotate(n=Count("id"), first=Min("created_at"))
        }
        candidates = dict(
            Submission.objects.filter(state=State.QUEUED, mode=EXPLORE)
            .values("device_kind")
            .annotate(n=Count("id"))
            .values_list("device_kind", "n")
        )
        busy = dict(
            Submission.objects.filter(state=State.RUNNING)
            .values("device_kind")
            .annotate(n=Count("id"))
            .values_list("device_kind", "n")
        )
        for kind in settings.DEVICE_KINDS:
            row = queued.get(kind)
            depth.add_metric([kind], row["n"] if row else 0)
            oldest.add_metric([kind], (now - row["first"]).total_seconds() if row else 0)
            running.add_metric([kind], busy.get(kind, 0))
            explore_depth.add_metric([kind], candidates.get(kind, 0))
        yield from (depth, oldest, running, explore_depth)

        takebacks = CounterMetricFamily(
            "kernelboard_takebacks",
            "Attempts taken back from a worker that stopped responding, or given back by one that could not judge",
            labels=["outcome"],
        )
        ended = dict(
            Attempt.objects.filter(outcome__in=(Outcome.TAKEN_BACK, Outcome.GIVEN_BACK))
            .values("outcome")
            .annotate(n=Count("id"))
            .values_list("outcome", "n")
        )
        for outcome in (Outcome.TAKEN_BACK, Outcome.GIVEN_BACK):
            takebacks.add_metric([outcome], ended.get(outcome, 0))
        yield takebacks

        counted = tallies()
        for name, (metric, help_text) in TALLIED.items():
            family = CounterMetricFamily(metric, help_text)
            family.add_metric([], counted.get(name, 0))
            yield family

        judging = Run.objects.aggregate(
            n=Count("id"),
            total=Sum(ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())),
        )
        summary = GaugeMetricFamily(
            "kernelboard_judging_seconds", "Judging time of the runs written so far", labels=["stat"]
        )
        summary.add_metric(["count"], judging["n"] or 0)
        summary.add_metric(["sum"], judging["total"].total_seconds() if judging["total"] else 0.0)
        yield summary


def metrics(request: HttpRequest) -> HttpResponse:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(PlatformCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
