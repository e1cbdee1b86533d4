"""A new competitor's round trip in a real browser, on a real platform (tests/leaderboard/web/browser.py): they start from
a template in the editor, submit in leaderboard mode, see the rank they reached, edit and resubmit from the
submission's page, diff the two, profile the kernel and download a table as CSV, and their choices are remembered on the next form. Screenshots under
test-artifacts/browser/.
"""

from __future__ import annotations

import re

from tests.leaderboard.web.browser import MARKS, TEMPLATE, shot, sign_up, wait_until_final

pytestmark = MARKS


def _editor_value(page) -> str:
    return page.evaluate("window.kernelboardEditor.getValue()")


def _submit_from_editor(page) -> str:
    page.click("form.submit button[type=submit]")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def test_editor_rank_resubmit_and_diff(platform, browser_page):
    page, base = browser_page, platform.url
    from playwright.sync_api import expect

    sign_up(page, base, "dana")

    # The editor: line numbers, highlighting, no soft wrap; a template is a start.
    page.goto(base + "/submit/?problem=vectoradd")
    page.click("p.starts >> text=template pytorch.py")
    page.wait_for_function(
        "window.kernelboardEditor && kernelboardEditor.getValue().includes('custom_kernel')"
    )
    editor = page.locator(".CodeMirror.code-editor")
    expect(editor).to_be_visible()
    assert "CodeMirror-wrap" not in (editor.get_attribute("class") or ""), "code must not soft-wrap"
    assert page.locator(".CodeMirror-linenumber").count() > 3
    assert page.locator(".CodeMirror .cm-keyword").count() > 0, "Python is highlighted"

    # Tab indents with four spaces; what is typed is what is submitted.
    page.evaluate("kernelboardEditor.focus(); kernelboardEditor.setCursor(kernelboardEditor.lineCount(), 0)")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.type("# first try")
    assert _editor_value(page).endswith("\n    # first try")
    page.select_option("#id_device_kind", "cpu")
    page.check("input[name=mode][value=leaderboard]")
    shot(page, "30-editor")
    first = _submit_from_editor(page)
    assert wait_until_final(page, platform, 170) == "passed", platform.logs()
    expect(page.locator("#source")).to_contain_text("# first try")
    # The rank reached, on a first entry.
    expect(page.locator("#standing .rank-reached")).to_contain_text("Rank 1 of 1")
    expect(page.locator("#standing")).to_contain_text("Your first ranked entry here")
    shot(page, "31-rank-reached")

    # Edit and resubmit: the editor holds this submission's source.
    page.click("text=Edit and resubmit")
    page.wait_for_function("window.kernelboardEditor && kernelboardEditor.getValue().includes('# first try')")
    page.evaluate(
        "kernelboardEditor.setValue(kernelboardEditor.getValue().replace('# first try', '# second try'))"
    )
    assert page.locator("input[name=mode][value=leaderboard]").is_checked()
    second = _submit_from_editor(page)
    assert second != first
    assert wait_until_final(page, platform, 170) == "passed", platform.logs()
    expect(page.locator("#standing")).to_contain_text(f"Against your best before this one (#{first}")
    shot(page, "32-resubmitted")

    # The diff against the previous submission: one line changed.
    page.click("text=Diff against previous")
    expect(page.locator("h1")).to_contain_text(f"#{second} against #{first}")
    expect(page.locator("#diff tr.del")).to_have_count(1)
    expect(page.locator("#diff tr.del")).to_contain_text("# first try")
    expect(page.locator("#diff tr.add")).to_have_count(1)
    expect(page.locator("#diff tr.add")).to_contain_text("# second try")
    shot(page, "33-diff")

    # A profile of the same kernel: each benchmark case's operator table, and its CSV.
    page.goto(f"{base}/submit/?from={second}")
    page.wait_for_function(
        "window.kernelboardEditor && kernelboardEditor.getValue().includes('# second try')"
    )
    page.check("input[name=mode][value=profile]")
    _submit_from_editor(page)
    assert wait_until_final(page, platform, 170) == "passed", platform.logs()
    expect(page.locator("#profiles figure.profile").first).to_contain_text("aten::add")
    with page.expect_download() as download:
        page.locator("#profiles figure.profile").first.locator("text=CSV").click()
    csv = download.value.path().read_text()
    assert csv.splitlines()[0].startswith("operator,calls,"), csv[:200]
    assert "aten::add" in csv
    shot(page, "34-profile")

    # The problem page: the rankings' tab of this device kind marks my row; the statement's maths is drawn.
    page.goto(base + "/problems/vectoradd/")
    expect(page.locator('table.ranking[data-device="cpu"] tbody tr.mine')).to_have_count(1)
    expect(page.locator('table.ranking[data-device="cpu"] tbody tr.mine')).to_contain_text("dana")
    page.goto(base + "/problems/trimul/")
    page.click("nav[aria-label=Problem] >> text=Statement")
    expect(page.locator("#statement math[display=block]").first).to_be_visible()
    shot(page, "35-statement-maths")

    # A fresh form remembers the problem, device kind and mode chosen last.
    page.goto(base + "/submit/")
    assert page.locator("#id_problem").input_value() == "vectoradd"
    assert page.locator("#id_device_kind").input_value() == "cpu"
    assert page.locator("input[name=mode][value=profile]").is_checked()


def test_a_prefilled_editor_and_a_template_switch_that_asks_first(platform, browser_page):
    """The starter code is in a fresh editor; a template replaces typed code only when the user says so, and
    sets its language; typed code is kept as a draft per user and problem, and comes back."""
    page, base = browser_page, platform.url
    from playwright.sync_api import expect

    sign_up(page, base, "erin")
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog):
        asked.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    page.on("dialog", on_dialog)

    def holds(text: str) -> None:
        page.wait_for_function(
            "t => window.kernelboardEditor && kernelboardEditor.getValue().includes(t)", arg=text
        )

    page.goto(base + "/submit/?problem=vectoradd")
    holds("torch.add(A, B, out=C)")  # the starter, templates/pytorch.py
    assert page.locator("#id_language").input_value() == "pytorch"
    shot(page, "36-editor-prefilled")

    # Over the untouched starter, a template is taken at once, and the language follows it.
    page.click("p.starts >> text=template triton.py")
    holds("@triton.jit")
    assert page.locator("#id_language").input_value() == "triton" and asked == []

    # Over typed code, it asks first; "no" keeps the code.
    page.evaluate("kernelboardEditor.replaceRange('# my own idea\\n', {line: 0, ch: 0})")
    page.click("p.starts >> text=template pytorch.py")
    assert asked and "Replace the code in the editor with the template pytorch.py?" in asked[-1]
    assert "# my own idea" in _editor_value(page) and "@triton.jit" in _editor_value(page)
    assert page.locator("#id_language").input_value() == "triton"

    # The typed code is a draft of this user and problem: a fresh form puts it back, with its language;
    # another problem has its own starter, and going back brings the draft again.
    page.goto(base + "/submit/?problem=vectoradd")
    holds("# my own idea")
    assert page.locator("#id_language").input_value() == "triton"
    expect(page.locator("#draft-note")).to_contain_text("Your draft for vectoradd is back")
    page.select_option("#id_problem", "softmax")
    holds("torch.softmax(data, dim=-1)")
    expect(page.locator("p.starts a[data-template='cuda.py']")).to_have_count(1)
    page.select_option("#id_problem", "vectoradd")
    holds("# my own idea")

    # A form started from a template offers the draft back rather than losing it.
    page.goto(base + "/submit/?problem=vectoradd&template=cuda.py")
    holds("load_inline")
    assert page.locator("#id_language").input_value() == "cuda"
    page.click("#draft-back")
    holds("# my own idea")

    # "Yes" replaces the code with the template, and the draft is forgotten.
    answer["accept"] = True
    count = len(asked)
    page.click("p.starts >> text=template pytorch.py")
    holds("torch.add(A, B, out=C)")
    assert len(asked) == count + 1 and "# my own idea" not in _editor_value(page)
    assert page.locator("#id_language").input_value() == "pytorch"
    page.goto(base + "/submit/?problem=vectoradd")
    holds("torch.add(A, B, out=C)")
    assert "# my own idea" not in _editor_value(page)

    # A file chosen for upload is shown in the editor, so that what is sent is what is seen.
    page.set_input_files("#id_upload", str(TEMPLATE.parent / "triton.py"))
    holds("@triton.jit")
