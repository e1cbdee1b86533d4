"""The driver loop with the offline policy: learning, the ablation switches, save and resume."""

import json

import pytest

from agents.loop import ABLATIONS, Discovery, RunConfig, ablation, step_secret
from agents.offline import OfflinePolicy
from agents.programs import program_space
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
