"""The agent benchmark's head-to-head confirmation: the figures the targets are read from."""

from agents.bench import SharedEvaluations, confirm
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


def test_the_plot_draws_the_mean_best_so_far_per_method_over_the_steps_every_seed_reached(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    def run(name: str, bests: list[float]) -> None:
        (tmp_path / name).mkdir()
        steps = [{"candidates": 16, "best_reward": b} for b in bests]
        (tmp_path / name / "run.json").write_text(json.dumps({"steps": steps}))

    run("ttt-discover-seed0", [1.1, 1.4, 1.8])
    run("ttt-discover-seed1", [1.0, 1.2])  # still running: the mean stops at its last step
    run("best-of-n-seed0", [1.1, 1.1, 1.2])
    (tmp_path / "stray").mkdir()  # not a run: ignored
    svg = tmp_path / "plot.svg"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "scripts/plot_agent_bench.py", str(tmp_path), str(svg)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "ttt-discover (mean of 2 seeds): 1.30x after 32 candidates" in done.stdout
    assert "best-of-n (mean of 1 seed): 1.20x after 48 candidates" in done.stdout
    drawn = svg.read_text()
    assert drawn.count("<polyline") == 2 and "candidates judged" in drawn


def test_results_of_a_benchmark_split_over_sittings_are_merged(tmp_path):
    import json

    from agents.bench import _save_results

    path = tmp_path / "results.json"
    _save_results(path, 0.01, [{"method": "ttt-discover", "seed": 0, "speedup": 1.5}], "reference source")
    _save_results(path, 0.01, [{"method": "ttt-discover", "seed": 1, "speedup": 1.2}])
    _save_results(path, 0.01, [{"method": "ttt-discover", "seed": 0, "speedup": 1.6}])  # seed 0 again
    runs = json.loads(path.read_text())["runs"]
    assert [(r["seed"], r["speedup"]) for r in runs] == [(0, 1.6), (1, 1.2)]
    assert json.loads(path.read_text())["reference_code"] == "reference source"  # kept for --confirm-only


def test_the_table_counts_wins_only_on_seeds_both_methods_ran(capsys):
    from agents.bench import print_table

    rows = [
        {"method": "ttt-discover", "seed": 0, "speedup": 1.8, "confirmed_speedup": 1.7},
        {"method": "best-of-n", "seed": 0, "speedup": 1.2, "confirmed_speedup": 1.75},
        {"method": "ttt-discover", "seed": 1, "speedup": 1.5},  # best-of-n's seed 1 still running
    ]
    print_table(0.006, rows)
    out = capsys.readouterr().out
    assert "TTT-Discover beats best-of-N on 1 of 1 seeds (as searched)" in out
    assert "TTT-Discover beats best-of-N on 0 of 1 seeds (head to head)" in out


def test_runs_not_yet_confirmed_are_shown_as_such_and_not_counted_head_to_head(capsys):
    from agents.bench import print_table

    rows = [  # --no-confirm: searched only
        {"method": "ttt-discover", "seed": 2, "speedup": 1.46},
        {"method": "best-of-n", "seed": 2, "speedup": 1.35},
    ]
    print_table(0.004, rows)
    out = capsys.readouterr().out
    assert "1.46x/-" in out and "1.46x / not confirmed" in out
    assert "TTT-Discover beats best-of-N on 1 of 1 seeds (as searched)" in out
    assert "TTT-Discover beats best-of-N on 0 of 0 seeds (head to head)" in out


def test_confirm_only_without_saved_results_says_what_to_run_first(tmp_path, capsys):
    import pytest

    from agents.bench import main

    with pytest.raises(SystemExit) as stopped:
        main(["--problem", "qr", "--confirm-only", "--out", str(tmp_path)])
    assert stopped.value.code == 2
    assert f"no benchmark results in {tmp_path}: run the benchmark with --out {tmp_path} first" in (
        capsys.readouterr().err
    )


def test_runs_share_readings_of_identical_code_but_a_second_opinion_is_a_new_reading():
    """Real synthetic judgings behind the sharing: identical code is judged once for every run that asks;
    asking again (the loop's re-judging of a would-be best) takes a new measurement, itself shared by the
    runs in the order they ask for second opinions."""
    space = program_space("trimul", "cpu")
    a, b = space.render(space.seed), space.render(space.chain(["product.form=hidden"]))
    shared = SharedEvaluations(SyntheticVerifier(noise=0.5))
    first = shared.evaluate([a, b, a], 1)
    assert first[0].score_s == first[2].score_s and shared.inner.judged == 2
    assert shared.evaluate([a], 2)[0].score_s == first[0].score_s and shared.inner.judged == 2
    again = shared.evaluate_again([a], 3)
    assert again[0].score_s != first[0].score_s and shared.inner.judged == 3
    shared.new_run()
    second_run = shared.evaluate([b, a], 4) + shared.evaluate_again([a], 5)
    assert [e.score_s for e in second_run] == [first[1].score_s, first[0].score_s, again[0].score_s]
    assert shared.inner.judged == 3
    third = shared.evaluate_again([a], 6)[0].score_s
    assert third not in {first[0].score_s, again[0].score_s} and shared.inner.judged == 4
