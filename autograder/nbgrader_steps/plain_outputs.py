"""An nbgrader step after Execute: outputs keep only text and pictures, never HTML or script.

A student's cell can display HTML or JavaScript, which the Formgrader would render in the
instructor's own Jupyter page (where it could call the server's API as the instructor) and
the feedback page in the student's. ``PlainOutputs`` keeps only ``text/plain``, PNG and JPEG
of every rich output.

But: a widget or an interactive plot in an autograded notebook shows as its text form.

>>> from nbformat.v4 import new_code_cell, new_output
>>> cell = new_code_cell("show()")
>>> cell.outputs = [new_output("display_data", data={"text/html": "<script>x</script>",
...                                                  "text/plain": "<HTML object>"})]
>>> dict(PlainOutputs().preprocess_cell(cell, {}, 0)[0].outputs[0].data)
{'text/plain': '<HTML object>'}
"""

from __future__ import annotations

from typing import Any

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor

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
