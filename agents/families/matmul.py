"""matmul's kernel programs: torch variants, and on GPU a tiled Triton kernel (tiles, warps, stages).

The fp32 path accumulates in fp32 and rounds once, as the reference's fp16 matmul does on a GPU; whether
a variant meets the problem's tolerance is the judge's call, and failures teach the policy.
"""

from __future__ import annotations

from agents.families import Choice, Config, DesignSpace, Source

_CHOICES = [
    Choice("op", ("matmul", "mm_out"), "a @ b, or torch.mm into the buffer c"),
    Choice("compute", ("fp16", "fp32"), "multiply in fp16, or in fp32 and round once"),
]
_GPU_CHOICES = [
    Choice("backend", ("torch", "triton"), "torch or a Triton kernel"),
    Choice("block_m", (64, 128), "Triton tile rows"),
    Choice("block_n", (64, 128, 256), "Triton tile columns"),
    Choice("block_k", (32, 64), "Triton tile depth"),
    Choice("num_warps", (4, 8), "Triton warps"),
    Choice("num_stages", (2, 3, 4), "Triton pipeline stages"),
    Choice("group_m", (1, 8), "Triton tile grouping for L2 reuse"),
]
SEED: Config = {
    "op": "matmul",
    "compute": "fp16",
    "backend": "torch",
    "block_m": 128,
    "block_n": 128,
    "block_k": 32,
    "num_warps": 4,
    "num_stages": 3,
    "group_m": 8,
}


def space(device: str) -> DesignSpace:
    choices = list(_CHOICES) + (list(_GPU_CHOICES) if device == "cuda" else [])
    seed = {ch.name: SEED[ch.name] for ch in choices}
    return DesignSpace(problem="matmul", device=device, choices=choices, seed=seed, render_fn=render)


def render(c: Config) -> str:
    src = Source()
    desc = " ".join(f"{k}={c[k]}" for k in sorted(c))
    src(f'"""matmul, rendered by the offline agent from the design: {desc}."""', "", "import torch")
    if c.get("backend") == "triton":
        _triton(src, c)
        return src.text()
    src("", "", "def custom_kernel(data):", "    a, b, c = data")
    if c["compute"] == "fp32":
        src(
            "    return c.copy_(a.float() @ b.float())"
            if c["op"] == "mm_out"
            else "    return (a.float() @ b.float()).half()"
        )
    else:
        src("    return torch.mm(a, b, out=c)" if c["op"] == "mm_out" else "    return a @ b")
    return src.text()


def _triton(src: Source, c: Config) -> None:
    src(
        "import triton",
        "import triton.language as tl",
        "",
        "",
        "@triton.jit",
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
        f"    grid = (triton.cdiv(M, {c['block_m']}) * triton.cdiv(N, {c['block_n']}),)",
        "    _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),",
        f"                  BM={c['block_m']}, BN={c['block_n']}, BK={c['block_k']}, GM={c['group_m']},",
        f"                  num_warps={c['num_warps']}, num_stages={c['num_stages']})",
        "    return c",
    )
