"""QR as a program: torch.geqrf, unblocked Householder, or blocked Householder nested up to four levels,
looped or batched over the matrices, each level with its own panel width, T factor, trailing update and
precision.

The output is geqrf's compact form (R on and above the diagonal of H, the Householder vectors below it,
tau), so every program is a Householder QR; they differ in how the work is ordered and computed:

- batch: every matrix of the batch at once (batched tensor ops), or a Python loop over the matrices.
- panel0 .. panel3: blocked levels, outermost first. Level i factors its columns in panels of `width`
  (each panel by the next level, or by the leaf), then applies the panel's reflectors to the rest of its
  own columns: `update=ormqr` by LAPACK's ormqr (blocked, level 3) on the panel's compact form; `update=wy` as the compact-WY product Q^T = I - V T^T V^T, with T built by the LARFT loop
  (`t=loop`) or by one triangular solve (`t=solve`: T = (I + diag(tau) striu(V^T V))^-1 diag(tau), which
  also holds where tau = 0), applied as V (T^T (V^T C)) (`assoc=left`) or (V T^T) (V^T C) (`assoc=right`);
  or `update=reflectors`, one rank-1 update per reflector. `gemm` picks the library call of the products
  (matmul, einsum, bmm); `precision` the trailing update's (fp32, or fp64 and rounded back); `t_precision`
  T's. Widths shrink from level to level.
- leaf: what factors the innermost panels (the whole matrix without levels): torch.geqrf (LAPACK) in fp32
  or fp64, or the unblocked Householder loop (norms by vector_norm or by a dot product, the rank-1 updates
  by einsum or matmul, in fp32 or fp64).

Rewrites: `block:w` adds an innermost level of width w, `unblock` removes it, and every attribute has a
`level.attr=value` rewrite; the good programs (a blocked batched WY update with a geqrf or Householder
panel) are chains of several. The count: 2 batch modes x 10 leaves x the sum over 0 to 4 levels of
C(7, L) decreasing width sequences x 56^L settings per level (wy: 2 T methods x 2 T precisions x 2
associations x 3 gemms, or reflectors x 3 gemms, or ormqr; each with 2 update precisions) = 7,008,403,380.
"""

from __future__ import annotations

from math import comb

from agents.programs import Program, Rewrite, Source, Space, Step, attr_rewrites, header, vocabulary

WIDTHS = (2, 4, 8, 16, 32, 64, 128)
LEVELS = 4
PANEL = {
    "width": WIDTHS,
    "t": ("loop", "solve"),
    "t_precision": ("fp32", "fp64"),
    "update": ("wy", "reflectors", "ormqr"),
    "assoc": ("left", "right"),
    "gemm": ("matmul", "einsum", "bmm"),
    "precision": ("fp32", "fp64"),
}
LEAF = {
    "impl": ("geqrf", "householder"),
    "precision": ("fp32", "fp64"),
    "norm": ("vector_norm", "dot"),
    "update": ("einsum", "matmul"),
}
WY_ONLY = ("t", "t_precision", "assoc")  # meaningless for update=reflectors: kept at their first value there
GEMM_ONLY = ("gemm",)  # meaningless for update=ormqr (LAPACK's own products): kept at its first value there
HOUSEHOLDER_ONLY = ("norm", "update")


def _domains() -> list[tuple[str, dict[str, tuple]]]:
    return [
        ("batch", {"mode": ("batched", "looped")}),
        *((f"panel{i}", PANEL) for i in range(LEVELS)),
        ("leaf", LEAF),
    ]


SEED = Program(
    (
        Step.of("batch", mode="batched"),
        Step.of("leaf", impl="geqrf", precision="fp32", norm="vector_norm", update="einsum"),
    )
)


def levels(p: Program) -> list[Step]:
    return [s for s in p.steps if s.op.startswith("panel")]


def valid(p: Program) -> bool:
    widths = [int(s["width"]) for s in levels(p)]
    if any(a <= b for a, b in zip(widths, widths[1:], strict=False)):
        return False  # panels shrink from level to level
    for s in levels(p):
        if s["update"] != "wy" and any(s[k] != PANEL[k][0] for k in WY_ONLY):
            return False
        if s["update"] == "ormqr" and any(s[k] != PANEL[k][0] for k in GEMM_ONLY):
            return False
    leaf = p["leaf"]
    return leaf["impl"] == "householder" or all(leaf[k] == LEAF[k][0] for k in HOUSEHOLDER_ONLY)


def _block(width: int) -> Rewrite:
    def apply(p: Program) -> Program | None:
        depth = len(levels(p))
        if depth == LEVELS:
            return None
        step = Step.of(f"panel{depth}", **{k: v[0] for k, v in PANEL.items()}).set(width=width)
        return p.insert("leaf", step)

    return Rewrite(f"block:{width}", apply, "block the innermost factorization into panels of a given width")


def _unblock(p: Program) -> Program | None:
    depth = len(levels(p))
    return p.remove(f"panel{depth - 1}") if depth else None


def rewrites() -> list[Rewrite]:
    docs = {
        "batch.mode": "factor every matrix of the batch at once, or loop over the matrices",
        "leaf.impl": "factor the innermost panels by torch.geqrf (LAPACK) or an unblocked Householder loop",
        "leaf.precision": "the innermost factorization in fp32 or fp64",
        "leaf.norm": "the Householder column norm by vector_norm or a dot product",
        "leaf.update": "the unblocked rank-1 updates by einsum or matmul",
    }
    for i in range(LEVELS):
        docs |= {
            f"panel{i}.width": "the panel width of a blocked level",
            f"panel{i}.t": "build the compact-WY T factor by the LARFT loop or one triangular solve",
            f"panel{i}.t_precision": "the T factor in fp32 or fp64",
            f"panel{i}.update": "the trailing update as a compact-WY product (I - V T V^T), reflector by reflector, "
            "or by LAPACK's ormqr on the panel's compact form",
            f"panel{i}.assoc": "associate the WY product as V (T^T (V^T C)) or (V T^T) (V^T C)",
            f"panel{i}.gemm": "the trailing update's products by matmul, einsum or bmm",
            f"panel{i}.precision": "the trailing update in fp32 or fp64",
        }

    def wy(i: int):
        return lambda p: p.has(f"panel{i}") and p.get(f"panel{i}", "update") == "wy"

    def householder(p: Program) -> bool:
        return p.get("leaf", "impl") == "householder"

    def products(i: int):
        return lambda p: p.has(f"panel{i}") and p.get(f"panel{i}", "update") != "ormqr"

    when = {f"panel{i}.{k}": wy(i) for i in range(LEVELS) for k in WY_ONLY}
    when |= {f"panel{i}.{k}": products(i) for i in range(LEVELS) for k in GEMM_ONLY}
    when |= {f"leaf.{k}": householder for k in HOUSEHOLDER_ONLY}
    out = attr_rewrites(_domains(), docs, when)
    out += [_block(w) for w in WIDTHS]
    out.append(Rewrite("unblock", _unblock, "remove the innermost blocked level"))
    return out


def size() -> int:
    per_level = (2 * 2 * 2 * 3 + 3 + 1) * 2  # (wy, reflectors, ormqr) x the update's precision
    leaves = 2 + 2 * 2 * 2
    return 2 * leaves * sum(comb(len(WIDTHS), k) * per_level**k for k in range(LEVELS + 1))


def space(device: str) -> Space:
    return Space(
        problem="qr",
        device=device,
        seed=SEED,
        rewrites=rewrites(),
        render_fn=render,
        features=vocabulary(_domains()),
        size=size(),
        valid=valid,
    )


# -- rendering --------------------------------------------------------------------------------------------
def _mm(gemm: object, a: str, b: str) -> str:
    """a @ b for batched matrices by the chosen library call."""
    if gemm == "einsum":
        return f'torch.einsum("bij,bjk->bik", {a}, {b})'
    if gemm == "bmm":
        return f"torch.bmm({a}, {b})"
    return f"({a} @ {b})"


def render(p: Program) -> str:
    src = Source()
    src(header("qr", p), "", "import torch")
    leaf = p["leaf"]
    panels = levels(p)
    looped = p.get("batch", "mode") == "looped"
    if not panels and leaf["impl"] == "geqrf":  # the whole matrix by LAPACK: no copy of A needed
        src("", "", "def custom_kernel(data):")
        src.indent()
        fp64 = leaf["precision"] == "fp64"
        call = "torch.geqrf(A.double())" if fp64 else "torch.geqrf(A)"
        if looped:
            src(
                "H = torch.empty_like(data)",
                "tau = torch.empty(data.shape[:-1], dtype=data.dtype, device=data.device)",
                "for b in range(data.shape[0]):",
                "    A = data[b]",
                f"    Hb, tb = {call}",
                "    H[b], tau[b] = Hb, tb",
                "return H, tau",
            )
        else:
            src("A = data", f"H, tau = {call}")
            src("return H.float(), tau.float()" if fp64 else "return H, tau")
        src.dedent()
        return src.text()
    _leaf(src, leaf)
    for i in reversed(range(len(panels))):
        _level(src, panels[i], i, f"_level{i + 1}" if i + 1 < len(panels) else "_leaf")
    top = "_level0" if panels else "_leaf"
    src(
        "",
        "",
        "def custom_kernel(data):",
        "    H = data.clone()  # factored in place; A itself stays as it was",
        "    batch, n, _ = H.shape",
        "    tau = torch.zeros(batch, n, dtype=H.dtype, device=H.device)",
    )
    if looped:
        src("    for b in range(batch):", f"        {top}(H[b : b + 1], tau[b : b + 1], 0, n)")
    else:
        src(f"    {top}(H, tau, 0, n)")
    src("    return H, tau")
    return src.text()


def _leaf(src: Source, leaf: Step) -> None:
    """_leaf(A, tau, j0, j1): factors columns j0:j1 of A (rows j0:) in place, touching no other column."""
    fp64 = leaf["precision"] == "fp64"
    src("", "", "def _leaf(A, tau, j0, j1):")
    src.indent()
    src("P = A[:, j0:, j0:j1]")
    if leaf["impl"] == "geqrf":
        src(f"Hp, tp = torch.geqrf(P{'.double()' if fp64 else ''})", "P.copy_(Hp)", "tau[:, j0:j1] = tp")
        src.dedent()
        return
    # As LAPACK's slarfg: a column with nothing below the diagonal gets tau = 0 instead of 0 / 0.
    src("W = P.double()" if fp64 else "W = P", "k = j1 - j0", "for j in range(k):")
    src.indent()
    src("x = W[:, j:, j]", "alpha = x[:, 0]")
    if leaf["norm"] == "dot":
        src("xnorm = torch.sqrt((x[:, 1:] * x[:, 1:]).sum(dim=1))")
    else:
        src("xnorm = torch.linalg.vector_norm(x[:, 1:], dim=1)")
    src(
        "active = xnorm > 0",
        "beta = -torch.copysign(torch.hypot(alpha, xnorm), alpha)",
        "one = torch.ones_like(beta)",
        "t = torch.where(active, (beta - alpha) / torch.where(active, beta, one), torch.zeros_like(beta))",
        "scale = torch.where(active, 1 / torch.where(active, alpha - beta, one), torch.zeros_like(beta))",
        "v = torch.cat([one[:, None], x[:, 1:] * scale[:, None]], dim=1)",
        "W[:, j + 1 :, j] = v[:, 1:]",
        "W[:, j, j] = torch.where(active, beta, alpha)",
        "tau[:, j0 + j] = t",
        "if j + 1 < k:",
    )
    src.indent()
    src("C = W[:, j:, j + 1 :]")
    if leaf["update"] == "matmul":
        src("w = (v[:, None, :] @ C)[:, 0] * t[:, None]")
    else:
        src('w = torch.einsum("bi,bic->bc", v, C) * t[:, None]')
    src("C -= v[:, :, None] * w[:, None, :]")
    src.dedent()
    src.dedent()
    if fp64:
        src("P.copy_(W)")
    src.dedent()


def _level(src: Source, s: Step, i: int, inner: str) -> None:
    """_level{i}(A, tau, j0, j1): columns j0:j1 in panels of `width`, each factored by `inner`, then its
    reflectors applied to the rest of the level's columns."""
    w, gemm = int(s["width"]), s["gemm"]
    up64, t64 = s["precision"] == "fp64", s["t_precision"] == "fp64"
    src("", "", f"def _level{i}(A, tau, j0, j1):")
    src.indent()
    src(f"for p0 in range(j0, j1, {w}):")
    src.indent()
    src(
        f"p1 = min(p0 + {w}, j1)",
        f"{inner}(A, tau, p0, p1)",
        "if p1 == j1:",
        "    break",
    )
    if s["update"] == "ormqr":  # LAPACK reads the reflectors below the diagonal, the ones implied
        cast = ".double()" if up64 else ""
        src(
            "C = A[:, p0:, p1:j1]",
            f"Cw = torch.ormqr(A[:, p0:, p0:p1]{cast}, tau[:, p0:p1]{cast}, C{cast}, left=True, transpose=True)",
            "C.copy_(Cw)",
        )
        src.dedent()
        src.dedent()
        return
    src(
        "V = torch.tril(A[:, p0:, p0:p1], -1)",
        "V.diagonal(dim1=-2, dim2=-1).fill_(1)  # the implied leading ones",
        "C = A[:, p0:, p1:j1]",
        "t = tau[:, p0:p1]",
    )
    if up64:
        src("V, t, Cw = V.double(), t.double(), C.double()")
    else:
        src("Cw = C")
    if s["update"] == "reflectors":  # Q^T C = H_k ... H_1 C: the first reflector first
        src("for r in range(p1 - p0):")
        src.indent()
        src(
            "v = V[:, :, r : r + 1]",
            f"Cw = Cw - t[:, r, None, None] * {_mm(gemm, 'v', _mm(gemm, 'v.mT', 'Cw'))}",
        )
        src.dedent()
    else:
        src(f"T = {'_t_loop' if s['t'] == 'loop' else '_t_solve'}{i}(V, t)")
        if s["assoc"] == "left":
            src(f"Cw = Cw - {_mm(gemm, 'V', _mm(gemm, 'T.mT', _mm(gemm, 'V.mT', 'Cw')))}")
        else:
            src(f"Cw = Cw - {_mm(gemm, _mm(gemm, 'V', 'T.mT'), _mm(gemm, 'V.mT', 'Cw'))}")
    src("C.copy_(Cw)")
    src.dedent()
    src.dedent()
    if s["update"] == "reflectors":
        return
    # T (upper triangular) of Q = H_1 ... H_k = I - V T V^T, in T's precision, returned in the update's
    cast_in = ".double()" if t64 else ".float()"
    cast_out = ".double()" if up64 else ".float()"
    src("", "", f"def {'_t_loop' if s['t'] == 'loop' else '_t_solve'}{i}(V, t):")
    src.indent()
    src(f"V, t = V{cast_in}, t{cast_in}")
    if s["t"] == "loop":  # LAPACK's larft, column by column
        src(
            "k = t.shape[1]",
            "T = torch.zeros(t.shape[0], k, k, dtype=t.dtype, device=t.device)",
            "for r in range(k):",
            "    T[:, r, r] = t[:, r]",
            "    if r:",
            f"        z = {_mm(gemm, 'V[:, :, :r].mT', 'V[:, :, r : r + 1]')}",
            f"        T[:, :r, r] = -t[:, r, None] * {_mm(gemm, 'T[:, :r, :r]', 'z')}[:, :, 0]",
        )
    else:  # unit upper triangular, so the solve is exact in form wherever tau = 0
        src(
            f"S = torch.triu({_mm(gemm, 'V.mT', 'V')}, 1)",
            "T = torch.linalg.solve_triangular(t[:, :, None] * S, torch.diag_embed(t), upper=True, unitriangular=True)",
        )
    src(f"return T{cast_out}")
    src.dedent()
