"""A small, safe markdown renderer for problem statements.

It knows what statements use: headings, paragraphs, fenced code (Python highlighted), inline code, bold,
italics, links, pipe tables, lists, block quotes and rules. Every piece of text is escaped and raw HTML is
never passed through, so a statement cannot put script on a page; links keep only http(s), mailto and
relative targets.
"""

from __future__ import annotations

import functools
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from leaderboard.web.code import highlight

_FENCE = re.compile(r"^(```|~~~)\s*([\w+-]*)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_DIVIDER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_SAFE_URL = re.compile(r"^(https?://|mailto:|/|#|\./|\.\./|[\w.-]+(/|$|#))", re.IGNORECASE)


def _inline(text: str) -> str:
    """One line's inline markup, escaped: code spans first (nothing inside them is markup)."""
    out = []
    for i, part in enumerate(re.split(r"(`+[^`]*?`+)", text)):
        if i % 2:
            out.append(f"<code>{escape(part.strip('`'))}</code>")
            continue
        s = escape(part)
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", _link, s)
        s = re.sub(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"<em>\1</em>", s)
        out.append(s)
    return "".join(out)


def _link(match: re.Match) -> str:
    label, url = match.group(1), match.group(2)
    # The URL is already escaped (&amp; and quotes), so it is safe inside the attribute.
    if not _SAFE_URL.match(url) or url.lower().startswith(("javascript:", "data:", "vbscript:")):
        return label
    return f'<a href="{url}" rel="nofollow">{label}</a>'


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)]


@functools.lru_cache(maxsize=64)
def render_markdown(text: str) -> SafeString:
    """The HTML of a markdown text (cached: statements change only with their problem)."""
    lines = text.replace("\r\n", "\n").split("\n")
    html: list[str] = []
    paragraph: list[str] = []
    i = 0

    def flush() -> None:
        if paragraph:
            html.append("<p>" + " ".join(_inline(p.strip()) for p in paragraph) + "</p>")
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence
            code = "\n".join(body)
            if fence.group(2).lower() in ("python", "py"):
                html.append(highlight(code, "python"))
            else:
                html.append(f'<pre class="code">{escape(code)}</pre>')
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            html.append(f"<h{level + 1}>{_inline(heading.group(2))}</h{level + 1}>")  # h1 is the page's
            i += 1
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        if _RULE.match(line):
            flush()
            html.append("<hr>")
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_DIVIDER.match(lines[i + 1]):
            flush()
            head = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_cells(lines[i]))
                i += 1
            parts = ["<table><thead><tr>", *(f"<th>{_inline(c)}</th>" for c in head), "</tr></thead><tbody>"]
            for row in rows:
                parts.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>")
            parts.append("</tbody></table>")
            html.append("".join(parts))
            continue
        for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
            if pattern.match(line):
                flush()
                items: list[str] = []
                while i < len(lines) and lines[i].strip():
                    m = pattern.match(lines[i])
                    if m:
                        items.append(m.group(1))
                    elif items:  # a continuation line of the item above
                        items[-1] += " " + lines[i].strip()
                    i += 1
                html.append(f"<{tag}>" + "".join(f"<li>{_inline(x)}</li>" for x in items) + f"</{tag}>")
                break
        else:
            if line.startswith(">"):
                flush()
                quoted = []
                while i < len(lines) and lines[i].startswith(">"):
                    quoted.append(lines[i][1:].strip())
                    i += 1
                html.append(f"<blockquote><p>{_inline(' '.join(quoted))}</p></blockquote>")
                continue
            paragraph.append(line)
            i += 1
    flush()
    return mark_safe("\n".join(html))
