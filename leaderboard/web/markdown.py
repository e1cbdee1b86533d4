"""Problem statements in Markdown, rendered safely with markdown-it-py (CommonMark and pipe tables).

Raw HTML is off, so a statement cannot put markup or script on a page; markdown-it's own link check keeps
javascript:, vbscript:, file: and data: targets out. Headings move one level down (the page's title is
the h1), Python fences are highlighted, other fences are plain escaped code, and links get rel="nofollow".
TeX between `$...$` (inline) and `$$...$$` (display) becomes MathML through leaderboard.web.maths, which
rebuilds it from an allowlist; a `$` followed by a space or a digit-only span ($5) stays a dollar sign.
"""

from __future__ import annotations

import functools
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from leaderboard.web.code import highlight
from leaderboard.web.maths import render_tex

# $...$: no space just inside either dollar, not $5 or $ 5 (prices), no newline-less run over a paragraph.
_INLINE_TEX = re.compile(r"\$(?=[^\s$])((?:\\.|[^$\\])+?)(?<=[^\s\\])\$(?!\d)")
_DISPLAY_TEX = re.compile(r"\$\$((?:\\.|[^$\\])+?)\$\$", re.S)


def _math(state, silent: bool) -> bool:
    """The inline rule that finds `$$...$$` and `$...$` (before markdown-it reads `_` or `*` inside)."""
    if state.src[state.pos] != "$":
        return False
    display = _DISPLAY_TEX.match(state.src, state.pos, state.posMax)
    found = display or _INLINE_TEX.match(state.src, state.pos, state.posMax)
    if not found or (not display and re.fullmatch(r"[\d.,]+", found.group(1))):
        return False
    if not silent:
        token = state.push("math_display" if display else "math_inline", "math", 0)
        token.content = found.group(1).strip()
    state.pos = found.end()
    return True


def _math_inline(renderer, tokens, idx, options, env) -> str:
    return render_tex(tokens[idx].content, display=False)


def _math_display(renderer, tokens, idx, options, env) -> str:
    return render_tex(tokens[idx].content, display=True)


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
_md.inline.ruler.before("escape", "math", _math)
_md.add_render_rule("math_inline", _math_inline)
_md.add_render_rule("math_display", _math_display)


@functools.lru_cache(maxsize=64)
def render_markdown(text: str) -> SafeString:
    """The HTML of a markdown text (cached: statements change only with their problem)."""
    return mark_safe(_md.render(text.replace("\r\n", "\n")))  # markdown-it escapes; raw HTML is off


def render_statement(text: str) -> SafeString:
    """A problem's statement without its own title: the page's h1 already names the problem, and the
    statement's first `# ` heading would repeat it just below."""
    first, _, rest = text.lstrip().partition("\n")
    return render_markdown(rest if first.startswith("# ") else text)
