"""Wrong: computes everything in bfloat16 for speed. Returning bfloat16 is allowed (trimul accepts lower
precision outputs, as GPU MODE does), but LayerNorm and the projections in bfloat16 lose too much on these
inputs (each position of x carries a large offset that the first LayerNorm must remove).

expect: failed
message: differ from the reference beyond rtol=0.02
"""

import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    dim, hidden = config["dim"], config["hidden_dim"]
    w = {k: v.to(torch.bfloat16) for k, v in w.items()}
    x = F.layer_norm(x.to(torch.bfloat16), (dim,), w["norm.weight"], w["norm.bias"])
    m = mask.unsqueeze(-1).to(torch.bfloat16)
    left = F.linear(x, w["left_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["left_gate.weight"]))
    right = F.linear(x, w["right_proj.weight"]) * m * torch.sigmoid(F.linear(x, w["right_gate.weight"]))
    out = torch.einsum("bikc,bjkc->bijc", left, right)
    out = F.layer_norm(out, (hidden,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out = out * torch.sigmoid(F.linear(x, w["out_gate.weight"]))
    return F.linear(out, w["to_out.weight"])  # bfloat16: accepted, but wrong
