"""Which code cells of a course notebook are the lesson's, and what of them a lean run keeps.

A lean run (grading, and the self-check) runs a lesson's own cells for their ``import``,
``def`` and ``class`` statements only, and every other cell whole:

- ``definitions_only`` cuts a lesson cell down to those statements;
- ``statement_sources`` gives a cell's top-level statements of chosen kinds;
- ``LessonMarks`` tells a lesson cell from one a student added, by cell id or by source,
  from the ids and source hashes of the lesson's cells: the grader takes them from the
  master notebook, the self-check from the marks (``MARK``) the release put on each
  lesson code cell;
- ``is_tracked`` names the cells nbgrader tracks (answers, tests, locked cells), which
  always run whole; ``nbgrader_meta`` is a cell's nbgrader metadata, the one reading of it
  that the course and the grader share.

>>> definitions_only("import re\\nprint('slow demo')\\ndef f():\\n    return 1\\nf()")
'import re\\n\\ndef f():\\n    return 1'
>>> marks = LessonMarks({"l-1"}, {source_sha256("x = 1")})
>>> marks.holds({"id": "l-1", "source": "x = 2"}), marks.holds({"id": "new", "source": "x = 1 "})
(True, True)

But: it only parses and hashes; it never runs code, and it imports neither nbformat nor any
grading code (students receive it).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

# What a lesson cell keeps in a lean run.
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The key of a released lesson cell's metadata: {"lesson": {"id": ..., "sha256": ...}}.
MARK = "bpe_course"

Cell = Mapping[str, Any]  # a notebook cell, as nbformat or json reads it


def parse(source: str) -> tuple[ast.Module, list[str]] | None:
    """``source`` parsed with IPython's ``%magic`` and ``!shell`` lines blanked, and its lines
    so blanked; None when it is not Python."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines)), lines
    except SyntaxError:
        return None


def statement_sources(source: str, keep: tuple[type, ...] | None) -> list[str]:
    """The text of each top-level statement of ``source`` of a kind in ``keep`` (with its
    decorators); with ``keep`` None, every statement but bare expressions. Source that does
    not parse comes back whole, to fail where it runs with Python's own message."""
    parsed = parse(source)
    if parsed is None:
        return [source]
    tree, lines = parsed
    out = []
    for node in tree.body:
        if keep is not None and not isinstance(node, keep):
            continue
        if keep is None and isinstance(node, ast.Expr):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        out.append("\n".join(lines[first - 1 : node.end_lineno]))
    return out


def definitions_only(source: str) -> str:
    """Only the ``import``, ``def`` and ``class`` statements of ``source`` (a lesson cell);
    nothing when it does not parse."""
    if parse(source) is None:
        return ""
    return "\n\n".join(statement_sources(source, DEFINITIONS))


def source_sha256(source: str | list[str]) -> str:
    """The SHA-256 of a cell's source without its surrounding whitespace, in hex (the grader
    compares lesson sources stripped, so a trailing newline does not make a cell new). A
    source read as raw JSON, a list of lines, is joined first."""
    text = "".join(source) if isinstance(source, list) else source
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def nbgrader_meta(cell: Cell) -> Mapping[str, Any]:
    """A cell's nbgrader metadata (``grade``, ``solution``, ``locked``, ``grade_id``,
    ``points``), empty for a cell nbgrader does not know.

    >>> nbgrader_meta({"metadata": {"nbgrader": {"grade_id": "t1"}}}), nbgrader_meta({})
    ({'grade_id': 't1'}, {})
    """
    meta: Mapping[str, Any] = cell.get("metadata", {}).get("nbgrader", {})
    return meta


def is_tracked(cell: Cell) -> bool:
    """True for the cells nbgrader tracks: graded, solution or locked."""
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade") or meta.get("solution") or meta.get("locked"))


def lesson_mark(cell: Cell) -> dict[str, str] | None:
    """The mark the release put on a lesson code cell (its id and source hash), if any."""
    mark = cell.get("metadata", {}).get(MARK, {})
    lesson = mark.get("lesson") if isinstance(mark, Mapping) else None
    if isinstance(lesson, Mapping) and isinstance(lesson.get("sha256"), str):
        return {"id": str(lesson.get("id") or ""), "sha256": lesson["sha256"]}
    return None


class LessonMarks:
    """The ids and source hashes of a lesson's cells, to tell its cells from a student's.

    A cell is the lesson's when its id is one of the lesson's or, failing that (a notebook
    saved without ids, a cell copied or moved), when its stripped source is one of the
    lesson's: so a lesson cell the student edited in place is still the lesson's.
    ``known`` False (no lesson to compare with) makes every cell the lesson's.
    """

    def __init__(self, ids: Iterable[str], hashes: Iterable[str], known: bool = True) -> None:
        self.ids = frozenset(filter(None, ids))
        self.hashes = frozenset(hashes)
        self.known = known

    @classmethod
    def of_release(cls, cells: Iterable[Cell]) -> LessonMarks | None:
        """The marks a released notebook's cells carry, or None when none carries one (a
        copy released before the marks)."""
        marks = [mark for cell in cells if (mark := lesson_mark(cell))]
        if not marks:
            return None
        return cls((m["id"] for m in marks), (m["sha256"] for m in marks))

    def holds(self, cell: Cell) -> bool:
        """True when ``cell`` is one of the lesson's (possibly edited), not the student's."""
        if not self.known:
            return True
        return cell.get("id") in self.ids or source_sha256(cell.get("source", "")) in self.hashes

    def trims(self, cell: Cell) -> bool:
        """True for a cell a lean run cuts to its definitions: a code cell of the lesson's
        that nbgrader does not track."""
        return cell.get("cell_type") == "code" and not is_tracked(cell) and self.holds(cell)
