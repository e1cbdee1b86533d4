"""matmul as a program: one product step (into a new tensor or the buffer c, fp16 or accumulated in fp32
and rounded once) and, on a GPU, a tiled Triton kernel with its tiles, warps, stages and tile grouping.

A small space, honestly so: 4 distinct CPU programs (a CPU has no faster fp16 GEMM to choose among) and
144 Triton programs more on a GPU (tile sizes, warps, stages, grouping). The fp32 path
accumulates in fp32 and rounds once, as the reference does; the judge checks every variant.
"""

from __future__ import annotations

from agents.programs import TRITON_HEADER, Program, Source, Space, Step, attr_rewrites, header, vocabulary

_TILES = {
    "bm": (64, 128),
    "bn": (64, 128, 256),
    "bk": (32, 64),
    "warps": (4, 8),
    "stages": (2, 3, 4),
    "group": (1, 8),
}


def _domains(device: str) -> list[tuple[str, dict[str, tuple]]]:
    mm = {"out": ("new", "into_c"), "precision": ("fp16", "fp32")}
    if device == "cuda":
        mm["impl"] = ("torch", "triton")
    return [("mm", mm), *([("tiles", _TILES)] if device == "cuda" else [])]


def _triton(p: Program) -> bool:
    return p.has("tiles") and p.get("mm", "impl") == "triton"


SEED_TILES = Step.of("tiles", bm=128, bn=128, bk=32, warps=4, stages=3, group=8)


def valid(p: Program) -> bool:
    """The Triton kernel writes c and accumulates in fp32 (tl.dot): its program says so. The tiles of a
    torch program stay the seed's: they change nothing there."""
    if not _triton(p):
        return not p.has("tiles") or p["tiles"] == SEED_TILES
    return p.get("mm", "precision") == "fp32" and p.get("mm", "out") == "into_c"


def space(device: str) -> Space:
    steps = [Step.of("mm", out="new", precision="fp16")]
    if device == "cuda":
        steps = [
            steps[0].set(impl="torch"),
            Step.of("tiles", bm=128, bn=128, bk=32, warps=4, stages=3, group=8),
        ]
    docs = {
        "mm.out": "the product into a new tensor or into the buffer c",
        "mm.precision": "multiply in fp16, or accumulate in fp32 and round once",
        "mm.impl": "torch or a tiled Triton kernel",
        **{f"tiles.{k}": f"Triton tile setting {k}" for k in _TILES},
    }
    return Space(
        problem="matmul",
        device=device,
        seed=Program(tuple(steps)),
        rewrites=attr_rewrites(_domains(device), docs, {f"tiles.{k}": _triton for k in _TILES}),
        render_fn=render,
        features=vocabulary(_domains(device)),
        size=4 + (2 * 3 * 2 * 2 * 3 * 2 if device == "cuda" else 0),
        valid=valid,
    )


def render(p: Program) -> str:
    src = Source()
    src(header("matmul", p), "", "import torch")
    if _triton(p):
        _render_triton(src, p)
        return src.text()
    into_c = p.get("mm", "out") == "into_c"
    src("", "", "def custom_kernel(data):", "    a, b, c = data")
    if p.get("mm", "precision") == "fp32":
        src(
            "    return c.copy_(a.float() @ b.float())"
            if into_c
            else "    return (a.float() @ b.float()).half()"
        )
    else:
        src("    return torch.mm(a, b, out=c)" if into_c else "    return a @ b")
    return src.text()


def _render_triton(src: Source, p: Program) -> None:
    t = p["tiles"]
    src(
        *TRITON_HEADER,
        "def _matmul(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,",
        "            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):",
        "    pid = tl.program_id(0)",
        "    tiles_m = tl.cdiv(M, BM)",
        "    tiles_n = tl.cdiv(N, BN)",
        "    group = pid // (GM * tiles_n)",
        "    first_m = group * GM",
        "    size_m = min(tiles_m - first_m, GM)",
        "    pm = first_m + (pid % size_m)",
        "    pn = (pid % (GM * tiles_n)) // size_m",
        "    rm = pm * BM + tl.arange(0, BM)",
        "    rn = pn * BN + tl.arange(0, BN)",
        "    rk = tl.arange(0, BK)",
        "    acc = tl.zeros((BM, BN), dtype=tl.float32)",
        "    for k0 in range(0, K, BK):",
        "        a = tl.load(A + rm[:, None] * sam + (k0 + rk)[None, :] * sak,",
        "                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)",
        "        b = tl.load(B + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,",
        "                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)",
        "        acc += tl.dot(a, b)",
        "    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16),",
        "             mask=(rm[:, None] < M) & (rn[None, :] < N))",
        "",
        "",
        "def custom_kernel(data):",
        "    a, b, c = data",
        "    M, K = a.shape",
        "    N = b.shape[1]",
        f"    grid = (triton.cdiv(M, {t['bm']}) * triton.cdiv(N, {t['bn']}),)",
        "    _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),",
        f"                  BM={t['bm']}, BN={t['bn']}, BK={t['bk']}, GM={t['group']},",
        f"                  num_warps={t['warps']}, num_stages={t['stages']})",
        "    return c",
    )
