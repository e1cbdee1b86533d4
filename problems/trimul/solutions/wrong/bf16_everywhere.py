"""Wrong: computes everything in bfloat16 for speed (the honest solution on x and the weights rounded to
bfloat16). Returning bfloat16 is allowed (trimul accepts lower precision outputs, as GPU MODE does), but
LayerNorm and the projections in bfloat16 lose too much on these inputs (each position of x carries a large
offset that the first LayerNorm must remove).

expect: failed
message: differ from the reference beyond rtol=0.02
wraps: honest
"""

import torch


def custom_kernel(data):
    x, mask, w, config = data
    low = torch.bfloat16
    return _honest_kernel((x.to(low), mask.to(low), {k: v.to(low) for k, v in w.items()}, config))
