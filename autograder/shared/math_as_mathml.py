"""Formulas of the feedback page as MathML, written when the page is made: no script draws them.

``markdown_to_html`` is nbconvert's ``markdown2html`` filter with its math hooks replaced
(``FeedbackExporter`` uses it): each ``$…$``,
``$$…$$`` and ``\\begin{…}…\\end{…}`` of a markdown cell goes through ``latex2mathml`` and
comes out as a ``<math>`` element, which Chromium and Firefox draw natively and screen readers
read; its TeX source is kept as ``alttext`` for those that do not read MathML.

>>> to_mathml("n \\\\cdot c")
'<math display="inline" alttext="n \\\\cdot c"><mrow><mi>n</mi><mo>·</mo><mi>c</mi></mrow></math>'

Markdown cells can be a student's, so latex2mathml's output is not trusted: it writes
``\\text{…}`` back unescaped and turns ``\\href``, ``\\style`` and ``\\color`` into attributes.
The tree it builds is written out again here, every text escaped, with MathML's presentation
elements and layout attributes only; anything else, or TeX it cannot read, is shown as the
escaped TeX between its dollars, as nbconvert left it.

But: it draws only TeX that latex2mathml knows (the lessons' formulas are plain algebra);
formulas in outputs (``text/latex``) stay as the output step left them.
"""

from __future__ import annotations

import html
import re
from typing import Any
from xml.etree.ElementTree import Element

from latex2mathml.converter import convert_to_element
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

# MathML's presentation elements (MathML Core and the MathML 3 ones latex2mathml writes).
ELEMENTS = frozenset(
    {
        *("math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot"),
        *("mstyle", "merror", "mpadded", "mphantom", "menclose", "msub", "msup", "msubsup"),
        *("munder", "mover", "munderover", "mmultiscripts", "mprescripts", "none"),
        *("mtable", "mtr", "mtd"),
    }
)
# Layout attributes; no href, style, colour or event handler.
ATTRIBUTES = frozenset(
    {
        *("display", "alttext", "mathvariant", "stretchy", "fence", "separator", "largeop"),
        *("movablelimits", "accent", "accentunder", "lspace", "rspace", "minsize", "maxsize"),
        *("symmetric", "form", "width", "height", "depth", "voffset", "linethickness"),
        *("displaystyle", "scriptlevel", "columnalign", "columnlines", "columnspacing"),
        *("rowalign", "rowlines", "rowspacing", "frame", "notation", "mathsize", "linebreak"),
    }
)
# latex2mathml puts characters into texts as entities of its own making (``&#x000B7;``).
ENTITY = re.compile(r"&#x([0-9A-Fa-f]{1,6});")


class NotMathMLError(ValueError):
    """latex2mathml made something that is not presentation MathML."""


def _character(match: re.Match) -> str:
    code = int(match.group(1), 16)
    # A surrogate or a number past Unicode would make the page unwritable: kept as written.
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group(0)


def _text(text: str | None) -> str:
    return html.escape(ENTITY.sub(_character, text or ""), quote=False)


def _write(element: Element, out: list[str]) -> None:
    tag = element.tag
    if tag not in ELEMENTS:
        raise NotMathMLError(tag)
    out.append(f"<{tag}")
    for name, value in element.attrib.items():
        if name in ATTRIBUTES:
            out.append(f' {name}="{html.escape(value, quote=True)}"')
    out.append(">" + _text(element.text))
    for child in element:
        _write(child, out)
        out.append(_text(child.tail))
    out.append(f"</{tag}>")


def to_mathml(tex: str, display: str = "inline") -> str:
    """``tex`` as a ``<math>`` element; raises for TeX latex2mathml cannot read or that makes
    something other than presentation MathML."""
    math = convert_to_element(tex, display=display)
    # In HTML, <math> is MathML by its name; the TeX is what a reader without MathML gets.
    math.attrib = {"display": display, "alttext": tex.strip()}
    out: list[str] = []
    _write(math, out)
    return "".join(out)


def math_or_tex(tex: str, display: str, shown: str) -> str:
    """MathML for ``tex``, or ``shown`` (the escaped TeX as nbconvert writes it) when it fails."""
    try:
        return to_mathml(tex, display)
    except Exception:  # latex2mathml raises many kinds for TeX it cannot read
        return shown


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, writing formulas as MathML instead of TeX for MathJax."""

    def inline_math(self, body: str) -> str:
        return math_or_tex(body, "inline", super().inline_math(body))

    def block_math(self, body: str) -> str:
        return math_or_tex(body, "block", super().block_math(body))

    def latex_environment(self, name: str, body: str) -> str:
        tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return math_or_tex(tex, "block", super().latex_environment(name, body))


def markdown_to_html(exporter: HTMLExporter, context: Any, source: str) -> str:
    """A markdown cell as HTML, as ``HTMLExporter.markdown2html`` draws it, formulas in MathML."""
    cell = context.get("cell", {})
    renderer = MathMLRenderer(
        escape=False,
        attachments=cell.get("attachments", {}),
        embed_images=exporter.embed_images,
        path=context.get("resources", {}).get("metadata", {}).get("path", ""),
        anchor_link_text=exporter.anchor_link_text,
        exclude_anchor_links=exporter.exclude_anchor_links,
        **exporter.lexer_options,
    )
    return MarkdownWithMath(renderer=renderer).render(source)
