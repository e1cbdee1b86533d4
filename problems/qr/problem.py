"""qr: batched square QR in compact Householder form (the output of torch.geqrf)."""

TITLE = "Batched QR factorization (fp32, Householder form)"
TOLERANCE = (
    "checked in float64, not against the reference's numbers: with Q = householder_product(H, tau) and "
    "R = triu(H), max over the batch of ||R - Q^T A||_1 / ||A||_1 < 20 n eps32 and of ||Q^T Q - I||_1 "
    "< 100 n eps32 (||.||_1 the matrix 1-norm, eps32 = 2^-23); H and tau float32 and finite"
)
# No WRITABLE_INPUTS: A is read-only, unless custom_kernel factors it in place and returns it as H.


def _cases(rows, first_seed):
    return [
        {"batch": b, "n": n, "cond": c, "case": k, "seed": first_seed + i}
        for i, (b, n, c, k) in enumerate(rows)
    ]


# GPU cases as the problem states them (batch, n, cond, case). The stress structures carry the cond of
# their group (2, and 1 for the 4096 upper-triangular one): every structure keeps the dense columns'
# scaling by logspace(0, -cond, n).
_GPU_TESTS = [
    (20, 32, 1, "dense"),
    (40, 176, 1, "dense"),
    (40, 352, 1, "dense"),
    (16, 512, 2, "dense"),
    (4, 1024, 2, "dense"),
    (1, 4096, 1, "dense"),
    (16, 512, 4, "dense"),
    (16, 512, 2, "rankdef"),
    (16, 512, 2, "clustered"),
    (16, 512, 2, "band"),
    (16, 512, 2, "rowscale"),
    (16, 512, 2, "nearcollinear"),
    (4, 1024, 4, "dense"),
    (4, 1024, 2, "rankdef"),
    (4, 1024, 2, "nearrank"),
    (4, 1024, 2, "clustered"),
    (2, 2048, 2, "dense"),
    (2, 2048, 2, "rankdef"),
    (1, 4096, 1, "upper"),
    (16, 512, 2, "mixed"),
    (4, 1024, 2, "mixed"),
    (2, 2048, 2, "mixed"),
]
_GPU_BENCHMARKS = [
    (20, 32, 1, "dense"),
    (40, 176, 1, "dense"),
    (40, 352, 1, "dense"),
    (640, 512, 2, "dense"),
    (60, 1024, 2, "dense"),
    (8, 2048, 1, "dense"),
    (2, 4096, 1, "dense"),
    (640, 512, 2, "mixed"),
    (60, 1024, 2, "mixed"),
    (640, 512, 2, "rankdef"),
    (640, 512, 2, "clustered"),
    (60, 1024, 2, "nearrank"),
]
# Small CPU cases: every structure once in the tests; benchmarks whose reference takes a few ms on one
# thread.
_CPU_TESTS = [
    (8, 16, 1, "dense"),
    (4, 32, 1, "dense"),
    (4, 48, 2, "dense"),
    (4, 32, 4, "dense"),
    (4, 32, 2, "rankdef"),
    (4, 32, 2, "nearrank"),
    (4, 32, 2, "clustered"),
    (4, 32, 2, "band"),
    (4, 32, 2, "rowscale"),
    (4, 32, 2, "nearcollinear"),
    (2, 64, 1, "upper"),
    (16, 32, 2, "mixed"),
]
_CPU_BENCHMARKS = [
    (16, 64, 1, "dense"),
    (4, 128, 2, "dense"),
    (16, 64, 2, "mixed"),
    (16, 64, 2, "rankdef"),
    (4, 128, 2, "nearrank"),
]

TESTS = {"cuda": _cases(_GPU_TESTS, 6100), "cpu": _cases(_CPU_TESTS, 6200)}
BENCHMARKS = {"cuda": _cases(_GPU_BENCHMARKS, 7100), "cpu": _cases(_CPU_BENCHMARKS, 7200)}


def counts(batch: int, n: int, cond: float, case: str) -> tuple[float, float]:
    """Householder QR of a square n x n matrix takes 4/3 n^3 flops (2 m n^2 - 2/3 n^3 with m = n); it reads A
    and writes H (n^2 float32 each) and tau (n float32)."""
    return batch * 4 / 3 * n**3, batch * 4.0 * (2 * n * n + n)
