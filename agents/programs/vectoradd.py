"""vectoradd as a program: one add step (where the sum goes, in which precision, by torch or by a Triton
kernel on a GPU) and the loop around it (whole matrix or row chunks).

A small space, honestly so: C = A + B on fp16 matrices has 18 distinct CPU programs here (18 more with
Triton's block and warps on a GPU), and no meaningful rewrite makes it larger. `out=into_a` writes the sum
into the input A and returns A: the runner allows an output that aliases an input to change it.
"""

from __future__ import annotations

from agents.programs import TRITON_HEADER, Program, Source, Space, Step, attr_rewrites, header, vocabulary


def _domains(device: str) -> list[tuple[str, dict[str, tuple]]]:
    add = {"out": ("new", "into_c", "into_a"), "precision": ("fp16", "fp32")}
    if device == "cuda":
        add["impl"] = ("torch", "triton")
    return [
        ("add", add),
        ("loop", {"chunk": (0, 64, 512)}),
        *([("triton", {"block": (256, 1024, 4096), "warps": (2, 4, 8)})] if device == "cuda" else []),
    ]


def _triton(p: Program) -> bool:
    return p.has("triton") and p.get("add", "impl") == "triton"


def space(device: str) -> Space:
    steps = [Step.of("add", out="new", precision="fp16"), Step.of("loop", chunk=0)]
    if device == "cuda":
        steps = [steps[0].set(impl="torch"), steps[1], Step.of("triton", block=1024, warps=4)]
    docs = {
        "add.out": "the sum into a new tensor, into the buffer C, or into A",
        "add.precision": "add in fp16, or in fp32 and round once",
        "add.impl": "torch ops or a Triton kernel",
        "loop.chunk": "rows per chunk (0: the whole matrix)",
        "triton.block": "Triton elements per program",
        "triton.warps": "Triton warps per program",
    }

    def valid(p: Program) -> bool:
        if not _triton(p):  # the Triton settings of a torch program stay the seed's: they change nothing
            return not p.has("triton") or p["triton"] == steps[-1]
        return p.get("add", "out") == "into_c" and p.get("loop", "chunk") == 0  # one launch writes C

    return Space(
        problem="vectoradd",
        device=device,
        seed=Program(tuple(steps)),
        rewrites=attr_rewrites(_domains(device), docs, {"triton.block": _triton, "triton.warps": _triton}),
        render_fn=render,
        features=vocabulary(_domains(device)),
        size=18 + (18 if device == "cuda" else 0),  # torch: 3 x 2 x 3; Triton: 2 precisions x 3 x 3
        valid=valid,
    )


def render(p: Program) -> str:
    src = Source()
    src(header("vectoradd", p), "", "import torch")
    add = p["add"]
    fp32 = add["precision"] == "fp32"
    if _triton(p):
        block, warps = p.get("triton", "block"), p.get("triton", "warps")
        src(
            *TRITON_HEADER,
            "def _add(A, B, C, n, BLOCK: tl.constexpr):",
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
            "    ok = offs < n",
            "    a = tl.load(A + offs, mask=ok)",
            "    b = tl.load(B + offs, mask=ok)",
            "    tl.store(C + offs, (a.to(tl.float32) + b.to(tl.float32)).to(tl.float16), mask=ok)"
            if fp32
            else "    tl.store(C + offs, a + b, mask=ok)",
            "",
            "",
            "def custom_kernel(data):",
            "    A, B, C = data",
            "    n = A.numel()",
            f"    _add[(triton.cdiv(n, {block}),)](A, B, C, n, BLOCK={block}, num_warps={warps})",
            "    return C",
        )
        return src.text()
    src("", "", "def custom_kernel(data):")
    src.indent()
    src("A, B, C = data")

    def add_expr(a: str, b: str, out: str | None) -> str:
        if fp32:
            total = f"({a}.float() + {b}.float())"
            return f"{out}.copy_({total})" if out else f"{total}.half()"
        if add["out"] == "into_a":
            return f"{a}.add_({b})"
        return f"torch.add({a}, {b}, out={out})" if out else f"{a} + {b}"

    target = {"new": None, "into_c": "C", "into_a": "A"}[str(add["out"])]
    chunk = p.get("loop", "chunk")
    if chunk == 0:
        src(f"return {add_expr('A', 'B', target)}")
    else:
        out = target or "C"
        src(f"for r0 in range(0, A.shape[0], {chunk}):")
        src(f"    r1 = r0 + {chunk}")
        src(f"    {add_expr('A[r0:r1]', 'B[r0:r1]', out + '[r0:r1]')}")
        src(f"return {out}")
    src.dedent()
    return src.text()
