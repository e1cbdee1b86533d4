"""Wrong: leaves out the output gate, sigmoid(out_gate(x)).

expect: failed
message: differ from the reference
"""

import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    x = F.layer_norm(x, (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    return F.linear(out, w["to_out.weight"])
