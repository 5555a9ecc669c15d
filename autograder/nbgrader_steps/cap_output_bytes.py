"""An nbgrader step after Execute: no cell keeps more than a few kilobytes of output.

nbgrader's ``LimitOutput`` counts lines, so one huge line or a 100 MB image passes it. Here a
cell's outputs beyond ``max_bytes`` (their JSON size, in order) are replaced by one line
saying how much was dropped, so autograded notebooks, the gradebook and the feedback stay
small whatever a student's code printed.

But: error outputs are kept (cut to the limit), since scores and feedback read them.
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
    """Drop a cell's outputs past ``max_bytes``, with a line saying so."""

    max_bytes = Integer(20_000, help="output bytes kept per cell").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type != "code":
            return cell, resources
        kept, used, dropped = [], 0, 0
        for output in cell.get("outputs", []):
            size = _size(output)
            if used + size <= self.max_bytes:
                kept.append(output)
                used += size
            elif output.get("output_type") == "error":
                keep = max(self.max_bytes - used, 200)
                output["evalue"] = str(output.get("evalue", ""))[:keep]
                output["traceback"] = [output["evalue"]]
                kept.append(output)
                dropped += size - _size(output)
            else:
                dropped += size
        if dropped:
            note = (
                f"[{dropped:,} bytes of output dropped: a cell keeps at most {self.max_bytes:,}]\n"
            )
            kept.append(NotebookNode(output_type="stream", name="stdout", text=note))
        cell.outputs = kept
        return cell, resources
