"""Shared test set-up. The runner's tests run on the CPU; tests marked `gpu` need an NVIDIA GPU and are
run by scripts/gpu_check.sh on a GPU machine."""

import pytest
import torch


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (run scripts/gpu_check.sh on a GPU machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
