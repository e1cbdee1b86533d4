"""TriMul as a program: the reference's steps, each with its own precision, layout, implementation and
chunking, and the rewrites that move between them.

Steps (in order) and what their attributes mean:

- norm_in: the input layer norm, F.layer_norm or by hand (impl); its affine applied, or folded into the
  projection weights (x*g+b then W is (W*g) x + W b: one pass over the rows less).
- proj.lp, proj.lg, proj.rp, proj.rg, proj.og: the five projections (left, left gate, right, right gate,
  out gate). `with` names the first projection of its group: a group is one matmul against its weights
  concatenated. Each group has a layout (row: [rows, k*h]; hidden: [k*h, rows], computed as W @ x^T) and a
  precision (the matmul in fp32, bf16 or fp16). Rewrites fuse two groups, split a projection off its group,
  and set a group's layout or precision.
- gate: sigmoid gating into new tensors or in place on the projections' buffers; on a GPU also one Triton
  kernel that gates, masks and writes left/right hidden-major (needs the five fused, row-major, fp32).
- mask: multiply always, or skip after a runtime all-ones check; applied to the projections before the
  gating or to the gated values after (the same maths, a different pass).
- product: the triangle product; form row is the reference's einsum on [bs, n, n, h]; form hidden works on
  [h * bs, n, n] (no permute copy when left/right are hidden-major) by einsum, matmul or bmm (bmm in blocks
  of channels or not), in fp32, bf16 or fp16.
- norm_out, out_gate, out_proj: the output layer norm (functional or by hand), the out gate (new tensor or
  in place), the output projection (F.linear, or mm against the transposed weight).
- loop_in, loop_out: the rows of everything before / after the product processed in chunks of this many
  (0: whole tensors). On a CPU, intermediates above glibc's mmap threshold are page-faulted in afresh on
  every call; chunks stay in cache.
- compile: the whole chain run as written (eager: one torch kernel per operation), or wrapped in
  torch.compile (inductor: generated C++ on a CPU, Triton on a GPU), which fuses the passes that eager
  kernels make one by one (the norms, gates, mask, their reads and writes of [rows, h] buffers). One graph
  per input shape (dynamic=False), compiled at the first call of that shape, which the judge makes in its
  untimed warm-up; if compiling fails the module runs the same chain eagerly from then on, so a candidate
  is never lost to the compiler. Compiled programs have no row chunks and no channel blocks: those are
  eager's cache tricks, and the compiler would unroll their Python loops into one graph.

Every tensor between steps is a logical [rows, h] view whatever its layout (a hidden-major result is the
transpose view of its [h, rows] buffer), so layouts change speed, never the maths: the output layer norm
on a hidden-major product reduces over the hidden axis in place, as a hand-written kernel would. The good
programs combine several of these (fused, hidden-major projections feeding a hidden-form bmm, the output
norm by hand), which is a chain of rewrites from the reference.
"""

from __future__ import annotations

from itertools import combinations

from agents.programs import (
    EAGER,
    TRITON_HEADER,
    Program,
    Rewrite,
    Source,
    Space,
    Step,
    attr_rewrites,
    compile_wrapper,
    header,
    vocabulary,
)

PROJS = ("lp", "lg", "rp", "rg", "og")
WEIGHT = {"lp": "left_proj", "lg": "left_gate", "rp": "right_proj", "rg": "right_gate", "og": "out_gate"}
CHUNKS = (0, 256, 1024, 4096)
PRECISIONS = ("fp32", "bf16", "fp16")
DTYPES = {"bf16": "torch.bfloat16", "fp16": "torch.float16"}
COMPILE_MODES = ("eager", "inductor")


def _domains(device: str) -> list[tuple[str, dict[str, tuple]]]:
    proj = {"with": PROJS, "layout": ("row", "hidden"), "precision": PRECISIONS}
    gate_impl = ("torch", "triton") if device == "cuda" else ("torch",)
    return [
        ("norm_in", {"impl": ("functional", "manual"), "affine": ("apply", "fold")}),
        *((f"proj.{p}", proj) for p in PROJS),
        ("gate", {"impl": gate_impl, "inplace": (False, True)}),
        ("mask", {"mode": ("multiply", "skip_if_ones"), "target": ("gated", "proj")}),
        (
            "product",
            {
                "form": ("row", "hidden"),
                "impl": ("einsum", "matmul", "bmm"),
                "block": (0, 8, 32),
                "precision": PRECISIONS,
            },
        ),
        ("norm_out", {"impl": ("functional", "manual")}),
        ("out_gate", {"inplace": (False, True)}),
        ("out_proj", {"impl": ("linear", "mm")}),
        ("loop_in", {"chunk": CHUNKS}),
        ("loop_out", {"chunk": CHUNKS}),
        ("compile", {"mode": COMPILE_MODES}),
    ]


SEED = Program(
    (
        Step.of("norm_in", impl="functional", affine="apply"),
        *(Step.of(f"proj.{p}", **{"with": p, "layout": "row", "precision": "fp32"}) for p in PROJS),
        Step.of("gate", impl="torch", inplace=False),
        Step.of("mask", mode="multiply", target="gated"),
        Step.of("product", form="row", impl="einsum", block=0, precision="fp32"),
        Step.of("norm_out", impl="functional"),
        Step.of("out_gate", inplace=False),
        Step.of("out_proj", impl="linear"),
        Step.of("loop_in", chunk=0),
        Step.of("loop_out", chunk=0),
        Step.of("compile", mode="eager"),
    )
)


# -- the groups of projections ----------------------------------------------------------------------------
def groups(p: Program) -> dict[str, list[str]]:
    """Leader -> members, in PROJS order (a leader is the first projection of its group)."""
    out: dict[str, list[str]] = {}
    for q in PROJS:
        out.setdefault(str(p.get(f"proj.{q}", "with")), []).append(q)
    return out


def _regroup(p: Program, members: list[str], layout: object, precision: object) -> Program:
    for q in members:
        p = p.set(f"proj.{q}", **{"with": members[0], "layout": layout, "precision": precision})
    return p


def _fuse(a: str, b: str) -> Rewrite:
    def apply(p: Program) -> Program | None:
        la, lb = p.get(f"proj.{a}", "with"), p.get(f"proj.{b}", "with")
        if la == lb:
            return None
        g = groups(p)
        members = sorted(g[str(la)] + g[str(lb)], key=PROJS.index)
        lead = p[f"proj.{a}"]  # the merged matmul keeps a's group's layout and precision
        return _regroup(p, members, lead["layout"], lead["precision"])

    return Rewrite(
        f"fuse:{a}+{b}", apply, "fuse two groups of projections into one matmul (weights concatenated)"
    )


def _split(q: str) -> Rewrite:
    def apply(p: Program) -> Program | None:
        g = groups(p)[str(p.get(f"proj.{q}", "with"))]
        if len(g) == 1:
            return None
        step = p[f"proj.{q}"]
        rest = [m for m in g if m != q]
        p = _regroup(p, rest, step["layout"], step["precision"])
        return p.set(f"proj.{q}", **{"with": q})

    return Rewrite(f"split:{q}", apply, "split one projection off its group into a matmul of its own")


def _group_attr(q: str, key: str, value: str, doc: str) -> Rewrite:
    def apply(p: Program) -> Program | None:
        if p.get(f"proj.{q}", key) == value:
            return None
        for m in groups(p)[str(p.get(f"proj.{q}", "with"))]:
            p = p.set(f"proj.{m}", **{key: value})
        return p

    return Rewrite(f"proj.{q}.{key}={value}", apply, doc)


def valid(p: Program) -> bool:
    prod_ = p["product"]
    if prod_["form"] == "row" and prod_["impl"] != "einsum":
        return False  # the row form is the reference's 4-d einsum
    if prod_["block"] and prod_["impl"] != "bmm":
        return False  # channel blocks are a bmm's
    if compiled(p) and (
        prod_["block"]
        or p.get("loop_in", "chunk")
        or p.get("loop_out", "chunk")
        or p.get("gate", "impl") == "triton"
    ):
        return False  # the compiler fuses whole tensors; chunks, blocks and a Triton launch are eager's
    if p.get("gate", "impl") == "triton":
        g = groups(p)
        lead = p["proj.lp"]
        return (
            list(g) == ["lp"]
            and lead["layout"] == "row"
            and lead["precision"] == "fp32"
            and p.get("loop_in", "chunk") == 0
            and p.get("mask", "target") == "gated"
            and not p.get("gate", "inplace")
        )
    return True


def rewrites(device: str) -> list[Rewrite]:
    docs = {
        "norm_in.impl": "the input layer norm by F.layer_norm or written by hand",
        "norm_in.affine": "fold the input layer norm's affine into the projection weights (or apply it)",
        "gate.impl": "gate and mask with one Triton kernel that writes left/right hidden-major",
        "gate.inplace": "gating in place on the projection buffers (or into new tensors)",
        "mask.mode": "skip the mask multiply after a runtime all-ones check (or always multiply)",
        "mask.target": "apply the mask to the projections before gating, or to the gated values",
        "product.form": "the triangle product on [bs, n, n, h] (einsum) or hidden-major [h*bs, n, n]",
        "product.impl": "the triangle product by einsum, matmul or bmm",
        "product.block": "bmm over blocks of channels",
        "product.precision": "the triangle product in fp32, bf16 or fp16",
        "norm_out.impl": "the output layer norm by F.layer_norm or by hand (in place over the hidden axis)",
        "out_gate.inplace": "the out gate in place",
        "out_proj.impl": "the output projection by F.linear or mm against the transposed weight",
        "loop_in.chunk": "chunk the rows of the norm, projections and gating",
        "loop_out.chunk": "chunk the rows of the output norm, gate and projection",
        "compile.mode": "compile the whole program with torch.compile (inductor fuses the elementwise passes)",
    }
    out = attr_rewrites([(op, d) for op, d in _domains(device) if not op.startswith("proj.")], docs)
    out += [_fuse(a, b) for a, b in combinations(PROJS, 2)]
    out += [_split(q) for q in PROJS]
    for q in PROJS:
        out += [
            _group_attr(q, "layout", v, "a group of projections row-major or hidden-major")
            for v in ("row", "hidden")
        ]
        out += [
            _group_attr(q, "precision", v, "a group of projections in fp32, bf16 or fp16") for v in PRECISIONS
        ]
    return out


def size(device: str) -> int:
    """The programs reachable from the seed, counted: every set partition of the five projections with a
    layout and a precision per group (sum over k of S(5, k) 6^k = 26,682), times the independent steps
    (the product's 18 valid settings: row form einsum, hidden form einsum / matmul / bmm in 3 blocks, each
    in 3 precisions), plus the compiled programs (the same without row chunks and channel blocks), plus on
    a GPU the programs with the Triton gating (one fused fp32 row-major group, whole-row pre-stage, mask on
    the gated values, no in-place gating; not compiled)."""
    stirling5 = {1: 1, 2: 15, 3: 25, 4: 10, 5: 1}
    partitions = sum(s * 6**k for k, s in stirling5.items())
    product = 3 + (1 + 1 + 3) * 3
    rest = (
        4 * 2 * 4 * product * 2 * 2 * 2 * 4
    )  # norm_in, gate, mask, product, norm_out, out_gate, out_proj, loop_out
    compiled = partitions * 4 * 2 * 4 * (product - 2 * 3) * 2 * 2 * 2  # whole rows, no channel blocks
    cpu = partitions * rest * 4 + compiled  # loop_in; then the compiled programs
    if device != "cuda":
        return cpu
    triton = (
        4 * 2 * product * 2 * 2 * 2 * 4
    )  # norm_in, mask mode, product, norm_out, out_gate, out_proj, loop_out
    return cpu + triton


def space(device: str) -> Space:
    return Space(
        problem="trimul",
        device=device,
        seed=SEED,
        rewrites=rewrites(device),
        render_fn=render,
        features=vocabulary(_domains(device)),
        size=size(device),
        valid=valid,
    )


# -- rendering --------------------------------------------------------------------------------------------
def compiled(p: Program) -> bool:
    """Whether the program runs under torch.compile (programs saved before the step existed do not)."""
    return p.has("compile") and p.get("compile", "mode") != "eager"


def render(p: Program) -> str:
    src = Source()
    src(header("trimul", p), "", "import torch", "import torch.nn.functional as F")
    triton = p.get("gate", "impl") == "triton"
    if triton:
        _triton_kernel(src)
    src("", "", f"def {EAGER if compiled(p) else 'custom_kernel'}(data):")
    src.indent()
    src(
        "x, mask, w, config = data",
        "bs, n, _, d = x.shape",
        'h = config["hidden_dim"]',
        "M = bs * n * n",
        "xf = x.reshape(M, d)",
        "mf = mask.reshape(M, 1).to(x.dtype)",
    )
    if p.get("mask", "mode") == "skip_if_ones":
        src("use_mask = not bool(torch.all(mask == 1))")
    _weights(src, p)
    chunk = int(p.get("loop_in", "chunk"))
    if triton:
        _triton_gate(src, p)
    elif chunk == 0:
        _pre_stage(src, p, "xf", "mf", ("left", "right", "gate"))
    else:
        g = groups(p)
        for name, q in (("left", "lp"), ("right", "rp"), ("gate", "og")):
            lead = next(k for k, ms in g.items() if q in ms)
            hidden = p.get(f"proj.{lead}", "layout") == "hidden"
            src(
                f"{name} = torch.empty(h, M, device=x.device).t()"
                if hidden
                else f"{name} = torch.empty(M, h, device=x.device)"
            )
        src(f"for r0 in range(0, M, {chunk}):")
        src.indent()
        src(f"r1 = min(M, r0 + {chunk})")
        _pre_stage(src, p, "xf[r0:r1]", "mf[r0:r1]", ("lc", "rc", "gc"))
        src("left[r0:r1] = lc", "right[r0:r1] = rc", "gate[r0:r1] = gc")
        src.dedent()
    _product(src, p)
    _post_stage(src, p)
    src.dedent()
    if compiled(p):
        compile_wrapper(src)
    return src.text()


def _weights(src: Source, p: Program) -> None:
    """Each group's weights, concatenated, folded with the input norm's affine, cast to its precision.

    Prepared on every call from the call's weights (nothing is kept between calls)."""
    fold = p.get("norm_in", "affine") == "fold"
    for lead, members in groups(p).items():
        step = p[f"proj.{lead}"]
        cast = f".to({DTYPES[str(step['precision'])]})" if step["precision"] != "fp32" else ""
        parts = [f'w["{WEIGHT[q]}.weight"]' for q in members]
        W = parts[0] if len(parts) == 1 else "torch.cat([" + ", ".join(parts) + "], 0)"
        if fold:  # (W * g) x_hat + W b
            src(f"W_{lead} = {W}", f'b_{lead} = (W_{lead} @ w["norm.bias"]){cast}')
            W = f'(W_{lead} * w["norm.weight"])'
        src(f"W_{lead} = {W}{'.t()' if step['layout'] == 'row' else ''}{cast}")


def _layer_norm(src: Source, out: str, arg: str, affine: tuple[str, str] | None) -> None:
    src(
        f"xc = {arg} - {arg}.mean(-1, keepdim=True)",
        f"{out} = xc * torch.rsqrt(xc.square().mean(-1, keepdim=True) + 1e-5)",
    )
    if affine:
        src(f"{out} = {out} * {affine[0]} + {affine[1]}")


def _pre_stage(src: Source, p: Program, rows: str, mask_rows: str, names: tuple[str, str, str]) -> None:
    """Norm, projections, mask and gating of `rows`; leaves left/right/out-gate ([rows, h] views) in `names`."""
    fold = p.get("norm_in", "affine") == "fold"
    affine = None if fold else ('w["norm.weight"]', 'w["norm.bias"]')
    if p.get("norm_in", "impl") == "functional":
        src(f"xn = F.layer_norm({rows}, (d,)" + (", " + ", ".join(affine) if affine else "") + ")")
    else:
        _layer_norm(src, "xn", rows, affine)
    view: dict[str, str] = {}
    for lead, members in groups(p).items():
        step = p[f"proj.{lead}"]
        low = step["precision"] != "fp32"
        xin = f"xn.to({DTYPES[str(step['precision'])]})" if low else "xn"
        back = ".float()" if low else ""
        if step["layout"] == "row":
            mm = f"torch.addmm(b_{lead}, {xin}, W_{lead})" if fold else f"torch.mm({xin}, W_{lead})"
            if len(members) == 1:
                src(f"{lead} = {mm}{back}")
            else:
                src(f"P_{lead} = {mm}{back}")
                view.update({q: f"P_{lead}[:, {i} * h:{i + 1} * h]" for i, q in enumerate(members)})
        else:
            mm = (
                f"torch.addmm(b_{lead}[:, None], W_{lead}, {xin}.t())"
                if fold
                else f"torch.mm(W_{lead}, {xin}.t())"
            )
            if len(members) == 1:
                src(f"{lead} = {mm}{back}.t()")
            else:
                src(f"P_{lead} = {mm}{back}")
                view.update({q: f"P_{lead}[{i} * h:{i + 1} * h].t()" for i, q in enumerate(members)})
    inplace = bool(p.get("gate", "inplace"))
    skip = p.get("mask", "mode") == "skip_if_ones"
    left, right, gate = names

    def masked(a: str, b: str) -> None:
        lines = (
            [f"{a}.mul_({mask_rows})", f"{b}.mul_({mask_rows})"]
            if inplace
            else [
                f"{a} = {a} * {mask_rows}",
                f"{b} = {b} * {mask_rows}",
            ]
        )
        if skip:
            src("if use_mask:")
            src.indent()
            src(*lines)
            src.dedent()
        else:
            src(*lines)

    src(*(f"{q} = {v}" for q, v in view.items()))
    if p.get("mask", "target") == "proj":
        masked("lp", "rp")
    if inplace:
        src(
            f"{left} = lg.sigmoid_().mul_(lp)", f"{right} = rg.sigmoid_().mul_(rp)", f"{gate} = og.sigmoid_()"
        )
    else:
        src(
            f"{left} = lp * torch.sigmoid(lg)",
            f"{right} = rp * torch.sigmoid(rg)",
            f"{gate} = torch.sigmoid(og)",
        )
    if p.get("mask", "target") == "gated":
        masked(left, right)


def _product(src: Source, p: Program) -> None:
    """The triangle product of left and right ([M, h] views); leaves `o`, an [M, h] view."""
    step = p["product"]
    low = DTYPES.get(str(step["precision"]))
    cast, back = (f".to({low})", ".float()") if low else ("", "")
    if step["form"] == "row":
        src(
            f"L4 = left.reshape(bs, n, n, h){cast}",
            f"R4 = right.reshape(bs, n, n, h){cast}",
            f'o = torch.einsum("bikd,bjkd->bijd", L4, R4){back}.reshape(M, h)',
        )
        return
    # channel c of batch b is matrix c * bs + b: a free reshape of a hidden-major [h, M] buffer
    src(f"Lh = left.t().reshape(h * bs, n, n){cast}", f"Rh = right.t().reshape(h * bs, n, n){cast}")
    if step["impl"] == "einsum":
        src('oh = torch.einsum("cik,cjk->cij", Lh, Rh)')
    elif step["impl"] == "matmul":
        src("oh = Lh @ Rh.mT")
    elif step["block"]:
        src(
            "oh = torch.empty(h * bs, n, n, dtype=Lh.dtype, device=x.device)",
            f"for c0 in range(0, h * bs, {step['block']}):",
            f"    c1 = c0 + {step['block']}",
            "    torch.bmm(Lh[c0:c1], Rh[c0:c1].transpose(1, 2), out=oh[c0:c1])",
        )
    else:
        src("oh = torch.bmm(Lh, Rh.transpose(1, 2))")
    src(f"o = oh{back}.reshape(h, M).t()")


def _post_stage(src: Source, p: Program) -> None:
    chunk = int(p.get("loop_out", "chunk"))
    nw, nb = 'w["to_out_norm.weight"]', 'w["to_out_norm.bias"]'
    mm = p.get("out_proj", "impl") == "mm"
    if mm:
        src('wo_t = w["to_out.weight"].t()')

    def stage(rows: str, gate: str, out: str | None) -> None:
        if p.get("norm_out", "impl") == "functional":
            src(f"y = F.layer_norm({rows}, (h,), {nw}, {nb})")
        else:
            _layer_norm(src, "y", rows, (nw, nb))
        src(f"y.mul_({gate})" if p.get("out_gate", "inplace") else f"y = y * {gate}")
        if out is None:
            src(
                "return "
                + ("torch.mm(y, wo_t)" if mm else 'F.linear(y, w["to_out.weight"])')
                + ".reshape(bs, n, n, d)"
            )
        elif mm:
            src(f"torch.mm(y, wo_t, out={out})")
        else:
            src(f'{out} = F.linear(y, w["to_out.weight"])')

    if chunk == 0:
        stage("o", "gate", None)
        return
    src("out = torch.empty(M, d, device=x.device)", f"for r0 in range(0, M, {chunk}):")
    src.indent()
    src(f"r1 = min(M, r0 + {chunk})")
    stage("o[r0:r1]", "gate[r0:r1]", "out[r0:r1]")
    src.dedent()
    src("return out.reshape(bs, n, n, d)")


def _triton_kernel(src: Source) -> None:
    src(
        *TRITON_HEADER,
        "def _gate(P, MASK, LEFT, RIGHT, GATE, M, H, USE_MASK: tl.constexpr, BLOCK_M: tl.constexpr,",
        "          BLOCK_H: tl.constexpr):",
        "    # One block of rows: gate, mask, and write left/right hidden-major, the out-gate row-major.",
        "    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)",
        "    cols = tl.arange(0, BLOCK_H)",
        "    ok = (rows[:, None] < M) & (cols[None, :] < H)",
        "    base = P + rows[:, None] * (5 * H) + cols[None, :]",
        "    left = tl.load(base, mask=ok, other=0.0) * tl.sigmoid(tl.load(base + H, mask=ok, other=0.0))",
        "    right = tl.load(base + 2 * H, mask=ok, other=0.0) * tl.sigmoid(tl.load(base + 3 * H, mask=ok, other=0.0))",
        "    if USE_MASK:",
        "        m = tl.load(MASK + rows, mask=rows < M, other=0.0)",
        "        left = left * m[:, None]",
        "        right = right * m[:, None]",
        "    tl.store(LEFT + cols[None, :] * M + rows[:, None], left, mask=ok)",
        "    tl.store(RIGHT + cols[None, :] * M + rows[:, None], right, mask=ok)",
        "    gate = tl.sigmoid(tl.load(base + 4 * H, mask=ok, other=0.0))",
        "    tl.store(GATE + rows[:, None] * H + cols[None, :], gate, mask=ok)",
    )


def _triton_gate(src: Source, p: Program) -> None:
    """The fused projection, then the Triton kernel: left/right come out hidden-major ([M, h] views)."""
    fold = p.get("norm_in", "affine") == "fold"
    affine = None if fold else ('w["norm.weight"]', 'w["norm.bias"]')
    if p.get("norm_in", "impl") == "functional":
        src("xn = F.layer_norm(xf, (d,)" + (", " + ", ".join(affine) if affine else "") + ")")
    else:
        _layer_norm(src, "xn", "xf", affine)
    src("P = torch.addmm(b_lp, xn, W_lp)" if fold else "P = torch.mm(xn, W_lp)")
    use_mask = "use_mask" if p.get("mask", "mode") == "skip_if_ones" else "True"
    src(
        "left = torch.empty(h, M, device=x.device)",
        "right = torch.empty(h, M, device=x.device)",
        "gate = torch.empty(M, h, device=x.device)",
        "block_m = 32",
        "_gate[(triton.cdiv(M, block_m),)](P.contiguous(), mf.reshape(M).contiguous(), left, right, gate, M, h,",
        f"    USE_MASK={use_mask}, BLOCK_M=block_m, BLOCK_H=triton.next_power_of_2(h))",
        "left, right = left.t(), right.t()",
    )
