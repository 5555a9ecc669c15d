"""An nbgrader step after Execute: no cell keeps more than a few kilobytes of output.

nbgrader's ``LimitOutput`` counts lines, so one huge line or a 100 MB image passes it. Here a
cell's outputs beyond ``max_bytes`` (their JSON size, in order) are cut or dropped, with one
line saying how much, so autograded notebooks, the gradebook and the feedback stay
small whatever a student's code printed.

But: stream and error outputs keep their beginning (scores and feedback read errors); only
the rest is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Integer


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
