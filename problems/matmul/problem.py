"""matmul: fp16 matrix multiplication, the GPU MODE problem."""

TITLE = "Matrix multiplication (fp16)"
TOLERANCE = (
    "rtol = atol = 1e-3 against a @ b computed in float32 (a correct float32-accumulating kernel is off by "
    "at most half an fp16 ulp, 4.9e-4 relative; the bf16 shortcut fails)"
)
WRITABLE_INPUTS = (2,)  # c, the output buffer


def _cases(shapes, first_seed):
    return [{"m": m, "n": n, "k": k, "seed": first_seed + i} for i, (m, n, k) in enumerate(shapes)]


# (m, n, k). GPU shapes from GPU MODE; small CPU shapes so that everything also runs without a GPU (the
# CPU benchmarks' float32 reference takes about 1 to 10 ms on one thread).
TESTS = {
    "cuda": _cases([(64, 64, 64), (128, 128, 128), (256, 256, 256), (32, 512, 32), (64, 1024, 64)], 4242),
    "cpu": _cases(
        [(16, 16, 16), (64, 64, 64), (128, 128, 128), (48, 80, 144), (32, 512, 32), (64, 1024, 64)], 4342
    ),
}
BENCHMARKS = {
    "cuda": _cases(
        [
            (128, 128, 128),
            (256, 256, 256),
            (512, 512, 512),
            (1024, 1024, 1024),
            (2048, 2048, 2048),
            (1024, 1536, 1024),
            (2048, 3072, 2048),
            (4096, 5120, 4096),
        ],
        5236,
    ),
    "cpu": _cases([(256, 256, 256), (512, 512, 512), (400, 624, 528)], 5336),
}


def counts(m: int, n: int, k: int) -> tuple[float, float]:
    """2 m n k flops (a multiply and an add per product); read a and b, write c, 2 bytes an element."""
    return 2.0 * m * n * k, 2.0 * (m * k + k * n + m * n)
