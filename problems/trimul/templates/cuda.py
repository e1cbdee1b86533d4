"""trimul in CUDA C++: a starting point. custom_kernel(data) gets (x, mask, weights, config) and returns the
outgoing Triangle Multiplicative Update of x, fp32 [bs, seqlen, seqlen, dim], as the PyTorch template does,
with the gated, masked projections (projection * mask * sigmoid(gate)) fused into one CUDA kernel. The
triangle product is still torch's einsum: moving it, and the layer norms, into CUDA is the next step. The
kernel is compiled when the module is imported, by torch.utils.cpp_extension.load_inline (nvcc; the first
import takes about a minute), and runs on a GPU device kind only: choose language CUDA and a GPU.

device: cuda
"""

import torch
import torch.nn.functional as F
from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

// out = projection * mask * sigmoid(gate), the mask broadcast over the last (hidden) dimension
__global__ void gated_kernel(const float* projection, const float* gate, const float* mask, float* out,
                             int64_t n, int64_t hidden) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = projection[i] * mask[i / hidden] / (1.0f + expf(-gate[i]));
}

torch::Tensor gated(torch::Tensor projection, torch::Tensor gate, torch::Tensor mask) {
    TORCH_CHECK(projection.is_cuda() && projection.sizes() == gate.sizes(), "CUDA tensors of one shape expected");
    projection = projection.to(torch::kFloat).contiguous();
    gate = gate.to(torch::kFloat).contiguous();
    mask = mask.to(torch::kFloat).contiguous();
    TORCH_CHECK(mask.numel() * projection.size(-1) == projection.numel(), "one mask value per position expected");
    auto out = torch::empty_like(projection);
    int64_t n = projection.numel();
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 0) {
        // on the current stream: the one the judge times
        gated_kernel<<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
            projection.data_ptr<float>(), gate.data_ptr<float>(), mask.data_ptr<float>(),
            out.data_ptr<float>(), n, projection.size(-1));
    }
    return out;
}
"""

_module = load_inline(
    name="trimul_template_cuda",
    cpp_sources="torch::Tensor gated(torch::Tensor projection, torch::Tensor gate, torch::Tensor mask);",
    cuda_sources=CUDA_SOURCE,
    functions=["gated"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]

    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])  # [bs, N, N, dim]

    # the gated, masked projections, in CUDA: [bs, N, N, hidden]
    left = _module.gated(F.linear(x, w["left_proj.weight"]), F.linear(x, w["left_gate.weight"]), mask)
    right = _module.gated(F.linear(x, w["right_proj.weight"]), F.linear(x, w["right_gate.weight"]), mask)

    # the outgoing triangle product: out[b, i, j, c] = sum_k left[b, i, k, c] * right[b, j, k, c]
    out = torch.einsum("bikc,bjkc->bijc", left, right)

    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])  # [bs, N, N, dim]
