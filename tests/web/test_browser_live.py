"""The live view in a real browser against a real platform (tests/web/browser.py): a visitor submits a kernel
whose every call takes a second, and the submission page, polling by itself, shows "case N of M passed" with
a bar of N/M while the judge runs, before the verdict. The judge's case frames travel from the runner
through the worker onto the row, and from the status JSON onto the page: nothing here is stood in for."""

from __future__ import annotations

import re
import time

from tests.web.browser import MARKS, TEMPLATE, shot, sign_up, wait_until_final

pytestmark = MARKS

# A second per call: vectoradd's four test cases then take about four seconds, long enough to be watched.
SLOW = TEMPLATE.read_text().replace(
    "def custom_kernel(data: input_t) -> output_t:\n",
    "def custom_kernel(data: input_t) -> output_t:\n    import time\n\n    time.sleep(1.0)\n",
)
PROGRESS = re.compile(r"^case (\d+) of (\d+) (passed|failed|error)\b")

# What the page shows now: the progress line (when visible), the bar's width, the state badge.
READ = """() => {
  const p = document.getElementById("live-progress");
  const bar = document.getElementById("live-bar");
  return {
    progress: p && !p.hidden ? p.textContent.trim() : null,
    width: bar ? bar.style.width : null,
    state: (document.getElementById("state-badge") || {}).textContent,
  };
}"""


def test_the_page_shows_each_case_as_the_judge_finishes_it(platform, browser_page, tmp_path):
    page, base = browser_page, platform.url
    sign_up(page, base, "carol")
    source = tmp_path / "slow_vectoradd.py"
    source.write_text(SLOW)
    assert "time.sleep(1.0)" in SLOW

    page.goto(f"{base}/submit/?problem=vectoradd")
    page.select_option("#id_problem", "vectoradd")
    page.select_option("#id_language", "pytorch")
    page.select_option("#id_device_kind", "cpu")
    page.check("input[name=mode][value=test]")
    page.set_input_files("#id_upload", str(source))
    page.wait_for_function("document.getElementById('id_source').value.includes('time.sleep')")
    page.click("form.submit button[type=submit]")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))

    # Poll the DOM until the verdict: every distinct "case N of M" line the page showed, with its bar.
    seen: list[tuple[int, int, str, str]] = []
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        try:
            now = page.evaluate(READ)
        except Exception:  # the page reloading itself at the verdict
            time.sleep(0.1)
            continue
        if now["progress"]:
            found = PROGRESS.match(now["progress"])
            assert found, now
            entry = (int(found[1]), int(found[2]), found[3], now["width"])
            if not seen or seen[-1][:3] != entry[:3]:
                seen.append(entry)
                if len(seen) == 1:
                    shot(page, "20-submission-live-case")
        if (now["state"] or "").strip() not in ("queued", "running"):
            break
        time.sleep(0.1)
    assert wait_until_final(page, platform, 60) == "passed", platform.logs()

    assert seen, f"the page never showed a case count before the verdict:\n{platform.logs()}"
    totals = {total for _, total, _, _ in seen}
    assert totals == {4}, seen  # vectoradd's four test cases on the cpu
    counts = [done for done, _, _, _ in seen]
    assert counts == sorted(counts) and all(1 <= n <= 4 for n in counts), seen
    assert any(n < 4 for n in counts) or counts[-1] == 4, seen  # an intermediate state, or the final M of M
    for done, total, _, width in seen:  # the bar is the judge's count, not a guess from the clock
        assert abs(float(width.rstrip("%")) - 100 * done / total) < 0.2, seen
    shot(page, "21-submission-live-final")
    # The final page: the run's cases, the live view gone.
    assert page.locator("table.cases tbody tr.case-passed").count() == 4
    assert page.locator("#live").count() == 0
