"""Mark each lesson code cell of a released notebook, so the self-check can run it lean.

``MarkLessonCells`` (last of ``GenerateAssignment.preprocessors``) puts on every code cell
that nbgrader does not track (the lesson's demonstrations and helpers) its id and the hash
of its source as released::

    cell.metadata["bpe_course"] = {"lesson": {"id": "<cell id>", "sha256": "<hex>"}}

Lean grading tells the lesson's cells from a student's by the master notebook
(``autograder.shared.cells.LessonCells``); students have no master, so the self-check
(``bpe_course.selfcheck``) reads the same ids and hashes from these marks instead.

But: it changes no cell's source or nbgrader metadata, and grading never reads the marks
(the masters say what is the lesson's there). They stay in the autograded copy:
``ClearMetadataPreprocessor`` in the autograde list is registered without being enabled
(nbconvert's default), so it clears nothing.
"""

from __future__ import annotations

from typing import Any

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors.base import NbGraderPreprocessor

from bpe_course.lesson_cells import MARK, is_tracked, source_sha256


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
