"""softmax as a program: a library call, or the row maximum, the exponentials, the sum and the division
written out step by step, each with its own implementation; the output new or written into x; the rows
whole or in chunks.

A small space, honestly so: 140 distinct programs (library: 3 calls x 4 chunkings x a new output; by hand:
2 maxima x 2 exponential forms x 2 sum precisions x 2 normalisations x 2 outputs x 4 chunkings), and 32 more
on a GPU: a Triton kernel, one program per row, either the whole row in one block (4 warp counts) or the row
in blocks with an online maximum and sum, then a second pass (3 blocks x 4 warp counts), into a new tensor
or into x. The exponentials must stay in fp32 (the statement: fp16 or bf16 fail on every call) and the
maximum must be the whole row's, so there is no precision or sampling rewrite to add.
"""

from __future__ import annotations

from agents.programs import TRITON_HEADER, Program, Source, Space, Step, attr_rewrites, header, vocabulary

MANUAL = {
    "max": ("amax", "max"),
    "exp": ("new", "inplace"),
    "sum": ("fp32", "fp64"),
    "norm": ("div", "mul_reciprocal"),
}


IMPLS = ("torch.softmax", "F.softmax", "log_softmax_exp", "manual")
TRITON = {"kind": ("one_block", "online"), "block": (512, 1024, 2048), "warps": (2, 4, 8, 16)}


def _domains(device: str) -> list[tuple[str, dict[str, tuple]]]:
    cuda = device == "cuda"
    return [
        ("softmax", {"impl": IMPLS + (("triton",) if cuda else ()), **MANUAL}),
        ("out", {"into": ("new", "x")}),
        ("loop", {"chunk": (0, 16, 64, 256)}),
        *([("triton", TRITON)] if cuda else []),
    ]


SEED = Program(
    (
        Step.of("softmax", impl="torch.softmax", max="amax", exp="new", sum="fp32", norm="div"),
        Step.of("out", into="new"),
        Step.of("loop", chunk=0),
    )
)


TRITON_SEED = Step.of("triton", kind="one_block", block=512, warps=4)


def _manual(p: Program) -> bool:
    return p.get("softmax", "impl") == "manual"


def _triton(p: Program) -> bool:
    return p.get("softmax", "impl") == "triton"


def _online(p: Program) -> bool:
    return _triton(p) and p.get("triton", "kind") == "online"


def valid(p: Program) -> bool:
    """A library call returns a new tensor, and has no steps of its own to choose; a Triton kernel is one
    launch over every row (no chunks) and may write into x; the settings of a step that is not used stay
    the seed's (they would change nothing)."""
    manual_default = all(p.get("softmax", k) == v[0] for k, v in MANUAL.items())
    if p.has("triton") and not _triton(p) and p["triton"] != TRITON_SEED:
        return False
    if _triton(p):
        one_block = p.get("triton", "kind") == "one_block"
        return (
            manual_default
            and p.get("loop", "chunk") == 0
            and (not one_block or p.get("triton", "block") == 512)
        )
    return _manual(p) or (p.get("out", "into") == "new" and manual_default)


def space(device: str) -> Space:
    docs = {
        "softmax.impl": "torch.softmax, F.softmax, log_softmax then exp, or the steps written by hand",
        "softmax.max": "the row maximum by amax or max(...).values",
        "softmax.exp": "the exponentials into a new tensor, or in place after subtracting the maximum",
        "softmax.sum": "the row sums accumulated in fp32 or fp64",
        "softmax.norm": "divide by the sum, or multiply by its reciprocal",
        "out.into": "the result into a new tensor, or in place into x (allowed)",
        "loop.chunk": "rows per chunk (0: the whole matrix)",
        "softmax.impl=triton": "a Triton kernel, one program per row",
        "triton.kind": "the whole row in one block, or blocks with an online maximum and sum, then a second pass",
        "triton.block": "columns per block of the online kernel",
        "triton.warps": "warps per program of the Triton kernel",
    }
    when = {f"softmax.{k}": _manual for k in MANUAL} | {"triton.kind": _triton, "triton.warps": _triton}
    when["triton.block"] = _online
    triton = 2 * (4 + 3 * 4) if device == "cuda" else 0  # 2 outputs x (one block, or online x blocks) x warps
    return Space(
        problem="softmax",
        device=device,
        seed=Program(SEED.steps + ((TRITON_SEED,) if device == "cuda" else ())),
        rewrites=attr_rewrites(_domains(device), docs, when),
        render_fn=render,
        features=vocabulary(_domains(device)),
        size=3 * 4 + 2 * 2 * 2 * 2 * 2 * 4 + triton,
        valid=valid,
    )


def render(p: Program) -> str:
    if _triton(p):
        return _render_triton(p)
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


def _render_triton(p: Program) -> str:
    """One program per row. `one_block` holds the whole row (the block is the next power of two of the
    columns); `online` reads it in blocks keeping each lane's running maximum and its sum rescaled to it
    (started at the lowest finite float, so that lanes past the row's end add exp(-inf) = 0 and never
    inf - inf), then writes exp(x - max) / sum in a second pass."""
    src = Source()
    warps = p.get("triton", "warps")
    src(header("softmax", p), "", "import torch", *TRITON_HEADER)
    if p.get("triton", "kind") == "one_block":
        src(
            "def _softmax(X, Y, cols, stride_x, stride_y, BLOCK: tl.constexpr):",
            "    row = tl.program_id(0).to(tl.int64)",
            "    offs = tl.arange(0, BLOCK)",
            "    ok = offs < cols",
            '    x = tl.load(X + row * stride_x + offs, mask=ok, other=-float("inf")).to(tl.float32)',
            "    e = tl.exp(x - tl.max(x, axis=0))",
            "    tl.store(Y + row * stride_y + offs, e / tl.sum(e, axis=0), mask=ok)",
        )
        block = "triton.next_power_of_2(cols)"
    else:
        src(
            "def _softmax(X, Y, cols, stride_x, stride_y, BLOCK: tl.constexpr):",
            "    row = tl.program_id(0).to(tl.int64)",
            "    m = tl.full([BLOCK], -3.4028234663852886e38, tl.float32)",
            "    s = tl.zeros([BLOCK], tl.float32)",
            "    for c0 in range(0, cols, BLOCK):",
            "        offs = c0 + tl.arange(0, BLOCK)",
            '        x = tl.load(X + row * stride_x + offs, mask=offs < cols, other=-float("inf")).to(tl.float32)',
            "        m_new = tl.maximum(m, x)",
            "        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)",
            "        m = m_new",
            "    top = tl.max(m, axis=0)",
            "    total = tl.sum(s * tl.exp(m - top), axis=0)",
            "    for c0 in range(0, cols, BLOCK):",
            "        offs = c0 + tl.arange(0, BLOCK)",
            "        ok = offs < cols",
            "        x = tl.load(X + row * stride_x + offs, mask=ok, other=0.0).to(tl.float32)",
            "        tl.store(Y + row * stride_y + offs, tl.exp(x - top) / total, mask=ok)",
        )
        block = str(p.get("triton", "block"))
    into_x = p.get("out", "into") == "x"
    src(
        "",
        "",
        "def custom_kernel(data):",
        "    x = data.contiguous()  # the kernel walks a row with unit stride (a copy only if it is not so)",
        "    y = x" if into_x else "    y = torch.empty_like(x)",
        "    rows, cols = x.shape",
        f"    _softmax[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK={block}, num_warps={warps})",
        "    return y",
    )
    return src.text()
