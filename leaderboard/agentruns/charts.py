"""Line charts drawn on the server as SVG: axes, ticks with units, one polyline per series. No JavaScript."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from runner.report import format_time

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 78, 16, 16, 46
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1, 2 or 5 times a power of ten apart)."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(lo / step) * step
    ticks = [round(first, 12)]
    while ticks[-1] < hi - step * 1e-9 or len(ticks) < 2:  # the last tick at or above hi
        ticks.append(round(first + len(ticks) * step, 12))
    return ticks


def seconds_label(value: float) -> str:
    """An axis label: a duration in the unit that reads best (runner.report.format_time), and a bare 0."""
    return "0" if value == 0 else format_time(abs(value))


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_format: Callable[[float], str] = lambda v: f"{v:g}",
) -> SafeString:
    """An SVG chart of the given (label, [(x, y), ...]) series; an empty chart says there is no data."""
    points = [p for _, pts in series for p in pts if p[1] is not None and math.isfinite(p[1])]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
    ]
    if not points:
        parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">no steps yet</text></svg>')
        return mark_safe("".join(parts))
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x_ticks = nice_ticks(min(xs), max(xs), 6)
    y_ticks = nice_ticks(min(ys), max(ys), 5)
    x0, x1 = x_ticks[0], x_ticks[-1]
    y0, y1 = y_ticks[0], y_ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / ((x1 - x0) or 1) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (y - y0) / ((y1 - y0) or 1) * plot_h

    bottom = TOP + plot_h
    parts.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{LEFT + plot_w}" y2="{bottom}" stroke="#333"/>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>')
    for t in x_ticks:
        parts.append(
            f'<line x1="{px(t):.1f}" y1="{bottom}" x2="{px(t):.1f}" y2="{bottom + 5}" stroke="#333"/>'
        )
        parts.append(
            f'<text x="{px(t):.1f}" y="{bottom + 18}" text-anchor="middle">{escape(f"{t:g}")}</text>'
        )
    for t in y_ticks:
        parts.append(
            f'<line x1="{LEFT - 5}" y1="{py(t):.1f}" x2="{LEFT + plot_w}" y2="{py(t):.1f}" stroke="#ddd"/>'
        )
        parts.append(
            f'<text x="{LEFT - 8}" y="{py(t) + 4:.1f}" text-anchor="end">{escape(y_format(t))}</text>'
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle">{escape(x_label)}</text>'
        f'<text transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">{escape(y_label)}</text>'
    )
    for i, (label, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        good = [(x, y) for x, y in pts if y is not None and math.isfinite(y)]
        if not good:
            continue
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in good)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for x, y in good:
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        parts.append(
            f'<text x="{LEFT + plot_w - 4}" y="{TOP + 14 + 16 * i}" text-anchor="end" fill="{colour}">{escape(label)}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))
