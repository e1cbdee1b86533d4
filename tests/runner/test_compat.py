"""GPU MODE submissions run unchanged: the `utils` helpers they import, lower-precision outputs where GPU
MODE accepts them, and messages that say what to change for the mistakes people make most. Judged for
real under the default sandbox."""

from __future__ import annotations

import pytest

from runner import JobSpec, execute
from tests.runner.golden import honest
from tests.runner.test_solutions import describe

pytestmark = pytest.mark.judge  # every test here starts a judge (tests/conftest.py)

QUICK = {"case_budget_s": 0.05, "call_s": 30}


def judge(problem: str, source: str, mode: str = "test"):
    return execute(JobSpec(problem=problem, source=source, mode=mode, device="cpu", **QUICK))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trimul_accepts_a_lower_precision_output_as_gpu_mode_does(dtype):
    source = (
        honest("trimul")
        + f"\n\n_fp32 = custom_kernel\n\ndef custom_kernel(data):\n    return _fp32(data).to(torch.{dtype})\n"
    )
    report = judge("trimul", "import torch\n" + source, mode="benchmark")
    assert report.verdict == "passed", describe(report)


def test_an_exact_dtype_problem_still_names_the_dtype():
    source = (
        honest("matmul") + "\n\n_h = custom_kernel\n\ndef custom_kernel(data):\n    return _h(data).float()\n"
    )
    report = judge("matmul", source)
    assert report.verdict == "failed" and "expected float16" in report.message, describe(report)


def test_the_utils_helpers_of_gpu_mode_import_and_work():
    source = """
import torch
from task import input_t, output_t
from utils import (DeterministicContext, DisableCuDNNTF32, clear_l2_cache, clear_l2_cache_large,
                   make_match_reference, match_reference, set_seed, verbose_allclose)

set_seed(7)
_check = make_match_reference(lambda data: data[0] + data[1], rtol=1e-3, atol=1e-3)


def _sum(data):
    return data[0] + data[1]


@DisableCuDNNTF32()
def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    clear_l2_cache()
    clear_l2_cache_large()
    with DeterministicContext():
        out = torch.add(A, B, out=C)
    assert verbose_allclose(out, A + B) == [] and _check(data, out)[0]
    assert match_reference(data, out, reference=_sum) == (True, "")
    assert not match_reference(data, out + 1, reference=_sum, rtol=1e-3, atol=1e-3)[0]
    return out
"""
    report = judge("vectoradd", source)
    assert report.verdict == "passed", describe(report)


def test_every_call_gets_a_new_input_container_as_on_gpu_mode():
    # GPU MODE builds each call's input anew; here a slot comes back with new values, in a new container
    # (trimul's correct/caches_in_input_dict.py is the kernel that needs it).
    source = (
        honest("vectoradd")
        + """

_honest, _seen = custom_kernel, []


def custom_kernel(data):
    assert type(data) is tuple and not any(data is old for old in _seen), "a container came back"
    _seen.append(data)
    return _honest(data)
"""
    )
    report = judge("vectoradd", source, mode="benchmark")
    assert report.verdict == "passed", describe(report)
    # Every case reuses its first slot at least three times (warm-up, probe, first window).
    assert all(case.stats is not None and case.stats.windows >= 1 for case in report.cases), describe(report)


def test_a_wrong_unpacking_is_told_what_data_holds():
    report = judge("vectoradd", "def custom_kernel(data):\n    A, B = data\n    return A + B\n")
    assert report.verdict == "error", describe(report)
    assert "for this problem `data` is a tuple of 3 (a float16 tensor" in report.message, describe(report)


def test_a_cuda_call_on_a_cpu_run_is_told_the_run_is_on_the_cpu():
    report = judge(
        "vectoradd", "def custom_kernel(data):\n    A, B, C = data\n    return (A.cuda() + B.cuda()).cpu()\n"
    )
    assert report.verdict == "error", describe(report)
    assert "this run is on the CPU: create tensors on the inputs' device" in report.message, describe(report)


def test_a_missing_module_is_named_with_what_the_problem_provides():
    report = judge("vectoradd", "import cutlass_magic\n\ndef custom_kernel(data):\n    return data[2]\n")
    assert report.verdict == "error", describe(report)
    assert "No module named 'cutlass_magic'" in report.message and "`utils` (set_seed" in report.message
