"""The statement renderer (markdown-it-py): what statements use, and nothing that could put script on a
page."""

import re

from leaderboard.web.markdown import render_markdown


def test_statements_markup():
    html = render_markdown(
        "# Title\n\nSome *emphasis*, **strong** and `code <b>`.\n\n"
        "| a | b |\n| --- | --- |\n| 1 | `x` |\n\n- one\n- two\n\n1. first\n\n```python\nx = 1\n```\n\n"
        "```\nplain <text>\n```\n\n> quoted\n\n---\n[docs](https://example.org/a?b=1&c=2)"
    )
    html = re.sub(r">\s+<", "><", html)  # markdown-it puts block tags on lines of their own
    assert "<h2>Title</h2>" in html
    assert "<em>emphasis</em>" in html and "<strong>strong</strong>" in html
    assert "<code>code &lt;b&gt;</code>" in html
    assert (
        "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><code>x</code></td></tr>"
        in html
    )
    assert "<ul><li>one</li><li>two</li></ul>" in html and "<ol><li>first</li></ol>" in html
    assert 'class="highlight"' in html  # python fences are highlighted
    assert '<pre class="code">plain &lt;text&gt;</pre>' in html
    assert "<blockquote><p>quoted</p></blockquote>" in html and "<hr />" in html
    assert '<a href="https://example.org/a?b=1&amp;c=2" rel="nofollow">docs</a>' in html


def test_raw_html_and_script_links_are_never_passed_through():
    html = render_markdown(
        "<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](data:text/html,hi) <img src=x onerror=alert(1)>"
        '\n\n[z](" onmouseover="alert(1))'
    )
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html and 'href="data' not in html
    assert 'onmouseover="' not in html


def test_the_real_statements_render(problems):
    from leaderboard.problems.models import Problem

    for problem in Problem.objects.select_related("current_version"):
        html = render_markdown(problem.current_version.statement)
        assert "<script" not in html
    trimul = render_markdown(Problem.objects.get(name="trimul").current_version.statement)
    assert "<table>" in trimul and "<h3>What to compute</h3>" in trimul
    # Its maths is TeX, drawn as MathML: every formula converts (none falls back to code).
    assert trimul.count("<math") >= 10 and "<code>$" not in trimul and "\\mathrm" not in trimul


def test_the_statement_leaves_out_its_own_title(client, problems):
    page = client.get("/problems/trimul/?tab=statement").content.decode()
    assert page.count("the outgoing Triangle Multiplicative Update") == 2, "the <title> and the h1 only"
    assert "<h3>What to compute</h3>" in page


def test_headings_move_down_a_level_and_stop_at_h6():
    html = render_markdown("# one\n\n###### six")
    assert "<h2>one</h2>" in html and "<h6>six</h6>" in html
