"""matmul in CUDA C++: a starting point. custom_kernel(data) gets (a, b, c), a (m, k) and b (k, n) float16,
and returns a @ b, float16 (m, n), written into the buffer c: each block computes a 16 x 16 tile of c, adding
up in float32 over 16-wide tiles of a and b staged in shared memory. Tensor cores (mma, WMMA) are the next
step. The kernel is compiled when the module is imported, by torch.utils.cpp_extension.load_inline (nvcc; the
first import takes about a minute), and runs on a GPU device kind only: choose language CUDA and a GPU.

device: cuda
"""

from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
#include <c10/cuda/CUDAStream.h>

constexpr int TILE = 16;

__global__ void matmul_tiles(const __half* a, const __half* b, __half* c, int m, int n, int k) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int start = 0; start < k; start += TILE) {
        int ka = start + threadIdx.x, kb = start + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? __half2float(a[(int64_t)row * k + ka]) : 0.0f;
        tb[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? __half2float(b[(int64_t)kb * n + col]) : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; ++i) sum += ta[threadIdx.y][i] * tb[i][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[(int64_t)row * n + col] = __float2half(sum);
}

torch::Tensor matmul_into(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    TORCH_CHECK(a.is_cuda() && a.scalar_type() == torch::kHalf && b.scalar_type() == torch::kHalf,
                "float16 CUDA tensors expected");
    TORCH_CHECK(c.is_contiguous(), "a contiguous output buffer expected");
    a = a.contiguous();
    b = b.contiguous();
    int m = a.size(0), k = a.size(1), n = b.size(1);
    dim3 threads(TILE, TILE);
    dim3 blocks((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    if (m > 0 && n > 0) {
        // on the current stream: the one the judge times
        matmul_tiles<<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
            reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
            reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
            reinterpret_cast<__half*>(c.data_ptr<at::Half>()), m, n, k);
    }
    return c;
}
"""

_module = load_inline(
    name="matmul_template_cuda",
    cpp_sources="torch::Tensor matmul_into(torch::Tensor a, torch::Tensor b, torch::Tensor c);",
    cuda_sources=CUDA_SOURCE,
    functions=["matmul_into"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    return _module.matmul_into(a, b, c)
