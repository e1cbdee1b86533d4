"""TeX maths in statements, rendered on the server as MathML (the browser draws it; no script, no font).

latex2mathml converts `$...$` (inline) and `$$...$$` (display). Its output is not trusted: it copies
\\text{...} and unknown commands through as they are, markup included. So the MathML is parsed and built
again from an allowlist of presentation-MathML elements and attributes, with every text escaped; anything
else is dropped with what it holds. A formula that does not convert is shown as escaped code.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

from latex2mathml.converter import convert

MAX_TEX_CHARS = 2000  # a formula longer than this is shown as code (a statement's maths is short)

ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover mfrac msqrt mroot "
    "mstyle mpadded mphantom menclose mtable mtr mtd mlabeledtr semantics annotation".split()
)
ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator accent accentunder movablelimits largeop symmetric "
    "lspace rspace minsize maxsize width height depth linethickness displaystyle scriptlevel "
    "columnalign rowalign columnspacing rowspacing columnlines rowlines frame notation form "
    "encoding".split()
)
# Attribute values are words, numbers and lengths: nothing that could be a URL or a script.
_SAFE_VALUE = re.compile(r"^[\w .%#+-]{0,64}$")
_MATHML_NS = "http://www.w3.org/1998/Math/MathML"


class _Rebuild(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []  # the allowed elements open now
        self.dropped = 0  # depth inside a disallowed element (its content goes too)

    def handle_starttag(self, tag, attrs):
        if self.dropped or tag not in ELEMENTS:
            self.dropped += 1  # an unclosed one (<img>) drops the rest: too much, never too little
            return
        kept = [
            f' {name}="{escape(value, quote=True)}"'
            for name, value in attrs
            if name in ATTRIBUTES and value is not None and _SAFE_VALUE.match(value)
        ]
        if tag == "math":
            kept.insert(0, f' xmlns="{_MATHML_NS}"')
        self.out.append(f"<{tag}{''.join(kept)}>")
        self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if self.dropped:
            self.dropped -= 1
            return
        if self.open and self.open[-1] == tag:
            self.out.append(f"</{self.open.pop()}>")

    def handle_data(self, data):
        if not self.dropped and self.open:
            self.out.append(escape(data, quote=False))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{tag}>" for tag in reversed(self.open))


def sanitize_mathml(markup: str) -> str:
    """`markup` rebuilt from the allowed MathML elements and attributes, every text escaped."""
    parser = _Rebuild()
    parser.feed(markup)
    return parser.result()


def render_tex(tex: str, *, display: bool) -> str:
    """The MathML of a TeX formula, safe to put on a page; escaped code when it does not convert."""
    if len(tex) <= MAX_TEX_CHARS:
        try:
            mathml = convert(tex, display="block" if display else "inline")
        except Exception:  # latex2mathml raises many kinds on bad TeX; the statement still shows
            mathml = ""
        if mathml:
            return sanitize_mathml(mathml)
    return f'<code class="tex">{escape(tex)}</code>'
