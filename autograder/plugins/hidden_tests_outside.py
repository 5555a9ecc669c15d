"""Two nbgrader steps around Execute: hidden tests are judged outside the student's kernel.

``SetAsideHiddenTests`` (before Execute) replaces each hidden-test cell by one line that fails,
so the kernel, where the student's code runs, never runs a hidden test nor sees a case, and
a cell nobody judges scores 0. ``JudgeHiddenTests`` (after Execute, in the grading process)
puts the cells back, judges the notebook's answers in the sandbox (``judge_answers``), and
writes each test cell's outputs from that verdict (no error: full points; the failure message:
0), which is what nbgrader scores and what the feedback shows. A visible examples cell is
judged outside too where its calls can be re-run alone. One JSON line per test cell goes to
``record``.

But: the lessons' cells, the answer cells and the visible tests still run in the kernel, for
the notebook the student reads; nothing the kernel printed decides a hidden test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_output
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Float, Unicode

from autograder.course import term_secret
from autograder.plugins.feedback import TIME_LIMIT, time_limit_message
from autograder.plugins.guarded_execute import KERNEL_LOST, cell_timeout
from autograder.sandbox.bwrap import GradingSandbox
from autograder.sandbox.judge_answers import (
    Exercise,
    Findings,
    exercises_of,
    judge_notebook,
)
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.selfcheck import BEGIN_HIDDEN

_STASH = "hidden_test_sources"  # resources key: cell index -> the hidden test cell's text
PLACEHOLDER = 'raise AssertionError("this hidden test is judged outside the notebook")'
TIMED_OUT = "did not finish within"  # the sandbox's words for a step past its time limit


def _grade_id(cell: NotebookNode) -> str:
    return str(nbgrader_meta(cell).get("grade_id", ""))


def _is_graded(cell: NotebookNode) -> bool:
    return bool(nbgrader_meta(cell).get("grade")) and bool(_grade_id(cell))


def _printed(cell: NotebookNode) -> list[NotebookNode]:
    """What a visible test cell printed to stdout: the only kernel output a test cell keeps."""
    outputs = cell.get("outputs", [])
    return [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout"]


class SetAsideHiddenTests(NbGraderPreprocessor):
    """Before Execute: each cell holding hidden tests becomes one failing line."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        stash = resources.setdefault(_STASH, {})
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and _is_graded(cell) and BEGIN_HIDDEN in cell.source:
                stash[index] = cell.source
                cell.source = PLACEHOLDER
        return nb, resources


class JudgeHiddenTests(NbGraderPreprocessor):
    """After Execute: put the hidden tests back and give every test cell the judged outputs."""

    course_root = Unicode("", help="the course folder: its masters and term secret").tag(
        config=True
    )
    record = Unicode("", help="a JSON-lines file to append each test cell's verdict to").tag(
        config=True
    )
    seconds = Float(0.0, help="time limit per group of cases (default: Execute.timeout)").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        for index, source in resources.pop(_STASH, {}).items():
            nb.cells[index].source = source
        root = Path(self.course_root)
        mine = [e for e in exercises_of(root) if e.notebook == resources.get("unique_key")]
        # This term's cases, the same for every student and at every regrade: the student's
        # id never reaches the judge, so the same answer earns the same score.
        secret = term_secret(root)
        seconds = self._time_limit()
        sandbox = GradingSandbox(parent=self)
        memory_gb, unconfined = sandbox.judge_memory_gb, sandbox.unconfined
        broken = ""
        try:
            verdicts, findings = judge_notebook(nb, mine, secret, seconds, memory_gb, unconfined)
        except Exception as error:  # the judge's own failure: 0 for now, and a person looks
            # The student reads the cell's verdict; the error's words (paths of this machine,
            # the sandbox's own messages) are for the person only.
            said = f"the judge could not run ({type(error).__name__}"
            verdicts = {
                e.name: dict.fromkeys(e.cells, f"{said}); a person will look") for e in mine
            }
            broken = f"{said}: {error})"[:300]
            findings = Findings()
        cells = {_grade_id(cell): cell for cell in nb.cells if _is_graded(cell)}
        lines = []
        for exercise in mine:
            found = self._apply(exercise, verdicts.get(exercise.name, {}), cells)
            alone = findings.alone.get(exercise.name, "")
            for line in found:
                line["note"] = self._note(exercise.name, findings) if line is found[0] else ""
                line["needs_person"] = broken or self._for_person(exercise.name, alone, line)
            lines += found
        self._write(resources, lines)
        return nb, resources

    def _apply(self, exercise: Exercise, verdicts: dict, cells: dict) -> list[dict]:
        out = []
        for grade_id, points in exercise.cells.items():
            cell = cells.get(grade_id)
            if cell is None:  # a deleted test cell: nbgrader leaves it to a person
                continue
            verdict = verdicts.get(grade_id)
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            lost = [o for o in errors if o.get("ename") == KERNEL_LOST]
            hidden = BEGIN_HIDDEN in cell.source
            kernel = None if hidden else (0.0 if errors else points)
            # nbgrader scores a cell by its first error or execute_result: whatever the kernel
            # put there (a student can make it print anything) is replaced, the verdict first.
            printed = [] if hidden else _printed(cell)
            judged: float | None
            if lost:  # the notebook stopped before this test: it scores 0, as in nbgrader
                cell.outputs = [lost[0], *printed]
                judged, applied = 0.0, False
                why = "did not run: the kernel was lost before this cell"
            elif not hidden and verdict is None:
                cell.outputs = [*errors, *printed]
                judged, applied, why = kernel, False, "the kernel's verdict stands"
            else:
                if verdict:  # the kernel's own errors read better than ours, where there are some
                    printed[:0] = errors if (errors and not hidden) else [self._failure(verdict)]
                cell.outputs = printed
                judged, applied, why = (0.0 if verdict else points), True, verdict or ""
            out.append(
                {
                    "notebook": exercise.notebook,
                    "cell": grade_id,
                    "points": points,
                    "nbgrader": kernel,
                    "verified": judged,
                    "applied": applied,
                    "why": " ".join(why.split())[:240],
                }
            )
        return out

    def _time_limit(self) -> float:
        """The cell's time limit, so a hidden test gets what a cell gets."""
        return self.seconds or cell_timeout(self.config)

    def _failure(self, message: str) -> NotebookNode:
        if TIMED_OUT in message:
            text = time_limit_message(f"{self._time_limit():g}")
            return new_output("error", ename=TIME_LIMIT, evalue=text, traceback=[text])
        trace = [f"AssertionError: {message}"]
        return new_output("error", ename="AssertionError", evalue=message, traceback=trace)

    @staticmethod
    def _for_person(name: str, alone: str, line: dict) -> str:
        """An answer whose visible examples pass in the kernel but which cannot run alone
        (NameError, ImportError) may lean on a lesson's variable honestly: a person looks."""
        kernel, judged = line["nbgrader"], line["verified"]
        if not (alone and kernel is not None and judged is not None and kernel > judged):
            return ""
        return (
            f"{name} cannot run outside the student's kernel ({' '.join(alone.split())[:120]}); "
            f"the kernel gave {kernel:g}, the judged {judged:g} stands until a person checks"
        )

    @staticmethod
    def _note(name: str, findings: Any) -> str:
        uses = findings.engine.get(name)
        if not uses:
            return ""
        return (
            f"{name} refers to the course's demonstration engine ({', '.join(uses)}), "
            "which earns nothing"
        )

    def _write(self, resources: Any, lines: list[dict]) -> None:
        if not self.record:
            return
        student = resources.get("nbgrader", {}).get("student", "")
        with open(self.record, "a") as out:
            for line in lines:
                out.write(json.dumps({"student": student, **line}) + "\n")
