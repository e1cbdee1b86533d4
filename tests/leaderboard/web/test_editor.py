"""The submit page's editor, server side: a form prefilled from one's own submission (no one else's: 404, as
absent as a missing one), sources stored with LF, the source diff and who may see it, and a syntax error's
line from the judge's pre-check marked in the source."""

from __future__ import annotations

import hashlib
import re

import testbed

from leaderboard.submissions.models import Submission
from runner.caller import execute
from runner.spec import JobSpec

SOURCE = "def custom_kernel(data):\n    A, B, C = data\n    return A + B\n"


def _mine(user, source: str, **kwargs):
    return testbed.make_submission(user, source=source, **kwargs)


def test_resubmit_prefills_problem_device_mode_and_source(as_user, alice, problems, no_limits):
    origin = _mine(alice, SOURCE + "# <b>mine</b>\n", mode="benchmark")
    response = as_user(alice).get(f"/submit/?from={origin.pk}")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'value="vectoradd" selected' in html
    assert re.search(r'<input[^>]*name="mode"[^>]*value="benchmark"[^>]*checked', html)
    assert "# &lt;b&gt;mine&lt;/b&gt;" in html  # the source, escaped, ready to edit
    assert "data-prefilled" in html  # the browser does not replace it with remembered choices


def test_resubmit_of_another_users_submission_is_absent(
    as_user, client, alice, bob, staff, problems, no_limits
):
    origin = _mine(alice, SOURCE)
    for viewer in (as_user(bob), client):  # another contestant, and a visitor not logged in
        response = viewer.get(f"/submit/?from={origin.pk}")
        assert response.status_code in (404, 302)
        assert SOURCE not in response.content.decode()
    assert as_user(bob).get(f"/submit/?from={origin.pk}").status_code == 404
    assert as_user(bob).get("/submit/?from=999999").status_code == 404  # the same answer as a missing one
    assert as_user(bob).get("/submit/?from=abc").status_code == 404
    assert as_user(staff).get(f"/submit/?from={origin.pk}").status_code == 200  # staff see every source


def test_sources_from_the_browser_are_stored_with_lf(as_user, alice, problems, no_limits):
    form = {"problem": "vectoradd", "language": "pytorch", "device_kind": "cpu", "mode": "test"}
    as_user(alice).post("/submit/", {**form, "source": SOURCE.replace("\n", "\r\n")})
    stored = Submission.objects.get(user=alice).source
    assert stored.text == SOURCE
    assert stored.sha256 == hashlib.sha256(SOURCE.encode()).hexdigest()  # the file's hash


def test_the_form_offers_templates_and_my_best(as_user, alice, judged, problems):
    best = judged(alice, score_s=1e-3)
    judged(alice, score_s=5e-3)
    html = as_user(alice).get("/submit/?problem=vectoradd").content.decode()
    assert "/submit/?problem=vectoradd&amp;template=pytorch.py" in html
    assert f"/submit/?from={best.pk}" in html and f"my best (#{best.pk})" in html


def test_diff_against_previous_best_and_an_id(as_user, alice, judged, problems):
    best = judged(alice, score_s=1e-3)
    later = judged(alice, score_s=5e-3)
    later.source.text = best.source.text.replace("return", "return  # <script>x</script>\n    return", 1)
    later.source.save()
    me = as_user(alice)
    for against in ("previous", "best", str(best.pk)):
        response = me.get(f"/submissions/{later.pk}/diff?against={against}")
        html = response.content.decode()
        assert response.status_code == 200, against
        assert f"#{best.pk}" in html
        assert '<tr class="add">' in html and "&lt;script&gt;x&lt;/script&gt;" in html  # escaped
        assert "<script>x</script>" not in html
    # The submission page links to them, and to edit and resubmit.
    page = me.get(f"/submissions/{later.pk}/").content.decode()
    assert f"/submissions/{later.pk}/diff?against=previous" in page and f"/submit/?from={later.pk}" in page
    # No previous submission: nothing to compare with.
    assert me.get(f"/submissions/{best.pk}/diff?against=previous").status_code == 404
    assert me.get(f"/submissions/{best.pk}/diff?against=nonsense").status_code == 404


def test_a_diff_needs_both_sources_visible(as_user, client, alice, bob, judged, problems):
    alices = judged(alice, score_s=1e-3)
    bobs = judged(bob, score_s=2e-3)
    # Bob sees his own source but not alice's (no deadline): neither diff is his to see.
    assert as_user(bob).get(f"/submissions/{bobs.pk}/diff?against={alices.pk}").status_code == 404
    assert as_user(bob).get(f"/submissions/{alices.pk}/diff?against={bobs.pk}").status_code == 404
    assert client.get(f"/submissions/{alices.pk}/diff?against=best").status_code == 404
    # No edit link for a viewer who may not edit.
    assert f"/submit/?from={alices.pk}" not in as_user(bob).get(f"/submissions/{alices.pk}/").content.decode()


def test_a_syntax_errors_line_is_marked_in_the_source(as_user, alice, problems, no_limits):
    source = "import torch\n\ndef custom_kernel(data:\n    return data\n"
    submission = _mine(alice, source)
    report = execute(JobSpec(problem="vectoradd", source=source, sandbox="none"))  # the judge's pre-check
    assert report.verdict == "rejected" and report.error_line == 3, report.message
    testbed.finish(testbed.claim(submission), report)
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert 'id="error-line"' in html and "error_line.js" in html
    marked = html.split('id="error-line">', 1)[1].split("</span></span>", 1)[0]
    assert "custom_kernel" in marked  # line 3 is the one marked
    assert 'href="#error-line">Line 3</a>' in html


def test_a_source_that_parses_has_no_error_line(problems):
    report = execute(JobSpec(problem="vectoradd", source="x = 1\n", sandbox="none"))
    assert report.verdict == "rejected" and report.error_line is None


def test_the_diff_numbers_old_and_new_lines():
    from leaderboard.web.editor import source_diff

    rows = source_diff("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(r.kind, r.old, r.new, r.text) for r in rows] == [
        ("hunk", None, None, "@@ -1,3 +1,4 @@"),
        ("same", 1, 1, "a"),
        ("del", 2, None, "b"),
        ("add", None, 2, "B"),
        ("same", 3, 3, "c"),
        ("add", None, 4, "d"),
    ]
    assert source_diff("same\n", "same\n") == []


# --- the starter code, templates and the language (issue 31) ------------------------------------------------


def _selected(html: str, name: str) -> str:
    select = html.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
    return re.search(r'<option value="([^"]+)"[^>]*selected', select)[1]


def test_a_fresh_form_holds_the_problems_starter_code(as_user, alice, problems):
    html = as_user(alice).get("/submit/?problem=softmax").content.decode()
    assert "torch.softmax(data, dim=-1)" in html  # templates/pytorch.py, ready to edit
    assert _selected(html, "language") == "pytorch" and 'data-origin="starter"' in html
    first = as_user(alice).get("/submit/").content.decode()  # no problem named: the first one's
    assert "def custom_kernel" in first and 'data-origin="starter"' in first


def test_a_triton_template_sets_triton(as_user, alice, problems):
    html = as_user(alice).get("/submit/?problem=vectoradd&template=triton.py").content.decode()
    assert "@triton.jit" in html and _selected(html, "language") == "triton"
    assert 'data-origin="template"' in html
    cuda = as_user(alice).get("/submit/?problem=vectoradd&template=cuda.py").content.decode()
    assert "load_inline" in cuda and _selected(cuda, "language") == "cuda"


def test_the_editor_gets_every_problems_templates_with_their_language(as_user, alice, problems):
    import json

    html = as_user(alice).get("/submit/").content.decode()
    data = json.loads(
        html.split('<script id="editor-templates" type="application/json">')[1].split("</script>")[0]
    )
    assert set(data) == set(problems)
    for name, entry in data.items():
        assert entry["starter"] == "pytorch.py", name
        languages = {t: v["language"] for t, v in entry["templates"].items()}
        assert languages == {"pytorch.py": "pytorch", "triton.py": "triton", "cuda.py": "cuda"}, name


def test_the_form_checks_the_language_as_the_command_line_reads_it(as_user, alice, problems, no_limits):
    triton = (testbed.ROOT / "problems" / "vectoradd" / "templates" / "triton.py").read_text()
    form = {"problem": "vectoradd", "device_kind": "cpu", "mode": "test", "source": triton}
    refused = as_user(alice).post("/submit/", {**form, "language": "pytorch"})
    html = refused.content.decode()
    assert refused.status_code == 400 and not Submission.objects.exists()
    assert "This source imports triton, so its language is Triton, not PyTorch: choose Triton." in html
    assert as_user(alice).post("/submit/", {**form, "language": "triton"}).status_code == 302
    assert Submission.objects.get().language == "triton"
