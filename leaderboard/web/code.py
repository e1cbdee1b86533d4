"""Source code on pages, highlighted by pygments on the server (static/web/pygments.css colours it)."""

from __future__ import annotations

import functools

from django.utils.safestring import SafeString, mark_safe
from pygments import highlight as _pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

# Line numbers in their own column (table), so that copying the code does not copy the numbers.
_FORMATTER = HtmlFormatter(cssclass="highlight", linenos="table", wrapcode=True)
_PLAIN = HtmlFormatter(cssclass="highlight", wrapcode=True)


@functools.lru_cache(maxsize=256)
def highlight(
    source: str, language: str = "python", *, line_numbers: bool = False, mark_line: int | None = None
) -> SafeString:
    """The source as highlighted HTML; pygments escapes the text. Cached: a problem's reference, a
    submission's source do not change. `mark_line` (1-based) is marked (class "hll"), e.g. a syntax error's."""
    lexer = get_lexer_by_name(language, stripnl=False)
    formatter = _FORMATTER if line_numbers else _PLAIN
    if mark_line:
        formatter = HtmlFormatter(
            cssclass="highlight",
            linenos="table" if line_numbers else False,
            wrapcode=True,
            hl_lines=[mark_line],
        )
    html = _pygments_highlight(source, lexer, formatter)
    if mark_line:
        # The marked line is the page's scroll target (error_line.js); pygments marks exactly one here.
        html = html.replace('<span class="hll">', '<span class="hll error-line" id="error-line">', 1)
    return mark_safe(html)


def pygments_css() -> str:
    """The stylesheet of the highlighted code (scripts write it to static/web/pygments.css)."""
    return _PLAIN.get_style_defs(".highlight")


DARK_STYLE = "github-dark"


def pygments_dark_css() -> str:
    """The highlighted code's colours in dark mode (scripts write it to static/web/pygments-dark.css): a dark
    pygments style, for a visitor who chose dark and for a browser that prefers it unless light was chosen."""
    dark = HtmlFormatter(cssclass="highlight", style=DARK_STYLE)
    chosen = dark.get_style_defs(":root[data-theme=dark] .highlight")
    preferred = dark.get_style_defs(":root:not([data-theme=light]) .highlight")
    # Only the rules under .highlight: the rest (pre, line numbers) are pygments.css's, the same in both.
    keep = lambda css: "\n".join(line for line in css.splitlines() if ".highlight" in line)  # noqa: E731
    indented = "\n".join("  " + line for line in keep(preferred).splitlines())
    return (
        f"/* pygments {DARK_STYLE} style: leaderboard.web.code.pygments_dark_css() writes it */\n"
        f"{keep(chosen)}\n@media (prefers-color-scheme: dark) {{\n{indented}\n}}\n"
    )
