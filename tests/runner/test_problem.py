"""Problem folders (runner/problem.py): per-call seeds, declared cases, inputs from the seed alone."""

import torch

from runner.problem import call_seed, list_problems, load_problem


def test_call_seeds_are_fresh_per_call_and_depend_on_the_secret():
    seeds = {call_seed(7, 4242, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert call_seed(7, 4242, 0) != call_seed(8, 4242, 0)
    assert call_seed(7, 4242, 0) == call_seed(7, 4242, 0)
    assert all(0 <= s < 2**63 for s in seeds)


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
