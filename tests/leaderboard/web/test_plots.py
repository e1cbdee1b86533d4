"""The server-drawn SVG plots: axes with units, ticks, labels, and a plain message when there is no data."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

from leaderboard.web.plots import CaseTiming, LogScale, TimeScale, case_chart, record_chart


def _parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)  # well-formed XML, or this raises


def test_record_chart_axes_units_and_steps():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    svg = record_chart(
        [
            ("CPU", [(t0, 3e-3), (t0 + timedelta(days=2), 1.5e-3)]),
            ("NVIDIA H100", [(t0 + timedelta(days=1), 2e-5)]),
        ],
        now=t0 + timedelta(days=5),
    )
    _parse(svg)
    assert "best score (geometric-mean time per call)" in svg and "time of the submission (UTC)" in svg
    ticks = re.findall(r'text-anchor="end" fill="#333">([^<]+)<', svg)
    assert (
        "1 ms" in ticks and "20 us" in ticks and all(t.endswith("s") for t in ticks)
    )  # every tick has its unit
    assert "Nov 02" in svg  # day ticks
    assert svg.count("<path") == 2 and svg.count("<circle") == 3 and "CPU" in svg and "NVIDIA H100" in svg


def test_case_chart_marks_stderr_spread_and_floor():
    svg = case_chart(
        [
            CaseTiming("size=256", "benchmark", 4e-4, 1e-4, 2.4e-4, 5.9e-4, 3.6e-6),
            CaseTiming("size=2048", "secret", 5.5e-3, 2.8e-3, 2.7e-3, 1.1e-2, 2.3e-4),
        ]
    )
    _parse(svg)
    assert "time per call (log scale)" in svg and "case (kind: parameters)" in svg
    assert "physical floor" in svg and 'stroke-dasharray="4 3"' in svg
    assert "size=256" in svg and "secret" in svg and "mean 400 us ± 100 us; floor 3.6 us" in svg


def test_empty_charts_say_so():
    assert "no ranked submissions yet" in record_chart([], now=datetime.now(UTC))
    assert "no timed cases" in case_chart([])


def test_scales():
    log = LogScale([1e-6, 1e-2])
    assert log.ticks()[0] <= 1e-6 * 1.01 and 1e-2 in log.ticks()
    narrow = LogScale([1e-3, 1.1e-3])  # widened to show at least two ticks
    assert len(narrow.ticks()) >= 2
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    hours = TimeScale([t0, t0 + timedelta(hours=5)]).ticks()
    assert 2 <= len(hours) <= 8 and hours[0][1].count(":") == 1
    assert TimeScale([t0]).ticks()  # a single moment still has an axis


def test_escaping_in_labels():
    svg = record_chart(
        [("<b>cpu</b>", [(datetime(2026, 1, 1, tzinfo=UTC), 1e-3)])], now=datetime(2026, 1, 2, tzinfo=UTC)
    )
    assert "<b>" not in svg and "&lt;b&gt;cpu&lt;/b&gt;" in svg


def test_record_holders_named_where_the_record_changed_hands_without_overlap():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    points = [
        (t0, 4e-3, "alice"),
        (t0 + timedelta(hours=1), 3e-3, "alice"),  # alice beats herself: no new name
        (t0 + timedelta(hours=2), 2e-3, "<b>bob</b>"),
        (t0 + timedelta(hours=2, minutes=1), 1.99e-3, "carol"),  # right beside bob's point
        (t0 + timedelta(days=3), 1e-3, "robo"),
    ]
    svg = record_chart([("CPU", points)], now=t0 + timedelta(days=4))
    root = _parse(svg)
    labels = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "holder"]
    names = [t.text for t in labels]
    assert names == ["alice", "<b>bob</b>", "carol", "robo"]  # escaped in the SVG, parsed back here
    assert "<b>bob" not in svg
    boxes = [(float(t.get("x")), float(t.get("y")), len(t.text) * 6.6) for t in labels]
    for i, (x1, y1, w1) in enumerate(boxes):
        for x2, y2, w2 in boxes[i + 1 :]:
            assert not (x1 < x2 + w2 and x2 < x1 + w1 and abs(y1 - y2) < 13), (names, boxes)
