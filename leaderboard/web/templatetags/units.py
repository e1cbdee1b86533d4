"""Template filters that write measurements with their units, as the runner's text report does."""

from __future__ import annotations

from django import template

from runner.report import format_interval, format_rate, format_time

register = template.Library()


@register.filter
def seconds(value) -> str:
    """1.23 ms, 410 us; "-" for nothing."""
    return format_time(value if isinstance(value, int | float) else None)


@register.filter
def rate(value, unit: str) -> str:
    """4.33 GB/s with unit "B/s", 722 MFLOP/s with "FLOP/s"; "-" for nothing."""
    return format_rate(value, unit) if isinstance(value, int | float) and value else "-"


@register.filter
def count(value) -> str:
    """A large count in SI prefixes, as the rates are written: 2.15 G, 786 k; "-" for nothing."""
    if not isinstance(value, int | float) or not value:
        return "-"
    return format_rate(value, "").strip()


@register.filter
def byte_size(value) -> str:
    if not isinstance(value, int | float):
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


@register.filter
def percent(value) -> str:
    """A fraction as a percentage: 0.0123 -> 1.23 %."""
    if not isinstance(value, int | float):
        return "-"
    return f"{100 * value:.3g} %"


@register.filter
def redacted(value) -> str:
    """The text with the worker's absolute paths cut to their last part (public pages show no host paths)."""
    from leaderboard.web.presentation import redact_paths

    return redact_paths(str(value)) if value else value


@register.filter
def interval(value) -> str:
    """The 95 % interval of what has `score_low_s` and `score_high_s` (a run, a ranking entry) or
    `median_low_s` and `median_high_s` (a case), as the runner's text report writes it; "" for none."""
    low = getattr(value, "score_low_s", None) or getattr(value, "median_low_s", None)
    high = getattr(value, "score_high_s", None) or getattr(value, "median_high_s", None)
    return format_interval(low, high)
