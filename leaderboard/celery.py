"""The Celery app: `celery -A leaderboard.celery worker --queues cpu` judges the cpu queue.

Its configuration is the CELERY_* part of leaderboard.settings (one queue per device kind, late
acknowledgement, prefetch of one, time limits).
"""

import os
from pathlib import Path

from celery import Celery

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
