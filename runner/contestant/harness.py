"""The contestant process: imports the submission and calls custom_kernel when the judge says go.

    python -m runner.contestant.harness FD      (FD: the control socket, inherited from the judge)

It runs beside untrusted code and so decides nothing: it checks outputs only so that honest mistakes get
clear messages; the judge re-checks every byte, keeps the clock and believes no number sent from here
(docs/harness.md, "Processes")."""

from __future__ import annotations

import glob
import importlib.util
import os
import socket
import sys
import traceback
from typing import Any

from runner.wire import handshake
from runner.wire.channel import Channel, ChannelClosed
from runner.wire.transport import CpuArena, TensorRef, replace_tensors, tensors_of


def describe(value: Any) -> str:
    """How a user would name what custom_kernel returned."""
    import torch

    if type(value) is torch.Tensor:
        return f"a {str(value.dtype).removeprefix('torch.')} tensor of shape {tuple(value.shape)} on {value.device}"
    if isinstance(value, torch.Tensor):
        return f"a {type(value).__name__} (a subclass of torch.Tensor)"
    return f"a {type(value).__name__}"


def describe_data(data: Any) -> str:
    """What `data` holds, as a person would write it: "a tuple of 3 (a float16 tensor of shape (64, 64),
    ...)"."""
    import torch

    if isinstance(data, torch.Tensor):
        return f"a {str(data.dtype).removeprefix('torch.')} tensor of shape {tuple(data.shape)}"
    if isinstance(data, (tuple, list)):
        inner = ", ".join(describe_data(x) for x in data)
        return f"a {type(data).__name__} of {len(data)} ({inner})"
    if isinstance(data, dict):
        return "a dict with keys " + ", ".join(repr(k) for k in data)
    return f"a {type(data).__name__}"


MISSING_MODULE = (
    "; the sandbox has torch, triton and numpy, and every problem provides `task` (input_t, output_t) and "
    "`utils` (set_seed, DeterministicContext, DisableCuDNNTF32, clear_l2_cache, clear_l2_cache_large, "
    "match_reference, make_match_reference, verbose_allclose)"
)


def hint(exc: BaseException, data: Any, device: str) -> str:
    """What to change, for the mistakes people make most with a problem's `data` and device."""
    text = str(exc)
    unpacking = "values to unpack" in text or "cannot unpack" in text
    if data is not None and isinstance(exc, (ValueError, TypeError)) and unpacking:
        return f"; for this problem `data` is {describe_data(data)}"
    cuda_only = (
        "Torch not compiled with CUDA enabled",
        "Found no NVIDIA driver",
        "no CUDA GPUs are available",
        "CUDA driver initialization failed",
    )
    # torch's CPU build finds no CUDA toolkit at all, whatever is installed: building CUDA code says
    # CUDA_HOME is not set, which is true but sends people looking for a setting instead of a GPU
    cuda_build = ("CUDA_HOME environment variable is not set", "no CUDA-capable device is detected")
    if device == "cpu" and any(sign in text for sign in cuda_build):
        return (
            "; this run is on the CPU, which has no GPU: CUDA code (load_inline's cuda_sources, a .cu "
            "extension) builds and runs only on a GPU, so submit it for a GPU device kind, or write the CPU "
            "path in PyTorch, Triton or C++ (load_inline's cpp_sources)"
        )
    if device == "cpu" and any(sign in text for sign in cuda_only):
        return (
            "; this run is on the CPU: create tensors on the inputs' device (`x.device`) instead of "
            "calling .cuda() or naming device='cuda'"
        )
    if device == "cuda" and cuda_build[0] in text:
        return "; this GPU host gave the sandbox no CUDA toolkit (nvcc): a fault of the platform, please report it"
    return ""


def cuda_homes() -> list[str]:
    """Where the CUDA toolkit may be: where CUDA's installers and NVIDIA's images put it, then a versioned
    install alone, newest first."""
    return ["/usr/local/cuda", *sorted(glob.glob("/usr/local/cuda-*"), reverse=True)]


def build_tools(
    env: dict[str, str], device: str, python: str, homes: list[str] | None = None
) -> dict[str, str]:
    """What the contestant's environment gains so that a submission builds an extension as it would at home
    (torch.utils.cpp_extension.load_inline): the sandbox hands it a bare PATH. The Python's own folder
    (ninja, which pip installs beside it) and, on a GPU, the CUDA toolkit's bin (nvcc), with CUDA_HOME.
    Appended, so the system's own tools still come first."""
    extra = [os.path.dirname(python)]
    out: dict[str, str] = {}
    if device == "cuda":
        candidates = [env.get("CUDA_HOME", ""), *(cuda_homes() if homes is None else homes)]
        home = next((h for h in candidates if h and os.access(os.path.join(h, "bin", "nvcc"), os.X_OK)), None)
        if home:
            extra.append(os.path.join(home, "bin"))
            out["CUDA_HOME"] = home
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p]
    out["PATH"] = os.pathsep.join(dict.fromkeys(path + extra))
    return out


class OutputError(Exception):
    """custom_kernel returned something other than the output the problem declares."""


def fresh_container(data: Any) -> Any:
    """`data` with every tuple, list and dict in it new, holding the same tensors and other values (the
    judge's inputs hold only these plain containers). About 1 us for vectoradd's input, 5 us for trimul's
    nested one, on the development machine: off the clock, though on a CPU within the window's CPU time."""
    return replace_tensors(data, _same)


def _same(tensor: Any) -> Any:
    return tensor


class Harness:
    def __init__(self, channel: Channel, hello: dict[str, Any]):
        self.channel = channel
        self.device = hello["device"]
        self.kernel: Any = None
        self.arena: Any = None  # the case's CpuArena, or on a GPU the job's SlotArena (runner/wire/devmem.py)
        self.old_arenas: list[CpuArena] = []
        self.inputs: list[Any] = []
        self.outputs: list[list[Any]] = []
        self.control: handshake.Control | None = None  # the go/done counters the judge shares
        self.output_dtype = "exact"  # the problem's output policy (runner.problem.Problem.output_dtype)

    def load(self, path: str) -> None:
        sys.path.insert(0, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location("submission", path)
        assert spec is not None and spec.loader is not None  # a .py path always has a loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["submission"] = module
        spec.loader.exec_module(module)
        kernel = getattr(module, "custom_kernel", None)
        if not callable(kernel):
            raise LookupError("the submission defines no function custom_kernel(data)")
        self.kernel = kernel

    def attach_slots(self, message: dict[str, Any]) -> None:
        """On a GPU: map the job's slot memory, once, before the import (runner/wire/devmem.py)."""
        from runner.wire.devmem import SlotArena

        self.arena = SlotArena.attach(message["handle"], message["size"])

    def setup_case(self, message: dict[str, Any], fds: list[int]) -> None:
        # Earlier arenas stay mapped: a submission that kept a tensor from an earlier case reads stale
        # values (and fails the check) instead of crashing on unmapped memory.
        if fds:
            self.arena = CpuArena.attach(fds[0])
            self.old_arenas.append(self.arena)
        self.inputs = [replace_tensors(s, self.arena.view, TensorRef) for s in message["inputs"]]
        self.outputs = [[self.arena.view(r) for r in refs] for refs in message["outputs"]]
        self.output_dtype = message.get("output_dtype", "exact")

    def store(self, result: Any, slot: int) -> list[int | None]:
        """Check what custom_kernel returned against the reference's output and put it where the judge
        reads it. Returns, per output tensor, the index of the input tensor it aliases (None: copied)."""
        import torch

        expected = self.outputs[slot]
        got = tensors_of(result) if isinstance(result, (tuple, list)) else [result]
        if len(expected) == 1 and isinstance(result, (tuple, list)):
            raise OutputError(f"custom_kernel returned {describe(result)}; expected one tensor")
        if len(got) != len(expected):
            raise OutputError(f"custom_kernel returned {len(got)} tensors; expected {len(expected)}")
        inputs = tensors_of(self.inputs[slot])
        aliases: list[int | None] = []
        for i, (out, want) in enumerate(zip(got, expected, strict=True)):
            which = f"output {i}" if len(expected) > 1 else "custom_kernel"
            if type(out) is not torch.Tensor:
                raise OutputError(f"{which} returned {describe(out)}; expected a plain torch.Tensor")
            widened = self.output_dtype == "floating" and out.is_floating_point() and want.is_floating_point()
            if out.dtype != want.dtype and not widened:
                raise OutputError(
                    f"{which} returned a {str(out.dtype).removeprefix('torch.')} tensor; "
                    f"expected {str(want.dtype).removeprefix('torch.')}"
                )
            if out.shape != want.shape:
                raise OutputError(f"{which} returned shape {tuple(out.shape)}; expected {tuple(want.shape)}")
            if out.device.type != want.device.type:
                raise OutputError(f"{which} returned a tensor on {out.device}; expected {want.device.type}")
            alias = next(
                (
                    j
                    for j, t in enumerate(inputs)
                    if t.data_ptr() == out.data_ptr()
                    and t.shape == out.shape
                    and t.dtype == out.dtype
                    and out.is_contiguous()
                ),
                None,
            )
            if alias is None:
                want.copy_(out)
            aliases.append(alias)
        return aliases

    def sync(self) -> None:
        if self.device == "cuda":
            import torch

            torch.cuda.synchronize()

    def run(self, k: int, per_call: bool, noop: bool, profile: bool = False) -> dict[str, Any]:
        """Call custom_kernel on slots 0..k-1, each after its own go (per_call: the judge reveals one
        input at a time, runner/wire/handshake.py): spinning on a GPU, asleep on a CPU, where spinning would be
        charged as the kernel's CPU time. With `profile`, each call runs under the torch profiler and the
        reply carries the per-operator table."""
        aliases = []
        profiler = OperatorProfile(self.device) if profile else None
        control = self.control  # the judge sends the page with its first word
        for call in range(k):
            slot = call % len(self.inputs) if self.inputs else 0  # a GPU case has one slot, reused
            # Every call gets a new container (tuple, list, dict) around the slot's tensors, as on GPU MODE,
            # where each call's input is built anew: a kernel that caches derived values in `data` then never
            # meets its own stale entries in a slot that comes back with new values. Built before the go, off
            # the clock; the tensors are the slot's, and the judge checks every output.
            data = fresh_container(self.inputs[slot]) if self.inputs and not noop else None
            if per_call:
                assert control is not None
                control.await_go(call, spin=self.device == "cuda")
            if not noop:
                try:
                    if profiler is not None:
                        result = profiler.call(self.kernel, data)
                    else:
                        result = self.kernel(data)
                        self.sync()
                    aliases.append(self.store(result, slot))
                    self.sync()
                except Exception as exc:  # the judge reports it; the traceback goes to the logs
                    if per_call:
                        assert control is not None
                        control.post(handshake.DONE, handshake.FAILED)
                    if isinstance(exc, OutputError):
                        return {"ok": False, "call": call, "kind": "output", "error": str(exc)}
                    traceback.print_exc()
                    why = f"{type(exc).__name__}: {exc}{hint(exc, self.inputs[slot], self.device)}"
                    return {"ok": False, "call": call, "kind": "raised", "error": why}
            if per_call:
                assert control is not None
                control.post(handshake.DONE, call + 1)
        if profiler is not None:
            # Nsight Compute replays the last call's input in a process of its own, after the calls
            ncu = nsight_summary(self.inputs[0], self.device) if self.inputs else None
            return {"ok": True, "aliases": aliases, "profile": profiler.table(), "ncu": ncu}
        return {"ok": True, "aliases": aliases}


PROFILE_ROWS = 100  # operators per table: the judge caps it again, believing nothing from here
NCU_TIMEOUT_S = 120
NCU_KEEP = 64 * 1024  # characters of Nsight Compute's summary sent to the judge


class OperatorProfile:
    """custom_kernel's calls under the torch profiler, one profiler session per call (so that the judge's
    output checks and copies in between are not in the table), summed per operator. On a GPU the CUDA
    activities are recorded too: each kernel's device time."""

    def __init__(self, device: str):
        self.device = device
        self.rows: dict[str, dict[str, Any]] = {}

    def call(self, kernel: Any, data: Any) -> Any:
        import torch
        from torch.profiler import ProfilerActivity, profile, record_function

        activities = [ProfilerActivity.CPU]
        if self.device == "cuda":
            activities.append(ProfilerActivity.CUDA)
        with profile(activities=activities) as prof:
            with record_function("custom_kernel"):
                result = kernel(data)
            if self.device == "cuda":
                torch.cuda.synchronize()  # the kernels end inside the session, so their times are in it
        for event in prof.key_averages():
            row = self.rows.setdefault(
                event.key,
                {
                    "name": event.key,
                    "calls": 0,
                    "self_cpu_us": 0.0,
                    "cpu_us": 0.0,
                    "self_device_us": 0.0,
                    "device_us": 0.0,
                },
            )
            row["calls"] += int(event.count)
            row["self_cpu_us"] += float(event.self_cpu_time_total)
            row["cpu_us"] += float(event.cpu_time_total)
            # torch >= 2.4 says "device"; older releases "cuda"
            row["self_device_us"] += float(getattr(event, "self_device_time_total", 0.0) or 0.0)
            row["device_us"] += float(getattr(event, "device_time_total", 0.0) or 0.0)
        return result

    def table(self) -> dict[str, Any]:
        key = "self_device_us" if self.device == "cuda" else "self_cpu_us"
        rows = sorted(self.rows.values(), key=lambda r: r[key], reverse=True)
        return {"device": self.device, "rows": rows[:PROFILE_ROWS], "more": max(0, len(rows) - PROFILE_ROWS)}


def nsight_summary(data: Any, device: str) -> dict[str, str] | None:
    """Nsight Compute on one call on `data`, where `ncu` is installed (GPU only): the input is saved to the
    scratch directory and a child process (in this same sandbox) imports the submission and calls it once
    under `ncu`, collecting the speed-of-light section at least. Returns its per-kernel summary and section
    details as text, and the details as CSV; None where there is no ncu; the error as text where it failed."""
    import shutil
    import subprocess
    import tempfile

    ncu = shutil.which("ncu")
    if device != "cuda" or ncu is None:
        return None
    import torch

    def run(command: list[str]) -> str:
        done = subprocess.run(
            command, capture_output=True, text=True, errors="replace", timeout=NCU_TIMEOUT_S
        )
        if done.returncode != 0:
            raise OSError(f"ncu exited with status {done.returncode}\n{done.stderr[-NCU_KEEP:]}")
        return done.stdout

    with tempfile.TemporaryDirectory() as scratch:
        saved, report = os.path.join(scratch, "input.pt"), os.path.join(scratch, "call")
        # clones: a slot's view would save the whole allocation of the job's slots (runner/wire/devmem.py)
        torch.save(replace_tensors(data, lambda t: t.clone()), saved)
        profile = [ncu, "--section", "SpeedOfLight", "--target-processes", "all", "--export", report, "-f"]
        profile += [
            sys.executable,
            "-m",
            "runner.contestant.harness",
            "--replay",
            sys.modules["submission"].__file__ or "",
        ]
        read = [ncu, "--import", report + ".ncu-rep"]
        try:
            run([*profile, saved])
            text = run([*read, "--print-summary", "per-kernel"]) + "\n" + run([*read, "--page", "details"])
            table = run([*read, "--page", "details", "--csv"])
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"text": f"Nsight Compute did not run: {exc}", "csv": ""}
    return {"text": text[-NCU_KEEP:], "csv": table[-NCU_KEEP:]}


def replay(path: str, saved: str) -> None:
    """The process Nsight Compute profiles: one call of custom_kernel on a saved input."""
    import torch

    harness = Harness.__new__(Harness)
    harness.load(path)
    data = torch.load(saved, weights_only=True)
    harness.kernel(data)
    torch.cuda.synchronize()


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    channel = Channel(sock)
    hello, fds = channel.recv_command()
    os.environ["OMP_NUM_THREADS"] = str(hello["threads"])
    os.environ.update(build_tools(dict(os.environ), hello["device"], sys.executable))
    if hello["device"] == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # Triton kernels run, slowly, on the CPU
    import torch

    torch.set_num_threads(hello["threads"])
    if hello["device"] == "cuda":
        torch.cuda.init()  # the driver's own threads exist before the judge counts threads
        torch.empty(1, device="cuda")
    torch.add(torch.ones(64), torch.ones(64))  # and so do the CPU runtime's
    channel.send_reply({"ok": True, "stage": "runtime"})
    harness = Harness(channel, hello)
    if fds:
        harness.control = handshake.Control(fds[0])
        os.close(fds[0])  # the mapping stays
    # Before the import, the judge calibrates with empty calls: the runtime alone, nothing of the submission.
    while True:
        message, _fds = channel.recv_command()
        if message["op"] == "slots":
            harness.attach_slots(message)
            channel.send_reply({"ok": True})
        elif message["op"] == "run":
            channel.send_reply(harness.run(message["k"], message.get("per_call", False), True))
        else:
            break  # the judge's word to import the submission
    try:
        harness.load(hello["submission"])
    except SystemExit as exc:
        channel.send_reply({"ok": False, "error": f"the submission called exit({exc.code}) while importing"})
        return
    except BaseException as exc:
        traceback.print_exc()
        where = ""
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == hello["submission"]:
                where = f" (line {tb.tb_lineno})"
            tb = tb.tb_next
        reason = str(exc) if isinstance(exc, LookupError) else f"{type(exc).__name__}: {exc}"
        reason += where + (
            MISSING_MODULE if isinstance(exc, ModuleNotFoundError) else hint(exc, None, harness.device)
        )
        channel.send_reply({"ok": False, "import": True, "error": reason})
        return
    channel.send_reply({"ok": True, "stage": "ready", "torch": torch.__version__})
    while True:
        try:
            message, fds = channel.recv_command()
        except ChannelClosed:
            return
        op = message["op"]
        if op == "case":
            harness.setup_case(message, fds)
            channel.send_reply({"ok": True})
        elif op == "run":
            reply = harness.run(
                message["k"], message.get("per_call", False), False, message.get("profile", False)
            )
            channel.send_reply(reply)
        elif op == "sync":
            harness.sync()
            channel.send_reply({"ok": True})
        elif op == "exit":
            return


if __name__ == "__main__":
    if sys.argv[1] == "--replay":  # the Nsight Compute child of a profile run (nsight_summary)
        replay(sys.argv[2], sys.argv[3])
        sys.exit(0)
    main()
    # Leave at once: lingering threads of the submission must not keep the process alive.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
