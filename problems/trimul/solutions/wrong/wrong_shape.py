"""Wrong: returns the rows as the last matrix product leaves them, [bs * N * N, dim], without the reshape
back to [bs, N, N, dim].

expect: failed
message: custom_kernel returned shape
wraps: honest
"""


def custom_kernel(data):
    out = _honest_kernel(data)
    return out.reshape(-1, out.shape[-1])  # [bs * N * N, dim]
