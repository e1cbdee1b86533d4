"""Wrong: returns the rows as the last matrix product left them, [bs * N * N, dim], without the reshape
back to [bs, N, N, dim].

expect: failed
message: custom_kernel returned shape
"""

import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    bs, n, _, dim = x.shape
    hidden = config["hidden_dim"]
    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return torch.mm(out.reshape(-1, hidden), w["to_out.weight"].t())  # [bs * N * N, dim]
