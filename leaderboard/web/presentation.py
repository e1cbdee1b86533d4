"""How the pages present what a run left behind: case rows with their share of the device's peaks, the
report as text, limits and flags in words. Pure functions of the rows and the report; the views call them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from leaderboard.web.templatetags.units import byte_size
from runner.report import render as render_report
from runner.spec import RunReport
from runner.vocabulary import DEVICE_KINDS


@dataclass(frozen=True)
class CaseRow:
    case: object  # RunCase
    flops_per_s: float | None
    bytes_per_s: float | None
    flops_fraction: float | None  # of the device's peak
    bytes_fraction: float | None
    joules_per_call: float | None


def skipped_cases(cases) -> tuple[int, str]:
    """How many cases a run skipped and why (the first one's reason): one line on the page, not a row each."""
    skipped = [c for c in cases if c.status == "skipped"]
    return len(skipped), (skipped[0].message if skipped else "")


def shares_of_peak(flops_per_s: float | None, bytes_per_s: float | None, device_kind: str):
    """(FLOP/s, bytes/s) as shares of the device kind's datasheet peaks; None where either is unknown. The
    one definition for a run's cases and the rankings."""
    peak = DEVICE_KINDS.get(device_kind)
    return (
        flops_per_s / peak.flops_per_s if peak and flops_per_s else None,
        bytes_per_s / peak.bytes_per_s if peak and bytes_per_s else None,
    )


def case_rows(cases, device_kind: str) -> list[CaseRow]:
    rows = []
    for c in cases:
        stats = c.stats or {}
        flops, nbytes = stats.get("flops_per_s"), stats.get("bytes_per_s")
        rows.append(
            CaseRow(
                c, flops, nbytes, *shares_of_peak(flops, nbytes, device_kind), stats.get("joules_per_call")
            )
        )
    return rows


@dataclass(frozen=True)
class EntryRates:
    """A ranking entry's achieved rates (the geometric mean of its scored cases' rates) and their shares
    of the device kind's peaks; None where the problem has no counts."""

    flops_per_s: float | None
    bytes_per_s: float | None
    flops_fraction: float | None
    bytes_fraction: float | None


def entry_rates(rates: tuple[float | None, float | None], device_kind: str) -> EntryRates:
    return EntryRates(*rates, *shares_of_peak(*rates, device_kind))


def case_label(case_id: str) -> str:
    return case_id[case_id.find("[") + 1 : -1] if case_id.endswith("]") and "[" in case_id else case_id


def report_text(report: dict) -> str:
    try:
        return redact_paths(render_report(RunReport.from_dict(report)))
    except (TypeError, KeyError, ValueError):  # a report from an older runner, with other fields
        return ""


# An absolute path of two or more parts (/work/x/.venv/bin/python), not inside a URL (http://host/a/b).
_HOST_PATH = re.compile(r"(?<![\w.:/~-])/(?:[\w.+@-]+/)+([\w.+@-]*)")
# What a competitor gains nothing from and a public page should not show: where the worker keeps things.
_PRIVATE_ENV_KEYS = frozenset({"sys_executable"})


def redact_paths(text: str) -> str:
    """`text` with the worker's absolute paths cut to their last part (/work/a/.venv/bin/python -> …/python)."""
    return _HOST_PATH.sub(lambda m: "…/" + m.group(1), text)


def public_env(env: dict) -> list[tuple[str, str]]:
    """The environment record as the pages show it: versions, device and CPU; no interpreter path or other
    path on the worker's disk."""
    return sorted((k, _env_value(v)) for k, v in env.items() if k not in _PRIVATE_ENV_KEYS)


def _env_value(value) -> str:
    """One value of the environment record in words: a record within it (the contestant's threads) as
    `runtime: 1, after_import: 1`, a list as its items, never Python's own notation."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_env_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_env_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return redact_paths(str(value))


def limit_text(name: str, value) -> str:
    if name == "case_budget_s" and not value:
        return "untimed"
    if not isinstance(value, int | float):
        return str(value)
    if name.endswith("_bytes"):
        return byte_size(value)
    if name.endswith("_s"):
        return f"{value:g} s"
    return f"{value:g}"


def status_counts(cases) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for c in cases:
        counts[c.status] = counts.get(c.status, 0) + 1
    return sorted(counts.items())


def flag_view(flag: dict) -> dict:
    evidence = flag.get("evidence")
    if isinstance(evidence, dict):
        items = [(k, v if isinstance(v, str | int | float) else json.dumps(v)) for k, v in evidence.items()]
    elif evidence is None:
        items = []
    else:
        items = [("evidence", evidence if isinstance(evidence, str) else json.dumps(evidence, indent=1))]
    return {"kind": flag.get("kind", "?"), "message": flag.get("message", ""), "evidence": items}
