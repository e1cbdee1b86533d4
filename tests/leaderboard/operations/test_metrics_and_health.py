"""/metrics (Prometheus) and /healthz/platform read the platform's real state: queues, attempts, tallies,
the sweeper's last round, the broker and the workers."""

from datetime import timedelta

from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families
from testbed import make_submission, vectoradd_source

from leaderboard.submissions.models import Beat, Submission
from leaderboard.submissions.services import submission_claim, submission_sweep
from leaderboard.submissions.tallies import RESENDS, tally


def submit(persona, device_kind="cpu", note=""):
    return make_submission(
        persona.user,
        source=vectoradd_source(note),
        mode="test" if device_kind == "cpu" else "benchmark",
        device_kind=device_kind,
    )


def scrape(client) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_metrics_count_queues_running_takebacks_and_tallies(client, problems, alice, bob, no_limits):
    old = submit(alice, note="old")
    Submission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    submit(bob, note="new")
    submit(alice, device_kind="h100", note="gpu")
    stuck = submission_claim(submission_id=submit(bob, note="stuck").pk, worker="cpu@gone")
    Submission.objects.filter(pk=stuck.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    assert submission_sweep(heartbeat_timeout_s=60, requeue_after_s=10**6).requeued == 1
    submission_claim(submission_id=submit(alice, note="busy").pk, worker="cpu@busy")
    tally(RESENDS, 3)

    samples = scrape(client)
    assert samples[("kernelboard_queue_depth", (("device_kind", "cpu"),))] == 3  # old, new, stuck again
    assert samples[("kernelboard_queue_depth", (("device_kind", "h100"),))] == 1
    assert samples[("kernelboard_queue_depth", (("device_kind", "b200"),))] == 0
    assert 590 < samples[("kernelboard_queue_oldest_age_seconds", (("device_kind", "cpu"),))] < 700
    assert samples[("kernelboard_running", (("device_kind", "cpu"),))] == 1
    assert samples[("kernelboard_takebacks_total", (("outcome", "taken_back"),))] == 1
    assert samples[("kernelboard_resends_total", ())] == 3
    assert samples[("kernelboard_late_results_dropped_total", ())] == 0


def test_platform_health_names_what_is_down(client, db, broker, settings):
    settings.HEALTH_EXPECTED_QUEUES = ["cpu"]
    settings.HEALTH_WORKER_TIMEOUT_S = 0.3
    down = client.get("/healthz/platform")
    assert down.status_code == 503
    body = down.json()
    assert body["database"] == {"ok": True} and body["broker"] == {"ok": True}
    assert "no sweeper has completed a round yet" in body["sweeper"]["error"]
    assert body["workers"]["error"] == "no worker answers for the cpu queue"

    Beat.objects.create(name="sweeper", at=timezone.now() - timedelta(hours=1))
    assert "last round was 3600 s ago" in client.get("/healthz/platform").json()["sweeper"]["error"]

    Beat.objects.filter(name="sweeper").update(at=timezone.now())
    settings.HEALTH_EXPECTED_QUEUES = []
    up = client.get("/healthz/platform")
    assert up.status_code == 200 and up.json()["ok"] is True
