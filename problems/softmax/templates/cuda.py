"""softmax in CUDA C++: a starting point. custom_kernel(data) gets x, float32 (rows, cols), and returns
softmax(x) along each row, float32 (rows, cols): one block per row, which finds the row's maximum, then the sum
of exp(x - max), then writes each exp(x - max) / sum. The kernel is compiled when the module is imported, by
torch.utils.cpp_extension.load_inline (nvcc; the first import takes about a minute), and runs on a GPU device
kind only: choose language CUDA and a GPU.

device: cuda
"""

from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

constexpr int THREADS = 256;

// The block's threads combine their values (max or sum); every thread gets the result.
template <bool MAX>
__device__ float block_combine(float value, float* shared) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int step = THREADS / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) {
            float other = shared[threadIdx.x + step];
            shared[threadIdx.x] = MAX ? fmaxf(shared[threadIdx.x], other) : shared[threadIdx.x] + other;
        }
        __syncthreads();
    }
    float result = shared[0];
    __syncthreads();  // shared is reused by the next combine
    return result;
}

__global__ void softmax_rows(const float* x, float* y, int64_t cols) {
    __shared__ float shared[THREADS];
    const float* row = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    float high = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) high = fmaxf(high, row[j]);
    high = block_combine<true>(high, shared);
    float total = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) total += expf(row[j] - high);
    total = block_combine<false>(total, shared);
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) out[j] = expf(row[j] - high) / total;
}

torch::Tensor row_softmax(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == torch::kFloat, "a 2-D float32 CUDA tensor expected");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    if (x.numel() > 0) {
        softmax_rows<<<x.size(0), THREADS, 0, c10::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    }
    return y;
}
"""

_module = load_inline(
    name="softmax_template_cuda",
    cpp_sources="torch::Tensor row_softmax(torch::Tensor x);",
    cuda_sources=CUDA_SOURCE,
    functions=["row_softmax"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    return _module.row_softmax(data)
