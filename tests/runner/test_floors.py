"""Physical floors (runner/floors.py): the least time a case's bytes and arithmetic can take."""

import math

from runner.floors import device_kind_from_name, floor_seconds
from runner.vocabulary import DEVICE_KINDS


def test_physical_floor():
    # 3 * 2 * 16384**2 bytes at 3.35 TB/s
    floor = floor_seconds("h100", flops=16384**2, nbytes=6 * 16384**2)
    assert math.isclose(floor, 6 * 16384**2 / 3.35e12 / 3)  # over the part's margin (runner/vocabulary.py)
    assert floor_seconds("nosuch", 1, 1) is None
    assert device_kind_from_name("NVIDIA H100 80GB HBM3") == "h100"
    assert device_kind_from_name("NVIDIA H200") == "h200"
    assert set(DEVICE_KINDS) >= {"h100", "h200", "a100", "b200", "mi300x", "cpu"}
