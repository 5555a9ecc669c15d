"""nbgrader steps after Execute: outputs capped and plain, a student's markup shown as text.

They run in this order (``nbgrader_config.py``):

- ``CapOutputBytes``: no cell keeps more than a few kilobytes of output. nbgrader's
  ``LimitOutput`` counts lines, so one huge line or a 100 MB image passes it; here a cell's
  outputs beyond ``max_bytes`` (their JSON size, in order) are cut or dropped, with one line
  saying how much, so autograded notebooks, the gradebook and the feedback stay small
  whatever a student's code printed. Stream and error outputs keep their beginning (scores
  and feedback read errors).
- ``PlainOutputs``: rich outputs keep only ``text/plain``, PNG and JPEG, never HTML or
  script, which the Formgrader would render in the instructor's own Jupyter page (where it
  could call the server's API as the instructor) and the feedback page in the student's.
- ``MarkupAsText``: a student's markdown and raw cells show as text. The Formgrader and the
  feedback page turn markdown cells into HTML without cleaning it (and nbconvert's renderer
  keeps ``javascript:`` links), so a ``<script>`` a student typed would run in the
  instructor's Jupyter page, with the instructor's rights. A cell whose text is exactly that
  of a cell of the same type in the master or released notebook (the lessons' prose, with its
  ``<details>`` and ``<kbd>``) is kept; any other markdown cell becomes a code block of its
  own text, any other raw cell its text, escaped, in a ``<pre>``. Every cell keeps only PNG
  and JPEG attachments whose data is base64.

But: a widget or an interactive plot in an autograded notebook shows as its text form; a
student's own notes lose their formatting (headings, links and formulas show as typed), and
without a master every markdown cell counts as the student's.

>>> from nbformat.v4 import new_markdown_cell, new_raw_cell
>>> cell = new_markdown_cell("Hi <script>alert(1)</script>")
>>> print(MarkupAsText().preprocess_cell(cell, {}, 0)[0].source)
```
Hi <script>alert(1)</script>
```
>>> MarkupAsText().preprocess_cell(new_raw_cell("<b>&</b>"), {}, 0)[0].source
'<pre>&lt;b&gt;&amp;&lt;/b&gt;</pre>'
>>> from nbformat.v4 import new_code_cell, new_output
>>> cell = new_code_cell("show()")
>>> cell.outputs = [new_output("display_data", data={"text/html": "<script>x</script>",
...                                                  "text/plain": "<HTML object>"})]
>>> dict(PlainOutputs().preprocess_cell(cell, {}, 0)[0].outputs[0].data)
{'text/plain': '<HTML object>'}
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Integer, Unicode

from autograder.course import ASSIGNMENT


def _size(output: NotebookNode) -> int:
    return len(json.dumps(output, default=str))


class CapOutputBytes(NbGraderPreprocessor):
    """Cut or drop a cell's outputs past ``max_bytes``, with a line saying so.

    >>> from nbformat.v4 import new_code_cell, new_output
    >>> cell = new_code_cell("print('x' * 50_000)")
    >>> cell.outputs = [new_output("stream", name="stdout", text="x" * 50_000)]
    >>> cell, _ = CapOutputBytes(max_bytes=1000).preprocess_cell(cell, {}, 0)
    >>> [len(o.text) for o in cell.outputs], cell.outputs[1].text.split(":")[0]
    ([502, 61], '[49,492 bytes of output dropped')
    """

    max_bytes = Integer(20_000, help="output bytes kept per cell").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type != "code":
            return cell, resources
        kept, used, dropped = [], 0, 0
        for output in cell.get("outputs", []):
            size = _size(output)
            room = self.max_bytes - used
            if size <= room:
                kept.append(output)
                used += size
                continue
            if output.get("output_type") in ("stream", "error"):  # keep the start of the text
                cut = _cut(output, max(room, 500))
                kept.append(cut)
                used += _size(cut)
                dropped += size - _size(cut)
            else:
                dropped += size
        if dropped > 0:
            note = (
                f"[{dropped:,} bytes of output dropped: a cell keeps at most {self.max_bytes:,}]\n"
            )
            kept.append(NotebookNode(output_type="stream", name="stdout", text=note))
        cell.outputs = kept
        return cell, resources


def _cut(output: NotebookNode, room: int) -> NotebookNode:
    """A copy of a stream or error output whose text fits in about ``room`` bytes."""
    cut = NotebookNode(output)
    if output.get("output_type") == "stream":
        cut["text"] = str(output.get("text", ""))[: room // 2] + "…\n"
    else:
        cut["evalue"] = str(output.get("evalue", ""))[: room // 2]
        cut["traceback"] = [cut["evalue"]]
    return cut


SAFE = ("text/plain", "image/png", "image/jpeg")


class PlainOutputs(NbGraderPreprocessor):
    """Drop every kind of rich output but plain text and raster images."""

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if output.get("output_type") in ("display_data", "execute_result"):
                data = output.get("data", {})
                kept = {mime: data[mime] for mime in SAFE if mime in data}
                output["data"] = NotebookNode(kept or {"text/plain": "[rich output removed]"})
                output.get("metadata", {}).clear()
        return cell, resources


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
            cell.source = f"<pre>{html.escape(cell.source)}</pre>"  # as typed, line breaks kept
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
