"""nbgrader's Execute step, made to survive a kernel that dies or freezes part-way through.

Stock nbgrader abandons the whole submission when a student's kernel dies (``os._exit``, a
crash, a memory limit) or stops answering even an interrupt: every grade is left blank and the
reason is only in the log. :class:`GuardedExecute` keeps what already ran, puts an error
output naming what happened into every code cell that did not run, and lets nbgrader save the
notebook. A test cell that did not run then scores 0 like any failing test, so such a
submission never gets marks for tests that never ran, and the reason is in the notebook for
the summary and the feedback.

With ``lean`` on (``grade_class --lean``, the default of ``make autograde``), a lesson cell (a
code cell nbgrader does not track that is in the master notebook, matched by cell id or
source: ``autograder.answer_code.LessonCells``) runs only its ``import``, ``def`` and ``class``
statements: the tests need the student's functions, not the lesson's demonstrations, which can
cost seconds per student (training on a megabyte of text). A cell the student added runs
whole, since an answer may rely on it (``STEP = 1``, a type alias, a helper), exactly as
``autograder.verify`` runs it. The grade is the same whenever the test cells do not read the
lessons' variables (true of this course's notebooks); the autograded notebook then shows the
lesson cells without outputs. Without ``masters`` (the folder of master notebooks) every
untracked cell counts as a lesson cell.

A cell that loops is not this module's business: nbgrader's timeout interrupts it and the
next cells run as usual. This module does not limit memory (the grading worker sets the
limit before any kernel starts) and does not grade anything.

Use it in place of nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``; the
``Execute`` settings of ``nbgrader_config.py`` (the per-cell timeout) still apply.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Unicode

from autograder.answer_code import LessonCells, definitions_only

# The ename of the error output written into cells that could not run; the summary looks for it.
KERNEL_LOST = "KernelLost"


def _tracked(cell: NotebookNode) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade") or meta.get("solution") or meta.get("locked"))


def lost_output(reason: str) -> NotebookNode:
    """The error output a cell gets when the kernel was gone before or while it ran."""
    text = f"{reason}; this cell did not run and its tests score 0"
    return NotebookNode(
        output_type="error", ename=KERNEL_LOST, evalue=text, traceback=[f"{KERNEL_LOST}: {text}"]
    )


class GuardedExecute(Execute):
    """Execute every cell; after the kernel dies or freezes, mark the rest as not run."""

    lean = Bool(False, help="run only the definitions of lesson cells").tag(config=True)
    masters = Unicode("", help="folder of the master notebooks (source/<assignment>)").tag(
        config=True
    )

    lesson = LessonCells(None)  # every untracked cell is the lesson's until a master is read

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> Any:
        self.kernel_lost_reason: str | None = None
        self.lesson = LessonCells(self._master((resources or {}).get("unique_key")))
        return super().preprocess(nb, resources, km)

    def _master(self, notebook_name: str | None) -> NotebookNode | None:
        path = Path(self.masters) / f"{notebook_name}.ipynb"
        if not (self.lean and self.masters and notebook_name and path.is_file()):
            return None
        return nbformat.read(path, as_version=4)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type != "code":
            return cell, resources
        if self.kernel_lost_reason is not None:
            cell.outputs = [lost_output(self.kernel_lost_reason)]
            return cell, resources
        if self.lean and not _tracked(cell) and self.lesson.holds(cell):
            return self._run_definitions(cell, resources, index)
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self.kernel_lost_reason = f"kernel died while cell {index} ran"
        except CellTimeoutError:
            # nbgrader already interrupted the cell once; no answer after that means the
            # kernel ignores interrupts. Waiting on every later cell would cost a timeout
            # each, so stop it now.
            self.kernel_lost_reason = (
                f"kernel froze in cell {index} (no reply even to an interrupt)"
            )
            self._kill_kernel()
        cell.outputs.append(lost_output(self.kernel_lost_reason))
        return cell, resources

    def _run_definitions(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        source = cell.source
        definitions = definitions_only(source)
        if not definitions.strip():
            cell.outputs = []
            return cell, resources
        cell.source = definitions
        try:
            return self.preprocess_cell_guarded(cell, resources, index)
        finally:
            cell.source = source

    def preprocess_cell_guarded(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        """Run one cell as the guard does, whatever ``lean`` says."""
        lean, self.lean = self.lean, False
        try:
            return self.preprocess_cell(cell, resources, index)
        finally:
            self.lean = lean

    def _kill_kernel(self) -> None:
        if self.km is None:
            return
        try:
            run_sync(self.km.signal_kernel)(signal.SIGKILL)
        except Exception as error:  # already gone: nothing left to stop
            self.log.warning("could not kill the frozen kernel: %s", error)
