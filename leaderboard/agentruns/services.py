"""Writes of agent runs: create one, record each step, enter the best kernel, finish or fail.

The agent enters the leaderboard through the same service as a person (submissions.services): its best
kernel becomes a leaderboard-mode Submission of its agent user, judged by the same runner with a fresh
secret seed and ranked by the same selector.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from leaderboard.accounts.services import user_get_or_create
from leaderboard.agentruns.models import AgentRun, AgentStep
from leaderboard.submissions.judging import submission_judge
from leaderboard.submissions.languages import language_of
from leaderboard.submissions.models import Mode, Submission
from leaderboard.submissions.services import submission_create

BEST_KERNELS_SHOWN = 8


def agent_username(*, policy: str, variant: str = "ttt-discover") -> str:
    return f"{variant}-{policy}"


def agent_run_create(
    *,
    problem: str,
    device_kind: str,
    policy: str,
    variant: str,
    steps: int,
    groups: int,
    rollouts: int,
    seed: int,
    out_dir: str,
    config: dict[str, Any] | None = None,
) -> AgentRun:
    """A running AgentRun owned by the agent user of `policy` (made, marked as an agent, if missing)."""
    user, _ = user_get_or_create(username=agent_username(policy=policy, variant=variant), is_agent=True)
    return AgentRun.objects.create(
        user=user,
        problem=problem,
        device_kind=device_kind,
        policy=policy,
        variant=variant,
        steps=steps,
        groups=groups,
        rollouts=rollouts,
        seed=seed,
        config=config or {},
        out_dir=out_dir,
    )


def _best_kernels(archive: Any) -> list[dict[str, Any]]:
    out = []
    for state in archive.ranked()[:BEST_KERNELS_SHOWN]:
        out.append(
            {
                "id": state.id,
                "reward": state.reward,
                "runtime_s": state.runtime_s,
                "step": state.step,
                "seed": state.seed,
                "visits": state.n,
                "lineage": [a.id for a in reversed(archive.ancestors(state.id))],  # root first
                "program": _describe(state.meta.get("program")),
                "rewrites": state.meta.get("rewrites") or [],
                "template": state.meta.get("template"),
                "code": state.code,
            }
        )
    return out


def _describe(program: list[dict[str, Any]] | None) -> str | None:
    """A program of the offline agent's space on one line (its steps and their attributes)."""
    from agents.programs import Program

    return Program.from_json(program).describe() if program else None


def agent_run_record_step(
    *, run: AgentRun, record: Any, archive: Any, reference_s: float | None
) -> AgentStep:
    """Store one step's record (again, if a resumed run repeats it) and the archive's best kernels."""
    from dataclasses import asdict

    with transaction.atomic():
        step, _ = AgentStep.objects.update_or_create(
            run=run,
            step=record.step,
            defaults={
                "mean_reward": record.mean_reward,
                "max_reward": record.max_reward,
                "best_reward": record.best_reward,
                "best_runtime_s": record.best_runtime_s,
                "passed": record.passed,
                "candidates": record.candidates,
                "seconds": record.seconds,
                "record": asdict(record),
            },
        )
        run.reference_s = reference_s
        run.best_runtime_s = record.best_runtime_s
        run.best_kernels = _best_kernels(archive)
        run.save(update_fields=["reference_s", "best_runtime_s", "best_kernels"])
    return step


def agent_run_enter(*, run: AgentRun, code: str, judge_now: bool = True) -> Submission:
    """Enter `code` as the agent user's leaderboard submission. With judge_now the submission is judged in
    this process by the same service a worker runs (claimed first, so a worker that also got its id finds
    nothing to do); otherwise a worker judges it from the queue."""
    submission = submission_create(
        user=run.user,
        problem=run.problem,
        device_kind=run.device_kind,
        mode=Mode.LEADERBOARD,
        language=language_of(code),
        source=code,
        judged_here=judge_now,  # no worker needed
    )
    run.submission = submission
    run.save(update_fields=["submission"])
    if judge_now:
        submission_judge(submission_id=submission.pk, worker=f"agent-run-{run.pk}")
        submission.refresh_from_db()
    return submission


def agent_run_finish(*, run: AgentRun, message: str = "") -> None:
    AgentRun.objects.filter(pk=run.pk).update(
        state=AgentRun.State.FINISHED, message=message, finished_at=timezone.now()
    )
    run.refresh_from_db()


def agent_run_fail(*, run: AgentRun, message: str) -> None:
    AgentRun.objects.filter(pk=run.pk).update(
        state=AgentRun.State.FAILED, message=message, finished_at=timezone.now()
    )
    run.refresh_from_db()
