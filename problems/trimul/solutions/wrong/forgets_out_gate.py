"""Wrong: leaves out the output gate, sigmoid(out_gate(x)): the honest solution with the gate's weights at
zero (a gate of exactly one half everywhere), its output doubled.

expect: failed
message: differ from the reference
wraps: honest
"""

import torch


def custom_kernel(data):
    x, mask, w, config = data
    return 2 * _honest_kernel((x, mask, {**w, "out_gate.weight": torch.zeros_like(w["out_gate.weight"])}, config))
