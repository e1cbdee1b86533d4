"""The end of `kernelboard submit --wait`: one line per case, pytest style, a profile run's per-operator
tables, then a summary line."""

from __future__ import annotations

import shutil
from datetime import datetime
from typing import Any

from runner import textsafe
from runner.report import SCORE_DEFINITION, format_interval, format_score, format_time

_ORDER = ("failed", "error", "timeout", "flagged", "rejected", "skipped", "passed")
_COLOURS = {
    "passed": "32",
    "failed": "31",
    "error": "31",
    "timeout": "31",
    "rejected": "31",
    "flagged": "33",
    "skipped": "33",
}


def _paint(text: str, status: str, colour: bool) -> str:
    code = _COLOURS.get(status)
    return f"\033[{code}m{text}\033[0m" if colour and code else text


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def render_report(submission: dict[str, Any], *, colour: bool = False) -> str:
    """The text of a final submission: its cases, then `===== 4 passed in 3.2s =====`."""
    # What the contestant wrote reaches this terminal: made safe here too, whatever the server stored.
    submission = textsafe.safe_data(submission)
    lines = []
    for case in submission.get("cases", []):
        status = case["status"]
        parts = [case["id"], _paint(status.upper(), status, colour)]
        if case.get("median_s") is not None:
            timing = f"{format_time(case['median_s'])} median"
            if interval := format_interval(case.get("median_low_s"), case.get("median_high_s")):
                timing += f" ({interval})"
            parts.append(timing)
        elif case.get("mean_s") is not None:  # a run judged before medians were stored
            parts.append(f"{format_time(case['mean_s'])} mean")
        if case.get("kind") == "secret":
            parts.append("(secret inputs)")
        line = " ".join(parts)
        if case.get("message") and status != "passed":
            line += f"\n    {case['message']}"
        lines.append(line)
    if submission.get("score_s") is not None:
        score = format_score(
            submission["score_s"], submission.get("score_low_s"), submission.get("score_high_s")
        )
        lines.append(f"score: {score}: {SCORE_DEFINITION}.")
        if submission.get("score_note"):
            lines.append(f"note: {submission['score_note']}.")
    for profile in submission.get("profiles") or []:
        # At the end, next to the summary: the tables are what a profile run is for.
        lines += ["", profile["text"]]
        if profile.get("ncu"):
            lines += ["Nsight Compute summary:", profile["ncu"]]
    if submission.get("profiles"):
        lines.append("")
    state = submission["state"]
    if state != "passed" and submission.get("message"):
        lines.append(_paint(f"{state.upper()}: {submission['message']}", state, colour))
    lines.append(_summary_line(submission, colour=colour))
    return "\n".join(lines)


def _summary_line(submission: dict[str, Any], *, colour: bool) -> str:
    counts: dict[str, int] = {}
    for case in submission.get("cases", []):
        counts[case["status"]] = counts.get(case["status"], 0) + 1
    words = ", ".join(f"{counts[s]} {s}" for s in _ORDER if counts.get(s)) or "no cases ran"
    extra = sorted(set(counts) - set(_ORDER))
    if extra:
        words += ", " + ", ".join(f"{counts[s]} {s}" for s in extra)
    started, finished = _parse_time(submission.get("started_at")), _parse_time(submission.get("finished_at"))
    if started and finished:
        words += f" in {(finished - started).total_seconds():.2f}s"
    state = submission["state"]
    words += f" (verdict: {state})"
    width = max(40, min(shutil.get_terminal_size((100, 20)).columns, 100))
    text = f" {words} ".center(width, "=")
    return _paint(text, state, colour)
