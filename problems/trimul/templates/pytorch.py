"""trimul in PyTorch: a starting point. custom_kernel(data) gets (x, mask, weights, config) and returns the
outgoing Triangle Multiplicative Update of x, fp32 [bs, seqlen, seqlen, dim]."""

import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]

    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])  # [bs, N, N, dim]
    m = mask.unsqueeze(-1)  # [bs, N, N, 1]: 0 or 1 (fp32 ones, or int64 when masked)

    # the gated, masked projections: [bs, N, N, hidden]
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))

    # the outgoing triangle product: out[b, i, j, c] = sum_k left[b, i, k, c] * right[b, j, k, c]
    out = torch.einsum("bikc,bjkc->bijc", left, right)

    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])  # [bs, N, N, dim]
