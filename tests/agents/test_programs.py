"""The program spaces: every program reached by rewrites computes what the problem asks, only applicable
rewrites are proposed, the spaces' sizes, and the offline policy over rewrites."""

import json
import random
import types

import pytest
import torch

from agents.objective import group_advantages
from agents.offline import OfflinePolicy
from agents.policy import Context, Group
from agents.programs import EAGER, Program, known_spaces, program_space
from agents.verifier import check_locally
from tests.agents.trimul_reference import make_input, reference


def load(code):
    """The module's kernel; of a compiled program, its chain run eagerly (the same maths: compiling every
    random chain would take minutes; tests/agents/test_compiled_programs.py compiles one)."""
    module = types.ModuleType("candidate")
    exec(compile(code, "candidate.py", "exec"), module.__dict__)
    return getattr(module, EAGER, None) or module.custom_kernel


def random_chain(space, rng, length):
    """A program `length` random applicable rewrites away from the seed."""
    p = space.seed
    for _ in range(length):
        p = space.apply(rng.choice(space.applicable(p)), p)
    return p


TRIMUL_INPUTS = [
    make_input(bs=2, seqlen=12, dim=24, hidden=16, nomask=False, seed=1),  # 288 rows: two chunks of 256
    make_input(bs=1, seqlen=8, dim=16, hidden=16, nomask=True, seed=2),
]


@pytest.mark.parametrize("chain_seed", range(3))
def test_trimul_chains_of_rewrites_match_the_reference(chain_seed):
    space = program_space("trimul", "cpu")
    rng = random.Random(chain_seed)
    torch.set_num_threads(1)
    for _ in range(40):
        program = random_chain(space, rng, rng.randint(1, 14))
        kernel = load(space.render(program))
        for data in TRIMUL_INPUTS:
            out, want = kernel(data), reference(data)
            assert out.dtype == torch.float32 and out.shape == want.shape and out.is_contiguous()
            assert torch.allclose(out, want, rtol=2e-2, atol=2e-2), program.describe()


def test_trimul_seed_is_the_reference_algorithm_and_good_programs_are_chains():
    space = program_space("trimul", "cpu")
    code = space.render(space.seed)
    assert "torch.einsum" in code and "torch.bmm" not in code and "for r0" not in code
    # the hidden-major pipeline: five rewrites, none of which alone gives it
    fast = space.chain(
        ["fuse:lp+lg", "fuse:lp+rp", "proj.lp.layout=hidden", "product.form=hidden", "product.impl=bmm"]
    )
    assert "torch.bmm(Lh" in space.render(fast) and "P_lp = torch.mm(W_lp" in space.render(fast)
    with pytest.raises(ValueError, match="does not apply"):
        space.chain(["product.impl=bmm"])  # the reference's row-form einsum has no bmm variant


def test_only_applicable_rewrites_are_proposed():
    rng = random.Random(5)
    for problem in known_spaces():
        for device in ("cpu", "cuda"):
            space = program_space(problem, device)
            for _ in range(10):
                p = random_chain(space, rng, rng.randint(0, 6))
                applicable = set(space.applicable(p))
                for i in range(len(space.rewrites)):
                    out = space.apply(i, p)
                    assert (out is not None) == (i in applicable)
                    assert out is None or (out != p and space.valid(out))
            policy = OfflinePolicy(space, seed=1)
            for cand in policy.sample(Context(problem, device, "", None, {"program": p.to_json()}), 4):
                current = p
                for kind, _, options, pick in cand.trace["decisions"][1:]:  # the first: how many
                    assert kind == 1 and options == space.applicable(current)
                    current = space.apply(options[pick], current)
                assert current.to_json() == cand.meta["program"]


def test_program_is_hashable_and_round_trips_through_json():
    space = program_space("trimul", "cpu")
    p = random_chain(space, random.Random(2), 6)
    again = Program.from_json(json.loads(json.dumps(p.to_json())))
    assert again == p and hash(again) == hash(p) and {p: 1}[again] == 1


def test_space_sizes():
    assert program_space("trimul", "cpu").size >= 10**9
    assert program_space("trimul", "cuda").size > program_space("trimul", "cpu").size
    assert program_space("qr", "cpu").size >= 10**9


def reachable(space):
    seen, frontier = {space.seed}, [space.seed]
    while frontier:
        frontier = [q for p in frontier for i in space.applicable(p) if (q := space.apply(i, p)) not in seen]
        seen.update(frontier)
    return seen


@pytest.mark.parametrize("problem", ["vectoradd", "matmul", "softmax"])
def test_small_spaces_are_counted_and_every_program_passes_the_problem_check(problem):
    # small and said so (docs/agents.md): every program enumerated, distinct, and correct
    for device in ("cpu", "cuda"):
        space = program_space(problem, device)
        programs = reachable(space)
        assert len(programs) == space.size == len({space.render(p) for p in programs})
    space = program_space(problem, "cpu")
    for program in reachable(space):
        assert check_locally(problem, space.render(program)) is None, program.describe()


def test_check_locally_uses_the_problem_generator_and_checker():
    space = program_space("trimul", "cpu")
    code = space.render(space.chain(["fuse:lp+rp", "product.form=hidden"]))
    assert check_locally("trimul", code) is None
    why = check_locally("trimul", code.replace("torch.sigmoid(og)", "og"))
    assert why and why.startswith("trimul[")  # names the case that failed
    assert check_locally("trimul", "def custom_kernel(data):\n    raise RuntimeError('no')\n").startswith(
        "RuntimeError"
    )


def context(space, program=None):
    return Context("trimul", "cpu", "", None, {"program": (program or space.seed).to_json()})


def test_policy_samples_resume_identically():
    space = program_space("trimul", "cpu")
    a = OfflinePolicy(space, seed=3)
    a.sample(context(space), 4)
    saved = json.loads(json.dumps(a.state_dict()))
    b = OfflinePolicy(space, seed=99)
    b.load_state_dict(saved)
    assert [c.meta for c in a.sample(context(space), 6)] == [c.meta for c in b.sample(context(space), 6)]
    other = OfflinePolicy(program_space("vectoradd", "cpu"))
    with pytest.raises(ValueError, match="another program space"):
        other.load_state_dict(saved)


def test_entropic_update_moves_probability_toward_a_rewarded_rewrite():
    space = program_space("trimul", "cpu")
    policy = OfflinePolicy(space, seed=0)
    target = "product.form=hidden"
    before = policy.probabilities()[target]
    for _ in range(3):
        cands = policy.sample(context(space), 16)
        rewards = [2.0 if target in c.meta["rewrites"] else 1.0 for c in cands]
        ctx = context(space)
        policy.update([Group(ctx, cands, rewards, group_advantages(rewards, "entropic"))])
    after = policy.probabilities()[target]
    assert after > 1.3 * before
    # conditioned on the state: where the rewrite is already done, it is not offered at all
    done = space.chain([target])
    assert target not in policy.probabilities(done)


def test_every_space_renders_its_seed():
    for problem in known_spaces():
        for device in ("cpu", "cuda"):
            space = program_space(problem, device)
            compile(space.render(space.seed), "candidate.py", "exec")


def test_unknown_problem():
    with pytest.raises(KeyError, match="no program space"):
        program_space("nosuchproblem", "cpu")


def test_triton_programs_run_in_the_interpreter():
    # Triton's interpreter must be chosen before triton is imported, hence a process of its own.
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("triton_check.py"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "triton programs ok" in done.stdout, done.stderr[-2000:]


def test_llm_prompt_offers_the_rewrite_vocabulary():
    from agents.llm.prompts import build_messages

    space = program_space("trimul", "cpu")
    ctx = Context("trimul", "cpu", "def custom_kernel(data): ...", None)
    text = build_messages(ctx, "", space.hints())[1]["content"]
    assert "fold the input layer norm's affine into the projection weights" in text
    assert "fuse two groups of projections into one matmul" in text


def test_qr_chains_of_rewrites_are_qr_factorizations():
    # by the problem's own check (orthogonality and factor residual in float64) on its CPU test cases
    space = program_space("qr", "cpu")
    assert space.size >= 10**9
    rng = random.Random(11)
    torch.set_num_threads(1)
    programs = [random_chain(space, rng, rng.randint(2, 10)) for _ in range(10)]
    programs.append(
        space.chain(
            ["block:32", "block:8", "leaf.impl=householder", "panel0.t=solve", "panel1.update=reflectors"]
        )
    )
    # LAPACK's ormqr as the trailing update, over a geqrf panel and over a nested Householder one, in fp64
    programs.append(space.chain(["block:64", "panel0.update=ormqr"]))
    programs.append(
        space.chain(
            ["block:32", "block:4", "panel0.update=ormqr", "panel0.precision=fp64", "leaf.impl=householder"]
        )
    )
    for program in programs:
        assert check_locally("qr", space.render(program)) is None, program.describe()


def test_qr_seed_is_geqrf_and_blocking_is_a_chain():
    space = program_space("qr", "cpu")
    assert "H, tau = torch.geqrf(A)" in space.render(space.seed)
    blocked = space.render(space.chain(["block:32", "panel0.gemm=bmm", "leaf.impl=householder"]))
    assert "def _level0" in blocked and "torch.bmm" in blocked and "torch.geqrf" not in blocked
    assert "unblock" not in [space.rewrites[i].name for i in space.applicable(space.seed)]
    ormqr = space.chain(["block:64", "panel0.update=ormqr"])
    assert "torch.ormqr(" in space.render(ormqr) and "torch.tril" not in space.render(ormqr)
    proposed = [space.rewrites[i].name for i in space.applicable(ormqr)]
    assert "panel0.gemm=bmm" not in proposed and "panel0.t=solve" not in proposed  # nothing to choose there
