"""softmax: the row-wise softmax of a float32 matrix, with inputs built to break the unsafe versions."""

TITLE = "Row-wise softmax (fp32)"
TOLERANCE = (
    "rtol = 1e-4, atol = 1e-8 against softmax(x, dim=-1) computed in float64 and rounded to float32 (a "
    "float32 kernel that subtracts the row's max is off by a few units of 1e-7 relative)"
)
WRITABLE_INPUTS = ()  # x is read-only; returning a new tensor, or writing into x and returning x, are both fine


def _cases(shapes, first_seed):
    return [{"rows": r, "cols": c, "seed": first_seed + i} for i, (r, c) in enumerate(shapes)]


# (rows, cols). GPU shapes: attention-like rows (a few hundred to 8192 columns) and many rows; small CPU
# shapes, odd sizes among them, so that everything also runs without a GPU.
TESTS = {
    "cuda": _cases([(1, 1), (128, 128), (1000, 1000), (4096, 77), (64, 8192), (513, 2049)], 6100),
    "cpu": _cases([(1, 1), (16, 16), (33, 100), (64, 1000), (7, 4096), (129, 257)], 6200),
}
BENCHMARKS = {
    "cuda": _cases([(4096, 1024), (8192, 2048), (16384, 4096), (4096, 8192), (65536, 512)], 6300),
    "cpu": _cases([(256, 1024), (1024, 256), (128, 4096)], 6400),
}


def counts(rows: int, cols: int) -> tuple[float, float]:
    """About five operations an element (the max, the subtraction, exp counted as one, the sum, the
    division); read x and write the output once, 4 bytes an element each."""
    n = rows * cols
    return 5.0 * n, 8.0 * n
