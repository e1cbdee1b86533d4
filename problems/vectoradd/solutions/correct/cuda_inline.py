"""Correct: the sum in CUDA C++, built at import by torch.utils.cpp_extension.load_inline (nvcc and ninja on
the contestant's PATH), as GPU MODE submissions that compile CUDA do. Writes into C and returns it, so the
judge sees an alias and copies nothing. GPU only: a CPU run of it is told the run has no GPU.

device: cuda
"""

import torch
from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
#include <c10/cuda/CUDAStream.h>

__global__ void add_half2(const __half2* a, const __half2* b, __half2* c, int64_t pairs) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < pairs) c[i] = __hadd2(a[i], b[i]);
}

__global__ void add_half(const __half* a, const __half* b, __half* c, int64_t from, int64_t n) {
    int64_t i = from + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

torch::Tensor add_into(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    TORCH_CHECK(a.is_cuda() && a.is_contiguous() && b.is_contiguous() && c.is_contiguous(),
                "contiguous CUDA tensors expected");
    TORCH_CHECK(a.scalar_type() == torch::kHalf, "float16 expected");
    int64_t n = a.numel();
    auto stream = c10::cuda::getCurrentCUDAStream();
    auto pa = reinterpret_cast<const __half*>(a.data_ptr<at::Half>());
    auto pb = reinterpret_cast<const __half*>(b.data_ptr<at::Half>());
    auto pc = reinterpret_cast<__half*>(c.data_ptr<at::Half>());
    const int threads = 256;
    // two halves per thread where all three are 4-byte aligned; one per thread for the rest
    bool paired = ((uintptr_t)pa % 4 == 0) && ((uintptr_t)pb % 4 == 0) && ((uintptr_t)pc % 4 == 0);
    int64_t pairs = paired ? n / 2 : 0;
    if (pairs > 0) {
        add_half2<<<(pairs + threads - 1) / threads, threads, 0, stream>>>(
            reinterpret_cast<const __half2*>(pa), reinterpret_cast<const __half2*>(pb),
            reinterpret_cast<__half2*>(pc), pairs);
    }
    int64_t rest = n - 2 * pairs;
    if (rest > 0) add_half<<<(rest + threads - 1) / threads, threads, 0, stream>>>(pa, pb, pc, 2 * pairs, n);
    return c;
}
"""

_module = load_inline(
    name="vectoradd_cuda_inline",
    cpp_sources="torch::Tensor add_into(torch::Tensor a, torch::Tensor b, torch::Tensor c);",
    cuda_sources=CUDA_SOURCE,
    functions=["add_into"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    return _module.add_into(A, B, C)
