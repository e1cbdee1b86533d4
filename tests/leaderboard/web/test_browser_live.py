"""The live view in a real browser against a real platform (tests/leaderboard/web/browser.py): a visitor submits a kernel
whose every call is slow in leaderboard mode, and the submission page, polling by itself, shows each case's
phase and place, "test 2 of 4 passed · vectoradd[size=64]", then the timed ones with their median,
"benchmark 3 of 4 passed · vectoradd[size=1024] · 301 ms per call", with a bar of the whole run's count,
while the judge runs, before the verdict. The judge's case frames travel from the runner
through the worker onto the row, and from the status JSON onto the page: nothing here is stood in for."""

from __future__ import annotations

import re
import time

from tests.leaderboard.web.browser import MARKS, TEMPLATE, shot, sign_up, wait_until_final

pytestmark = MARKS

# 0.3 s per call: each of vectoradd's cpu cases (four tests, four benchmarks, four secret) takes long enough
# to be watched, the timed ones several calls (the benchmark budget is short: tests/leaderboard/web/browser.py).
SLOW = TEMPLATE.read_text().replace(
    "def custom_kernel(data: input_t) -> output_t:\n",
    "def custom_kernel(data: input_t) -> output_t:\n    import time\n\n    time.sleep(0.3)\n",
)
PROGRESS = re.compile(
    r"^(test|benchmark|secret) (\d+) of (\d+) (passed|failed|error) · (vectoradd\[\S+\])"
    r"(?: · (\d[\d.]*) (s|ms|us) per call)?$"
)

# What the page shows now: the progress line (when visible), the bar's width, the state badge.
READ = """() => {
  const p = document.getElementById("live-progress");
  const bar = document.getElementById("live-bar");
  return {
    progress: p && !p.hidden ? p.innerText.trim() : null,  // innerText: not the hidden time's words
    width: bar ? bar.style.width : null,
    state: (document.getElementById("state-badge") || {}).textContent,
  };
}"""


def test_the_page_shows_each_case_as_the_judge_finishes_it(platform, browser_page, tmp_path):
    page, base = browser_page, platform.url
    sign_up(page, base, "carol")
    source = tmp_path / "slow_vectoradd.py"
    source.write_text(SLOW)
    assert "time.sleep(0.3)" in SLOW

    page.goto(f"{base}/submit/?problem=vectoradd")
    page.select_option("#id_problem", "vectoradd")
    page.select_option("#id_language", "pytorch")
    page.select_option("#id_device_kind", "cpu")
    page.check("input[name=mode][value=leaderboard]")
    page.set_input_files("#id_upload", str(source))
    page.wait_for_function("document.getElementById('id_source').value.includes('time.sleep')")
    page.click("form.submit button[type=submit]")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))

    # Poll the DOM until the verdict: every distinct line the page showed, with its bar.
    seen: list[tuple[str, int, int, str, str, float | None, str]] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            now = page.evaluate(READ)
        except Exception:  # the page reloading itself at the verdict
            time.sleep(0.1)
            continue
        if now["progress"]:
            found = PROGRESS.match(now["progress"])
            assert found, now
            unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6}.get(found[7] or "")
            median = float(found[6]) * unit if found[6] and unit else None
            entry = (found[1], int(found[2]), int(found[3]), found[4], found[5], median, now["width"])
            if not seen or seen[-1][:3] != entry[:3]:
                seen.append(entry)
                if len(seen) == 1:
                    shot(page, "20-submission-live-case")
                if entry[0] != "test" and not any(e[0] != "test" for e in seen[:-1]):
                    shot(page, "20-submission-live-timed-case")
        if (now["state"] or "").strip() not in ("queued", "running"):
            break
        time.sleep(0.1)
    assert wait_until_final(page, platform, 60) == "passed", platform.logs()

    assert seen, f"the page never showed a case before the verdict:\n{platform.logs()}"
    phases = [kind for kind, *_ in seen]
    order = ["test", "benchmark", "secret"]
    assert phases == sorted(phases, key=order.index), seen  # the phases in the run's order
    assert "test" in phases and {"benchmark", "secret"} & set(phases), seen  # a test and a timed case seen
    for kind, done, total, _status, _case, median, _width in seen:
        assert total == 4 and 1 <= done <= 4, seen  # vectoradd's four cpu cases of each phase
        if kind == "test":
            assert median is None, seen  # a test is not timed
        else:  # a timed case's median per call: the kernel's 0.3 s sleep, and little more
            assert median is not None and 0.29 <= median < 1.0, seen
    # The bar is the judge's count over the whole run (4 tests, 4 benchmarks, 4 secret), not the clock's.
    offset = {"test": 0, "benchmark": 4, "secret": 8}
    for kind, done, _total, _status, _case, _median, width in seen:
        assert abs(float(width.rstrip("%")) - 100 * (offset[kind] + done) / 12) < 0.2, seen
    shot(page, "21-submission-live-final")
    # The final page: the run's cases, the live view gone.
    assert page.locator("table.cases tbody tr.case-passed").count() == 12
    assert page.locator("#live").count() == 0
