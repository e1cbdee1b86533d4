"""qr: batched square QR in compact Householder form, as torch.geqrf returns it. The reference, the inputs
and the check.

The check does not compare with the reference's numbers: a QR factorization is not unique (the signs of
R's rows and of the Householder vectors may differ) and on ill-conditioned or rank-deficient matrices two
correct factorizations differ far beyond any tolerance. It checks, in float64, that the output *is* a QR
factorization of A: with Q = householder_product(H, tau) and R = triu(H),

    factor residual   max over the batch of ||R - Q^T A||_1 / ||A||_1   <  20 * n * eps32
    orthogonality     max over the batch of ||Q^T Q - I||_1             < 100 * n * eps32

where ||X||_1 = max_j sum_i |X[i, j]| is the matrix 1-norm (the largest column sum of magnitudes) of one
n x n matrix, and eps32 = 2**-23 = torch.finfo(torch.float32).eps.
"""

import math

import torch
from task import input_t, output_t

EPS32 = torch.finfo(torch.float32).eps  # 2**-23
RESIDUAL_FACTOR = 20  # ||R - Q^T A||_1 / ||A||_1 < RESIDUAL_FACTOR * n * eps32
ORTHOGONALITY_FACTOR = 100  # ||Q^T Q - I||_1 < ORTHOGONALITY_FACTOR * n * eps32
CHECK_ELEMENTS = 1 << 25  # float64 elements per chunk of the batch in the check (256 MiB a tensor)

PROFILES = ("dense", "rankdef", "nearrank", "clustered", "band", "rowscale", "nearcollinear", "upper")
CASES = PROFILES + ("mixed",)
MAGNITUDE = 20  # each matrix is scaled by 2**e, e in [-20, 20]: about 1e-6 to 1e6


def ref_kernel(data: input_t) -> output_t:
    return torch.geqrf(data)


# ---- inputs -------------------------------------------------------------------------------------------


def _column_scales(n: int, cond: float, device) -> torch.Tensor:
    """logspace(0, -cond, n): column j is scaled by 10 ** (-cond * j / (n - 1))."""
    return torch.logspace(0, -cond, n, dtype=torch.float32, device=device)


def _randn(gen, device, *shape) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32)


def _rand(gen, device, *shape) -> torch.Tensor:
    return torch.rand(*shape, generator=gen, device=device, dtype=torch.float32)


def _permutations(gen, device, count: int, n: int) -> torch.Tensor:
    """One random permutation of range(n) per matrix, (count, n)."""
    return _rand(gen, device, count, n).argsort(dim=-1)


def _profile(kind: str, count: int, n: int, cond: float, gen, device) -> torch.Tensor:
    """`count` matrices n x n of one structure, float32. Every structure keeps the dense profile's column
    scaling by logspace(0, -cond, n), so `cond` sets the spread of column norms throughout."""
    s = _column_scales(n, cond, device)
    if kind == "dense":  # Gaussian, columns scaled by logspace(0, -cond, n)
        return _randn(gen, device, count, n, n) * s
    if kind == "rankdef":  # exactly rank n/2 (up to rounding), and about one column in eight exactly zero
        r = max(1, n // 2)
        A = _randn(gen, device, count, n, r) @ _randn(gen, device, count, r, n) / math.sqrt(r)
        zero = _rand(gen, device, count, 1, n) < 0.125
        return A.masked_fill(zero, 0.0) * s
    if kind == "nearrank":  # rank n - n/8 plus noise of relative size 1e-5: near rank-deficient
        r = max(1, n - n // 8)
        A = _randn(gen, device, count, n, r) @ _randn(gen, device, count, r, n) / math.sqrt(r)
        return (A + 1e-5 * _randn(gen, device, count, n, n)) * s
    if kind == "clustered":  # column scales in three clusters 1, 10^-cond, 10^-2cond, in random order
        level = torch.randint(0, 3, (count, 1, n), generator=gen, device=device).float()
        scale = torch.pow(10.0, -cond * level) * (1 + 0.01 * _rand(gen, device, count, 1, n))
        return _randn(gen, device, count, n, n) * scale
    if kind == "band":  # banded: lower bandwidth 1..max(1, n/16), upper 1..max(1, n/8), per matrix
        low = torch.randint(1, max(1, n // 16) + 1, (count, 1, 1), generator=gen, device=device)
        up = torch.randint(1, max(1, n // 8) + 1, (count, 1, 1), generator=gen, device=device)
        i = torch.arange(n, device=device).view(1, n, 1)
        j = torch.arange(n, device=device).view(1, 1, n)
        inside = (i - j <= low) & (j - i <= up)
        return (_randn(gen, device, count, n, n) * s).masked_fill(~inside, 0.0)
    if kind == "rowscale":  # rows scaled by logspace(0, -2 cond, n) in a random order, columns as dense
        rows = torch.logspace(0, -2 * cond, n, dtype=torch.float32, device=device)[
            _permutations(gen, device, count, n)
        ]
        return _randn(gen, device, count, n, n) * s * rows.unsqueeze(-1)
    if kind == "nearcollinear":  # every column is +-u plus 1e-4 noise: numerically close to rank one
        u = _randn(gen, device, count, n, 1)
        sign = torch.where(_rand(gen, device, count, 1, n) < 0.5, -1.0, 1.0)
        return (u * sign + 1e-4 * _randn(gen, device, count, n, n)) * s
    if kind == "upper":  # already upper triangular: every Householder vector is zero, every tau 0
        return torch.triu(_randn(gen, device, count, n, n) * s)
    raise ValueError(f"unknown case {kind!r}; the cases are {', '.join(CASES)}")


def _magnitudes(gen, device, batch: int) -> torch.Tensor:
    """One factor per matrix, (batch, 1, 1): a random sign times 2 ** e, e an integer uniform in
    [-MAGNITUDE, MAGNITUDE]. Exact in float32 (a power of two), so that the factorization and the check,
    both scale-invariant, are unchanged, while a kernel with an absolute threshold (a column "zero" below
    some fixed norm, an eps added to a norm) meets entries from 1e-6 to 1e6 times the usual."""
    e = torch.randint(-MAGNITUDE, MAGNITUDE + 1, (batch, 1, 1), generator=gen, device=device)
    sign = torch.where(_rand(gen, device, batch, 1, 1) < 0.5, -1.0, 1.0)
    return torch.exp2(e.float()) * sign


def generate_input(batch: int, n: int, cond: float, case: str, seed: int, device: str = "cuda") -> input_t:
    """A (batch, n, n) float32 batch of one structure, or for "mixed" each matrix with its own structure at
    a random position in the batch (every structure appears when batch >= 8); each matrix then multiplied by
    its own random power of two and sign (_magnitudes)."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    if case != "mixed":
        A = _profile(case, batch, n, cond, gen, device).contiguous()
    else:
        order = torch.randperm(len(PROFILES), generator=gen, device=device).tolist()
        kinds = [PROFILES[order[i % len(PROFILES)]] for i in range(batch)]
        position = torch.randperm(batch, generator=gen, device=device)
        A = torch.empty(batch, n, n, dtype=torch.float32, device=device)
        for kind in PROFILES:
            where = position[[i for i, k in enumerate(kinds) if k == kind]]
            if len(where):
                A[where] = _profile(kind, len(where), n, cond, gen, device)
    return A.mul_(_magnitudes(gen, device, batch))


# ---- the check ----------------------------------------------------------------------------------------


def _norm1(X: torch.Tensor) -> torch.Tensor:
    """The matrix 1-norm of each matrix of a batch: the largest column sum of magnitudes."""
    return X.abs().sum(dim=-2).amax(dim=-1)


def _describe(t) -> str:
    if isinstance(t, torch.Tensor):
        return f"a {str(t.dtype).removeprefix('torch.')} tensor of shape {tuple(t.shape)} on {t.device}"
    return f"a {type(t).__name__}"


def _where(flat: int, shape) -> tuple[int, ...]:
    out = []
    for dim in reversed(shape):
        out.append(flat % dim)
        flat //= dim
    return tuple(reversed(out))


def _check_tensor(name: str, t, shape, device) -> str | None:
    if type(t) is not torch.Tensor:
        return f"{name} is {_describe(t)}; expected a plain torch.Tensor"
    if t.dtype != torch.float32:
        return f"{name} is {_describe(t)}; expected float32"
    if tuple(t.shape) != tuple(shape):
        return f"{name} has shape {tuple(t.shape)}; expected {tuple(shape)}"
    if t.device != device:
        return f"{name} is on {t.device}; expected {device}, the input's device"
    bad = ~torch.isfinite(t)
    if bool(bad.any()):
        i = int(bad.flatten().nonzero()[0])
        return f"{name} contains {t.flatten()[i].item()} at {_where(i, t.shape)} ({int(bad.sum()):,} values not finite)"
    return None


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    A = data
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        return (
            False,
            f"the output is {_describe(output)}; expected the pair (H, tau) that torch.geqrf returns",
        )
    H, tau = output
    batch, n = A.shape[0], A.shape[-1]
    for name, t, shape in (("H", H, A.shape), ("tau", tau, A.shape[:-1])):
        problem = _check_tensor(name, t, shape, A.device)
        if problem:
            return False, problem
    res_bound = RESIDUAL_FACTOR * n * EPS32
    orth_bound = ORTHOGONALITY_FACTOR * n * EPS32
    eye = torch.eye(n, dtype=torch.float64, device=A.device)
    chunk = max(1, CHECK_ELEMENTS // (n * n))
    residuals, orthogonality = [], []
    for start in range(0, batch, chunk):
        A64 = A[start : start + chunk].double()
        H64 = H[start : start + chunk].double()
        Q = torch.linalg.householder_product(H64, tau[start : start + chunk].double())
        scale = _norm1(A64).clamp_min(torch.finfo(torch.float64).tiny)
        residuals.append(_norm1(torch.triu(H64) - Q.mT @ A64) / scale)
        orthogonality.append(_norm1(Q.mT @ Q - eye))
    # NaN (a finite H and tau whose Q overflows) counts as the worst possible
    res = torch.nan_to_num(torch.cat(residuals), nan=math.inf)
    orth = torch.nan_to_num(torch.cat(orthogonality), nan=math.inf)
    worst_res = (float(res.max()), int(res.argmax()))
    worst_orth = (float(orth.max()), int(orth.argmax()))
    if not worst_orth[0] < orth_bound:
        return False, (
            f"Q = householder_product(H, tau) is not orthogonal: for matrix {worst_orth[1]} "
            f"||Q^T Q - I||_1 is {worst_orth[0]:.3g}, above the bound 100 n eps32 = {orth_bound:.3g}"
        )
    if not worst_res[0] < res_bound:
        return False, (
            f"not a QR factorization of A: for matrix {worst_res[1]} the factor residual "
            f"||R - Q^T A||_1 / ||A||_1 is {worst_res[0]:.3g}, above the bound 20 n eps32 = {res_bound:.3g}"
        )
    return True, ""
