"""GPU path of the judge. Needs an NVIDIA GPU: skipped here, run by scripts/gpu_check.sh on a GPU machine.

What each test proves is in docs/harness.md, "The GPU protocol"."""

import pytest

from runner import JobSpec, execute
from runner.problem import list_problems
from tests.runner import golden

pytestmark = pytest.mark.gpu

SLEEP_S = 0.5e-3  # the least time 2,000,000 cycles of torch.cuda._sleep take (at 2 GHz or less: about 1 ms)
GPU_CHEATS = ("vectoradd", "trimul")  # each GPU cheat on a problem with one input and one with a dict


def _benchmark(name: str, source: str, budget: float = 0.3):
    return execute(
        JobSpec(problem=name, source=source, mode="benchmark", device="cuda", case_budget_s=budget, call_s=30)
    )


@pytest.mark.parametrize("name", list_problems())
def test_correct_solutions_pass_on_the_gpu(name):
    for solution in golden.correct(name, device="cuda"):
        report = execute(
            JobSpec(
                problem=name, source=solution.source, mode="leaderboard", device="cuda", case_budget_s=0.5
            )
        )
        assert report.verdict == "passed", (solution.id, report.message)
        assert report.env["device_kind"] != "cpu"
        assert report.handshake_s is not None and report.handshake_s > 0  # calibrated on the GPU too
        assert all(c.stats.mean > (c.floor_s or 0) for c in report.cases if c.stats)


@pytest.mark.parametrize("name", list_problems())
def test_cheats_are_caught_on_the_gpu(name):
    for solution in golden.cheating(name):
        if solution.id.endswith("t05_side_thread.py"):
            continue  # honest on a GPU, only slower: test_a_side_stream_is_waited_for
        report = _benchmark(name, solution.source)
        assert report.verdict in {"failed", "rejected", "flagged"}, (
            solution.id,
            report.verdict,
            report.message,
        )


def _no_gain(report, solution_id: str) -> None:
    """Caught, or timed with all the work it launched: every timed case at least the device sleep."""
    if report.verdict in {"failed", "flagged"}:
        return
    assert report.verdict == "passed", (solution_id, report.verdict, report.message)
    medians = [c.stats.median for c in report.cases if c.stats]
    assert medians and min(medians) >= SLEEP_S, (solution_id, medians)


def test_a_side_stream_is_waited_for():
    """t05 on a GPU: the harness's device-wide sync waits for the side stream, so the output is right; the
    call's time holds the stream's sleep."""
    source = golden.wrap("vectoradd", (golden.CHEATS / "t05_side_thread.py").read_text())
    report = _benchmark("vectoradd", source)
    assert report.verdict == "passed", report.message
    assert (
        min(c.stats.median for c in report.cases if c.stats) >= SLEEP_S / 2
    )  # t05 sleeps half as long as g01


@pytest.mark.parametrize("name", GPU_CHEATS)
def test_gpu_cheats(name):
    for solution in golden.gpu_cheats(name):
        report = _benchmark(name, solution.source)
        if "slow" in solution.expect:  # the sync skipped: caught, or no faster than its work
            _no_gain(report, solution.id)
        else:
            assert report.verdict in solution.expect, (solution.id, report.verdict, report.message)
        assert "FOUND" not in report.logs, (solution.id, report.logs[-2000:])
        if solution.message:
            assert solution.message in (report.message or "") + " ".join(
                c.message or "" for c in report.cases
            )


def test_slot_memory_is_an_allocation_of_its_own():
    """The driver's own answer: the slots' allocation is exactly the arena, and what torch allocates for the
    judge afterwards (samples, references, snapshots) lies outside it."""
    import ctypes

    import torch

    from runner.wire.devmem import SlotArena

    arena = SlotArena.allocate(3 << 20)
    judges = [torch.empty(n, dtype=torch.uint8, device="cuda") for n in (512, 1 << 20, 5 << 20)]
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    lib = ctypes.CDLL("libcuda.so.1")
    at = ctypes.c_uint64(arena.base.data_ptr())
    assert lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), at) == 0
    assert base.value == arena.base.data_ptr() and size.value == arena.size == 4 << 20  # whole 2 MiB pages
    assert not any(base.value <= t.data_ptr() < base.value + size.value for t in judges)
    assert arena.base.count_nonzero() == 0  # zeroed: nothing of an earlier allocation shows
