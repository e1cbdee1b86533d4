"""The references' output checks (runner/checking.py), and their messages."""

import torch

from runner.checking import match_reference


def test_match_reference_messages():
    want = torch.ones(4, 4)
    assert match_reference(want.clone(), want, rtol=1e-3, atol=1e-3) == (True, "")
    got = want.clone()
    got[1, 2] = 5
    ok, message = match_reference(got, want, rtol=1e-3, atol=1e-3)
    assert not ok and "1 of 16 values" in message and "(1, 2)" in message and "got 5" in message
    got[0, 0] = float("nan")
    ok, message = match_reference(got, want, rtol=1e-3, atol=1e-3)
    assert not ok and "contains nan at (0, 0)" in message
