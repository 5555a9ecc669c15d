"""An nbgrader step: a student's markdown and raw cells show as text, never as HTML or script.

The Formgrader and the feedback page turn markdown cells into HTML without cleaning it (and
nbconvert's renderer keeps ``javascript:`` links), so a ``<script>`` a student typed would run
in the instructor's Jupyter page, with the instructor's rights. ``MarkupAsText`` keeps a cell
whose text is exactly that of a cell of the same type in the master or released notebook (the
lessons' prose, with its ``<details>`` and ``<kbd>``). Any other markdown cell becomes a code
block of its own text; any other raw cell becomes its text, escaped, in a ``<pre>``. Every
cell keeps only PNG and JPEG attachments whose data is base64.

But: a student's own notes lose their formatting (headings, links and formulas show as
typed), and without a master every markdown cell counts as the student's.

>>> from nbformat.v4 import new_markdown_cell
>>> cell = new_markdown_cell("Hi <script>alert(1)</script>")
>>> print(MarkupAsText().preprocess_cell(cell, {}, 0)[0].source)
```
Hi <script>alert(1)</script>
```
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Unicode

from autograder.course import ASSIGNMENT

ATTACHMENT_TYPES = ("image/png", "image/jpeg")  # pictures that cannot carry script
MASTER_FOLDERS = ("source", "release")  # the instructor's notebooks, under the course root
_TRUSTED = "markup_as_text_trusted"  # resources key: (cell type, source) pairs of the masters


def as_code_block(text: str) -> str:
    """Markdown that shows ``text`` as it is: a fence longer than any run of backticks in it,
    so nothing inside can close the block.

    >>> as_code_block("a ```` b")
    '`````\\na ```` b\\n`````'
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def as_escaped_html(text: str) -> str:
    """HTML that shows ``text`` as typed, line breaks kept.

    >>> as_escaped_html("<b>&</b>")
    '<pre>&lt;b&gt;&amp;&lt;/b&gt;</pre>'
    """
    return f"<pre>{html.escape(text)}</pre>"


def _is_base64(data: object) -> bool:
    try:
        base64.b64decode("".join(str(data).split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def plain_attachments(attachments: dict) -> dict:
    """Each attachment's PNG and JPEG data; names left with nothing are dropped.

    >>> plain_attachments({"a.svg": {"image/svg+xml": "<svg/>"}, "b.png": {"image/png": "iVBO"}})
    {'b.png': {'image/png': 'iVBO'}}
    """
    kept = {}
    for name, data in attachments.items():
        pictures = {
            mime: data[mime] for mime in ATTACHMENT_TYPES if mime in data and _is_base64(data[mime])
        }
        if pictures:
            kept[name] = pictures
    return kept


class MarkupAsText(NbGraderPreprocessor):
    """Leave the masters' markdown and raw cells; show every other one as text."""

    course_root = Unicode("", help="the course folder, which holds source/ and release/").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        resources[_TRUSTED] = self._master_cells(resources)
        try:
            return super().preprocess(nb, resources)
        finally:
            resources.pop(_TRUSTED, None)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type not in ("markdown", "raw"):
            return cell, resources
        if "attachments" in cell:
            cell["attachments"] = NotebookNode(plain_attachments(cell["attachments"]))
        if (cell.cell_type, cell.source) in resources.get(_TRUSTED, frozenset()):
            return cell, resources
        if cell.cell_type == "markdown":
            cell.source = as_code_block(cell.source)
        else:
            cell.source = as_escaped_html(cell.source)
            cell.metadata["format"] = cell.metadata["raw_mimetype"] = "text/html"
        return cell, resources

    def _master_cells(self, resources: Any) -> frozenset[tuple[str, str]]:
        notebook = resources.get("unique_key")
        assignment = resources.get("nbgrader", {}).get("assignment") or ASSIGNMENT
        found = set()
        for folder in MASTER_FOLDERS if self.course_root and notebook else ():
            path = Path(self.course_root) / folder / assignment / f"{notebook}.ipynb"
            if path.is_file():
                master = nbformat.read(path, as_version=4)
                found |= {(c.cell_type, c.source) for c in master.cells if c.cell_type != "code"}
        if not found:
            self.log.warning("no master of %s: its markdown cells are shown as text", notebook)
        return frozenset(found)
