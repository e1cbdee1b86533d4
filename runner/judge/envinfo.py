"""The environment record kept with every run, and NVML energy where a driver offers it."""

from __future__ import annotations

import ctypes
import hashlib
import importlib.metadata
import os
import platform
import sys
from collections.abc import Callable
from typing import Any

from runner import settings


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _cpu_mhz() -> float | None:
    try:
        with open("/proc/cpuinfo") as f:
            values = [float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")]
        return round(sum(values) / len(values), 1) if values else None
    except (OSError, ValueError):
        return None


def seed_hash(seed: int) -> str:
    """How a secret seed is shown until it is revealed."""
    return "sha256:" + hashlib.sha256(str(seed).encode()).hexdigest()[:16]


def collect(device: str, threads: int) -> dict[str, Any]:
    import torch

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_mhz": _cpu_mhz(),
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "runner_image": settings.get("RUNNER_IMAGE_DIGEST"),
    }
    # The installed version, read from its metadata: importing triton only to ask costs 0.1 s a job.
    try:
        env["triton"] = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        env["triton"] = None
    if device == "cuda":
        env["device"] = torch.cuda.get_device_name()
        env["cuda"] = torch.version.cuda
        nvml = Nvml.get()
        env["driver"] = nvml.driver() if nvml else None
        env["nvml"] = nvml.found if nvml else Nvml.why_not
        if nvml:
            env["clocks_mhz"] = nvml.clocks()
    else:
        env["device"] = "cpu: " + env["cpu"]
    env["sys_executable"] = sys.executable
    return env


def cuda_device_ids() -> tuple[str | None, str | None]:
    """The GPU this process's CUDA uses (its device 0), as NVML can find it: its UUID and its PCI bus id.
    CUDA has already applied CUDA_VISIBLE_DEVICES (indices, `GPU-...` UUIDs, MIG ids) and CUDA_DEVICE_ORDER
    to get there, so asking it is right whatever they hold; NVML numbers GPUs in PCI order and ignores both."""
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uuid = str(getattr(props, "uuid", "") or "") or None
    bus = None
    pci: list[int] = [getattr(props, a, -1) for a in ("pci_domain_id", "pci_bus_id", "pci_device_id")]
    if min(pci) >= 0:  # newer torch releases only
        bus = "{:08x}:{:02x}:{:02x}.0".format(*pci)
    return uuid, bus


def nvml_keys(
    uuid: str | None, pci_bus_id: str | None, visible: str | None, order: str | None
) -> list[tuple[str, str]]:
    """The ways to look CUDA's device up in NVML, most certain first: ("uuid", ...), ("pci", ...), and only
    where CUDA told neither, what CUDA_VISIBLE_DEVICES's first entry says. An index there is CUDA's
    numbering, which is NVML's only under CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default is fastest first)."""
    keys: list[tuple[str, str]] = []
    if uuid:
        # torch prints the bare UUID; NVML names a whole GPU "GPU-<uuid>" and a MIG instance "MIG-<uuid>"
        bare = uuid.removeprefix("GPU-").removeprefix("MIG-")
        keys += [("uuid", f"GPU-{bare}"), ("uuid", f"MIG-{bare}")]
    if pci_bus_id:
        keys.append(("pci", pci_bus_id))
    if keys:
        return keys
    first = (visible or "").split(",")[0].strip()
    if first.startswith(("GPU-", "MIG-")):
        keys.append(("uuid", first))
    elif (first.isdigit() or visible is None) and (order or "").strip() == "PCI_BUS_ID":
        keys.append(("index", first or "0"))
    return keys


class Nvml:
    """The few NVML calls we need, through ctypes (no extra package): driver, clocks, energy, on the GPU
    this process's CUDA uses. Never raises: where NVML is missing or cannot find that GPU, `get()` is None
    and `why_not` says why (the run goes on without energy and clocks)."""

    _instance: Nvml | None = None
    _tried = False
    why_not: str | None = None

    def __init__(self, lib: Any, keys: list[tuple[str, str]]):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        self.found = ""  # how the device was found, for the report: "uuid GPU-..."
        lookups = {
            "uuid": lambda k: lib.nvmlDeviceGetHandleByUUID(k.encode(), ctypes.byref(self.handle)),
            "pci": lambda k: lib.nvmlDeviceGetHandleByPciBusId_v2(k.encode(), ctypes.byref(self.handle)),
            "index": lambda k: lib.nvmlDeviceGetHandleByIndex_v2(int(k), ctypes.byref(self.handle)),
        }
        for how, key in keys:
            try:
                if lookups[how](key) == 0:
                    self.found = f"{how} {key}"
                    return
            except AttributeError:  # a driver too old for this lookup: try the next
                continue
        tried = ", ".join(f"{how} {key}" for how, key in keys) or "nothing to look up"
        raise LookupError(f"NVML has no device matching CUDA's ({tried})")

    @classmethod
    def get(cls) -> Nvml | None:
        if not cls._tried:
            cls._tried = True
            cls._instance, cls.why_not = cls.open(lambda: ctypes.CDLL("libnvidia-ml.so.1"))
        return cls._instance

    @classmethod
    def open(
        cls, load: Any, ids: Callable[[], tuple[str | None, str | None]] = cuda_device_ids
    ) -> tuple[Nvml | None, str | None]:
        """NVML on CUDA's device, or None and why not. `load` returns the library and `ids` says which GPU
        CUDA uses (the tests pass stand-ins for both: there is no GPU there)."""
        try:
            lib = load()
        except OSError as exc:
            return None, f"no NVML library: {exc}"
        try:
            if lib.nvmlInit_v2() != 0:
                return None, "NVML did not start (nvmlInit_v2 failed)"
            uuid, bus = ids()
            keys = nvml_keys(
                uuid, bus, os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("CUDA_DEVICE_ORDER")
            )
            return cls(lib, keys), None
        except Exception as exc:  # energy and clocks are evidence, never a reason to fail a job
            return None, f"{type(exc).__name__}: {exc}"

    def driver(self) -> str | None:
        buf = ctypes.create_string_buffer(96)
        return buf.value.decode() if self.lib.nvmlSystemGetDriverVersion(buf, 96) == 0 else None

    def clocks(self) -> dict[str, int]:
        out = {}
        for name, kind in (("graphics", 0), ("sm", 1), ("memory", 2)):
            value = ctypes.c_uint()
            if self.lib.nvmlDeviceGetClockInfo(self.handle, kind, ctypes.byref(value)) == 0:
                out[name] = value.value
        return out

    def energy_mj(self) -> int | None:
        """Total energy since the driver loaded, in millijoules (Volta and newer)."""
        value = ctypes.c_ulonglong()
        if self.lib.nvmlDeviceGetTotalEnergyConsumption(self.handle, ctypes.byref(value)) == 0:
            return value.value
        return None
