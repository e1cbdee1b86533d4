"""The judge's verdicts cannot be forged, bought or broken: tests/runner/attacks.py's attacks, each appended
to every problem's honest solution, judged for real (a judge and a contestant process pair) on the
backends this machine has; and their honest twins, which must pass unflagged.

- a forged report never passes, on any backend; a judge killed or confused by the contestant gives the
  submission a verdict of its own (`error` or `failed`), never a platform fault (which the platform retries);
- on a CPU, work spread over threads or processes beyond the job's allowance is charged as CPU time,
  processes the kernel reaps by itself included;
- threads within the allowance, and idle threads, are not flagged.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from runner import JobSpec, execute
from runner.judge.timing import geometric_mean
from runner.problem import list_problems
from runner.sandbox import get_sandbox, launch
from tests.runner import attacks, golden
from tests.runner.test_solutions import describe

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)

QUICK = {"case_budget_s": 0.05, "call_s": 30}


def _backends() -> list:
    out = [pytest.param("none", id="none"), pytest.param("bwrap", id="bwrap")]
    out.append(pytest.param("docker", id="docker", marks=pytest.mark.docker))
    return out


@pytest.fixture(params=_backends())
def backend(request) -> str:
    if request.param == "bwrap" and not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
    if request.param == "docker":
        from tests.containers.engine import require

        require()  # skips with the reason where no engine or image is here; fails instead under CI
    return request.param


def judge(problem: str, attack: str, *, mode: str = "benchmark", sandbox: str = "none", **kw):
    """The problem's honest solution (golden.honest), with `attack` appended."""
    return execute(
        JobSpec(
            problem=problem,
            source=golden.honest(problem) + attack,
            mode=mode,
            device="cpu",
            sandbox=sandbox,
            allow_unisolated=True,
            **{**QUICK, **kw},
        )
    )


def timed(report):
    return [c for c in report.cases if c.kind != "test"]


# ---- forged, killed, confused: never believed, never a platform fault ----------------------------------


def test_a_forged_report_never_passes(backend):
    report = judge("vectoradd", attacks.FORGE_REPORT, mode="leaderboard", sandbox=backend)
    assert not report.platform_fault, describe(report)
    assert report.score_s != attacks.FAKE_SCORE, describe(report)
    if backend == "none":  # it can reach and kill the judge there: the run is its own error
        assert report.verdict == "error", describe(report)
        assert "without a valid report from the judge" in report.message, describe(report)
    elif get_sandbox(backend).served() and launch.enabled():
        # A contestant forked from the fork server has its parent outside its pid namespace: getppid()
        # reads 0, and kill(0, SIGKILL) is its own process group (docs/sandbox.md, "The fork server").
        assert report.verdict == "error", describe(report)
        assert "killed by SIGKILL" in report.message, describe(report)
    else:  # a sandbox keeps it from the judge and its streams: the judge reports the honest kernel
        assert report.verdict == "passed", describe(report)
        assert all(c.stats and c.stats.median > 1e-6 for c in timed(report)), describe(report)


@pytest.mark.parametrize("problem", list_problems())
def test_a_killed_judge_is_the_submissions_error(problem):
    report = judge(problem, attacks.KILL_JUDGE)
    assert report.verdict == "error" and not report.platform_fault, describe(report)
    assert "the judge was killed by SIGKILL before it reported" in report.message, describe(report)


@pytest.mark.parametrize("shape", sorted(attacks.BAD_REPLIES))
@pytest.mark.parametrize("problem", list_problems())
def test_a_malformed_reply_is_the_submissions_failure(problem, shape):
    report = judge(problem, attacks.BAD_REPLIES[shape])
    assert report.verdict == "failed" and not report.platform_fault, describe(report)
    assert "broke the judge's protocol" in report.message, describe(report)


@pytest.mark.parametrize("attack", sorted(attacks.HANDSHAKE))
@pytest.mark.parametrize("problem", list_problems())
def test_a_harness_that_breaks_the_go_done_handshake_is_out_of_protocol(problem, attack):
    """Each call waits for its own go and says done once (runner/wire/handshake.py); a harness that answers a
    window at once, or a done for a call not yet given, ends the run `failed`, soon, not as a timeout."""
    report = judge(problem, attacks.HANDSHAKE[attack], call_s=30)
    assert report.verdict == "failed" and not report.platform_fault, describe(report)
    assert "broke the judge's protocol" in report.message, describe(report)


@pytest.mark.parametrize("problem", list_problems())
def test_a_profile_number_too_large_for_a_float_is_a_malformed_table_not_a_platform_fault(problem):
    report = judge(problem, attacks.HUGE_PROFILE_NUMBER, mode="profile")
    assert report.verdict == "passed" and not report.platform_fault, describe(report)
    assert report.profiles and all("sent a malformed profile" in p["text"] for p in report.profiles)


@pytest.mark.parametrize("problem", list_problems())
def test_alias_claims_that_do_not_hold_are_out_of_protocol(problem):
    report = judge(problem, attacks.EXTRA_ALIASES)
    assert report.verdict == "failed" and not report.platform_fault, describe(report)
    assert "a malformed list of outputs" in report.message, describe(report)


@pytest.mark.parametrize("problem", list_problems())
def test_the_shared_arena_cannot_be_shrunk(problem):
    report = judge(problem, attacks.SHRINK_ARENA)
    assert report.verdict == "error" and not report.platform_fault, describe(report)
    assert "PermissionError" in report.message and "Operation not permitted" in report.message, describe(
        report
    )


# ---- compute beyond the allowance is charged ------------------------------------------------------------


CHARGED = {"case_budget_s": 0.3}  # windows of many calls: thread start-up does not dominate them


def charged_over_once(problem: str, attack: str, enough, *, read="median", **kw):
    """Per timed case, what the attack's windows cost (`read`: the charge, or the CPU time) over an honest
    run's CPU time per call.

    The two runs are minutes of machine noise apart, and on a shared VM noise only ever adds time (stolen
    cycles count as CPU time to the guest): one case's ratio of twice the work has been seen anywhere from
    0.9 to 3.4. So where the first pair of runs does not show `enough`, up to two more pairs are run and each
    side is read by its least reading per case, the one noise touched least. An uncharged attack reads
    about 1.0 however often it is measured. Returns the ratios and the attack's last report."""
    once: dict[str, float] = {}
    charged: dict[str, float] = {}
    for _ in range(3):
        for case in timed(judge(problem, "", **kw)):
            once[case.id] = min(once.get(case.id, math.inf), case.stats.cpu_median)
        report = judge(problem, attack, **kw)
        assert report.verdict == "passed", describe(report)
        for case in timed(report):
            charged[case.id] = min(charged.get(case.id, math.inf), getattr(case.stats, read))
        ratios = {case: charged[case] / once[case] for case in charged}
        if enough(ratios):
            break
    return ratios, report


def near_twice(ratios: dict[str, float]) -> bool:
    """The cases together in twice's neighbourhood (their geometric mean), each one clear of once."""
    return (geometric_mean(list(ratios.values())) or 0) >= 1.5 and min(ratios.values()) >= 1.2


def four_times(ratios: dict[str, float]) -> bool:
    return min(ratios.values()) >= 4


@pytest.mark.parametrize("problem", list_problems())
def test_work_done_twice_on_two_threads_costs_twice(problem):
    """A window costs at least its CPU time over the allowance: doing the work twice at once on a second
    thread costs (nearly) twice the CPU time of doing it once. On an idle machine the wall clock alone would
    show about once; on a busy one the two threads share a core and the wall clock shows it too."""
    ratios, report = charged_over_once(
        problem, attacks.IN_CALL_THREAD, near_twice, mode="leaderboard", **CHARGED
    )
    assert near_twice(ratios) and report.flags == [], (ratios, describe(report))


@pytest.mark.parametrize("attack", ["AUTOREAPED_WORKER", "CGROUP_ESCAPE"])
def test_work_in_a_child_the_kernel_reaps_is_charged(job_cgroups, attack):
    """The child computes the product eight times and the parent only forks and waits: the windows cost what
    the child used, at least four times an honest call (read from /proc they cost the fork: 1 to 3 times),
    also where every process first tries to leave the job's cgroup."""
    ratios, report = charged_over_once(
        "matmul", getattr(attacks, attack), four_times, read="cpu_median", sandbox="bwrap", **CHARGED
    )
    assert report.env["cpu_time_from"] == "cgroup", describe(report)
    assert four_times(ratios), ratios


def test_an_unisolated_contestant_gets_no_cgroup_it_could_leave(job_cgroups):
    """Without a sandbox the contestant keeps uid 0 and could write itself out of a cgroup: the judge reads
    /proc instead, and says so."""
    report = judge("vectoradd", "", sandbox="none")
    assert report.verdict == "passed" and report.env["cpu_time_from"] == "proc", describe(report)


def test_a_helper_killed_inside_a_window_takes_nothing_off_its_charge(job_cgroups):
    """Helpers worked at import and are killed, one per call, by a kernel that does its work twice on two
    threads: the windows still cost both threads' work (read from /proc, each killed helper's CPU time came
    off the window's, and the charge fell to nothing)."""
    honest = judge("matmul", "", sandbox="bwrap", **CHARGED)
    report = judge("matmul", attacks.VANISHING_HELPERS, sandbox="bwrap", **CHARGED)
    assert report.verdict == "passed" and report.env["cpu_time_from"] == "cgroup", describe(report)
    once = {c.id: c.stats.cpu_median for c in timed(honest)}
    first = timed(report)[0]  # the calls that killed the helpers
    assert first.stats.cpu_median >= 1.2 * once[first.id], (first.id, first.stats, once)


def test_without_a_cgroup_the_cpu_time_is_read_from_proc_and_still_charged(job_cgroups, monkeypatch):
    """Where the host gives no cgroup, the judge reads the tree's CPU time from /proc and says so."""
    monkeypatch.setenv("RUNNER_CGROUP_PARENT", "/proc/no-cgroups-here")
    ratios, report = charged_over_once(
        "matmul", attacks.IN_CALL_THREAD, near_twice, read="cpu_median", sandbox="bwrap", **CHARGED
    )
    assert report.env["cpu_time_from"] == "proc", describe(report)
    assert near_twice(ratios), ratios


def test_work_done_while_stopped_is_held_by_the_cgroups_freezer_and_fails_under_sigstop(
    job_cgroups, monkeypatch
):
    """A helper that SIGCONTs itself works while the judge has the tree stopped. With the job's cgroup its
    freezer holds it: its timers' signals still wake it there for microseconds at a time, charged (0.1 ms
    in all, measured). Without one (SIGSTOP), it works for tenths of a second, which an honest tree never
    does: the run fails, and the honest one shows no CPU time at all while stopped."""
    report = judge("matmul", attacks.WORKS_WHILE_FROZEN, sandbox="bwrap", **CHARGED)
    assert report.verdict == "passed" and report.env["cpu_time_from"] == "cgroup", describe(report)
    assert report.env["cpu_while_frozen_s"] < 0.005, report.env

    monkeypatch.setenv("RUNNER_CGROUP_PARENT", "/proc/no-cgroups-here")
    honest = judge("matmul", "", sandbox="bwrap", **CHARGED)
    assert honest.verdict == "passed" and honest.env["cpu_while_frozen_s"] == 0, honest.env
    assert honest.env["freeze_pauses"] == 0, honest.env
    report = judge("matmul", attacks.WORKS_WHILE_FROZEN, sandbox="bwrap", **CHARGED)
    assert report.verdict == "failed", describe(report)
    assert "ran while the judge had them stopped" in report.message, report.message


@pytest.mark.parametrize("problem", ["vectoradd", "matmul"])
def test_a_double_forked_helper_stays_in_the_tree_and_dies_with_the_job(problem, tmp_path):
    """Without the subreaper the orphan would leave the tree that is frozen, charged and killed."""
    pidfile = tmp_path / "orphan.pid"
    attack = attacks.ORPHAN_SPINNER.replace("PIDFILE", repr(str(pidfile)))
    honest_threads = judge(problem, "", mode="test").env["contestant_threads"]
    report = judge(problem, attack, **CHARGED)
    assert report.verdict == "passed", describe(report)
    assert report.env["contestant_threads"]["after_import"] >= honest_threads["after_import"] + 1, report.env
    pid = int(pidfile.read_text())
    assert not (Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2])


# ---- honest twins: not flagged, not charged -------------------------------------------------------------


@pytest.mark.parametrize("problem", list_problems())
def test_an_idle_thread_started_at_import_is_not_flagged(problem):
    report = judge(problem, attacks.IDLE_THREAD_AT_IMPORT, mode="leaderboard")
    assert report.verdict == "passed" and report.flags == [], describe(report)
    assert report.env["contestant_threads"]["after_import"] > report.env["contestant_threads"]["runtime"]


@pytest.mark.parametrize("problem", list_problems())
def test_torch_threads_within_the_allowance_are_neither_flagged_nor_charged(problem):
    report = judge(problem, "", mode="leaderboard", threads=2)
    assert report.verdict == "passed" and report.flags == [], describe(report)
    for case in timed(report):  # the charge makes no honest score worse than its wall time by over 5 %
        assert case.stats.median <= 1.05 * case.stats.wall_median, (case.id, case.stats)
