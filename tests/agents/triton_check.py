"""Runs the Triton kernel programs of the program spaces under TRITON_INTERPRET=1 (see test_programs)."""

import importlib.util
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from trimul_reference import make_input, reference  # noqa: E402

from agents.programs import program_space  # noqa: E402


def load(code):
    # triton.jit reads the kernel's source from its file, so the program is written to one
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location("candidate", f.name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.custom_kernel


FUSED = ["fuse:lp+lg", "fuse:lp+rp", "fuse:lp+rg", "fuse:lp+og", "gate.impl=triton"]
trimul = program_space("trimul", "cuda")
for extra in (
    [],
    ["mask.mode=skip_if_ones", "norm_in.affine=fold", "product.form=hidden", "product.precision=bf16"],
):
    kernel = load(trimul.render(trimul.chain(FUSED + extra)))
    for data in (
        make_input(bs=2, seqlen=8, dim=16, hidden=16, seed=3),
        make_input(bs=1, seqlen=6, dim=16, hidden=16, nomask=True, seed=4),
    ):
        assert torch.allclose(kernel(data), reference(data), rtol=2e-2, atol=2e-2), extra

vectoradd = program_space("vectoradd", "cuda")
for precision in ("fp16", "fp32"):
    chain = ["add.out=into_c", f"add.precision={precision}", "add.impl=triton", "triton.block=256"]
    kernel = load(vectoradd.render(vectoradd.chain([c for c in chain if c != "add.precision=fp16"])))
    A, B = torch.randn(33, 17).half(), torch.randn(33, 17).half()
    assert torch.allclose(kernel((A, B, torch.empty_like(A))).float(), (A + B).float(), atol=1e-3), precision

matmul = program_space("matmul", "cuda")
kernel = load(
    matmul.render(
        matmul.chain(["mm.out=into_c", "mm.precision=fp32", "mm.impl=triton", "tiles.bm=64", "tiles.bn=64"])
    )
)
a, b = torch.rand(64, 96).half(), torch.rand(96, 80).half()
out = kernel((a, b, torch.empty(64, 80, dtype=torch.float16)))
assert torch.allclose(out.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)
softmax = program_space("softmax", "cuda")
for chain in (
    ["softmax.impl=triton"],
    ["softmax.impl=triton", "out.into=x", "triton.warps=8"],
    ["softmax.impl=triton", "triton.kind=online"],  # blocks of 512: rows shorter, longer, and a multiple
    ["softmax.impl=triton", "triton.kind=online", "triton.block=1024", "out.into=x"],
):
    kernel = load(softmax.render(softmax.chain(chain)))
    for rows, cols in ((1, 1), (3, 100), (2, 1024), (4, 1500)):
        x = torch.randn(rows, cols) * 10
        expected = torch.softmax(x, dim=-1)
        assert torch.allclose(kernel(x.clone()), expected, rtol=1e-5, atol=1e-6), (chain, rows, cols)

print("triton programs ok")
