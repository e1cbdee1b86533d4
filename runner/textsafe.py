"""Contestant text as data: what a submission prints or raises, made safe for every reader of a report (a
NUL byte, a lone surrogate, a terminal escape). The judge cleans its report here before signing it, and
every reader cleans again; docs/report.md says what clean means."""

from __future__ import annotations

import math
import re
from typing import Any

from runner.spec import RunReport, report_problems

# Per field name; any other string is capped at TEXT_CAP. The judge keeps 32 KiB of each end of the output
# (runner/judge/contestant_process.py), which escaping may lengthen up to four times.
CAPS = {
    "logs": 256 * 1024,
    "text": 256 * 1024,
    "csv": 256 * 1024,
    "ncu": 64 * 1024,
    "ncu_csv": 64 * 1024,
    "id": 300,
}
TEXT_CAP = 4000
KEY_CAP = 200

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls and DEL, but not tab (\x09), newline (\x0a) or a carriage return that ends a line
# (a CSV's \r\n); a lone one would let text overwrite its own line on a terminal.
# And the bidirectional controls (embeddings, overrides, isolates, marks): a submission's own text must not
# reorder what a reader sees around it ("Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def _written_out(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class InvalidReport(ValueError):
    """A report that does not match the RunReport schema (runner/spec.py), even once cleaned."""


def safe_text(value: str, cap: int = TEXT_CAP) -> str:
    """`value` as valid Unicode with its control characters written out, cut in the middle past `cap`."""
    text = _SURROGATE.sub("\ufffd", value)
    text = _CONTROL.sub(_written_out, text)
    if len(text) > cap:
        # Both ends: the start says what ran, the end how it ended.
        keep = max(cap - 60, 2) // 2
        text = f"{text[:keep]}\n[... {len(text) - 2 * keep:,} characters left out ...]\n{text[-keep:]}"
    return text


def safe_data(value: Any, key: str = "") -> Any:
    """A copy of JSON-like `value` in which every string (dictionary keys too) is safe_text, capped by the
    name of the field that holds it, every float finite, and anything not JSON written as its repr."""
    if isinstance(value, str):
        return safe_text(value, CAPS.get(key, TEXT_CAP))
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {safe_text(str(k), KEY_CAP): safe_data(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_data(v, key) for v in value]
    return safe_text(repr(value), CAPS.get(key, TEXT_CAP))


def checked(data: Any) -> RunReport:
    """The RunReport of `data` (a report's JSON, parsed), cleaned, once it matches the schema; else
    InvalidReport saying what does not."""
    clean = safe_data(data)
    problems = report_problems(clean)
    if problems:
        shown = "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
        raise InvalidReport(f"the report does not match its schema: {shown}")
    return RunReport.from_dict(clean)


def clean(report: RunReport) -> RunReport:
    """`report` with every string made safe, without the schema's check: for a reader that must show or
    store whatever it was given, and never fail on it."""
    return RunReport.from_dict(safe_data(report.to_dict()))


def safe_report(report: RunReport) -> RunReport:
    """`report`, cleaned and checked (InvalidReport where a field has the wrong type)."""
    return checked(report.to_dict())
