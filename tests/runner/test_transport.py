"""The slots' bytes (runner/wire/transport.py): bit-exact comparison, NaN payloads included."""

import torch

from runner.wire.transport import same_bits


def test_same_bits_sees_nan_payloads():
    a = torch.full((3,), float("nan"))
    assert same_bits(a, a.clone())
    assert not same_bits(a, torch.zeros(3))
