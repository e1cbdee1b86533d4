"""The case loop: the trusted side's whole protocol for one job (runner/judge/__main__.py is the process,
docs/harness.md the design).

It owns the run seed, generates every input, keeps private copies of them, computes the reference,
checks every output, and times the contestant with its own monotonic clock around a go/done handshake.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from runner.floors import device_kind_from_name, floor_seconds, flush_bytes, kind_mismatch
from runner.judge import envinfo
from runner.judge.contestant_process import ContestantProcess, Stop
from runner.judge.profile import profile_of
from runner.judge.slots import CaseLayout, clone, lay_out, poison, rebuild, slot_bytes
from runner.judge.timing import StoppingRule, Windows
from runner.judge.verdict import summarize, uncertainty
from runner.problem import Case, Problem, call_seed, load_problem
from runner.sandbox import Job, cgroup, freeze
from runner.spec import CaseResult, JobSpec, RunReport, Stats, Verdict
from runner.vocabulary import DEVICE_KINDS, PROFILE_CALLS, CaseKind, Mode, case_plan
from runner.wire import handshake
from runner.wire.devmem import SlotArena
from runner.wire.transport import arena_bytes, same_bits, tensors_of

ARENA_CAP = 256 << 20  # the most memory one window's slots may take
MAX_SLOTS = 2048  # and the most calls one window may hold
GPU_SNAPSHOT_BYTES = 8 << 30  # device memory for a window's snapshots, kept until they are checked
WINDOW_S = {"cpu": 0.02, "cuda": 0.01}  # aim for windows this long: the handshake then costs little
JUDGE_WINDOW_S = 0.25  # and let the judge's own work per window (fresh inputs, checks) take at most this
# A case ends once its median's 95 % interval is this narrow (half its width over the median), or at its
# budget: 1 % on a CPU; 0.25 % on a GPU (about the 0.1 % relative standard error of the mean used before).
TARGET_HALF_WIDTH = {"cpu": 0.01, "cuda": 0.0025}
WARMUP_CALLS = 3  # untimed calls per timed case
OFF_CLOCK_SPIN_S = 0.001  # the least off-clock time the allowed threads past the first may spin for
# and after each call, since the judge writes the next input between calls: OpenMP's workers spin on after
# every parallel region (GOMP_SPINCOUNT=10000 spun 46 to 70 us after each vectoradd call on this VM, past
# this allowance at times; the sandbox now sets 1000)
CALL_SPIN_S = 60e-6
RAN_WHILE_STOPPED_S = 50e-6  # CPU time a tree stopped by SIGSTOP may show between freeze and thaw: honest, 0
CALIBRATION_WINDOWS = 15  # empty windows of one call, and as many of CALIBRATION_CALLS calls
CALIBRATION_CALLS = 9
END_PROBE_BYTES = 4096  # GPU: the output of the empty calls that calibrate a call's end
JUDGE_COST_SAMPLES = 64  # the judge's own cost per call: the median of this many recent calls


def window_calls(
    estimate: float | None,
    *,
    slots: int,
    window_s: float,
    judge_cost_s: float,
    calls_left: int,
    snapshots: int | None = None,
) -> int:
    """How many calls the next window holds: one alone while no per-call estimate exists (the probe);
    then enough for the window to last `window_s`, no more than the slots laid out, than the judge can
    check within JUDGE_WINDOW_S at `judge_cost_s` a call, than the case's calls left, or than the snapshots
    that fit (GPU); always at least one."""
    if estimate is None:
        k = 1
    else:
        k = int(min(slots, max(1, window_s / max(estimate, 1e-9))))
        k = min(k, max(1, int(JUDGE_WINDOW_S / max(judge_cost_s, 1e-6))), max(1, calls_left))
    if snapshots is not None:
        k = min(k, max(1, int(snapshots)))
    return k


def may_alias(t: torch.Tensor, outputs: list[torch.Tensor]) -> bool:
    """Whether an input could come back as an output (written in place and returned: Harness.store)."""
    return any(t.shape == o.shape and t.dtype == o.dtype for o in outputs)


def watched(outputs: list[torch.Tensor], inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """What a GPU call may have written its answer to, which the judge copies to end the call: the
    output slots, then the inputs that may be returned in place."""
    return [*outputs, *(t for t in inputs if may_alias(t, outputs))]


@dataclass
class CaseRun:
    """One case while it runs: its slots, its first input, the calls made, what the slots held at the last
    done (checked again at the next window and at the end)."""

    case: Case
    seed: int
    lay: CaseLayout
    slots: int
    per_call_bytes: int
    sample: Any
    calls: int = 0
    last: list[Any] = field(default_factory=list)


class CaseFailure(Exception):
    """One case went wrong but the contestant lives on: the run may go on to the next case."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _text(value: Any) -> str:
    """A message from the contestant's side, as the judge repeats it: a string, cut short."""
    return value[:500] if isinstance(value, str) and value else "unknown error"


# Told of each case as it finishes: (done, total, the case's result). The judge's process writes a signed
# `case` frame for it (runner/wire/seal.py), which the caller may show while the run goes on.
# (done, total, the case, its place among its kind's cases, their count)
OnCase = Callable[[int, int, CaseResult, int, int], None]


class Judge:
    def __init__(self, spec: JobSpec, job: Job, contestant: ContestantProcess, on_case: OnCase | None = None):
        self.spec = spec
        self.on_case = on_case
        self.job = job
        self.device = spec.device
        self.problem: Problem = load_problem(spec.problem)
        self.reference = self.problem.load_reference()
        self.limits = job.limits
        self.started = time.monotonic()
        self.deadline = contestant.deadline
        self.flags: list[dict[str, Any]] = []
        self.cases: list[CaseResult] = []
        self.contestant = contestant
        self.threads: dict[str, int] = {}  # thread counts of the contestant's tree, as evidence
        self.handshake_s: float | None = None  # an empty call's round trip, calibrated before the import
        # GPU: the judge's copy at a call's end, seconds per byte past END_PROBE_BYTES while the bytes fit
        # in L2 (just written, as a call's outputs are), per byte past that, and where that is (calibrated)
        self.copy_s = (0.0, 0.0, 0)
        self.slots: SlotArena | None = None  # GPU: the job's slot memory, sized for its largest case
        self.idle_cpu_s = 0.0  # the CPU time of the tree in an empty window, calibrated before the import
        self.idle_call_cpu_s = 0.0  # and what each empty call adds to it
        self.outside_s = 0.0  # and the wall time it spends thawed off the clock
        self.platform_fault = False
        self.frozen: list[int] = []
        self.cgroup: Path | None = (
            None  # the job's cgroup once the contestant's processes are in it (runner/sandbox/cgroup.py)
        )
        self.cgroup_refused: str | None = None  # why they could not be moved into it, for the report
        self._cpu_frozen: tuple[float, set[int]] | None = None  # the tree's CPU reading when last frozen
        self._unseen_cpu_s = 0.0  # CPU time it used while frozen, charged to the next window
        self.cpu_while_frozen_s = 0.0  # all of it, for the report
        self.generate_costs: list[float] = []  # seconds the judge took to make each call's inputs
        self.check_costs: list[float] = []  # and to check each call
        self.profiling = spec.mode == Mode.PROFILE
        self.profiles: list[dict[str, str]] = []  # profile mode: per case, its operator table (profile.py)
        self.last_reply: dict[str, Any] = {}  # the contestant's reply to the last window
        self.kind = spec.device_kind or (
            "cpu" if self.device == "cpu" else device_kind_from_name(torch.cuda.get_device_name())
        )
        self.nvml = envinfo.Nvml.get() if self.device == "cuda" else None
        self.l2_flush = None
        if self.device == "cuda":
            l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
            self.l2_flush = torch.empty(flush_bytes(self.kind, l2), dtype=torch.uint8, device="cuda")

    def flag(self, kind: str, message: str, evidence: Any = None) -> None:
        if not any(f["kind"] == kind for f in self.flags):
            self.flags.append({"kind": kind, "message": message, "evidence": evidence})

    # ---- the contestant's life -------------------------------------------------------------------------

    def start_contestant(self) -> None:
        # The runtime (torch, and CUDA on a GPU) is up but the submission not yet imported: the threads
        # counted now are the harness's own, counted from /proc, which the submission cannot fake.
        runtime = self.contestant.receive(self.limits.import_s, "starting the contestant")
        if runtime.get("ok") is not True:
            self.platform_fault = True
            raise Stop(
                Verdict.ERROR, "the contestant's runtime failed to start; this is a fault of the platform"
            )
        # The contestant waits for the word to import: what is counted and calibrated now is the runtime's own.
        self.threads["runtime"] = self.threads_now()
        self._freeze()
        if self.device == "cpu" and self.job.cgroup:
            # Nothing of the submission has run yet: every process now in the tree is the runtime's, and
            # every one the submission makes is born in the cgroup. From here the cgroup's freezer holds
            # them: the SIGSTOP that stopped them now is lifted, and the CPU time is counted afresh.
            try:
                cgroup.add(self.job.cgroup, self.frozen)
                cgroup.freeze(self.job.cgroup)
                freeze.thaw(self.frozen)
                cgroup.freeze(self.job.cgroup)  # once every woken process is back in the freezer
                freeze.settle(self.frozen)
                self.cgroup = self.job.cgroup
                self._cpu_frozen = self._cpu_now()
            except (OSError, TimeoutError) as exc:  # not allowed here after all: SIGSTOP and /proc
                self.cgroup_refused = f"the job's cgroup refused the contestant's processes: {exc}"
                with contextlib.suppress(OSError):
                    cgroup.thaw(self.job.cgroup)
                self._freeze()  # SIGSTOP holds it again, whichever step failed
        if self.slots is not None:
            message = {"op": "slots", "handle": self.slots.handle, "size": self.slots.size}
            self.contestant.request(message, self.limits.import_s, "mapping the slots")
        self.calibrate()
        self._thaw()
        ready = self.contestant.request({"op": "import"}, self.limits.import_s, "the import")
        if ready.get("ok") is not True:
            raise Stop(Verdict.ERROR, f"the submission could not be loaded: {_text(ready.get('error'))}")
        self.threads["after_import"] = self.threads_now()

    def threads_now(self) -> int:
        """Threads of every process below the judge: evidence in the report, never a verdict. Extra
        threads buy nothing on a CPU (the window's CPU time is charged), and work they do after done is
        caught by freezing and by the outputs' re-check."""
        return freeze.thread_count(freeze.descendants())

    def _freeze(self) -> None:
        """Stop the contestant's whole tree (CPU only): with the job's cgroup, its freezer, which holds every
        process it lists whatever its parent and whatever signals it arranged; else SIGSTOP along the tree."""
        if self.device != "cpu" or not self.contestant:
            return
        try:
            if self.cgroup:
                cgroup.freeze(self.cgroup)
                self.frozen = cgroup.pids(self.cgroup)
                freeze.settle(self.frozen)  # a frozen task too reads frozen a moment before it leaves its CPU
            else:
                self.frozen = freeze.freeze(self.frozen)
        except TimeoutError:
            raise Stop(Verdict.FAILED, freeze.FREEZE_FAILED) from None
        except freeze.FreezeError as exc:
            raise Stop(Verdict.FAILED, str(exc)) from None
        self._cpu_frozen = self._cpu_now()

    def _thaw(self, check: bool = True) -> tuple[float, set[int]] | None:
        """Let the frozen tree run again. Returns its CPU reading at that moment.

        SIGSTOP does not hold a tree that arranged SIGCONTs for itself (a timer can send them), which could
        then work while the judge lays out inputs (found by an attack review). The cgroup's freezer holds
        it; the microseconds its signals still cost it there are charged to the next window. Under SIGSTOP
        /proc cannot see everything such a tree does (a child born and reaped by the kernel while it was
        stopped), but an honest tree cannot run at all while stopped: CPU time used, or a process gone, in
        that time ends the run `failed` (with `check`; the run's last thaw does not look)."""
        if self.device != "cpu":
            return None
        now, ran = None, ""
        if self._cpu_frozen is not None:  # else the freeze failed: the run is stopping
            now = self._cpu_now()
            leaked = max(0.0, now[0] - self._cpu_frozen[0])
            self._unseen_cpu_s += leaked
            self.cpu_while_frozen_s += leaked
            gone = self._cpu_frozen[1] - now[1]
            if not self.cgroup and (leaked > RAN_WHILE_STOPPED_S or gone):
                ran = f"{leaked * 1e3:.2f} ms of CPU time" + (
                    f", {len(gone)} process(es) ended" if gone else ""
                )
            self._cpu_frozen = None
        if ran and check:
            raise Stop(
                Verdict.FAILED,
                f"the submission's processes ran while the judge had them stopped between timed windows ({ran})",
            )
        if self.cgroup:
            cgroup.thaw(self.cgroup)
        else:
            freeze.thaw(self.frozen)  # the pids stay known: the next freeze stops them first
        return now

    # ---- one case -----------------------------------------------------------------------------------

    def generate(self, case: Case, run_seed: int, call: int) -> Any:
        started = time.perf_counter()
        seed = call_seed(run_seed, case.seed, call)
        data = self.reference.generate_input(**case.params, seed=seed, device=self.device)
        self.generate_costs.append(time.perf_counter() - started)
        return data

    def window(
        self, lay: CaseLayout, datas: list[Any], case: Case, profile: bool = False
    ) -> tuple[float, float | None, list[Any], tuple[float, float] | None]:
        """Time one window of calls. Returns (seconds, CPU seconds of the contestant's whole tree (CPU
        only), per call (outputs, aliases, inputs) as they were at done, GPU energy). With `profile` the
        calls run under the profiler and the reply (with its table, hostile data) is kept in self.last_reply.

        On a GPU the seconds are the clock's less each call's calibrated hand-over and output copy, and the
        energy is (joules, seconds metered): NVML's counter over the whole window, scaled to the share of it
        on the clock, so that the judge's own work between calls (fresh inputs, the L2 flush) is left out."""
        k = len(datas)
        timeout = self.limits.call_s * k
        what = f"custom_kernel on {case.id}"
        command = {"op": "run", "k": k, "per_call": True, "profile": profile}
        energy = None
        if self.device == "cuda":
            energy0, started = self.nvml.energy_mj() if self.nvml else None, time.perf_counter()
            elapsed, reply, snaps = self._gpu_window(command, timeout, what, lay, datas)
            metered = time.perf_counter() - started
            energy1 = self.nvml.energy_mj() if self.nvml and energy0 is not None else None
            if energy0 is not None and energy1 is not None and metered > 0:
                energy = ((energy1 - energy0) / 1000 * min(1.0, elapsed / metered), metered)
            elapsed = max(0.0, elapsed - len(snaps) * self.call_overhead(lay))
            cpu = None
        else:
            elapsed, cpu, outside, reply, snaps = self._cpu_window(command, timeout, what, lay, datas)
            # The tree's CPU time beyond what empty calls cost it (signals, the harness's round trips),
            # and beyond what the allowed threads past the first spend spinning down off the clock (OpenMP
            # workers spin for a while after each parallel region), for at most a few times the calibrated
            # off-clock time: a submission that slows the freeze gains nothing with one thread, little
            # with more.
            spin = min(outside, max(4 * self.outside_s, OFF_CLOCK_SPIN_S) + k * CALL_SPIN_S)
            allowance = self.idle_cpu_s + k * self.idle_call_cpu_s + (self.spec.threads - 1) * spin
            cpu = max(0.0, cpu - allowance)
        self.last_reply = reply
        if reply.get("ok") is not True:
            error = _text(reply.get("error"))
            if reply.get("kind") == "output":  # it returned the wrong kind of thing
                raise CaseFailure("failed", error)
            call = reply.get("call")
            where = f" (call {call})" if type(call) is int else ""
            raise CaseFailure("error", f"custom_kernel raised {error}{where}")
        if len(snaps) != k:
            raise self.contestant.broke_protocol(f"done before every call of {case.id} was made")
        outputs = []
        shape = (len(lay.outputs[0]), len(tensors_of(lay.inputs[0])))  # outputs and inputs of every slot
        for (outs, ins), alias in zip(snaps, self._aliases(reply, k, *shape, case), strict=True):
            got = [ins[a] if a is not None else t for t, a in zip(outs, alias, strict=True)]
            outputs.append((got, alias, ins))
        self.threads["most"] = max(self.threads.get("most", 0), self.threads_now())
        return elapsed, cpu, outputs, energy

    def _aliases(
        self, reply: dict[str, Any], k: int, n_outputs: int, n_inputs: int, case: Case
    ) -> list[list]:
        """Per call, per output: the input tensor it is (the kernel wrote the answer into it and returned
        it), or None (copied into its output slot). Exactly one entry per output, each input named at most
        once: the judge then reads that output from that input, so a false claim gains nothing, and no
        input changes unchecked."""
        aliases = reply.get("aliases")
        ok = (
            type(aliases) is list
            and len(aliases) == k
            and all(
                type(call) is list
                and len(call) == n_outputs
                and all(a is None or (type(a) is int and 0 <= a < n_inputs) for a in call)
                and len({a for a in call if a is not None}) == sum(a is not None for a in call)
                for call in aliases
            )
        )
        if not ok or aliases is None:
            raise self.contestant.broke_protocol(f"a malformed list of outputs for a window of {case.id}")
        return aliases

    def _reset_counters(self) -> None:
        """go = done = 0, before a window's command: the contestant waits for that command."""
        ctl = self.contestant.control
        assert ctl is not None  # made with the contestant
        ctl[handshake.GO] = ctl[handshake.DONE] = 0

    def _calls(
        self, lay: CaseLayout | None, datas: list[Any], timeout: float, what: str
    ) -> tuple[float, list[tuple[list[torch.Tensor], list[torch.Tensor]]]]:
        """Reveal one input at a time, on every device: call i's input is written into its slot (on a GPU,
        the one slot, then L2 flushed and the device synced) only after call i-1's done, so that no harness,
        the contestant's own or one a submission put in its place, can serve several calls with one batched
        call. Each call is timed from its go to its done; the writes are off the clock. Each call's outputs
        and inputs are copied at its done: work that lands later finds its output copied as it was then.
        Returns (seconds on the clock, per call made (outputs, inputs) as copied). With no layout (the
        calibration), the calls are empty."""
        ctl = self.contestant.control
        assert ctl is not None  # made with the contestant
        gpu = self.device == "cuda"
        proc = self.contestant.proc
        # A GPU judge spins on done as it always did; a CPU judge spins a moment, then sleeps, and stops
        # waiting when the contestant died or replied on the socket before it was done (off protocol).
        spin = None if gpu else handshake.JUDGE_SPIN_S
        if gpu:
            stop = lambda: proc.poll() is not None  # noqa: E731
        else:
            stop = lambda: proc.poll() is not None or self.contestant.replied()  # noqa: E731
        total, snaps = 0, []
        for i, data in enumerate(datas):
            ins: list[torch.Tensor] = []
            outs: list[torch.Tensor] = []
            if lay is not None:
                slot = 0 if gpu else i
                ins, outs = tensors_of(lay.inputs[slot]), lay.outputs[slot]
                for dst, src in zip(ins, tensors_of(data), strict=True):
                    dst.copy_(src)
                for t in outs:
                    poison(t)
                if gpu:
                    assert self.l2_flush is not None  # made on a GPU
                    self.l2_flush.zero_()  # evict the inputs from L2: every call starts cold, as in real use
                    torch.cuda.synchronize()
            deadline = min(time.monotonic() + timeout, self.deadline)
            t0 = time.perf_counter_ns()
            if gpu:
                ctl[handshake.GO] = i + 1  # the contestant spins: no wake, nothing more on the clock
            else:
                ctl.post(handshake.GO, i + 1)
            done = ctl.await_done(i, deadline, spin, stop)
            at_done: dict[int, torch.Tensor] = {}
            if gpu:
                # The call ends when the judge's own copy of what it may have written is complete, not at the
                # contestant's word: a kernel still running (its harness's sync skipped or patched away)
                # either finishes inside the clock or is copied half-written, and fails the check. That is
                # its outputs and every input an output may be (returned in place: Harness.store).
                if done == i + 1:
                    at_done = {j: t.clone() for j, t in enumerate(watched(outs, ins))}
                torch.cuda.synchronize()
            total += time.perf_counter_ns() - t0
            if done > i + 1 or done < handshake.FAILED:  # a call it was never given: not the honest harness
                self.contestant.kill()
                raise self.contestant.broke_protocol(f"done {done} when call {i + 1} was the last one given")
            if 0 <= done <= i and time.monotonic() > deadline and not self.contestant.replied():
                if deadline >= self.deadline:
                    raise self.contestant.stop_wall()
                self.contestant.kill()
                raise Stop(Verdict.TIMEOUT, f"{what} did not finish within {timeout:g} s (its time limit)")
            if done != i + 1:
                break  # an error (-1), a death or a reply off protocol: the reply says which
            if gpu:
                copies = [at_done[j] for j in range(len(outs))]
                aliasable = iter(at_done[j] for j in range(len(outs), len(at_done)))
                inputs = [next(aliasable) if may_alias(t, outs) else t.clone() for t in ins]
                snaps.append((copies, inputs))
            else:
                snaps.append(([t.clone() for t in outs], [t.clone() for t in ins]))
        return total * 1e-9, snaps

    def check(
        self, case: Case, lay: CaseLayout, datas: list[Any], outputs: list[Any], first_call: int
    ) -> str | None:
        """Every output against the reference on the judge's private inputs, and the inputs unchanged
        (but for the output buffers the problem declares writable). Adds each call's cost to the judge's
        cost samples."""
        for slot, (data, (got, aliases, inputs_after)) in enumerate(zip(datas, outputs, strict=True)):
            # An input an output is (the kernel wrote its answer there and returned it) holds that output,
            # which is checked next: it may change. Every other input must not (unless declared writable).
            writable = set(self.problem.writable_inputs) | {a for a in aliases if a is not None}
            started = time.perf_counter()
            for j, (view, original) in enumerate(zip(inputs_after, tensors_of(data), strict=True)):
                if j not in writable and not same_bits(view, original):
                    return f"custom_kernel changed its input tensor number {j} (inputs are read-only)"
            ok, message = self.reference.check_implementation(
                clone(data), rebuild(lay.expected_structure, got)
            )
            self.check_costs.append(time.perf_counter() - started)
            if not ok:
                return f"wrong output on call {first_call + slot}: {message}"
        return None

    def judge_cost(self) -> float:
        """The judge's own seconds per call (a fresh input and its check): medians of recent calls, so that
        one slow check does not shrink every later window to one call, where the handshake would enter the
        score."""
        recent = [costs[-JUDGE_COST_SAMPLES:] or [0.0] for costs in (self.generate_costs, self.check_costs)]
        return sum(statistics.median(c) for c in recent)

    def verify_unchanged(self, lay: CaseLayout, last: list[Any], case: Case) -> None:
        """Outputs must not change after done: work finishing later escaped the clock (threat 5)."""
        if not last:
            return
        # on a GPU the one slot holds the window's last call
        entries = list(enumerate(last))[-1:] if self.device == "cuda" else list(enumerate(last))
        for slot, (got, aliases, _inputs) in entries:
            slot = 0 if self.device == "cuda" else slot
            inputs = tensors_of(lay.inputs[slot])
            for i, snapshot in enumerate(got):
                a = aliases[i] if i < len(aliases) else None
                now = inputs[a] if isinstance(a, int) and 0 <= a < len(inputs) else lay.outputs[slot][i]
                if not same_bits(now, snapshot):
                    self.flag(
                        "late-write",
                        f"an output of {case.id} changed after custom_kernel signalled done: work escaped the timer",
                        {"case": case.id, "slot": slot},
                    )
                    return

    def run_case(self, case: Case, run_seed: int, kind: str, timed: bool) -> CaseResult:
        """One case, in named steps: its slots set up, the checked warm-up (or the profiled calls), the
        timed windows until the stopping rule, the score against the physical floor; and whatever happened,
        a last look at the outputs after a device sync."""
        flops, nbytes_moved = self.problem.counts(case)
        floor = floor_seconds(self.kind, flops, nbytes_moved)
        result = CaseResult(id=case.id, kind=kind, status="passed", floor_s=floor)
        run = self.set_up(case, run_seed, timed)
        try:
            error = self.warm_up(run, timed)
            if not error and timed:
                windows, error = self.time_windows(run)
                if not error:
                    self.score(result, windows.stats(flops, nbytes_moved))
            if error:
                result.status, result.message = "failed", error
        except CaseFailure as failure:
            result.status, result.message = failure.status, failure.message
        finally:
            self.last_look(run)
        return result

    def set_up(self, case: Case, run_seed: int, timed: bool) -> CaseRun:
        """The case's first input and its reference, its slots laid out (CPU: a window's inputs at once; GPU:
        one slot, rewritten for each call) and sent to the contestant."""
        sample = self.generate(case, run_seed, 0)
        expected = self.reference.ref_kernel(clone(sample))
        per_call_bytes = arena_bytes(sample) + arena_bytes(tensors_of(expected))
        slots = max(1, min(MAX_SLOTS, ARENA_CAP // max(per_call_bytes, 1))) if timed else 1
        if self.profiling:
            slots = PROFILE_CALLS
        lay, in_refs, out_refs, fds = lay_out(
            sample, expected, slots if self.device == "cpu" else 1, self.slots
        )
        message = {
            "op": "case",
            "inputs": in_refs,
            "outputs": out_refs,
            "output_dtype": self.problem.output_dtype,
        }
        self._thaw()
        self.contestant.request(message, self.limits.call_s, "setting up a case", fds)
        self._freeze()
        return CaseRun(case, run_seed, lay, slots, per_call_bytes, sample)

    def warm_up(self, run: CaseRun, timed: bool) -> str | None:
        """The first calls: calls like any other (fresh inputs, checked), their time dropped. More than one
        when timed: the first calls also grow the allocator's heap (page faults). In profile mode, the
        profiled calls. Returns what was wrong, if anything."""
        datas = [run.sample]
        if timed:
            datas += [self.generate(run.case, run.seed, i) for i in range(1, min(WARMUP_CALLS, run.slots))]
        if self.profiling:
            datas += [self.generate(run.case, run.seed, i) for i in range(1, PROFILE_CALLS)]
        _elapsed, _cpu, outputs, _ = self.window(run.lay, datas, run.case, self.profiling)
        run.last = outputs
        error = self.check(run.case, run.lay, datas, outputs, run.calls)
        run.calls += len(datas)
        if self.profiling:  # every profiled output was checked: a wrong kernel's profile says so
            verdict = f"WRONG ({error})" if error else "checked and right"
            self.profiles.append(profile_of(run.case.id, len(datas), verdict, self.last_reply, self.device))
        return error

    def time_windows(self, run: CaseRun) -> tuple[Windows, str | None]:
        """Windows of calls until the stopping rule says enough. The first is one call alone, to size the
        others, and is not counted. The budget is the case's wall time in the judge: fresh inputs and checks
        for every call cost more than a fast kernel itself, so the calls timed adapt to what the judge can
        afford. Returns the windows and what was wrong, if anything."""
        rule = StoppingRule(TARGET_HALF_WIDTH[self.device], self.limits.case_budget_s, self.limits.max_calls)
        windows = Windows()
        estimate = None
        # The budget runs from the first timed window: time the submission spends before it (a slow first
        # call, a compile) must not buy it fewer windows, and so a wider interval to tie with.
        begun = time.monotonic()
        while not windows.done(rule, time.monotonic() - begun):
            k = window_calls(
                estimate,
                slots=run.slots,
                window_s=WINDOW_S[self.device],
                judge_cost_s=self.judge_cost(),
                calls_left=rule.max_calls - sum(windows.calls),
                # on a GPU every call's outputs are kept until checked
                snapshots=GPU_SNAPSHOT_BYTES // max(run.per_call_bytes, 1) if self.device == "cuda" else None,
            )
            self.verify_unchanged(run.lay, run.last, run.case)
            # Checked: the next window poisons these slots, so a failure inside it must not compare the
            # judge's own poison with this snapshot (a false late-write on a run that failed).
            run.last = []
            datas = [self.generate(run.case, run.seed, run.calls + i) for i in range(k)]
            elapsed, cpu, outputs, energy = self.window(run.lay, datas, run.case)
            run.last = outputs  # what the slots held at done, right or wrong
            error = self.check(run.case, run.lay, datas, outputs, run.calls)
            run.calls += k
            if error:
                return windows, error
            if estimate is None:  # the probe
                estimate = elapsed / k
                continue
            # On a CPU a window costs at least its CPU time over the job's thread allowance: work spread
            # over more threads or processes than allowed buys nothing (runner/sandbox/freeze.py).
            windows.add(elapsed, k, energy, cpu_s=None if cpu is None else cpu / self.spec.threads)
            estimate = windows.mean
            if time.monotonic() > self.deadline:
                raise self.contestant.stop_wall()
        return windows, None

    def score(self, result: CaseResult, stats: Stats) -> None:
        """The case's statistics, what charged it, and the physical floor's flag."""
        result.stats = stats
        median = stats.median
        assert median is not None  # windows.stats sets it once any window was timed
        if stats.charged_windows * 2 > stats.windows and stats.cpu_median and stats.wall_median:
            result.message = (
                f"scored by the CPU time of its threads and processes, "
                f"{stats.cpu_median / stats.wall_median:.2g} times the wall time: the job "
                f"allows {self.spec.threads} thread(s)"
            )
        floor = result.floor_s
        if floor is not None and median < floor:
            result.status = "flagged"
            result.message = (
                f"{median * 1e6:.3g} us per call is below the physical floor of "
                f"{floor * 1e6:.3g} us on {DEVICE_KINDS[self.kind].part}"
            )
            self.flag(
                "floor",
                f"{result.id}: {result.message}",
                {"case": result.id, "median_s": median, "floor_s": floor},
            )

    def last_look(self, run: CaseRun) -> None:
        """After a device sync, nothing may still be writing the outputs; then the case's arena goes."""
        if self.contestant.proc.poll() is None and run.last:
            self._thaw()
            try:
                self.contestant.request({"op": "sync"}, self.limits.call_s, "a device synchronisation")
            finally:
                self._freeze()
            self.verify_unchanged(run.lay, run.last, run.case)
        if run.lay.arena is not None:
            del run.lay.inputs, run.lay.outputs
            run.lay.arena.close()

    def _gpu_window(
        self, command: dict[str, Any], timeout: float, what: str, lay: CaseLayout | None, datas: list[Any]
    ) -> tuple[float, dict, list]:
        """Reveal and time a window's calls on a GPU. Returns (seconds on the clock, the reply, per call its
        outputs and inputs at done)."""
        self._reset_counters()
        self.contestant.send(command, what)
        elapsed, snaps = self._calls(lay, datas, timeout, what)
        torch.cuda.synchronize()
        return elapsed, self.contestant.receive(timeout, what), snaps

    def call_overhead(self, lay: CaseLayout) -> float:
        """GPU: what the clock holds of a call beyond the kernel's work: the go/done hand-over and the end
        of the call, the judge's copy of what the call may have written (calibrated before the import, with
        nothing of the submission's loaded). The harness's own device sync is not subtracted: a submission
        that patches it away must not gain what honest ones pay. Extra tensors' copy launches are not
        subtracted either: every error here is against the submission, never for it."""
        hot, cold, fits = self.copy_s
        copied = sum(t.numel() * t.element_size() for t in watched(lay.outputs[0], tensors_of(lay.inputs[0])))
        extra = max(0, copied - END_PROBE_BYTES)
        return (self.handshake_s or 0.0) + min(extra, fits) * hot + max(0, extra - fits) * cold

    def _cpu_window(
        self, command: dict[str, Any], timeout: float, what: str, lay: CaseLayout | None, datas: list[Any]
    ) -> tuple[float, float, float, dict, list]:
        """Thaw the frozen tree, reveal and time a window's calls one at a time, freeze it again. Returns
        (seconds on the clock, CPU seconds of the whole tree from thaw to freeze, seconds thawed off the
        clock, the reply, per call its outputs and inputs at done)."""
        thawed = time.perf_counter_ns()
        before = self._thaw()
        assert before is not None, "a window starts frozen"
        self._reset_counters()
        self.contestant.send(command, what)
        elapsed, snaps = self._calls(lay, datas, timeout, what)
        reply = self.contestant.receive(timeout, what)
        self._freeze()
        outside = (time.perf_counter_ns() - thawed) * 1e-9 - elapsed
        unseen, self._unseen_cpu_s = self._unseen_cpu_s, 0.0
        return elapsed, self._cpu_since(before) + unseen, outside, reply, snaps

    def _cpu_now(self) -> tuple[float, set[int]]:
        """The contestant's CPU seconds so far, with the pids alive where they were read from /proc."""
        if self.cgroup:
            return cgroup.cpu_seconds(self.cgroup), set()
        return freeze.cpu_seconds(self.frozen)

    def _cpu_since(self, before: tuple[float, set[int]]) -> float:
        """The contestant's CPU seconds since `before`. From the cgroup: exact, whatever its processes did.
        From /proc: a process that ended meanwhile is known to the clock tick only, so it is charged a tick
        more; the CPU time of one the kernel reaped by itself is not seen (runner/sandbox/cgroup.py)."""
        cpu0, alive0 = before
        if self.cgroup:
            return cgroup.cpu_seconds(self.cgroup) - cpu0
        cpu1, alive1 = freeze.cpu_seconds(self.frozen)
        born_dead = set(self.frozen) - alive0 - alive1
        return cpu1 - cpu0 + len((alive0 - alive1) | born_dead) * freeze.TICK_S

    def calibrate(self) -> None:
        """Before the import, with the runtime alone, windows of empty calls. On a CPU: the go/done round
        trip of one call (reported beside the score, never subtracted), the CPU time of an empty window and
        of each empty call in it, and the off-clock time of a window (all allowed in every window). On a
        GPU: the round trip with the harness's device sync and the judge's copy of the outputs, both
        subtracted from every call (call_overhead), so that a call's time is the kernel's, as CUDA events
        would read it."""
        if self.device == "cuda":
            self._calibrate_gpu()
            return

        def empty(k: int) -> tuple[float, float, float, dict, list]:
            command = {"op": "run", "k": k, "per_call": True}
            return self._cpu_window(command, self.limits.call_s * k, "calibration", None, [None] * k)

        one = [empty(1) for _ in range(CALIBRATION_WINDOWS)]
        many = [empty(CALIBRATION_CALLS) for _ in range(CALIBRATION_WINDOWS)]
        per_call = statistics.median(s[1] for s in many) - statistics.median(s[1] for s in one)
        self.idle_call_cpu_s = max(0.0, per_call / (CALIBRATION_CALLS - 1))
        self.idle_cpu_s = max(0.0, statistics.median(s[1] for s in one) - self.idle_call_cpu_s)
        self.handshake_s = statistics.median(s[0] / CALIBRATION_CALLS for s in many)
        self.outside_s = statistics.median(s[2] for s in one)

    def _calibrate_gpu(self) -> None:
        """The end of a call as _calls makes it, with an empty call: go, done, the judge's copy of a 4 KiB
        output, its sync (the least of 15 windows, so that a busy moment is not subtracted from every call);
        then the copy's device time per byte, on CUDA events: of bytes just written (in L2, as a call's
        outputs mostly are) up to half the L2, and of bytes in memory past that."""
        assert self.slots is not None and self.l2_flush is not None  # made before the contestant starts
        probe = torch.empty(END_PROBE_BYTES // 4, dtype=torch.float32, device="cuda")
        lay = lay_out((), probe, 1, self.slots)[0]
        command = {"op": "run", "k": CALIBRATION_CALLS, "per_call": True}
        timeout = self.limits.call_s * CALIBRATION_CALLS
        windows = [
            self._gpu_window(command, timeout, "calibration", lay, [()] * CALIBRATION_CALLS)[0]
            for _ in range(CALIBRATION_WINDOWS)
        ]
        self.handshake_s = min(windows) / CALIBRATION_CALLS
        fits = min(self.l2_flush.numel() // 4, self.slots.size)  # the flush is twice the L2: half the L2
        small = self._copy_time(END_PROBE_BYTES, cold=False)
        hot = (self._copy_time(fits, cold=False) - small) / max(fits - END_PROBE_BYTES, 1)
        cold = hot
        if self.slots.size > 2 * fits:
            big = min(8 * fits, self.slots.size)
            cold = (self._copy_time(big, cold=True) - small) / (big - END_PROBE_BYTES)
        self.copy_s = (max(0.0, hot), max(0.0, cold), max(0, fits - END_PROBE_BYTES))

    def _copy_time(self, size: int, cold: bool) -> float:
        """The device's seconds for the judge to copy `size` bytes of the slots (the least of 15), just
        written, or with L2 flushed first (`cold`)."""
        assert self.slots is not None and self.l2_flush is not None
        view = self.slots.base[:size]
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(CALIBRATION_WINDOWS):
            if cold:
                self.l2_flush.zero_()
            else:
                view.fill_(1)
            start.record()
            view.clone()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e-3)
        return min(times)

    # ---- the whole run ---------------------------------------------------------------------------------

    def plan(self, run_seed: int) -> list[tuple[Case, int, str, bool]]:
        """(case, run seed, kind, timed) in the order the mode runs them."""
        secret = call_seed(run_seed, 0x5EC12E7, 0)  # the secret run's seed, derived inside the judge
        return [
            (
                c,
                secret if kind == CaseKind.SECRET else run_seed,
                kind,
                kind != CaseKind.TEST and not self.profiling,
            )
            for kind in case_plan(self.spec.mode)
            for c in self.problem.cases(CaseKind.BENCHMARK if kind == CaseKind.SECRET else kind, self.device)
        ]

    def run(self, run_seed: int, isolation: str) -> RunReport:
        report = RunReport(
            verdict=Verdict.PASSED, problem=self.spec.problem, mode=self.spec.mode, device=self.device
        )
        report.limits = self.limits.to_dict()
        report.isolation = isolation
        plan = self.plan(run_seed)
        stopped = None
        try:
            if self.device == "cuda":
                self.check_device()
                self.slots = SlotArena.allocate(self.largest_slot(plan))
            self.start_contestant()
            self._freeze()
            report.handshake_s = self.handshake_s
            for i, (case, seed, kind, timed) in enumerate(plan):
                result = self.run_case(case, seed, kind, timed)
                self.cases.append(result)
                if self.on_case:
                    kinds = [k for _c, _s, k, _t in plan]
                    self.on_case(i + 1, len(plan), result, kinds[: i + 1].count(kind), kinds.count(kind))
                if result.status in ("failed", "error") and self.spec.mode != "test":
                    self._skip_rest(plan[i + 1 :], "skipped: an earlier case failed")
                    break
        except Stop as stop:
            stopped = (stop.verdict, stop.message)
            done = {c.id + c.kind for c in self.cases}
            rest = [p for p in plan if p[0].id + p[2] not in done]
            if rest:
                self.cases.append(
                    CaseResult(id=rest[0][0].id, kind=rest[0][2], status=stop.verdict, message=stop.message)
                )
                self._skip_rest(rest[1:], "skipped: the run stopped")
        finally:
            self._thaw(check=False)
            if self.contestant:
                self.contestant.close()
        report.cases = self.cases
        report.profiles = self.profiles
        report.flags = self.flags
        report.platform_fault = self.platform_fault
        report.logs = self.contestant.log.text() if self.contestant else ""
        report.verdict, report.message, report.score_s = summarize(
            stopped=stopped,
            cases=self.cases,
            flags=self.flags,
            mode=self.spec.mode,
            ranking_by=self.problem.ranking_by,
        )
        if report.score_s is not None:
            report.score_low_s, report.score_high_s, report.score_note = uncertainty(
                self.cases, self.spec.mode, self.problem.ranking_by
            )
        return report

    def check_device(self) -> None:
        """A ranking holds one part's times: a job for a device kind runs on that kind's part only."""
        why = (
            kind_mismatch(self.spec.device_kind, torch.cuda.get_device_name())
            if self.spec.device_kind
            else None
        )
        if why:
            self.platform_fault = True
            raise Stop(Verdict.ERROR, f"this worker's GPU cannot judge this job: {why}")

    def largest_slot(self, plan: list[tuple[Case, int, str, bool]]) -> int:
        """The bytes of the largest call slot among the plan's cases (one input and its reference output
        each, once per distinct size): the job's slot memory is allocated once, at this size."""
        most, seen = 0, set()
        for case, seed, _kind, _timed in plan:
            key = repr(sorted(case.params.items()))
            if key in seen:
                continue
            seen.add(key)
            sample = self.generate(case, seed, 0)
            most = max(most, slot_bytes(sample, self.reference.ref_kernel(clone(sample))))
            del sample
        return most

    def _skip_rest(self, rest, why: str) -> None:
        for case, _seed, kind, _timed in rest:
            self.cases.append(CaseResult(id=case.id, kind=kind, status="skipped", message=why))
