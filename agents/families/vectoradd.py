"""vectoradd's kernel programs: where the sum goes, in which precision, in how many pieces; Triton on GPU.

`inplace_a` writes the sum into the input A and returns A: the runner allows an output that aliases an
input to change it, and judges the values like any other output.
"""

from __future__ import annotations

from agents.families import Choice, Config, DesignSpace, Source

_CHOICES = [
    Choice("op", ("add", "add_out", "inplace_a"), "A + B, torch.add(out=C), or A.add_(B)"),
    Choice("compute", ("fp16", "fp32"), "add in fp16, or in fp32 and round once"),
    Choice("rows", (0, 64, 512), "rows per chunk (0: whole matrix)"),
]
_GPU_CHOICES = [
    Choice("backend", ("torch", "triton"), "torch ops or a Triton kernel"),
    Choice("block", (256, 1024, 4096), "Triton elements per program"),
    Choice("num_warps", (2, 4, 8), "Triton warps per program"),
]
SEED: Config = {"op": "add", "compute": "fp16", "rows": 0, "backend": "torch", "block": 1024, "num_warps": 4}


def space(device: str) -> DesignSpace:
    choices = list(_CHOICES) + (list(_GPU_CHOICES) if device == "cuda" else [])
    seed = {ch.name: SEED[ch.name] for ch in choices}
    return DesignSpace(problem="vectoradd", device=device, choices=choices, seed=seed, render_fn=render)


def render(c: Config) -> str:
    src = Source()
    desc = " ".join(f"{k}={c[k]}" for k in sorted(c))
    src(f'"""vectoradd, rendered by the offline agent from the design: {desc}."""', "", "import torch")
    if c.get("backend") == "triton":
        src(
            "import triton",
            "import triton.language as tl",
            "",
            "",
            "@triton.jit",
            "def _add(A, B, C, n, BLOCK: tl.constexpr):",
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
            "    ok = offs < n",
            "    a = tl.load(A + offs, mask=ok)",
            "    b = tl.load(B + offs, mask=ok)",
        )
        src(
            "    tl.store(C + offs, (a.to(tl.float32) + b.to(tl.float32)).to(tl.float16), mask=ok)"
            if c["compute"] == "fp32"
            else "    tl.store(C + offs, a + b, mask=ok)"
        )
        src(
            "",
            "",
            "def custom_kernel(data):",
            "    A, B, C = data",
            "    n = A.numel()",
            f"    _add[(triton.cdiv(n, {c['block']}),)](A, B, C, n, BLOCK={c['block']}, num_warps={c['num_warps']})",
            "    return C",
        )
        return src.text()
    src("", "", "def custom_kernel(data):")
    src.indent()
    src("A, B, C = data")

    def add(a: str, b: str, out: str | None) -> str:
        if c["compute"] == "fp32":
            total = f"({a}.float() + {b}.float())"
            return f"{out}.copy_({total})" if out else f"{total}.half()"
        if c["op"] == "inplace_a":
            return f"{a}.add_({b})"
        return f"torch.add({a}, {b}, out={out})" if out else f"{a} + {b}"

    target = {"add": None, "add_out": "C", "inplace_a": "A"}[c["op"]]
    if c["rows"] == 0:
        src(f"return {add('A', 'B', target)}")
    else:
        out = target or "C"
        src(f"for r0 in range(0, A.shape[0], {c['rows']}):")
        src(f"    r1 = r0 + {c['rows']}")
        src(f"    {add('A[r0:r1]', 'B[r0:r1]', out + '[r0:r1]')}")
        src(f"return {out}")
    src.dedent()
    return src.text()
