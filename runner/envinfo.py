"""The environment record kept with every run, and NVML energy where a driver offers it."""

from __future__ import annotations

import ctypes
import hashlib
import importlib.metadata
import os
import platform
import sys
from typing import Any


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
        "runner_image": os.environ.get("RUNNER_IMAGE_DIGEST", "none (not in a container image)"),
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
        if nvml:
            env["clocks_mhz"] = nvml.clocks()
    else:
        env["device"] = "cpu: " + env["cpu"]
    env["sys_executable"] = sys.executable
    return env


class Nvml:
    """The few NVML calls we need, through ctypes (no extra package): driver, clocks, energy."""

    _instance: Nvml | None = None
    _tried = False

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        index = int(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or 0)
        if lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.handle)) != 0:
            raise OSError("no NVML device")

    @classmethod
    def get(cls) -> Nvml | None:
        if not cls._tried:
            cls._tried = True
            try:
                lib = ctypes.CDLL("libnvidia-ml.so.1")
                if lib.nvmlInit_v2() == 0:
                    cls._instance = cls(lib)
            except OSError:
                cls._instance = None
        return cls._instance

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
