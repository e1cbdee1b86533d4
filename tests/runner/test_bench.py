"""The judge's own benchmark (runner/bench.py): its summary line."""


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
