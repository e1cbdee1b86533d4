"""The GPU path's pure parts, checked on the CPU: which part a device is (exactly), its floor's margin, the
L2 flush's size, and NVML finding the GPU that CUDA uses whatever CUDA_VISIBLE_DEVICES holds.

No GPU here: NVML and CUDA's answer about its device are small stand-ins (`FakeNvml`, `ids=`), the only
fakes in this file; everything else is the real code.
"""

import ctypes
import math

import pytest

from runner.floors import device_kind_from_name, floor_seconds, flush_bytes, kind_mismatch, part_from_name
from runner.judge.envinfo import Nvml, nvml_keys
from runner.vocabulary import DEVICE_KINDS, PARTS


@pytest.mark.parametrize(
    "name,kind",
    [
        ("NVIDIA H100 80GB HBM3", "h100"),  # the SXM5 part, as torch names it
        ("nvidia  h100 80gb hbm3", "h100"),  # case and spacing aside
        ("NVIDIA H100 NVL", "unknown"),  # 3.9 TB/s: not the h100 ranking's part
        ("NVIDIA H100 PCIe", "unknown"),  # 2.0 TB/s
        ("NVIDIA H200", "h200"),
        ("NVIDIA H200 NVL", "unknown"),
        ("NVIDIA A100-SXM4-80GB", "a100"),
        ("NVIDIA A100-SXM4-40GB", "unknown"),  # 1.555 TB/s, not the 80 GB part
        ("NVIDIA B200", "b200"),
        ("AMD Instinct MI300X", "mi300x"),
        ("AMD Instinct MI300X VF", "mi300x"),
        ("NVIDIA GeForce RTX 4090", "unknown"),
        ("cpu", "cpu"),
    ],
)
def test_device_kinds_are_matched_by_the_exact_part(name, kind):
    assert device_kind_from_name(name) == kind


def test_every_part_is_found_by_its_names_and_every_kind_has_its_part():
    for part in PARTS.values():
        for name in part.names:
            assert part_from_name(name) is part
    for kind in DEVICE_KINDS.values():
        assert kind.part_key in PARTS and kind.part == PARTS[kind.part_key].label
        if kind.runner_device == "cuda":
            assert device_kind_from_name(PARTS[kind.part_key].names[0]) == kind.key


def test_a_part_that_is_not_the_rankings_is_refused_in_words():
    assert kind_mismatch("h100", "NVIDIA H100 80GB HBM3") is None
    assert kind_mismatch("cpu", "AMD EPYC 7B13") is None
    why = kind_mismatch("h100", "NVIDIA H100 NVL")
    assert why is not None and "NVIDIA H100 NVL" in why and "NVIDIA H100 SXM5" in why
    assert "would not compare" in why
    why = kind_mismatch("h200", "Some Future GPU")
    assert why is not None and "'Some Future GPU'" in why and "runner/vocabulary.py" in why
    assert "no device kind 'h1000'" in (kind_mismatch("h1000", "NVIDIA H200") or "")


def test_a_floor_keeps_its_parts_margin():
    nbytes = 3 * 2 * 16384**2  # vectoradd's 16384 x 16384 fp16 case
    floor = floor_seconds("h100", flops=16384**2, nbytes=nbytes)
    assert math.isclose(floor, nbytes / 3.35e12 / PARTS["h100-sxm"].margin)
    # An honest kernel on an H100 NVL queued as h100 (3.9 TB/s at 95 %) and one whose writes the L2 took
    # at twice HBM's rate are both above the floor; a kernel that skipped the work (1 % of it) is not.
    assert nbytes / (0.95 * 3.9e12) > floor
    assert (nbytes / 3) / 3.35e12 + (2 * nbytes / 3) / 3.35e12 / 2 > floor
    assert 0.01 * nbytes / 3.35e12 < floor
    # the CPU's floor is what it was: the measured peaks, 8 times over
    assert math.isclose(floor_seconds("cpu", 0, 1e9), 1e9 / (8 * 33.9e9))
    assert floor_seconds("unknown", 1, 1) is None


def test_the_flush_is_twice_the_parts_last_level_cache():
    assert flush_bytes("h100", 50 << 20) == 100 << 20  # NVIDIA: the L2 torch reports is the last level
    assert (
        flush_bytes("mi300x", 4 << 20) == 512 << 20
    )  # torch reports one XCD's L2; the Infinity Cache is 256 MiB
    assert flush_bytes("unknown", 0) == 2 << 20  # never under 2 MiB


# ---- NVML ---------------------------------------------------------------------------------------------------


class FakeNvml:
    """A stand-in for libnvidia-ml (no GPU here): GPUs in NVML's own order (PCI order), each with a UUID,
    a PCI bus id and an energy counter, answering the same calls with NVML's return codes (0: success)."""

    def __init__(self, gpus):
        self.gpus = gpus  # [(uuid, pci bus id, energy in mJ)], NVML index = position

    @staticmethod
    def _give(ref, index):
        ref._obj.value = index + 1  # a handle: never NULL

    def nvmlInit_v2(self):
        return 0

    def nvmlDeviceGetHandleByUUID(self, uuid, ref):
        for i, (u, _bus, _mj) in enumerate(self.gpus):
            if u.encode() == uuid:
                self._give(ref, i)
                return 0
        return 6  # NVML_ERROR_NOT_FOUND

    def nvmlDeviceGetHandleByPciBusId_v2(self, bus, ref):
        for i, (_u, b, _mj) in enumerate(self.gpus):
            if b.lower().encode() == bus.lower():
                self._give(ref, i)
                return 0
        return 6

    def nvmlDeviceGetHandleByIndex_v2(self, index, ref):
        if 0 <= index < len(self.gpus):
            self._give(ref, index)
            return 0
        return 2  # NVML_ERROR_INVALID_ARGUMENT

    def nvmlDeviceGetTotalEnergyConsumption(self, handle, ref):
        ref._obj.value = self.gpus[handle.value - 1][2]
        return 0


GPUS = [
    ("GPU-0000aaaa-0000-0000-0000-000000000000", "00000000:1B:00.0", 111),
    ("GPU-0000bbbb-0000-0000-0000-000000000000", "00000000:3B:00.0", 222),
    ("MIG-0000cccc-0000-0000-0000-000000000000", "00000000:5B:00.0", 333),
]


def _open(monkeypatch, visible, cuda_uuid, cuda_bus, order=None):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    if order:
        monkeypatch.setenv("CUDA_DEVICE_ORDER", order)
    else:
        monkeypatch.delenv("CUDA_DEVICE_ORDER", raising=False)
    # CUDA's own answer (a stand-in: no GPU here): torch prints the bare UUID
    return Nvml.open(lambda: FakeNvml(GPUS), ids=lambda: (cuda_uuid, cuda_bus))


@pytest.mark.parametrize(
    "visible",
    ["GPU-0000bbbb-0000-0000-0000-000000000000", "0", "1", "MIG-GPU-0000bbbb/1/0", "GPU-0000bbbb"],
)
def test_nvml_finds_the_gpu_cuda_uses_whatever_cuda_visible_devices_holds(monkeypatch, visible):
    # CUDA, having applied CUDA_VISIBLE_DEVICES and its own order, uses the second GPU in PCI order
    nvml, why = _open(monkeypatch, visible, "0000bbbb-0000-0000-0000-000000000000", "00000000:3b:00.0")
    assert why is None and nvml is not None
    assert nvml.found == "uuid GPU-0000bbbb-0000-0000-0000-000000000000"
    assert nvml.energy_mj() == 222


def test_nvml_finds_a_mig_instance_and_falls_back_to_the_pci_bus_id(monkeypatch):
    nvml, _ = _open(
        monkeypatch, "MIG-0000cccc-0000-0000-0000-000000000000", "0000cccc-0000-0000-0000-000000000000", None
    )
    assert nvml is not None and nvml.found == "uuid MIG-0000cccc-0000-0000-0000-000000000000"
    nvml, _ = _open(monkeypatch, "0", "ffffffff-0000-0000-0000-000000000000", "00000000:1b:00.0")
    assert nvml is not None and nvml.found == "pci 00000000:1b:00.0" and nvml.energy_mj() == 111


def test_no_matching_gpu_is_a_reason_never_an_exception(monkeypatch):
    nvml, why = _open(monkeypatch, "GPU-nosuch", "ffffffff-0000-0000-0000-000000000000", None)
    assert nvml is None and "NVML has no device matching CUDA's" in why

    def no_gpu():
        raise RuntimeError("Found no NVIDIA driver on your system")

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-0000bbbb-0000-0000-0000-000000000000")
    nvml, why = Nvml.open(lambda: FakeNvml(GPUS), ids=no_gpu)
    assert nvml is None and "Found no NVIDIA driver" in why
    nvml, why = Nvml.open(lambda: ctypes.CDLL("libnvidia-ml-not-here.so.1"))
    assert nvml is None and why.startswith("no NVML library")


def test_without_cudas_answer_an_index_counts_only_in_pci_order():
    assert nvml_keys(None, None, "GPU-abc,GPU-def", None) == [("uuid", "GPU-abc")]
    assert nvml_keys(None, None, "MIG-abc", None) == [("uuid", "MIG-abc")]
    assert nvml_keys(None, None, "2", None) == []  # CUDA's default order is fastest first, not NVML's
    assert nvml_keys(None, None, "2", "PCI_BUS_ID") == [("index", "2")]
    assert nvml_keys(None, None, None, "PCI_BUS_ID") == [("index", "0")]
    assert nvml_keys("GPU-abc", "0:1:2.0", "7", None) == [
        ("uuid", "GPU-abc"),
        ("uuid", "MIG-abc"),
        ("pci", "0:1:2.0"),
    ]
