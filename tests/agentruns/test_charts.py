"""The server-drawn SVG charts: axes, ticks with units, a line per series, escaping."""

from leaderboard.agentruns.charts import line_chart, nice_ticks, seconds_label


def test_ticks_are_round_and_cover_the_range():
    ticks = nice_ticks(0.13, 2.9)
    assert ticks[0] <= 0.13 and ticks[-1] >= 2.9
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1 and steps.pop() in (0.5, 1.0)


def test_seconds_label_picks_a_unit():
    assert seconds_label(2.0) == "2 s"
    assert seconds_label(0.035) == "35 ms"
    assert seconds_label(0.00041) == "410 us"


def test_chart_has_axes_units_and_series():
    svg = line_chart(
        [("best <runtime>", [(0, 0.02), (1, 0.015), (2, 0.01)])],
        title="Best runtime per step",
        x_label="step",
        y_label="runtime",
        y_format=seconds_label,
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert ">step<" in svg and ">runtime<" in svg and " ms<" in svg
    assert "best &lt;runtime&gt;" in svg  # labels are escaped


def test_empty_chart_says_so():
    assert "no steps yet" in line_chart([("x", [])], title="t", x_label="step", y_label="y")
