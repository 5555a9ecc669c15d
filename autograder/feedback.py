"""Redact feedback: students see each failed check's message, not how the checks work.

nbgrader's feedback is the autograded notebook as HTML, so by default it shows the source of
the hidden tests and full tracebacks that walk through ``autograder/``. ``RedactHiddenTests``
runs in ``nbgrader generate_feedback`` (registered in ``nbgrader_config.py``) and, per cell:

- in a graded cell that holds hidden tests, it removes the lines between ``BEGIN HIDDEN
  TESTS`` and ``END HIDDEN TESTS`` and shortens every error to ``Name: message``;
- in any other cell, it drops traceback frames that come from ``autograder/`` or
  ``solutions/``, keeping the student's own frames and the final message.

It changes only the feedback copy, never the autograded notebook or the scores.

>>> from nbformat.v4 import new_code_cell, new_notebook, new_output
>>> cell = new_code_cell("# visible\\n### BEGIN HIDDEN TESTS\\ncheck()\\n### END HIDDEN TESTS")
>>> cell.metadata["nbgrader"] = {"grade": True, "grade_id": "t", "points": 1}
>>> cell.outputs = [new_output("error", ename="AssertionError", evalue="wrong on 'ab'",
...                            traceback=["Traceback", "File /x/autograder/checks.py", "..."])]
>>> nb, _ = RedactHiddenTests().preprocess(new_notebook(cells=[cell]), {})
>>> nb.cells[0].source
'# visible'
>>> nb.cells[0].outputs[0].traceback
["AssertionError: wrong on 'ab'"]
"""

from __future__ import annotations

import re

from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode

from bpe_course.selfcheck import BEGIN_HIDDEN, visible_source

# Where the instructors' code lives; frames from there are not the student's business.
PRIVATE_PATHS = re.compile(r"[/\\](autograder|solutions)[/\\]")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def is_private_frame(frame: str) -> bool:
    return bool(PRIVATE_PATHS.search(ANSI.sub("", frame)))


class RedactHiddenTests(Preprocessor):
    """Keeps failure messages in feedback; removes hidden test source and checker frames."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        # nbgrader registers feedback preprocessors without enabling them; a disabled one
        # is skipped without a word, and the hidden tests would be shown.
        self.enabled = True

    def preprocess_cell(
        self, cell: NotebookNode, resources: dict, index: int
    ) -> tuple[NotebookNode, dict]:
        if cell.cell_type != "code":
            return cell, resources
        hidden = BEGIN_HIDDEN in cell.source
        if hidden:
            cell.source = visible_source(cell.source).rstrip("\n")
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error":
                continue
            if hidden:
                output["traceback"] = [
                    f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                ]
            else:
                output["traceback"] = [
                    frame for frame in output.get("traceback", []) if not is_private_frame(frame)
                ]
        return cell, resources
