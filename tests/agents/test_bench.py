"""The agent benchmark's head-to-head confirmation: the figures the targets are read from."""

from agents.bench import confirm
from agents.programs import program_space
from tests.agents.synthetic import SyntheticVerifier


def test_confirm_compares_medians_of_fresh_rounds_against_the_reference():
    space = program_space("trimul", "cpu")
    reference = space.render(space.seed)
    fast = space.render(
        space.chain(["loop_in.chunk=1024", "gate.inplace=True", "norm_out.impl=manual"])
    )  # 0.8 * 0.9 * 1.05
    broken = space.render(space.chain(["product.precision=fp16"]))  # fails the synthetic check
    rows = [{"best_code": fast}, {"best_code": broken}, {"best_code": None}]
    verifier = SyntheticVerifier(noise=0.02)

    confirm(verifier, reference, rows, rounds=3)

    assert verifier.judged == 3 * 3  # the reference and the two distinct bests, three rounds each
    assert 0.98 * 0.756 * 0.01 < rows[0]["confirmed_s"] < 1.02 * 0.756 * 0.01
    assert abs(rows[0]["confirmed_speedup"] - 1 / 0.756) < 0.05
    assert rows[1]["confirmed_s"] is None and rows[1]["confirmed_speedup"] is None  # never passed
    assert rows[2]["confirmed_s"] is None and rows[2]["confirmed_speedup"] is None  # no best at all
