"""The pytest-style text report of a RunReport, shared by the command line, the pytest plugin and the
platform's client."""

from __future__ import annotations

from pathlib import Path

from runner import textsafe
from runner.spec import RunReport


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds:g} s"


def format_progress(progress: dict) -> str:
    """The judge's last finished case in words, the same on the page and in the CLI: "benchmark 3 of 5
    passed · vectoradd[size=256] · 12.3 us" (the time a timed case's median per call). A case frame from
    before the phases were sent says "case 5 of 12 passed · vectoradd[size=256]"."""
    if progress.get("kind") and progress.get("kind_total"):
        place = f"{progress['kind']} {progress['kind_done']} of {progress['kind_total']}"
    else:
        place = f"case {progress['done']} of {progress['total']}"
    words = f"{place} {progress['status']} · {progress['case']}"
    if progress.get("median_s") is not None:
        words += f" · {format_time(progress['median_s'])}"
    return words


# What a run's score is, in a user's words, everywhere it is shown (the pages, the API's schema, the client).
SCORE_DEFINITION = (
    "the geometric mean, over the benchmark cases (the secret run's, in leaderboard mode), of each case's "
    "median time per call; its 95 % interval comes from resampling each case's timed windows"
)


def format_interval(low: float | None, high: float | None) -> str:
    """A 95 % interval as people read one: "95 % interval 1.2 ms to 1.3 ms"; "" when there is none."""
    if low is None or high is None:
        return ""
    return f"95 % interval {format_time(low)} to {format_time(high)}"


def format_score(score_s: float | None, low_s: float | None = None, high_s: float | None = None) -> str:
    """The score and its interval, the one way every reader shows it: "1.25 ms (95 % interval ...)"."""
    if not score_s:
        return "-"
    interval = format_interval(low_s, high_s)
    return f"{format_time(score_s)} ({interval})" if interval else format_time(score_s)


def format_rate(value: float | None, unit: str) -> str:
    if not value:
        return ""
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def render(report: RunReport, color: bool = False) -> str:
    # Safe again, whoever made the report: its strings are printed to a terminal or a page.
    report = textsafe.clean(report)
    lines = [f"=== {report.problem} · mode {report.mode} · device {report.device} ==="]
    if report.isolation:
        lines.append(f"sandbox: {report.isolation}")
    width = max((len(c.id) + len(c.kind) + 3 for c in report.cases), default=20)
    for case in report.cases:
        label = f"{case.id} ({case.kind})".ljust(width)
        word = case.status.upper()
        line = f"{label} {word}"
        if case.stats:
            s = case.stats
            median = s.median if s.median is not None else s.mean
            interval = format_interval(s.median_low, s.median_high)
            line += f"  {format_time(median)} median" + (f" ({interval})" if interval else "")
            line += (
                f", mean {format_time(s.mean)} ± {format_time(s.stderr)}  (n={s.n}, min {format_time(s.min)})"
            )
            rates = "  ".join(
                r for r in (format_rate(s.flops_per_s, "FLOP/s"), format_rate(s.bytes_per_s, "B/s")) if r
            )
            if rates:
                line += f"  {rates}"
        if case.message and case.status != "passed":
            line += f"\n    {case.message}"
        lines.append(line)
    for profile in report.profiles:
        lines.append("")
        lines.append(profile["text"])
        if profile.get("ncu"):
            lines.append("Nsight Compute summary:")
            lines.append(profile["ncu"])
    if report.profiles:
        lines.append("")
    for flag in report.flags:
        lines.append(f"FLAG {flag['kind']}: {flag['message']}")
    counts: dict[str, int] = {}
    for case in report.cases:
        counts[case.status] = counts.get(case.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no cases ran"
    verdict = report.verdict.upper()
    score = (
        f" · score {format_score(report.score_s, report.score_low_s, report.score_high_s)}"
        if report.score_s
        else ""
    )
    lines.append(f"=== {verdict}: {summary}{score} ===")
    if report.score_s:
        lines.append(f"score: {SCORE_DEFINITION}.")
    if report.score_note:
        lines.append(f"note: {report.score_note}.")
    if report.message and report.verdict != "passed":
        lines.append(report.message)
    return "\n".join(lines)


def profile_filename(case_id: str) -> str:
    """A file name for a case's CSV: its id with anything but letters, digits, '-', '_' and '=' replaced."""
    safe = "".join(c if c.isalnum() or c in "-_=" else "_" for c in case_id)
    return f"{safe[:150]}.csv"


def write_profile_csvs(profiles: list[dict[str, str]], directory: Path) -> list[Path]:
    """Each case's CSV in `directory` (made if missing), and on a GPU its Nsight Compute CSV beside it
    (`<case>.ncu.csv`); the files written. Shared with the platform's client."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for profile in profiles:
        name = profile_filename(profile["case"])
        for key, filename in (("csv", name), ("ncu_csv", name.removesuffix(".csv") + ".ncu.csv")):
            if profile.get(key):
                path = directory / filename
                path.write_text(profile[key], encoding="utf-8", newline="")
                written.append(path)
    return written
