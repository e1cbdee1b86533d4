"""Correct, and faster on a CPU than the module as written: the five projections in one matrix product computed
transposed (hidden-major, so that no permute copy is needed), the gates applied in place, and the triangle
product as one batched matrix product, one N x N matrix per channel."""

import torch
import torch.nn.functional as F
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    x, mask, w, config = data
    bs, n, _, dim = x.shape
    h = config["hidden_dim"]
    rows = bs * n * n

    xn = F.layer_norm(x.reshape(rows, dim), (dim,), w["norm.weight"], w["norm.bias"])
    weight = torch.cat([w["left_proj.weight"], w["right_proj.weight"], w["left_gate.weight"],
                        w["right_gate.weight"], w["out_gate.weight"]])
    pt = torch.mm(weight, xn.t())  # [5h, rows]: left, right, their gates, the out gate
    proj, gates = pt[: 2 * h], pt[2 * h :]
    gates.sigmoid_()
    proj.mul_(gates[: 2 * h]).mul_(mask.reshape(1, rows))
    left = proj[:h].view(h * bs, n, n)  # channel-major: [hidden * bs, N, N]
    right = proj[h:].view(h * bs, n, n)

    out = torch.bmm(left, right.transpose(1, 2))  # out[c, i, j] = sum_k left[c, i, k] * right[c, j, k]
    out = out.view(h, rows).t()  # [rows, hidden], a strided view
    out = F.layer_norm(out, (h,), w["to_out_norm.weight"], w["to_out_norm.bias"])
    out.mul_(gates[2 * h :].t())
    return F.linear(out, w["to_out.weight"]).view(bs, n, n, dim)
