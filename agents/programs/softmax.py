"""softmax as a program: a library call, or the row maximum, the exponentials, the sum and the division
written out step by step, each with its own implementation; the output new or written into x; the rows
whole or in chunks.

A small space, honestly so: 140 distinct programs (library: 3 calls x 4 chunkings x a new output; by hand:
2 maxima x 2 exponential forms x 2 sum precisions x 2 normalisations x 2 outputs x 4 chunkings). The
exponentials must stay in fp32 (the statement: fp16 or bf16 fail on every call) and the maximum must be the
whole row's, so there is no precision or sampling rewrite to add; a Triton variant is not in the space yet
(the problem's Triton template is a seed for the LLM policy).
"""

from __future__ import annotations

from agents.programs import Program, Source, Space, Step, attr_rewrites, header, vocabulary

MANUAL = {
    "max": ("amax", "max"),
    "exp": ("new", "inplace"),
    "sum": ("fp32", "fp64"),
    "norm": ("div", "mul_reciprocal"),
}


def _domains() -> list[tuple[str, dict[str, tuple]]]:
    return [
        ("softmax", {"impl": ("torch.softmax", "F.softmax", "log_softmax_exp", "manual"), **MANUAL}),
        ("out", {"into": ("new", "x")}),
        ("loop", {"chunk": (0, 16, 64, 256)}),
    ]


SEED = Program(
    (
        Step.of("softmax", impl="torch.softmax", max="amax", exp="new", sum="fp32", norm="div"),
        Step.of("out", into="new"),
        Step.of("loop", chunk=0),
    )
)


def _manual(p: Program) -> bool:
    return p.get("softmax", "impl") == "manual"


def valid(p: Program) -> bool:
    """A library call returns a new tensor, and has no steps of its own to choose."""
    return _manual(p) or (
        p.get("out", "into") == "new" and all(p.get("softmax", k) == v[0] for k, v in MANUAL.items())
    )


def space(device: str) -> Space:
    docs = {
        "softmax.impl": "torch.softmax, F.softmax, log_softmax then exp, or the steps written by hand",
        "softmax.max": "the row maximum by amax or max(...).values",
        "softmax.exp": "the exponentials into a new tensor, or in place after subtracting the maximum",
        "softmax.sum": "the row sums accumulated in fp32 or fp64",
        "softmax.norm": "divide by the sum, or multiply by its reciprocal",
        "out.into": "the result into a new tensor, or in place into x (allowed)",
        "loop.chunk": "rows per chunk (0: the whole matrix)",
    }
    return Space(
        problem="softmax",
        device=device,
        seed=SEED,
        rewrites=attr_rewrites(_domains(), docs, {f"softmax.{k}": _manual for k in MANUAL}),
        render_fn=render,
        features=vocabulary(_domains()),
        size=3 * 4 + 2 * 2 * 2 * 2 * 2 * 4,
        valid=valid,
    )


def render(p: Program) -> str:
    src = Source()
    src(
        header("softmax", p),
        "",
        "import torch",
        "import torch.nn.functional as F",
        "",
        "",
        "def custom_kernel(data):",
    )
    src.indent()
    src("x = data")
    chunk = p.get("loop", "chunk")
    into_x = p.get("out", "into") == "x"
    if chunk == 0:
        _rows(src, p, "x", "x" if into_x else None)
        src("return e")
    else:
        src("out = x" if into_x else "out = torch.empty_like(x)", f"for r0 in range(0, x.shape[0], {chunk}):")
        src.indent()
        src(f"r1 = r0 + {chunk}")
        if _manual(p):
            _rows(src, p, "x[r0:r1]", "out[r0:r1]")
        else:
            _rows(src, p, "x[r0:r1]", None)
            src("out[r0:r1] = e")
        src.dedent()
        src("return out")
    src.dedent()
    return src.text()


def _rows(src: Source, p: Program, X: str, target: str | None) -> None:
    """The softmax of the rows X, left in `e` (written into `target` when one is given)."""
    s = p["softmax"]
    if not _manual(p):
        call = {
            "torch.softmax": f"torch.softmax({X}, dim=-1)",
            "F.softmax": f"F.softmax({X}, dim=-1)",
            "log_softmax_exp": f"torch.log_softmax({X}, dim=-1).exp_()",
        }[str(s["impl"])]
        src(f"e = {call}")
        return
    src(
        f"m = {X}.amax(dim=1, keepdim=True)"
        if s["max"] == "amax"
        else f"m = {X}.max(dim=1, keepdim=True).values"
    )
    if s["exp"] == "new":
        src(f"e = torch.exp({X} - m, out={target})" if target else f"e = torch.exp({X} - m)")
    elif target == X:
        src(f"e = {X}.sub_(m).exp_()")
    else:
        src(f"e = torch.sub({X}, m, out={target}).exp_()" if target else f"e = ({X} - m).exp_()")
    dtype = ", dtype=torch.float64" if s["sum"] == "fp64" else ""
    src(f"s = e.sum(dim=1, keepdim=True{dtype})")
    src("e.div_(s)" if s["norm"] == "div" else "e.mul_(1 / s)")
