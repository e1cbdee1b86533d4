"""Every rendered kernel program computes what the problem asks (checked against a local reference)."""

import itertools
import random
import types

import pytest
import torch

from agents.families import design_space
from tests.agents.trimul_reference import make_input, reference


def load(code):
    module = types.ModuleType("candidate")
    exec(compile(code, "candidate.py", "exec"), module.__dict__)
    return module.custom_kernel


def all_designs(space):
    names = [c.name for c in space.choices]
    return [
        dict(zip(names, vals, strict=True)) for vals in itertools.product(*(c.values for c in space.choices))
    ]


TRIMUL_INPUTS = [
    make_input(bs=2, seqlen=12, dim=24, hidden=16, nomask=False, seed=1),
    make_input(bs=1, seqlen=8, dim=16, hidden=16, nomask=True, seed=2),
]


@pytest.mark.parametrize("design_seed", range(4))
def test_trimul_designs_match_the_reference(design_seed):
    space = design_space("trimul", "cpu")
    designs = random.Random(design_seed).sample(all_designs(space), 60) + [space.seed]
    torch.set_num_threads(1)
    for design in designs:
        # smaller row chunks than the real ones, so that these small inputs are cut into several chunks
        code = space.render(design).replace("min(256, M)", "min(50, M)").replace("min(1024, M)", "min(7, M)")
        kernel = load(code)
        for data in TRIMUL_INPUTS:
            out = kernel(data)
            want = reference(data)
            assert out.dtype == torch.float32 and out.shape == want.shape and out.is_contiguous(), design
            assert torch.allclose(out, want, rtol=2e-2, atol=2e-2), design


def test_trimul_seed_design_is_the_reference_algorithm():
    space = design_space("trimul", "cpu")
    code = space.render(space.seed)
    assert "torch.einsum" in code and "torch.bmm" not in code and "for r0" not in code
    assert space.size() == 10368 and len({space.render(d) for d in all_designs(space)}) > 1000


def test_trimul_gpu_space_has_triton_gating():
    space = design_space("trimul", "cuda")
    code = space.render({**space.seed, "gating": "triton"})
    assert "@triton.jit" in code and "_gate[" in code
    compile(code, "candidate.py", "exec")


def test_vectoradd_designs():
    for device in ("cpu", "cuda"):
        space = design_space("vectoradd", device)
        for design in all_designs(space):
            code = space.render(design)
            if design.get("backend") == "triton":
                compile(code, "candidate.py", "exec")  # needs a GPU to run
                continue
            A, B = torch.randn(100, 30).half(), torch.randn(100, 30).half()
            A0 = A.clone()
            out = load(code)((A, B, torch.empty_like(A)))
            assert torch.allclose(out.float(), (A0 + B).float(), atol=1e-3), design
            assert torch.equal(A, A0) == (design["op"] != "inplace_a"), design  # only inplace_a writes into A


def test_unknown_problem():
    with pytest.raises(KeyError, match="no design space"):
        design_space("qr", "cpu")


def test_matmul_designs():
    a, b = torch.rand(32, 48).half(), torch.rand(48, 16).half()
    want = a.float() @ b.float()
    for device in ("cpu", "cuda"):
        space = design_space("matmul", device)
        for design in all_designs(space):
            code = space.render(design)
            if design.get("backend") == "triton":
                compile(code, "candidate.py", "exec")
                continue
            out = load(code)((a, b, torch.empty(32, 16, dtype=torch.float16)))
            assert out.dtype == torch.float16 and torch.allclose(out.float(), want, rtol=1e-2, atol=1e-2), (
                design
            )


def test_triton_programs_run_in_the_interpreter():
    # Triton's interpreter must be chosen before triton is imported, hence a process of its own.
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("triton_check.py"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "triton programs ok" in done.stdout, done.stderr[-2000:]
