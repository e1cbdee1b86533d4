"""python manage.py run_agent --problem trimul --device cpu --policy offline --steps 6 --groups 2 --rollouts 8

Runs a TTT-Discover agent with a progress bar and a line per step, stores the run and its steps, and at the
end enters the best kernel as the agent user's leaderboard submission, judged in leaderboard mode by the
same service a worker runs, and ranked with everyone else's.

With --url (and --token, or KERNELBOARD_TOKEN) the agent is a client of that server: its candidates are
judged there by the workers of the exploration tier, through the API, and the best is entered there in
leaderboard mode, as the token's user (agents/platform.py); the run and its steps are still stored here.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from leaderboard.agentruns.services import (
    agent_run_create,
    agent_run_enter,
    agent_run_fail,
    agent_run_finish,
    agent_run_record_step,
)
from leaderboard.errors import NotFound
from leaderboard.submissions.models import DeviceKind
from runner.vocabulary import DEVICE_KINDS


class Command(BaseCommand):
    help = "Run a built-in TTT-Discover agent on a problem and enter its best kernel in the rankings."

    def add_arguments(self, parser):
        from agents.runs import add_run_arguments

        add_run_arguments(parser)
        parser.add_argument("--device", default="cpu", choices=DeviceKind.values, help="device kind")
        parser.add_argument("--no-submit", action="store_true", help="do not enter the best kernel")
        parser.add_argument("--enqueue", action="store_true", help="leave the entry to the workers' queue")

    def handle(self, *args, **o):
        from tqdm import tqdm

        from agents.runs import run_from_options
        from leaderboard.problems.selectors import problem_get
        from leaderboard.problems.services import problem_sync_all

        try:
            problem_get(name=o["problem"])
        except NotFound:
            problem_sync_all()
            try:
                problem_get(name=o["problem"])
            except NotFound as exc:
                raise CommandError(str(exc)) from exc
        device = DEVICE_KINDS[o["device"]].runner_device
        out_dir = o["out"] or str(
            Path(settings.VAR_DIR)
            / "agent-runs"
            / f"{o['problem']}-{o['device']}-{o['policy']}-{o['variant']}-seed{o['seed']}"
        )
        try:
            discovery = run_from_options(
                o, device=device, out_dir=out_dir, sandbox=settings.RUNNER_SANDBOX, device_kind=o["device"]
            )
        except (ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        from dataclasses import asdict

        run = agent_run_create(
            problem=o["problem"],
            device_kind=o["device"],
            policy=o["policy"],
            variant=o["variant"],
            steps=o["steps"],
            groups=o["groups"],
            rollouts=o["rollouts"],
            seed=o["seed"],
            out_dir=out_dir,
            config=asdict(discovery.config),
        )
        self.stdout.write(f"agent run #{run.pk} ({run.user.username}); state saved in {out_dir}")
        bar = tqdm(
            total=o["steps"], initial=discovery.next_step, desc=f"{o['problem']} {o['policy']}", unit="step"
        )

        def on_step(record, d):
            agent_run_record_step(run=run, record=record, archive=d.archive, reference_s=d.verifier.unit_s)
            best = f"{record.best_runtime_s * 1e3:.3f} ms" if record.best_runtime_s else "-"
            bar.write(
                f"step {record.step}: mean reward {record.mean_reward:.3f}, max {record.max_reward:.3f}, "
                f"{record.passed}/{record.candidates} passed, best {best} (reward {record.best_reward:.3f}), "
                f"{record.seconds:.0f} s"
            )
            bar.update(1)

        try:
            discovery.start()
            for record in discovery.records:  # a resumed run: store the steps it already has
                agent_run_record_step(
                    run=run, record=record, archive=discovery.archive, reference_s=discovery.verifier.unit_s
                )
            best = discovery.run(on_step=on_step)
        except Exception as exc:
            bar.close()
            agent_run_fail(run=run, message=f"{type(exc).__name__}: {exc}")
            raise CommandError(f"the agent run failed: {exc}") from exc
        bar.close()
        if best is None:
            agent_run_fail(run=run, message="the archive is empty")
            raise CommandError("the archive is empty: no seed passed the judge")
        self.stdout.write(f"best: {best.id}, {best.runtime_s} s ({best.reward:.2f}x the reference)")
        if o["no_submit"]:
            agent_run_finish(run=run, message="finished; not entered (--no-submit)")
            return
        if o["url"]:  # entered on that server, through its API, as the token's user
            try:
                entry = discovery.verifier.enter(best.code)
            except Exception as exc:
                agent_run_fail(run=run, message=f"the entry was refused: {exc}")
                raise CommandError(f"the entry was refused: {exc}") from exc
            agent_run_finish(
                run=run, message=f"entered on {o['url']} as submission #{entry.id} ({entry.state})"
            )
            self.stdout.write(
                f"entered on {o['url']} as submission #{entry.id}: {entry.state} {entry.message}"
            )
            return
        submission = agent_run_enter(run=run, code=best.code, judge_now=not o["enqueue"])
        agent_run_finish(run=run, message=f"entered as submission #{submission.pk} ({submission.state})")
        self.stdout.write(f"entered as submission #{submission.pk}: {submission.state} {submission.message}")
