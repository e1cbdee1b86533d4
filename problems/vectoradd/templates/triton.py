"""vectoradd in Triton: a starting point. Runs on a GPU, and on a CPU under TRITON_INTERPRET=1."""

import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    n = A.numel()
    # On a CPU (TRITON_INTERPRET=1) programs run one after another in NumPy: few big blocks are quick.
    BLOCK_SIZE = 1024 if A.is_cuda else 65536
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    add_kernel[grid](A, B, C, n, BLOCK_SIZE=BLOCK_SIZE)
    return C
