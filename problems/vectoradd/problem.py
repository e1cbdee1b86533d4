"""vectoradd: the first problem a newcomer tries."""

TITLE = "Vector addition (fp16)"
TOLERANCE = "rtol = atol = 1e-3 against A + B"
WRITABLE_INPUTS = (2,)  # C, the output buffer

# GPU shapes from GPU MODE; small CPU shapes so that everything also runs without a GPU.
TESTS = {
    "cuda": [{"size": s, "seed": 4242 + i} for i, s in enumerate((127, 128, 129, 256, 512))],
    "cpu": [{"size": s, "seed": 4242 + i} for i, s in enumerate((31, 64, 127, 256))],
}
BENCHMARKS = {
    "cuda": [{"size": s, "seed": 5236 + i} for i, s in enumerate((1024, 2048, 4096, 8192, 16384))],
    "cpu": [{"size": s, "seed": 5236 + i} for i, s in enumerate((256, 512, 1024, 2048))],
}


def counts(size: int) -> tuple[float, float]:
    """One add per element; read A and B, write C, 2 bytes each."""
    n = size * size
    return float(n), float(3 * 2 * n)
