"""vectoradd in CUDA C++: a starting point. custom_kernel(data) gets (A, B, C), float16 (size, size), and
returns A + B, written into the buffer C. The kernel is compiled when the module is imported, by
torch.utils.cpp_extension.load_inline (nvcc; the first import takes about a minute), and runs on a GPU device
kind only: choose language CUDA and a GPU.

device: cuda
"""

from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
#include <c10/cuda/CUDAStream.h>

__global__ void add_kernel(const __half* a, const __half* b, __half* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

torch::Tensor add_into(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    TORCH_CHECK(a.is_cuda() && a.is_contiguous() && b.is_contiguous() && c.is_contiguous(),
                "contiguous CUDA tensors expected");
    TORCH_CHECK(a.scalar_type() == torch::kHalf, "float16 expected");
    int64_t n = a.numel();
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 0) {
        // on the current stream: the one the judge times
        add_kernel<<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
            reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
            reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
            reinterpret_cast<__half*>(c.data_ptr<at::Half>()), n);
    }
    return c;
}
"""

_module = load_inline(
    name="vectoradd_template_cuda",
    cpp_sources="torch::Tensor add_into(torch::Tensor a, torch::Tensor b, torch::Tensor c);",
    cuda_sources=CUDA_SOURCE,
    functions=["add_into"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    return _module.add_into(A, B, C)
