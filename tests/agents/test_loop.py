"""The driver loop with the offline policy: learning, the ablation switches, save and resume."""

import json

import pytest

from agents.loop import ABLATIONS, Discovery, RunConfig, ablation, step_secret
from agents.offline import OfflinePolicy
from agents.programs import program_space
from agents.verifier import Evaluation
from tests.agents.synthetic import SyntheticVerifier


def make(tmp_path=None, name="ttt-discover", steps=8, seed=0, **kw):
    space = program_space("trimul", "cpu")
    cfg = ablation(name, problem="trimul", steps=steps, groups=2, rollouts=8, seed=seed, **kw)
    policy = OfflinePolicy(space, seed=seed, train=cfg.train)
    seeds = [(space.render(space.seed), {"program": space.seed.to_json(), "template": "reference program"})]
    return Discovery(cfg, policy, SyntheticVerifier(), seeds, out_dir=tmp_path)


def test_offline_policy_improves_with_steps():
    run = make(steps=10)
    best = run.run()
    first, last = run.records[0], run.records[-1]
    assert last.mean_reward > first.mean_reward * 1.3
    assert best.reward > 1.6  # the reference program has reward 1; the best about 2.7
    probs = run.policy.probabilities()
    assert probs["product.precision=fp16"] < 1 / len(probs)  # it learned that an fp16 product fails


def test_training_beats_no_training_on_same_budget():
    wins = 0
    for seed in range(3):
        trained = make(seed=seed).run().reward
        untrained = make(name="best-of-n", seed=seed).run().reward
        wins += trained > untrained
    assert wins >= 2


def test_best_of_n_always_starts_from_the_seed_and_does_not_train():
    run = make(name="best-of-n", steps=3)
    run.run()
    init = [t.tolist() for t in run.policy.init]
    assert [t.tolist() for t in run.policy.weights] == init
    seed_id = next(s.id for s in run.archive.states.values() if s.seed)
    assert all(r.starts == [seed_id, seed_id] for r in run.records)


def test_reuse_selects_from_archive_and_blocks_lineage():
    run = make(name="reuse-no-training", steps=4)
    run.run()
    later = set(run.records[-1].starts)
    for a in later:
        assert not (run.archive.lineage(a) - {a}) & later
    assert all(r.candidates == 16 for r in run.records)  # one lineage early on: its start takes both groups


def test_every_ablation_runs():
    for name in ABLATIONS:
        run = make(name=name, steps=2)
        run.run()
        assert len(run.records) == 2 and run.records[-1].best_reward >= 1.0


def test_secret_seed_is_fresh_each_step():
    assert len({step_secret(0, s) for s in range(50)}) == 50


def test_save_after_every_step_and_resume(tmp_path):
    straight = make(steps=4)
    straight.run()

    first = make(tmp_path, steps=4)
    first.step()
    first.step()
    saved = json.loads((tmp_path / "run.json").read_text())
    assert (
        len(saved["steps"]) == 2
        and (tmp_path / "archive.json").exists()
        and (tmp_path / "policy.json").exists()
    )

    resumed = make(tmp_path, steps=4)  # a new process would build exactly this
    assert resumed.next_step == 2
    resumed.run()
    assert [r.rewards for r in resumed.records] == [r.rewards for r in straight.records]
    assert resumed.archive.to_dict() == straight.archive.to_dict()


def test_resume_refuses_another_run(tmp_path):
    make(tmp_path, steps=1).run()
    with pytest.raises(ValueError, match="holds a run"):
        make(tmp_path, seed=5)


def test_config_round_trip():
    cfg = RunConfig(problem="trimul", steps=3, objective="expected")
    assert RunConfig.from_dict({**cfg.__dict__, "unknown": 1}) == cfg


class LuckyFirstTime(SyntheticVerifier):
    """Every candidate's first judging reads ten times faster than the program is; later ones read true.
    `fail_again`: a second judging fails instead (a program that passes on one seed's inputs only)."""

    def __init__(self, reference, fail_again=False):
        super().__init__()
        self.reference = reference  # reads true: the unit is right
        self.seen: set[str] = set()
        self.fail_again = fail_again

    def evaluate(self, codes, secret_seed):
        out = super().evaluate(codes, secret_seed)
        for i, code in enumerate(codes):
            if code == self.reference:
                continue
            if code not in self.seen and out[i].passed:
                out[i] = Evaluation("passed", "", out[i].score_s / 10, out[i].reward * 10)
            elif self.fail_again and out[i].passed:
                out[i] = Evaluation("failed", "values differ from the reference", None)
            self.seen.add(code)
        return out


def test_a_reading_that_would_lead_is_judged_again_and_the_worse_stands():
    lucky = make(steps=4)
    lucky.verifier = LuckyFirstTime(lucky.seed_sources[0][0])
    best = lucky.run()
    assert sum(r.confirmed for r in lucky.records) >= 1
    assert best.reward < 5  # the true programs read about 1 to 3; a lucky first reading 10 to 30
    for state in lucky.archive.states.values():
        assert state.reward < 5, state.meta


def test_a_candidate_that_fails_when_judged_again_is_a_failure():
    run = make(steps=3)
    run.verifier = LuckyFirstTime(run.seed_sources[0][0], fail_again=True)
    best = run.run()
    assert best.seed and all(s.seed or s.reward <= best.reward for s in run.archive.states.values())
    assert sum(r.confirmed for r in run.records) >= 1
