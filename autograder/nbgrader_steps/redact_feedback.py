"""An nbgrader feedback step: students see each failed check's message, not how checks work.

``RedactHiddenTests`` (registered for ``generate_feedback`` in ``nbgrader_config.py``) removes
the hidden tests' lines, cuts tracebacks to the message in hidden-test cells and drops frames
from ``autograder/``, ``solutions/`` and the checks' modules of ``bpe_course`` elsewhere,
and turns a timeout's bare interrupt into one sentence naming the limit.

But: it changes only the feedback copy, never the autograded notebook or the scores.

>>> from nbformat.v4 import new_code_cell, new_notebook, new_output
>>> cell = new_code_cell("# visible\\n### BEGIN HIDDEN TESTS\\ncheck()\\n### END HIDDEN TESTS")
>>> cell.metadata["nbgrader"] = {"grade": True, "grade_id": "t", "points": 1}
>>> cell.outputs = [new_output("error", ename="AssertionError", evalue="wrong on 'ab'",
...                            traceback=["Traceback", "File /x/autograder/run.py", "..."])]
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

from bpe_course.selfcheck import BEGIN_HIDDEN, TIMED_OUT, visible_source

# Where the instructors' code and the checks' own code live; frames from there are not the
# student's business (the checks that the lessons share with the self-check are in bpe_course).
CHECKERS = "examples|feedback|mistakes|outcomes|variants"
PRIVATE_PATHS = re.compile(
    rf"[/\\](autograder|solutions)[/\\]|[/\\]bpe_course[/\\]({CHECKERS})\.py"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIME_LIMIT = "TimeLimit"


def time_limit_message(seconds: object) -> str:
    """What a student reads for a cell that ran out of time.

    >>> time_limit_message(10).split(", ")[0]
    'this cell ran longer than the 10 s limit'
    """
    limit = f"the {seconds} s limit" if seconds else "the time limit"
    return (
        f"this cell ran longer than {limit}, so its tests score 0: look for a loop that never ends"
    )


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
        cell.outputs = self._explain_timeouts(cell.get("outputs", []), hidden)
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error" or output.get("ename") == TIME_LIMIT:
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

    def _time_limit(self) -> object:
        for section in ("Execute", "ExecutePreprocessor"):
            seconds = self.config.get(section, {}).get("timeout")
            if seconds:
                return seconds
        return None

    def _explain_timeouts(self, outputs: list, hidden: bool) -> list:
        """Replace the empty timeout errors by one message; the student's frames stay,
        except in hidden-test cells, whose frames would show the hidden lines."""
        kept, explained = [], False
        for output in outputs:
            bare = output.get("output_type") == "error" and not output.get("evalue", "").strip()
            if not bare or output.get("ename") not in TIMED_OUT:
                kept.append(output)
                continue
            if explained:
                continue  # the interrupt and nbgrader's own timeout error: one message
            explained = True
            message = time_limit_message(self._time_limit())
            frames = [
                frame
                for frame in ([] if hidden else output.get("traceback", []))
                if not is_private_frame(frame)
                and not ANSI.sub("", frame).strip().startswith(TIMED_OUT)
                and "Traceback (most recent call last)" not in frame  # names the interrupt
            ]
            output["ename"], output["evalue"] = TIME_LIMIT, message
            output["traceback"] = [*frames, f"Time limit: {message}"]
            kept.append(output)
        return kept
