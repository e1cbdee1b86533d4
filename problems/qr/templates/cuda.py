"""qr in CUDA C++: a starting point. custom_kernel(data) gets A, float32 (batch, n, n), and returns (H, tau) as
torch.geqrf does: R in the upper triangle of H, the Householder vectors below it (their first entry, 1, left
out), tau (batch, n). Unblocked Householder QR, one column at a time for every matrix of the batch at once:
a kernel makes column k's reflector (one block per matrix), a second applies it to the columns right of k
(one block per matrix and column). It works on the transpose, so that a column is contiguous in memory.
Blocking (applying several reflectors at once, as matrix products) is the next step. The kernels are compiled
when the module is imported, by torch.utils.cpp_extension.load_inline (nvcc; the first import takes about a
minute), and run on a GPU device kind only: choose language CUDA and a GPU.

device: cuda
"""

import torch
from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

constexpr int THREADS = 256;

// The sum over the block's threads; every thread gets it.
__device__ double block_sum(double value, double* shared) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int step = THREADS / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) shared[threadIdx.x] += shared[threadIdx.x + step];
        __syncthreads();
    }
    double total = shared[0];
    __syncthreads();
    return total;
}

// Column k of matrix blockIdx.x (row k of its transpose, `columns`): the reflector I - tau v v^T that zeroes the
// column below the diagonal, as LAPACK's larfg makes it. beta on the diagonal, v (v[k] = 1) below it.
__global__ void make_reflector(float* columns, float* tau, int64_t n, int64_t k) {
    __shared__ double shared[THREADS];
    float* col = columns + blockIdx.x * n * n + k * n;
    double alpha = col[k];  // read by every thread before block_sum's barrier: thread 0 overwrites it below
    double below = 0.0;
    for (int64_t i = k + 1 + threadIdx.x; i < n; i += THREADS) below += (double)col[i] * col[i];
    below = block_sum(below, shared);
    if (below == 0.0) {  // nothing to zero: H = I
        if (threadIdx.x == 0) tau[blockIdx.x * n + k] = 0.0f;
        return;
    }
    double beta = -copysign(sqrt(alpha * alpha + below), alpha);
    double scale = 1.0 / (alpha - beta);
    for (int64_t i = k + 1 + threadIdx.x; i < n; i += THREADS) col[i] = (float)(col[i] * scale);
    if (threadIdx.x == 0) {
        tau[blockIdx.x * n + k] = (float)((beta - alpha) / beta);
        col[k] = (float)beta;
    }
}

// Column j = k + 1 + blockIdx.x of matrix blockIdx.y: a_j -= tau v (v^T a_j).
__global__ void apply_reflector(float* columns, const float* tau, int64_t n, int64_t k) {
    __shared__ double shared[THREADS];
    float t = tau[blockIdx.y * n + k];
    if (t == 0.0f) return;
    const float* v = columns + blockIdx.y * n * n + k * n;
    float* col = columns + blockIdx.y * n * n + (k + 1 + blockIdx.x) * n;
    double dot = threadIdx.x == 0 ? (double)col[k] : 0.0;
    for (int64_t i = k + 1 + threadIdx.x; i < n; i += THREADS) dot += (double)v[i] * col[i];
    float w = (float)(t * block_sum(dot, shared));
    if (threadIdx.x == 0) col[k] -= w;
    for (int64_t i = k + 1 + threadIdx.x; i < n; i += THREADS) col[i] -= w * v[i];
}

// Factors the transposes `columns` (batch, n, n) in place; tau (batch, n) gets the reflectors' scales.
void factor(torch::Tensor columns, torch::Tensor tau) {
    TORCH_CHECK(columns.is_cuda() && columns.is_contiguous() && columns.scalar_type() == torch::kFloat, "contiguous float32 CUDA");
    int64_t batch = columns.size(0), n = columns.size(1);
    if (batch == 0 || n == 0) return;
    auto stream = c10::cuda::getCurrentCUDAStream();  // the one the judge times
    for (int64_t k = 0; k < n; ++k) {
        make_reflector<<<batch, THREADS, 0, stream>>>(columns.data_ptr<float>(), tau.data_ptr<float>(), n, k);
        if (k + 1 < n) {
            dim3 blocks(n - k - 1, batch);
            apply_reflector<<<blocks, THREADS, 0, stream>>>(columns.data_ptr<float>(), tau.data_ptr<float>(), n, k);
        }
    }
}
"""

_module = load_inline(
    name="qr_template_cuda",
    cpp_sources="void factor(torch::Tensor columns, torch::Tensor tau);",
    cuda_sources=CUDA_SOURCE,
    functions=["factor"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    columns = data.transpose(-1, -2).contiguous()  # a copy: A itself is read-only
    tau = torch.zeros(data.shape[:-1], dtype=torch.float32, device=data.device)
    _module.factor(columns, tau)
    return columns.transpose(-1, -2).contiguous(), tau
