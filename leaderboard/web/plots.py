"""Plots drawn on the server as SVG: axes with units, ticks, tick labels, a legend. No JavaScript.

The one module of the site's charts: the best score over time of a problem (one step line per device
kind), the timings of a submission's cases (mean with its standard error, fastest and slowest window, the
physical floor), and an agent run's lines per step (`line_chart`). Times span orders of magnitude (a
31x31 case and a 2048x2048 one), so time axes are logarithmic; an agent's steps and rewards are linear.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from runner.report import format_time as seconds_label

WIDTH, HEIGHT = 720, 320
LEFT, RIGHT, TOP, BOTTOM = 84, 20, 48, 62
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
COLOURS = ("#2563eb", "#dc2626", "#059669", "#9333ea", "#d97706", "#0891b2", "#4b5563")


class LogScale:
    """A logarithmic axis over positive values, with ticks at 1, 2 and 5 times the powers of ten (or the
    powers alone when there are many decades)."""

    def __init__(self, values: Sequence[float]) -> None:
        positive = [v for v in values if v > 0 and math.isfinite(v)]
        lo, hi = (min(positive), max(positive)) if positive else (1e-6, 1e-3)
        lo_e, hi_e = math.log10(lo), math.log10(hi)
        if hi_e - lo_e < 0.6:  # widen a narrow range so that it shows at least two ticks
            middle = (lo_e + hi_e) / 2
            lo_e, hi_e = middle - 0.5, middle + 0.5
        pad = (hi_e - lo_e) * 0.06
        self.lo, self.hi = lo_e - pad, hi_e + pad

    def position(self, value: float) -> float:
        """0 at the bottom (or left) of the axis, 1 at the top."""
        return (math.log10(value) - self.lo) / (self.hi - self.lo)

    def ticks(self) -> list[float]:
        decades = range(math.floor(self.lo), math.ceil(self.hi) + 1)
        multiples = (
            (1,) if self.hi - self.lo > 4 else (1, 2, 5) if self.hi - self.lo > 1.2 else (1, 2, 3, 5, 7)
        )
        found = [m * 10.0**e for e in decades for m in multiples]
        return [t for t in found if self.lo <= math.log10(t) <= self.hi]


class LinearScale:
    """A linear axis with round ticks (1, 2 or 5 times a power of ten apart) that cover the values."""

    def __init__(self, values: Sequence[float], count: int = 5) -> None:
        finite = [v for v in values if math.isfinite(v)]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        self.tick_values = nice_ticks(lo, hi, count)
        self.lo, self.hi = self.tick_values[0], self.tick_values[-1]

    def position(self, value: float) -> float:
        return (value - self.lo) / ((self.hi - self.lo) or 1)

    def ticks(self) -> list[float]:
        return self.tick_values


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About `count` round ticks from at or below `lo` to at or above `hi`."""
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    raw = (hi - lo) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(lo / step) * step
    ticks = [round(first, 12)]
    while ticks[-1] < hi - step * 1e-9 or len(ticks) < 2:  # the last tick at or above hi
        ticks.append(round(first + len(ticks) * step, 12))
    return ticks


# Tick steps of a time axis, in seconds, and how their labels read.
_TIME_STEPS = (
    (60, "%H:%M"),
    (300, "%H:%M"),
    (900, "%H:%M"),
    (3600, "%H:%M"),
    (3 * 3600, "%b %d %H:%M"),
    (6 * 3600, "%b %d %H:%M"),
    (12 * 3600, "%b %d %H:%M"),
    (86400, "%b %d"),
    (2 * 86400, "%b %d"),
    (7 * 86400, "%b %d"),
    (14 * 86400, "%b %d"),
    (30 * 86400, "%Y-%m"),
    (91 * 86400, "%Y-%m"),
    (365 * 86400, "%Y"),
)


class TimeScale:
    """A time axis in UTC, with ticks at round minutes, hours, days or months."""

    def __init__(self, values: Sequence[datetime]) -> None:
        stamps = [v.timestamp() for v in values] or [datetime.now(UTC).timestamp()]
        lo, hi = min(stamps), max(stamps)
        if hi - lo < 120:
            lo, hi = lo - 60, hi + 60
        pad = (hi - lo) * 0.03
        self.lo, self.hi = lo - pad, hi + pad

    def position(self, value: datetime) -> float:
        return (value.timestamp() - self.lo) / (self.hi - self.lo)

    def ticks(self) -> list[tuple[datetime, str]]:
        span = self.hi - self.lo
        step, fmt = next(((s, f) for s, f in _TIME_STEPS if span / s <= 7), _TIME_STEPS[-1])
        first = math.ceil(self.lo / step) * step
        out = []
        t = first
        while t <= self.hi:
            moment = datetime.fromtimestamp(t, UTC)
            out.append((moment, moment.strftime(fmt)))
            t += step
        return out


def _svg_open(title: str) -> list[str]:
    return [
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(title)}" font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT}" y="17" font-size="14" font-weight="600" fill="#111">{escape(title)}</text>',
    ]


def _y_axis(
    parts: list[str], scale: LogScale | LinearScale, label: str, fmt: Callable[[float], str] = seconds_label
) -> None:
    bottom = TOP + PLOT_H
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#444"/>')
    for t in scale.ticks():
        y = bottom - scale.position(t) * PLOT_H
        parts.append(
            f'<line x1="{LEFT - 5}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#e5e7eb"/>'
            f'<line x1="{LEFT - 5}" y1="{y:.1f}" x2="{LEFT}" y2="{y:.1f}" stroke="#444"/>'
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" fill="#333">{escape(fmt(t))}</text>'
        )
    parts.append(
        f'<text transform="translate(16 {TOP + PLOT_H / 2}) rotate(-90)" text-anchor="middle" '
        f'fill="#333">{escape(label)}</text>'
    )


def _x_axis_line(parts: list[str], label: str) -> None:
    bottom = TOP + PLOT_H
    parts.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{LEFT + PLOT_W}" y2="{bottom}" stroke="#444"/>')
    parts.append(
        f'<text x="{LEFT + PLOT_W / 2}" y="{HEIGHT - 8}" text-anchor="middle" fill="#333">{escape(label)}</text>'
    )


def _x_ticks(parts: list[str], ticks: Sequence[tuple[float, str]]) -> None:
    """Ticks along the x axis: (position from 0 to 1, label) each."""
    bottom = TOP + PLOT_H
    for position, text in ticks:
        px = LEFT + position * PLOT_W
        parts.append(
            f'<line x1="{px:.1f}" y1="{bottom}" x2="{px:.1f}" y2="{bottom + 5}" stroke="#444"/>'
            f'<text x="{px:.1f}" y="{bottom + 18}" text-anchor="middle" fill="#333">{escape(text)}</text>'
        )


def _legend(parts: list[str], entries: Sequence[tuple[str, str, str]]) -> None:
    """(label, colour, shape) entries along the top right; shape is "line", "dot" or "dash"."""
    x = LEFT + PLOT_W
    for label, colour, shape in reversed(entries):
        width = 7 * len(label) + 26
        x -= width
        if shape == "line":
            mark = f'<line x1="{x}" y1="34" x2="{x + 16}" y2="34" stroke="{colour}" stroke-width="2.5"/>'
        elif shape == "dash":
            mark = f'<line x1="{x}" y1="34" x2="{x + 16}" y2="34" stroke="{colour}" stroke-width="2" stroke-dasharray="4 3"/>'
        else:
            mark = f'<circle cx="{x + 8}" cy="34" r="4" fill="{colour}"/>'
        parts.append(f'{mark}<text x="{x + 20}" y="38" fill="#333">{escape(label)}</text>')


def _empty(title: str, why: str) -> SafeString:
    parts = _svg_open(title)
    parts.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="#f9fafb" stroke="#e5e7eb"/>'
        f'<text x="{LEFT + PLOT_W / 2}" y="{TOP + PLOT_H / 2}" text-anchor="middle" fill="#6b7280">'
        f"{escape(why)}</text></svg>"
    )
    return mark_safe("".join(parts))


LABEL_CHAR_W, LABEL_H = 6.6, 13  # the room a record holder's name takes at font-size 11 (an estimate)


def _holder_labels(
    points: Sequence[tuple[float, float, str]], taken: list[tuple[float, float, float, float]]
):
    """Where to write each record holder's name: beside the point where the record changed hands, moved up
    or down past names already placed (`taken`: their boxes), or left out when there is no room."""
    placed = []
    for px, py, name in points:
        width = LABEL_CHAR_W * len(name)
        x = min(max(px + 5, LEFT), LEFT + PLOT_W - width)  # inside the plot, right of its point when it fits
        for dy in (-8, 16, -22, 30, -36):
            box = (x, py + dy - LABEL_H + 3, x + width, py + dy + 3)
            inside = TOP <= box[1] and box[3] <= TOP + PLOT_H
            if inside and not any(
                box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3] for t in taken
            ):
                taken.append(box)
                placed.append((x, py + dy, name))
                break
    return placed


def record_chart(series: Sequence[tuple[str, Sequence[tuple]]], *, now: datetime) -> SafeString:
    """The best score over time: for each (label, [(when, score_s[, holder]), ...]) series of
    record-setting submissions, in time order, a step line that holds each record until the next one beats
    it, and the holder's name where the record changed hands (as many as fit without overlapping)."""
    title = "Best score over time"
    series = [(label, list(points)) for label, points in series if points]
    if not series:
        return _empty(title, "no ranked submissions yet")
    times = [p[0] for _, pts in series for p in pts] + [now]
    x = TimeScale(times)
    y = LogScale([p[1] for _, pts in series for p in pts])
    bottom = TOP + PLOT_H
    parts = _svg_open(title)
    _y_axis(parts, y, "best score (geometric-mean time per call)")
    _x_axis_line(parts, "time of the submission (UTC)")
    _x_ticks(parts, [(x.position(moment), text) for moment, text in x.ticks()])
    legend = []
    taken: list[tuple[float, float, float, float]] = []
    for i, (label, points) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        legend.append((label, colour, "line"))
        coords = [
            (LEFT + x.position(p[0]) * PLOT_W, bottom - y.position(p[1]) * PLOT_H, p[0], p[1]) for p in points
        ]
        holders = [p[2] if len(p) > 2 else None for p in points]
        changes = [
            (coords[k][0], coords[k][1], holders[k])
            for k in range(len(points))
            if holders[k] and (k == 0 or holders[k] != holders[k - 1])
        ]
        path = [f"M{coords[0][0]:.1f},{coords[0][1]:.1f}"]
        for px, py, _, _ in coords[1:]:
            path.append(f"H{px:.1f}V{py:.1f}")
        path.append(f"H{LEFT + x.position(now) * PLOT_W:.1f}")  # the current record holds until now
        parts.append(f'<path d="{"".join(path)}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for px, py, t, s in coords:
            tip = f"{label}: {seconds_label(s)} on {t.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
            parts.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"><title>{escape(tip)}</title></circle>'
            )
        for lx, ly, name in _holder_labels(changes, taken):
            parts.append(
                f'<text class="holder" x="{lx:.1f}" y="{ly:.1f}" font-size="11" fill="{colour}">{escape(name)}</text>'
            )
    _legend(parts, legend)
    parts.append("</svg>")
    return mark_safe("".join(parts))


@dataclass(frozen=True)
class CaseTiming:
    label: str  # the case's parameters, e.g. "size=1024"
    kind: str  # benchmark | secret
    mean_s: float
    stderr_s: float | None
    min_s: float | None
    max_s: float | None
    floor_s: float | None


def case_chart(cases: Sequence[CaseTiming]) -> SafeString:
    """The time per call of each timed case: the mean with a bar of ± one standard error, a thin line
    from the fastest to the slowest window, and the physical floor of the device as a dashed mark."""
    title = "Time per call of each timed case"
    cases = [c for c in cases if c.mean_s and c.mean_s > 0]
    if not cases:
        return _empty(title, "no timed cases")
    values = [v for c in cases for v in (c.mean_s, c.min_s, c.max_s, c.floor_s) if v]
    y = LogScale(values)
    bottom = TOP + PLOT_H
    parts = _svg_open(title)
    _y_axis(parts, y, "time per call (log scale)")
    _x_axis_line(parts, "case (kind: parameters)")
    slot = PLOT_W / len(cases)
    kinds = sorted({c.kind for c in cases}, key=lambda k: (k != "benchmark", k))
    colour_of = {k: COLOURS[i % len(COLOURS)] for i, k in enumerate(kinds)}

    def py(v: float) -> float:
        return bottom - y.position(v) * PLOT_H

    for i, c in enumerate(cases):
        cx = LEFT + slot * (i + 0.5)
        colour = colour_of[c.kind]
        parts.append(f'<line x1="{cx:.1f}" y1="{bottom}" x2="{cx:.1f}" y2="{bottom + 5}" stroke="#444"/>')
        label = c.label if len(c.label) <= 22 else c.label[:21] + "…"
        parts.append(
            f'<text x="{cx:.1f}" y="{bottom + 18}" text-anchor="middle" fill="#333" font-size="11">'
            f"{escape(label)}</text>"
            f'<text x="{cx:.1f}" y="{bottom + 31}" text-anchor="middle" fill="#6b7280" font-size="10">'
            f"{escape(c.kind)}</text>"
        )
        if c.min_s and c.max_s:
            parts.append(
                f'<line x1="{cx:.1f}" y1="{py(c.max_s):.1f}" x2="{cx:.1f}" y2="{py(c.min_s):.1f}" '
                f'stroke="{colour}" stroke-opacity="0.45"/>'
            )
        if c.stderr_s and c.mean_s - c.stderr_s > 0:
            top, low = py(c.mean_s + c.stderr_s), py(c.mean_s - c.stderr_s)
            parts.append(
                f'<rect x="{cx - 5:.1f}" y="{top:.1f}" width="10" height="{max(low - top, 1):.1f}" '
                f'fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>'
            )
        if c.floor_s:
            parts.append(
                f'<line x1="{cx - 14:.1f}" y1="{py(c.floor_s):.1f}" x2="{cx + 14:.1f}" y2="{py(c.floor_s):.1f}" '
                f'stroke="#6b7280" stroke-width="2" stroke-dasharray="4 3"/>'
            )
        tip = f"{c.label} ({c.kind}): mean {seconds_label(c.mean_s)}"
        if c.stderr_s:
            tip += f" ± {seconds_label(c.stderr_s)}"
        if c.floor_s:
            tip += f"; floor {seconds_label(c.floor_s)}"
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{py(c.mean_s):.1f}" r="4" fill="{colour}"><title>{escape(tip)}</title></circle>'
        )
    legend = [(f"{k} mean ± stderr", colour_of[k], "dot") for k in kinds]
    if any(c.floor_s for c in cases):
        legend.append(("physical floor", "#6b7280", "dash"))
    _legend(parts, legend)
    parts.append("</svg>")
    return mark_safe("".join(parts))


def axis_seconds(value: float) -> str:
    """A time axis' tick label: a duration in the unit that reads best, and a bare 0."""
    return "0" if value == 0 else seconds_label(abs(value))


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float | None]]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_format: Callable[[float], str] = lambda v: f"{v:g}",
) -> SafeString:
    """Lines with a dot per point on linear axes, for (label, [(x, y), ...]) series such as an agent run's
    steps; an empty chart says there is no data yet."""
    points = [(x, y) for _, pts in series for x, y in pts if y is not None and math.isfinite(y)]
    if not points:
        return _empty(title, "no steps yet")
    xs, ys = LinearScale([x for x, _ in points], 6), LinearScale([y for _, y in points])
    parts = _svg_open(title)
    _y_axis(parts, ys, y_label, y_format)
    _x_axis_line(parts, x_label)
    _x_ticks(parts, [(xs.position(t), f"{t:g}") for t in xs.ticks()])
    bottom = TOP + PLOT_H
    legend = []
    for i, (label, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        good = [(x, y) for x, y in pts if y is not None and math.isfinite(y)]
        if not good:
            continue
        at = [(LEFT + xs.position(x) * PLOT_W, bottom - ys.position(y) * PLOT_H) for x, y in good]
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
            f'points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in at)}"/>'
        )
        parts += [f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>' for px, py in at]
        legend.append((label, colour, "line"))
    _legend(parts, legend)
    parts.append("</svg>")
    return mark_safe("".join(parts))
