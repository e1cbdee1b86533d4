"""The Celery app: `celery -A leaderboard.celery worker --queues cpu` judges the cpu queue.

Its configuration is the CELERY_* part of leaderboard.settings (one queue per device kind, late
acknowledgement, prefetch of one, time limits).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["leaderboard.submissions"])
