"""The lesson cells in nbgrader's steps: marked at release, run lean at grading.

- ``MarkLessonCells`` (last of ``GenerateAssignment.preprocessors``) puts on every code cell
  that nbgrader does not track (the lesson's demonstrations and helpers) its id and the hash
  of its source as released::

      cell.metadata["bpe_course"] = {"lesson": {"id": "<cell id>", "sha256": "<hex>"}}

  Students have no master notebook, so the self-check (``bpe_course.selfcheck``) tells the
  lesson's cells from theirs by these marks.
- ``TrimLessonCells`` (before Execute) cuts each lesson cell (untracked by nbgrader and found
  in the master notebook, see ``cells.LessonCells``) down to its ``import``, ``def`` and
  ``class`` statements; ``RestoreLessonCells`` (after) puts the lesson's text back. A cell the
  student added runs whole, since an answer may rely on it. ``lean_steps`` puts the two
  around Execute in a list of autograde steps.

But: the lessons' demonstrations do not run at grading, so their outputs are missing from the
autograded copy; the grade is the same only while test cells use nothing but the student's
functions. The marks change no cell's source or nbgrader metadata, and grading never reads
them (the masters say what is the lesson's there); they stay in the autograded copy, since
``ClearMetadataPreprocessor`` in the autograde list is registered without being enabled
(nbconvert's default), so it clears nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Unicode

from autograder.cells import LessonCells
from bpe_course.lesson_cells import MARK, definitions_only, is_tracked, source_sha256


class MarkLessonCells(NbGraderPreprocessor):
    """Record each untracked code cell's id and source hash in its metadata (``MARK``)."""

    def preprocess_cell(
        self, cell: NotebookNode, resources: Any, index: int
    ) -> tuple[NotebookNode, Any]:
        if cell.cell_type == "code" and not is_tracked(cell):
            lesson = {"id": cell.get("id", ""), "sha256": source_sha256(cell.source)}
            cell.metadata[MARK] = {"lesson": lesson}
        else:
            cell.metadata.pop(MARK, None)  # a mark copied onto a tracked cell in the master
        return cell, resources


_STASH = "lean_lesson_sources"  # resources key: cell index -> the lesson's own text


class TrimLessonCells(NbGraderPreprocessor):
    """Keep only the definitions of each lesson cell; stash the full text in ``resources``."""

    masters = Unicode("", help="folder of the master notebooks (source/<assignment>)").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        name = resources.get("unique_key")
        path = Path(self.masters) / f"{name}.ipynb"
        found = self.masters and name and path.is_file()
        lesson = LessonCells(nbformat.read(path, as_version=4) if found else None)
        stash = resources.setdefault(_STASH, {})
        for index, cell in enumerate(nb.cells):
            if lesson.trims(cell):  # the rule the self-check applies too
                stash[index] = cell.source
                cell.source = definitions_only(cell.source)
        return nb, resources


class RestoreLessonCells(NbGraderPreprocessor):
    """Put back the text ``TrimLessonCells`` cut; a cell left with nothing shows no output."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        for index, source in resources.pop(_STASH, {}).items():
            cell = nb.cells[index]
            if not cell.source.strip():
                cell.outputs = []
            cell.source = source
        return nb, resources


def lean_steps(steps: list[Any]) -> list[Any]:
    """Autograde's ``steps`` with the lesson cells trimmed around the one that executes.

    >>> [getattr(step, "__name__", step) for step in lean_steps(["Setup", "x.GuardedExecute"])]
    ['Setup', 'TrimLessonCells', 'x.GuardedExecute', 'RestoreLessonCells']
    """
    at = [str(step).rsplit(".", 1)[-1] for step in steps].index("GuardedExecute")
    return [*steps[:at], TrimLessonCells, steps[at], RestoreLessonCells, *steps[at + 1 :]]
