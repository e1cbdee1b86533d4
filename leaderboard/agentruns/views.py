"""The agent-run pages: a list of runs, and one run's rewards, best runtime, best kernels and entry."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboard.agentruns.selectors import agent_run_get, agent_run_list
from leaderboard.errors import NotFound
from leaderboard.web.plots import axis_seconds, line_chart


@require_safe
def run_list(request: HttpRequest) -> HttpResponse:
    return render(request, "agentruns/list.html", {"runs": agent_run_list()[:100]})


@require_safe
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    try:
        run = agent_run_get(run_id=run_id)
    except NotFound as exc:
        raise Http404(str(exc)) from exc
    steps = list(run.agent_steps.all())
    reward_chart = line_chart(
        [
            ("mean reward", [(s.step, s.mean_reward) for s in steps]),
            ("max reward", [(s.step, s.max_reward) for s in steps]),
        ],
        title="Reward per step",
        x_label="step",
        y_label="reward (x the reference's speed; 0 = failed)",
        y_format=lambda v: f"{v:g}x",
    )
    runtime_chart = line_chart(
        [("best runtime in the archive", [(s.step, s.best_runtime_s) for s in steps])],
        title="Best runtime per step",
        x_label="step",
        y_label="geometric-mean runtime",
        y_format=axis_seconds,
    )
    entry = run.submission
    return render(
        request,
        "agentruns/detail.html",
        {
            "run": run,
            "steps": steps,
            "reward_chart": reward_chart,
            "runtime_chart": runtime_chart,
            "kernels": run.best_kernels,
            "entry": entry,
            "entry_run": getattr(entry, "run", None) if entry else None,
        },
    )
