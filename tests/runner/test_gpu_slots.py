"""The GPU slots' layout and the GPU clock's arithmetic, checked on the CPU (docs/harness.md, "GPU slots").

No GPU here: where the judge's slot memory would be one device allocation (runner/wire/devmem.py's
`SlotArena.allocate`, the driver's cuMemAlloc), these tests give `SlotArena` a CPU buffer instead, and where
the judge would ask torch for the GPU's name, `check_device` is handed one. Everything else is the real code:
the layout, the views both processes make, the judge's sizing of the slots from real problems' inputs.
"""

import pytest
import torch

from runner.judge.contestant_process import Stop
from runner.judge.loop import END_PROBE_BYTES, Judge, watched
from runner.judge.slots import clone, lay_out, slot_bytes
from runner.judge.timing import ENERGY_MIN_S, Windows
from runner.problem import load_problem
from runner.spec import JobSpec
from runner.vocabulary import CaseKind
from runner.wire.devmem import SlotArena
from runner.wire.transport import ALIGN, TensorRef, tensors_of


def stand_in(size: int) -> SlotArena:
    """A job's slots over CPU memory, where a GPU's allocation would be."""
    return SlotArena(torch.zeros(size, dtype=torch.uint8))


def inside(t: torch.Tensor, arena: SlotArena) -> bool:
    start = arena.base.data_ptr()
    return start <= t.data_ptr() < start + arena.size


def test_slots_are_page_aligned_disjoint_and_inside_the_job_allocation():
    arena = stand_in(1 << 20)
    a_ref, a = arena.alloc(torch.empty(3, 5, dtype=torch.float16))
    b_ref, b = arena.alloc(torch.empty(1000, dtype=torch.float32))
    assert (a_ref.offset, b_ref.offset) == (0, ALIGN)  # 30 bytes still take a page of their own
    assert a.shape == (3, 5) and a.dtype == torch.float16 and b.shape == (1000,)
    assert inside(a, arena) and inside(b, arena)
    a.fill_(1)
    assert b.count_nonzero() == 0  # writing one slot leaves the next alone


def test_a_new_case_reuses_the_same_memory_and_the_contestant_sees_the_judges_writes():
    arena = stand_in(64 * ALIGN)
    first, _ = arena.alloc(torch.empty(4096, dtype=torch.float32))
    arena.reset()
    again, judge_view = arena.alloc(torch.empty(2, 8, dtype=torch.int64))
    assert again.offset == first.offset == 0  # allocated once per job, reused by every case
    judge_view.copy_(torch.arange(16).view(2, 8))
    contestant = SlotArena(arena.base)  # the contestant's mapping of the same memory (IPC on a GPU)
    assert torch.equal(contestant.view(again), torch.arange(16).view(2, 8))


def test_a_case_larger_than_the_slots_is_refused_and_refs_outside_them_too():
    arena = stand_in(2 * ALIGN)
    arena.alloc(torch.empty(ALIGN, dtype=torch.uint8))
    with pytest.raises(MemoryError):
        arena.alloc(torch.empty(ALIGN + 1, dtype=torch.uint8))
    for bad in (
        TensorRef("float32", (ALIGN,), 0),
        TensorRef("uint8", (1,), -ALIGN),
        TensorRef("uint8", (1,), 7),
    ):
        with pytest.raises(ValueError, match="outside the job's slots"):
            arena.view(bad)
    assert arena.view(TensorRef("float32", (0, 3), 0)).shape == (0, 3)


def test_a_gpu_case_lays_out_one_slot_in_the_job_arena_and_the_judges_copies_elsewhere():
    problem = load_problem("trimul")
    reference = problem.load_reference()
    case = problem.cases(CaseKind.TEST, "cpu")[0]
    sample = reference.generate_input(**case.params, seed=1, device="cpu")
    expected = reference.ref_kernel(clone(sample))
    arena = stand_in(slot_bytes(sample, expected))
    lay, in_refs, out_refs, fds = lay_out(sample, expected, 1, arena)
    assert fds == () and lay.arena is None  # nothing per case to send or to close
    slots = [*tensors_of(lay.inputs[0]), *lay.outputs[0]]
    assert len(slots) > 2 and all(inside(t, arena) for t in slots)
    # the judge's private copies, samples and references: never in the slots
    assert not any(inside(t, arena) for t in tensors_of((clone(sample), sample, expected)))
    assert len(out_refs[0]) == len(lay.outputs[0]) and len(in_refs) == 1


def test_the_judge_sizes_the_slots_for_the_largest_case_of_its_plan():
    judge = Judge.__new__(Judge)
    judge.device = "cpu"
    judge.problem = load_problem("vectoradd")
    judge.reference = judge.problem.load_reference()
    judge.generate_costs = []
    plan = [(c, 7, "benchmark", True) for c in judge.problem.cases(CaseKind.BENCHMARK, "cpu")]
    plan += [(c, 8, "secret", True) for c, *_ in plan]  # the same sizes again: generated once per size
    sizes = []
    for case, seed, *_ in plan[: len(plan) // 2]:
        sample = judge.reference.generate_input(**case.params, seed=seed, device="cpu")
        sizes.append(slot_bytes(sample, judge.reference.ref_kernel(clone(sample))))
    assert judge.largest_slot(plan) == max(sizes)
    assert len(judge.generate_costs) == len(plan) // 2


def test_a_gpu_call_ends_with_a_copy_of_its_outputs_and_of_every_input_it_may_return():
    out = torch.empty(8, 4)
    same, other_dtype, other_shape = (
        torch.empty(8, 4),
        torch.empty(8, 4, dtype=torch.float16),
        torch.empty(4, 8),
    )
    assert watched([out], [other_dtype, same, other_shape]) == [
        out,
        same,
    ]  # returned in place: same shape, dtype
    assert watched([], [same]) == []


def test_the_gpu_clock_subtracts_the_calibrated_hand_over_and_copy_in_and_out_of_l2():
    judge = Judge.__new__(Judge)
    judge.handshake_s = 20e-6  # an empty call's go, done and the copy of END_PROBE_BYTES
    judge.copy_s = (1e-12, 4e-12, 1_000_000)  # per byte while in L2, per byte past it, where that ends
    arena = stand_in(8 << 20)
    small = lay_out(
        (torch.empty(10, dtype=torch.int8),), torch.empty(END_PROBE_BYTES, dtype=torch.uint8), 1, arena
    )
    assert judge.call_overhead(small[0]) == pytest.approx(20e-6)  # the int8 input cannot be the output
    out = torch.empty(END_PROBE_BYTES + 2_000_000, dtype=torch.uint8)
    big = lay_out((out.clone(),), out, 1, arena)  # an input that may be returned in place: copied too
    extra = (
        2 * out.numel() - END_PROBE_BYTES
    )  # past the probe: 1,000,000 bytes at L2's rate, the rest at memory's
    assert judge.call_overhead(big[0]) == pytest.approx(20e-6 + 1e6 * 1e-12 + (extra - 1e6) * 4e-12)


def test_a_job_for_one_part_refuses_another(monkeypatch):
    judge = Judge.__new__(Judge)
    judge.spec = JobSpec(problem="vectoradd", source="", device="cuda", device_kind="h100")
    judge.platform_fault = False
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *_: "NVIDIA H100 NVL")  # no GPU here
    with pytest.raises(Stop, match="cannot judge this job: this GPU is an? .*H100 NVL"):
        judge.check_device()
    assert judge.platform_fault
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *_: "NVIDIA H100 80GB HBM3")
    judge.check_device()


def test_energy_is_reported_only_over_enough_metered_time():
    short = Windows()
    short.add(1e-3, 10, (0.5, ENERGY_MIN_S / 4))
    short.add(1e-3, 10, (0.5, ENERGY_MIN_S / 4))
    assert short.joules_per_call() is None  # NVML's counter moves in steps longer than this
    enough = Windows()
    enough.add(1e-3, 10, (0.5, ENERGY_MIN_S))
    enough.add(1e-3, 30)  # a window without a reading counts no calls
    enough.add(1e-3, 10, (1.5, ENERGY_MIN_S))
    assert enough.joules_per_call() == pytest.approx(2.0 / 20)


def test_an_ipc_handle_travels_whole_nuls_and_all():
    from runner.wire.devmem import _Handle

    raw = bytes([0, 1, 0, 255] * 16)  # CUDA's handles hold NULs: a C string would cut it at the first
    assert _Handle.of(raw).raw() == raw
    with pytest.raises(ValueError, match="64 bytes"):
        _Handle.of(raw[:63])
