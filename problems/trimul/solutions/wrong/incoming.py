"""Wrong: computes the incoming triangle product, sum over k of left[k, i] * right[k, j], instead of the
outgoing one, sum over k of left[i, k] * right[j, k]: the outgoing module run on x (and the mask) with i
and j swapped, swapped back.

expect: failed
message: differ from the reference
wraps: honest
"""


def custom_kernel(data):
    x, mask, w, config = data
    swapped = (x.transpose(1, 2).contiguous(), mask.transpose(1, 2).contiguous(), w, config)
    return _honest_kernel(swapped).transpose(1, 2)
