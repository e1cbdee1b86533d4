"""Cheat (threat 6): computes one row of the product and returns a zero-stride view of it that looks like
an (m, n) tensor. Beaten: the view is copied as the values it shows, and they are wrong.

expect: failed
threat: 6
"""

import torch


def custom_kernel(data):
    a, b, c = data
    row = torch.matmul(a[:1].float(), b.float()).half()
    return row.expand_as(c)
