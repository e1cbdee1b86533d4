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
def highlight(source: str, language: str = "python", *, line_numbers: bool = False) -> SafeString:
    """The source as highlighted HTML; pygments escapes the text. Cached: a problem's reference, a
    submission's source do not change."""
    lexer = get_lexer_by_name(language, stripnl=False)
    return mark_safe(_pygments_highlight(source, lexer, _FORMATTER if line_numbers else _PLAIN))


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
