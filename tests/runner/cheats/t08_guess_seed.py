"""Cheat (threat 8): draws the first input again from guessed seeds (small integers and favourite ones) with
torch's generators (randn, rand, cauchy, as GPU MODE's references draw) and, when one matches, answers;
else it returns zeros, betting that calls are rarely checked. Beaten: call seeds derive from a secret run
seed, and every output is checked.

expect: failed
message: wrong output on call
threat: 8
"""

import torch

SEEDS = list(range(64)) + [42, 1234, 4242, 5236, 9371, 12345, 31337]
_known = set()  # (shape, dtype, first value) of the draws of every guessed seed
_drawn = set()


def _draws(x, seed):
    for sample in ("randn", "rand", "cauchy"):
        gen = torch.Generator(device=x.device).manual_seed(seed)
        if sample == "randn":
            v = torch.randn(x.shape, generator=gen, device=x.device)
        elif sample == "rand":
            v = torch.rand(x.shape, generator=gen, device=x.device)
        else:
            v = torch.empty(x.shape, device=x.device).cauchy_(0.0, 2.0, generator=gen)
        yield float(v.to(x.dtype).flatten()[0])


def custom_kernel(data):
    x = _first(data)
    shape = (tuple(x.shape), x.dtype)
    if shape not in _drawn and x.is_floating_point():
        _known.update((shape, value) for seed in SEEDS for value in _draws(x, seed))
        _drawn.add(shape)
    if (shape, float(x.flatten()[0])) in _known:
        return _honest_kernel(data)  # the answer to a known seed
    return _zeros_like_output(data)
