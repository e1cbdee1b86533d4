"""The Celery app: `celery -A leaderboard.celery worker --queues cpu` judges the cpu queue.

Its configuration is the CELERY_* part of leaderboard.settings (one queue per device kind, late
acknowledgement, prefetch of one, time limits).
"""

import os
import sys
from pathlib import Path

from celery import Celery
from celery.signals import celeryd_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["leaderboard.submissions"])


def make_broker_folders() -> None:
    """The filesystem broker (the embedded default) needs its folders before anything is sent: any process
    may send first (the web, a worker, `manage.py run_agent` on a fresh checkout), not only `serve`."""
    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


if str(app.conf.broker_url or "").startswith("filesystem://"):
    make_broker_folders()


@celeryd_init.connect
def refuse_unless_ready(sender=None, instance=None, conf=None, options=None, **kwargs) -> None:
    """Before the worker consumes anything: a worker that would judge more weakly than the tested default
    exits with status 78 (EX_CONFIG) and says why (leaderboard/submissions/readiness.py). Celery logs and
    swallows a receiver's exceptions, so this exits itself."""
    from leaderboard.submissions.readiness import EXIT_STATUS, worker_refusal

    queues = (options or {}).get("queues") or [q.name for q in app.conf.task_queues or []]
    if isinstance(queues, str):
        queues = queues.split(",")
    why = worker_refusal(q.strip() for q in queues)
    if why:
        print(f"kernelboard: {why}", file=sys.stderr, flush=True)
        sys.exit(EXIT_STATUS)


_beat = None  # this worker process's WorkerBeat, from ready to shutdown


@worker_ready.connect
def record_worker(sender=None, **kwargs) -> None:
    """From the moment it consumes: the worker records the device kinds it serves, and beats
    (leaderboard/submissions/workers.py), so that the site can tell which device kinds can judge now."""
    global _beat
    from leaderboard.submissions.workers import WorkerBeat

    queues = list(sender.app.amqp.queues.consume_from or {})
    _beat = WorkerBeat(name=sender.hostname, queues=queues)
    _beat.start()


@worker_shutdown.connect
def record_worker_stopped(sender=None, **kwargs) -> None:
    if _beat is not None:
        _beat.stop()
