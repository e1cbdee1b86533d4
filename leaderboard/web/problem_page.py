"""What a problem's page shows, tab by tab: rankings (one device kind at a time, the top entries' times per
benchmark case, the best score over time), statement, cases (one compact table), reference, and the
viewer's own submissions. Tabs are plain links (`?tab=NAME`): each page renders the one tab it shows, so
it works without JavaScript and stays short."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.submissions.selectors import RankingEntry
from leaderboard.web.presentation import case_label
from leaderboard.web.selectors import benchmark_times

TABS = (
    ("rankings", "Rankings"),
    ("statement", "Statement"),
    ("cases", "Cases"),
    ("reference", "Reference"),
    ("mine", "My submissions"),
)
TOP_TIMED = 5  # entries whose per-case times the rankings tab shows


def chosen_tab(value: str | None) -> str:
    return value if value in dict(TABS) else TABS[0][0]


@dataclass(frozen=True)
class CaseTable:
    """Every case of a problem in one table: a column per parameter, a row per case."""

    params: list[str]
    # kind, device, the parameters' values, seed, FLOP and bytes per call (None where the problem does not say)
    rows: list[tuple[str, str, list[object], int, float | None, float | None]]
    counted: bool  # whether any case has counts (an imported problem has none: no columns for them)


def case_table(cases: dict) -> CaseTable:
    """One table of the version's cases (`{device: {kind: [{"params", "seed", "flops", "bytes"}]}}`), tests
    before benchmarks, cpu before cuda; a parameter a case does not have is left blank."""
    found = [
        (kind, device, c)
        for kind in ("test", "benchmark")
        for device in ("cpu", "cuda")
        for c in cases.get(device, {}).get(kind, [])
    ]
    params = list(dict.fromkeys(k for _, _, c in found for k in c["params"]))
    rows = [
        (kind, device, [c["params"].get(p, "") for p in params], c["seed"], c.get("flops"), c.get("bytes"))
        for kind, device, c in found
    ]
    return CaseTable(params, rows, any(r[4] or r[5] for r in rows))


@dataclass(frozen=True)
class TopTimes:
    cases: list[str]  # the benchmark cases' labels, in the judge's order
    rows: list[tuple[RankingEntry, list[float | None]]]


def top_times(entries: list[RankingEntry]) -> TopTimes:
    """The median time per call of each public benchmark case for the first TOP_TIMED entries."""
    top = entries[:TOP_TIMED]
    times = benchmark_times(submission_ids=[e.submission_id for e in top])
    cases = list(dict.fromkeys(c for e in top for c in times[e.submission_id]))
    return TopTimes(
        [case_label(c) for c in cases], [(e, [times[e.submission_id].get(c) for c in cases]) for e in top]
    )
