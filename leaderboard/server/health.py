"""`/healthz/platform`: is the platform able to judge? 200 when every part answers, 503 naming the one that
does not. (`/healthz` stays the web process's own liveness probe: it checks the database only.)

- database: a query answers;
- broker: a connection opens;
- sweeper: its last completed round (`Beat` "sweeper") is recent, within SWEEP_STALE_AFTER_S;
- workers: which workers consume each device kind's queue (a broadcast ping); a queue named in
  HEALTH_EXPECTED_QUEUES with no worker fails the check.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from leaderboard.submissions.models import Beat


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": f"the database did not answer: {exc}"}


def _broker() -> dict:
    from leaderboard.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": f"the broker did not answer: {exc}"}


def _sweeper() -> dict:
    try:
        beat = Beat.objects.filter(name="sweeper").values_list("at", flat=True).first()
    except Exception:
        return {"ok": False, "error": "unknown: the database did not answer"}
    if beat is None:
        return {"ok": False, "error": "no sweeper has completed a round yet (is `manage.py sweep` running?)"}
    age = (timezone.now() - beat).total_seconds()
    limit = settings.SWEEP_STALE_AFTER_S
    if age > limit:
        return {
            "ok": False,
            "last_round_age_s": round(age, 1),
            "error": f"the sweeper's last round was {age:.0f} s ago (over {limit:g} s)",
        }
    return {"ok": True, "last_round_age_s": round(age, 1)}


def _workers() -> dict:
    from leaderboard.celery import app

    try:
        replies = app.control.inspect(timeout=settings.HEALTH_WORKER_TIMEOUT_S).active_queues() or {}
    except Exception as exc:
        return {"ok": False, "error": f"could not ask the workers: {exc}", "queues": {}}
    queues: dict[str, list[str]] = {kind: [] for kind in settings.DEVICE_KINDS}
    for worker, consumed in replies.items():
        for queue in consumed or []:
            queues.setdefault(queue["name"], []).append(worker)
    missing = [q for q in settings.HEALTH_EXPECTED_QUEUES if not queues.get(q)]
    result = {"ok": not missing, "queues": {q: sorted(w) for q, w in queues.items()}}
    if missing:
        result["error"] = f"no worker answers for the {', '.join(missing)} queue" + (
            "s" if len(missing) > 1 else ""
        )
    return result


def platform_health(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database(), "broker": _broker(), "sweeper": _sweeper(), "workers": _workers()}
    ok = all(c["ok"] for c in checks.values())
    return JsonResponse({"ok": ok, **checks}, status=200 if ok else 503)
