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
