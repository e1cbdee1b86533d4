"""Reads of agent runs."""

from __future__ import annotations

from django.db.models import QuerySet

from leaderboard.agentruns.models import AgentRun
from leaderboard.errors import NotFound


def agent_run_list() -> QuerySet[AgentRun]:
    return AgentRun.objects.select_related("user", "submission__run")


def agent_run_get(*, run_id: int) -> AgentRun:
    run = agent_run_list().filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"There is no agent run #{run_id}.")
    return run
