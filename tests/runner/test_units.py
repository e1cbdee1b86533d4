"""The judge's pieces that need no contestant: seeds, statistics, floors, checks, the scanner, pre-checks."""

import math

import torch

from runner.caller import precheck
from runner.checking import match_reference
from runner.floors import device_kind_from_name, floor_seconds
from runner.judge.timing import StoppingRule, Windows, geometric_mean
from runner.problem import call_seed, list_problems, load_problem
from runner.scanner import scan
from runner.spec import JobSpec
from runner.vocabulary import DEVICE_KINDS
from runner.wire.transport import same_bits


def test_call_seeds_are_fresh_per_call_and_depend_on_the_secret():
    seeds = {call_seed(7, 4242, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert call_seed(7, 4242, 0) != call_seed(8, 4242, 0)
    assert call_seed(7, 4242, 0) == call_seed(7, 4242, 0)
    assert all(0 <= s < 2**63 for s in seeds)


def test_stopping_rule_needs_three_windows_and_a_small_relative_error():
    rule = StoppingRule(target_rse=0.01, budget_s=100, max_calls=10**6)
    w = Windows()
    w.add(1.0, 10)
    w.add(1.0, 10)
    assert not w.done(rule)  # two windows never suffice
    w.add(1.0, 10)
    assert w.done(rule)
    noisy = Windows()
    for s in (1.0, 2.0, 1.0, 2.0):
        noisy.add(s, 10)
    assert not noisy.done(rule)
    assert noisy.done(rule, spent_s=100)  # the budget ends it
    short = Windows()
    short.add(1000.0, 1)
    assert not short.done(rule, spent_s=1000)  # but never before three windows


def test_stats_are_per_call():
    w = Windows()
    for s in (0.010, 0.012, 0.011):
        w.add(s, 10)
    stats = w.stats(flops=1e6, nbytes=1e3)
    assert stats.n == 30 and stats.windows == 3
    assert math.isclose(stats.mean, 0.033 / 30)
    assert math.isclose(stats.min, 0.001) and math.isclose(stats.max, 0.0012)
    # The rates are the counts over the median, the score's figure: 1e6 FLOP in 1.1 ms.
    assert math.isclose(stats.flops_per_s, 1e6 / stats.median) and math.isclose(stats.median, 0.0011)


def test_geometric_mean():
    assert math.isclose(geometric_mean([1e-3, 1e-5]), 1e-4)
    assert geometric_mean([]) is None
    assert geometric_mean([0.0, 1.0]) is None  # a zero-time case never makes a zero score


def test_physical_floor():
    # 3 * 2 * 16384**2 bytes at 3.35 TB/s
    floor = floor_seconds("h100", flops=16384**2, nbytes=6 * 16384**2)
    assert math.isclose(floor, 6 * 16384**2 / 3.35e12 / 3)  # over the part's margin (runner/vocabulary.py)
    assert floor_seconds("nosuch", 1, 1) is None
    assert device_kind_from_name("NVIDIA H100 80GB HBM3") == "h100"
    assert device_kind_from_name("NVIDIA H200") == "h200"
    assert set(DEVICE_KINDS) >= {"h100", "h200", "a100", "b200", "mi300x", "cpu"}


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


def test_same_bits_sees_nan_payloads():
    a = torch.full((3,), float("nan"))
    assert same_bits(a, a.clone())
    assert not same_bits(a, torch.zeros(3))


def test_scanner_records_red_flags_with_lines():
    source = "import ctypes\nimport torch\ntorch.cuda.synchronize = lambda: None\ns = torch.cuda.Stream()\nopen('/proc/self/mem')\n"
    rules = {(f["rule"], f["line"]) for f in scan(source)}
    assert {("ctypes", 1), ("patch", 3), ("stream", 4), ("proc", 5)} <= rules
    assert scan("def custom_kernel(data):\n    return data[0] + data[1]\n") == []
    # prose in docstrings is not evidence
    assert scan('"""Faster than the reference; no threading."""\ndef custom_kernel(d):\n    return d\n') == []


def test_precheck_refuses_in_the_users_words():
    ok = "def custom_kernel(data):\n    return data\n"
    assert precheck(JobSpec(problem="vectoradd", source=ok)) is None
    assert "defines no function custom_kernel" in precheck(JobSpec(problem="vectoradd", source="x = 1\n"))
    assert "syntax error on line 1" in precheck(JobSpec(problem="vectoradd", source="def f(:\n"))
    # GPU MODE's KernelBot takes 1 MB: a 300 KiB kernel runs, one over 1 MiB is refused
    assert precheck(JobSpec(problem="vectoradd", source=ok + "#" * (300 * 1024))) is None
    big = precheck(JobSpec(problem="vectoradd", source=ok + "#" * (1100 * 1024)))
    assert "the limit is 1024 KiB" in big
    bad = b"def custom_kernel(d):\n    return '\xff'\n".decode("utf-8", errors="surrogateescape")
    assert "not UTF-8" in precheck(JobSpec(problem="vectoradd", source=bad))
    # GPU MODE submissions that import custom_kernel from another name still count
    assert precheck(JobSpec(problem="vectoradd", source="from x import custom_kernel\n")) is None


def test_every_problem_declares_its_cases_and_counts():
    for name in list_problems():
        problem = load_problem(name)
        for device in ("cpu", "cuda"):
            for kind in ("test", "benchmark"):
                cases = problem.cases(kind, device)
                assert cases, f"{name} has no {kind} cases for {device}"
                assert len({c.id for c in cases}) == len(cases), f"{name}: duplicate case ids"
        for case in problem.cases("benchmark", "cuda"):
            flops, nbytes = problem.counts(case)
            assert flops > 0 and nbytes > 0
        assert problem.templates, f"{name} has no templates"
        assert len(problem.version) == 16


def test_generated_inputs_depend_only_on_the_seed():
    problem = load_problem("vectoradd")
    ref = problem.load_reference()
    a = ref.generate_input(size=8, seed=1, device="cpu")
    b = ref.generate_input(size=8, seed=1, device="cpu")
    c = ref.generate_input(size=8, seed=2, device="cpu")
    assert torch.equal(a[0], b[0]) and not torch.equal(a[0], c[0])


def test_the_bench_summary_line_is_printed_without_a_handshake():
    """On a GPU there is no handshake figure; the score line once vanished with it."""
    from runner.bench import summary_line
    from runner.spec import CaseResult, RunReport, Stats

    stats = Stats(n=10, windows=4, mean=1e-3, std=0.0, stderr=0.0, min=1e-3, max=1e-3, median=1e-3)
    gpu = RunReport(
        verdict="passed",
        score_s=1e-3,
        handshake_s=None,
        cases=[CaseResult("c", "secret", "passed", stats=stats)],
    )
    line = summary_line("vectoradd", [gpu, gpu])
    assert line.startswith("vectoradd: leaderboard score 1.000 ms, spread (CV) 0.00 % over 2 runs")
    assert "handshake" not in line and "CPU charge" not in line
    cpu_stats = Stats(
        n=10,
        windows=4,
        mean=1e-3,
        std=0.0,
        stderr=0.0,
        min=1e-3,
        max=1e-3,
        median=1.1e-3,
        wall_median=1e-3,
        cpu_median=1.1e-3,
        charged_windows=3,
    )
    cpu = RunReport(
        verdict="passed",
        score_s=1e-3,
        handshake_s=1e-4,
        cases=[CaseResult("c", "secret", "passed", stats=cpu_stats)],
    )
    assert "handshake 100 us; CPU charge: 3 of 4 windows, worst case 1.100x its wall time" in summary_line(
        "v", [cpu]
    )


def test_a_reply_is_one_small_object_that_answers_the_last_command():
    import json
    import socket
    import struct

    import pytest

    from runner.wire.channel import MAX_KEYS, Channel, ProtocolError

    judge_end, contestant_end = socket.socketpair()
    judge, contestant = Channel(judge_end), Channel(contestant_end)

    def exchange(reply: bytes) -> dict:
        judge.send_command({"op": "run"})
        contestant.recv_command()
        contestant.sock.sendall(struct.pack("<I", len(reply)) + reply)
        return judge.recv_reply(5)

    def answering(body: str) -> bytes:
        return ("{" + body + f', "nonce": {json.dumps(judge.nonce)}' + "}").encode()

    judge.send_command({"op": "run"})
    contestant.recv_command()
    contestant.send_reply({"ok": True, "outputs": [{"a": 1}] * 3})
    assert judge.recv_reply(5)["ok"] is True
    # Keys that a contestant sharing the judge's hash secret could make collide: refused before any is
    # hashed, in one object or spread over many.
    for body in (
        ", ".join(f'"k{i}": 0' for i in range(MAX_KEYS + 1)),
        '"many": [' + ", ".join(f'{{"k{i}" : 0}}' for i in range(MAX_KEYS)) + "]",
    ):
        judge.send_command({"op": "run"})
        contestant.recv_command()
        raw = answering(body)
        contestant.sock.sendall(struct.pack("<I", len(raw)) + raw)
        with pytest.raises(ProtocolError, match=f"keys \\(at most {MAX_KEYS:,}\\)"):
            judge.recv_reply(5)
    with pytest.raises(ProtocolError, match="does not answer"):
        exchange(b'{"ok": true, "nonce": -1}')
    with pytest.raises(ProtocolError, match="JSON list"):
        exchange(b"[1, 2]")
