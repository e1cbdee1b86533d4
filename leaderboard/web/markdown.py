"""Problem statements in Markdown, rendered safely with markdown-it-py (CommonMark and pipe tables).

Raw HTML is off, so a statement cannot put markup or script on a page; markdown-it's own link check keeps
javascript:, vbscript:, file: and data: targets out. Headings move one level down (the page's title is
the h1), Python fences are highlighted, other fences are plain escaped code, and links get rel="nofollow".
"""

from __future__ import annotations

import functools

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from leaderboard.web.code import highlight


def _fence(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
    code = token.content.rstrip("\n")
    if language in ("python", "py"):
        return highlight(code, "python") + "\n"
    return f'<pre class="code">{escape(code)}</pre>\n'


def _heading_open(renderer, tokens, idx, options, env) -> str:
    level = min(int(tokens[idx].tag[1]) + 1, 6)
    return f"<h{level}>"


def _heading_close(renderer, tokens, idx, options, env) -> str:
    level = min(int(tokens[idx].tag[1]) + 1, 6)
    return f"</h{level}>\n"


def _link_open(renderer, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("rel", "nofollow")
    return renderer.renderToken(tokens, idx, options, env)


_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
_md.add_render_rule("fence", _fence)
_md.add_render_rule("code_block", _fence)
_md.add_render_rule("heading_open", _heading_open)
_md.add_render_rule("heading_close", _heading_close)
_md.add_render_rule("link_open", _link_open)


@functools.lru_cache(maxsize=64)
def render_markdown(text: str) -> SafeString:
    """The HTML of a markdown text (cached: statements change only with their problem)."""
    return mark_safe(_md.render(text.replace("\r\n", "\n")))  # markdown-it escapes; raw HTML is off
