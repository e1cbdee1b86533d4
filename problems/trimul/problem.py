"""trimul: the outgoing Triangle Multiplicative Update of AlphaFold3, as GPU MODE poses it."""

TITLE = "TriMul: the outgoing Triangle Multiplicative Update (fp32)"
TOLERANCE = "rtol = atol = 2e-2 against the fp32 reference (TF32 off)"
# No input is an output buffer: x, the mask and the weights must be left as they were. Writing the output
# into x and returning x is still allowed (an output that aliases an input may change it).
WRITABLE_INPUTS = ()
# As GPU MODE's trimul: a kernel may return float16 or bfloat16; it is widened to float32 and checked
# within the tolerance above.
OUTPUT_DTYPE = "floating"


def _case(seqlen, bs, dim, nomask, distribution, seed):
    # hiddendim is always 128; it is a case parameter because GPU MODE's cases carry it.
    return {
        "seqlen": seqlen,
        "bs": bs,
        "dim": dim,
        "hiddendim": 128,
        "nomask": nomask,
        "distribution": distribution,
        "seed": seed,
    }


# GPU shapes and seeds from GPU MODE (seqlen, bs, dim, nomask, distribution, seed); small CPU shapes so that
# everything also runs without a GPU, with masked, Cauchy and odd-sized cases among them.
TESTS = {
    "cuda": [
        _case(*row)
        for row in (
            (32, 1, 128, True, "normal", 9371),
            (32, 1, 128, False, "normal", 1092),
            (64, 2, 256, True, "normal", 2291),
            (64, 2, 256, False, "normal", 210284),
            (128, 1, 768, True, "normal", 81934),
            (256, 1, 128, True, "normal", 1932),
            (256, 1, 128, False, "normal", 10432),
            (768, 2, 128, True, "normal", 731),
            (1024, 1, 384, False, "normal", 53121),
            (1024, 1, 768, True, "normal", 31),
            (1024, 1, 768, False, "normal", 4921),
            (32, 1, 128, True, "cauchy", 937321),
            (64, 2, 256, True, "cauchy", 2291),
            (128, 1, 768, True, "cauchy", 8134),
            (256, 1, 128, True, "cauchy", 932),
            (768, 2, 128, True, "cauchy", 31),
            (1024, 1, 384, False, "cauchy", 5321),
            (1024, 1, 768, False, "cauchy", 491),
        )
    ],
    "cpu": [
        _case(*row)
        for row in (
            (16, 1, 32, True, "normal", 8101),
            (16, 2, 64, False, "normal", 8102),
            (24, 1, 96, False, "normal", 8103),
            (32, 1, 128, True, "normal", 8104),
            (32, 1, 128, False, "normal", 8105),
            (16, 1, 32, True, "cauchy", 8106),
            (32, 2, 64, True, "cauchy", 8107),
            (32, 1, 128, False, "cauchy", 8108),
            (32, 2, 128, True, "cauchy", 8109),
        )
    ],
}
BENCHMARKS = {
    "cuda": [
        _case(*row)
        for row in (
            (256, 2, 128, True, "normal", 9371),
            (768, 1, 128, True, "cauchy", 381),
            (256, 2, 384, False, "normal", 2301),
            (512, 1, 128, True, "normal", 12819),
            (1024, 1, 128, True, "cauchy", 381),
            (768, 1, 384, False, "normal", 481),
            (1024, 1, 384, True, "normal", 23291),
        )
    ],
    # a reference call takes about 5-30 ms on one core of the development machine
    "cpu": [
        _case(*row)
        for row in (
            (32, 1, 128, True, "normal", 9101),
            (32, 2, 64, False, "normal", 9102),
            (48, 1, 64, True, "cauchy", 9103),
        )
    ],
}


def counts(
    seqlen: int, bs: int, dim: int, hiddendim: int, nomask: bool, distribution: str
) -> tuple[float, float]:
    """The matrix work that cannot be skipped, and the bytes that must move (all fp32).

    flops: the five projections (2 * rows * dim * hidden each), the triangle product (2 * bs * seqlen^3 *
    hidden) and the output projection (2 * rows * hidden * dim), rows = bs * seqlen^2; the layer norms and
    gates (a few operations per element) are left out, so the count is a lower bound.
    bytes: read x, the mask (fp32 ones, or int64 when masked) and the weights once; write the output.
    """
    rows = bs * seqlen * seqlen
    h, d = hiddendim, dim
    flops = 2 * rows * d * h * 5 + 2 * bs * seqlen**3 * h + 2 * rows * h * d
    weights = 5 * h * d + d * h + 2 * d + 2 * h
    mask_bytes = rows * (4 if nomask else 8)
    return float(flops), float(4 * rows * d + mask_bytes + 4 * weights + 4 * rows * d)
