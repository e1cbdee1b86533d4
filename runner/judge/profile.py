"""A profile run's per-operator table, as the judge takes it from the contestant: hostile data. The structure
is checked, rows, names and bytes are capped, and it is rendered as text and as a CSV that a spreadsheet
cannot run (tests/runner/test_profile.py). Pure: no torch, no process.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

MAX_ROWS = 100  # operators kept per case, the most expensive first
MAX_NAME = 120  # characters of an operator's name
MAX_NCU = 64 * 1024  # characters of Nsight Compute's summary
NUMBERS = ("self_cpu_us", "cpu_us", "self_device_us", "device_us")
# A cell a spreadsheet would read as a formula (or that hides one behind a tab or a carriage return)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class MalformedProfile(Exception):
    """The contestant sent something other than the table its harness makes."""


def _clean(text: str, limit: int) -> str:
    """Printable characters only (no control characters, no terminal escapes), cut to `limit`."""
    kept = "".join(c if c.isprintable() else " " for c in text[: limit * 2])
    return kept[:limit] if len(kept) <= limit else kept[: limit - 1] + "…"


def _as_float(value: int | float) -> float:
    """A JSON number as a float: NaN for an integer too large for one (a reply may hold 10**400, which
    math.isfinite and float() refuse with OverflowError: the judge raised, a platform fault, a re-roll)."""
    try:
        return float(value)
    except OverflowError:
        return math.nan


def checked(raw: Any, device: str) -> list[dict[str, Any]]:
    """The rows of a contestant's profile, checked and capped; MalformedProfile says what was wrong."""
    if type(raw) is not dict or type(raw.get("rows")) is not list:
        raise MalformedProfile("not a table of rows")
    rows = []
    for row in raw["rows"][: MAX_ROWS * 10]:
        if type(row) is not dict or type(row.get("name")) is not str or type(row.get("calls")) is not int:
            raise MalformedProfile("a row without an operator's name and count of calls")
        if row["calls"] < 0:
            raise MalformedProfile("a negative count of calls")
        numbers = {}
        for key in NUMBERS:
            value = row.get(key, 0.0)
            if type(value) not in (int, float) or not 0 <= _as_float(value) < math.inf:
                raise MalformedProfile(f"{key} is not a non-negative number")
            numbers[key] = float(value)
        rows.append({"name": _clean(row["name"], MAX_NAME), "calls": row["calls"], **numbers})
    key = "self_device_us" if device == "cuda" else "self_cpu_us"
    rows.sort(key=lambda r: r[key], reverse=True)
    return rows[:MAX_ROWS]


def _columns(device: str) -> list[tuple[str, str]]:
    columns = [("self_cpu_us", "Self CPU (us)"), ("cpu_us", "CPU total (us)")]
    if device == "cuda":
        columns += [("self_device_us", "Self CUDA (us)"), ("device_us", "CUDA total (us)")]
    return columns


def render_text(rows: list[dict[str, Any]], device: str, heading: str) -> str:
    """A fixed-width table, as torch's own key_averages().table() lays it out."""
    columns = _columns(device)
    width = max([len("Operator")] + [len(r["name"]) for r in rows])
    header = "Operator".ljust(width) + "".join(f"  {title:>15}" for _, title in columns) + f"  {'Calls':>7}"
    lines = [heading, header, "-" * len(header)]
    for r in rows:
        cells = "".join(f"  {r[key]:>15.1f}" for key, _ in columns)
        lines.append(f"{r['name'].ljust(width)}{cells}  {r['calls']:>7}")
    if not rows:
        lines.append("(no operators were recorded)")
    return "\n".join(lines)


def _safe(cell: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula gets a leading apostrophe."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def render_csv(rows: list[dict[str, Any]], device: str) -> str:
    columns = _columns(device)
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow(["operator", "calls", *(key for key, _ in columns)])
    for r in rows:
        writer.writerow([_safe(r["name"]), r["calls"], *(f"{r[key]:.3f}" for key, _ in columns)])
    return out.getvalue()


def nsight_text(raw: Any, part: str = "text") -> str:
    """One part ("text" or "csv") of Nsight Compute's output as the contestant relayed it: printable text,
    capped, a CSV's cells made safe for spreadsheets; "" when none."""
    value = raw.get(part) if type(raw) is dict else None
    if type(value) is not str:
        return ""
    text = "".join(c if c.isprintable() or c == "\n" else " " for c in value[:MAX_NCU])
    if part == "csv":  # the cells hold kernel names, the submission's own words: made safe, as ours are
        out = io.StringIO()
        writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
        writer.writerows([_safe(cell) for cell in row] for row in csv.reader(io.StringIO(text)))
        text = out.getvalue()
    return text


def profile_of(case_id: str, calls: int, verdict: str, reply: dict[str, Any], device: str) -> dict[str, str]:
    """One case's entry of RunReport.profiles: its table as text and as CSV, and Nsight Compute's summary.
    `verdict` says whether the profiled calls' outputs were right, so a wrong kernel's profile says so."""
    heading = f"{case_id}: {calls} call(s) of custom_kernel on {device}, outputs {verdict}"
    try:
        rows = checked(reply.get("profile"), device)
    except MalformedProfile as exc:
        note = f"no table: the contestant's process sent a malformed profile ({exc})"
        return {"case": case_id, "text": f"{heading}\n{note}", "csv": "", "ncu": "", "ncu_csv": ""}
    return {
        "case": case_id,
        "text": render_text(rows, device, heading),
        "csv": render_csv(rows, device),
        "ncu": nsight_text(reply.get("ncu")),
        "ncu_csv": nsight_text(reply.get("ncu"), "csv"),
    }
