"""Write the solution notebooks students get after the deadline: the lessons, answers in.

``python -m autograder solutions`` (``make solutions``) writes
``release/bpe-solutions/<lesson>.ipynb`` for every lesson: the released student notebook, cell
for cell, with each answer cell holding the master's solution (its ``BEGIN``/``END SOLUTION``
lines dropped) and without the hidden-test cells, under a first cell saying the notebook is for
reading, not for submission (nbgrader's Assignment List shows a Submit button for every
fetched assignment; ``owned_collect`` refuses what comes of it). ``release/bpe-solutions`` is where
``nbgrader release_assignment bpe-solutions`` looks, so a hub's students can fetch it.

nbgrader's ``GenerateSolution`` converter writes them from the masters with the course's
release steps (``GenerateAssignment.preprocessors`` of ``nbgrader_config.py``, ``ClearHiddenTests``
included, less the gradebook's ``SaveCells``) between ``TakeAnswers``, which notes the answers
and the hidden-test cells first, and ``ForReading``, which puts the answers back last; nothing
is executed. So every cell but the answers is the released one, metadata and checksums too.

>>> solution_code("def f(x):\\n    ### BEGIN SOLUTION\\n    return x\\n    ### END SOLUTION")
'def f(x):\\n    return x'

But: it needs the assignment released first (``make notebooks``: the gradebook and
``release/bpe``); it refuses to write a notebook that would still hold a hidden test, a
solution marker or an import of the instructors' code.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode
from nbgrader.converters import GenerateAssignment, GenerateSolution
from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor, SaveCells
from traitlets.config import Config

from autograder.course import ASSIGNMENT, SOLUTIONS, course_config
from autograder.release.bundle import leak
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.selfcheck import BEGIN_HIDDEN

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
HIDDEN_MARKERS = (BEGIN_HIDDEN, "hidden_tests")
BANNER_ID = "bpe-solutions-not-for-submission"
BANNER = f"""**Worked solutions, for reading: not for submission.**

This is `{SOLUTIONS}`, the course's answers, released after the deadline. Nothing here is
graded: the Assignments list shows a *Submit* button for it, as it does for every assignment
you fetch, but a submission of `{SOLUTIONS}` is never collected. Your own work for the course
is the `{ASSIGNMENT}` assignment."""


def solution_code(source: str) -> str:
    """A master's answer cell with the solution region's marker lines dropped."""
    return "\n".join(line for line in source.split("\n") if line.strip() not in (BEGIN, END)).strip(
        "\n"
    )


def is_hidden_test(master_cell: nbformat.NotebookNode) -> bool:
    """A test cell whose master holds hidden tests: left out whole."""
    return BEGIN_HIDDEN in master_cell.source


ANSWERS = "bpe_answers"  # resources: {cell id: answer}, and the ids of hidden-test cells
HIDDEN = "bpe_hidden_tests"


class TakeAnswers(NbGraderPreprocessor):
    """First of the steps: note each answer (solution marker lines dropped) and each cell
    that holds hidden tests, by cell id, before the release steps clear them."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        resources[ANSWERS] = {
            cell.id: solution_code(cell.source)
            for cell in nb.cells
            if nbgrader_meta(cell).get("solution") and cell.cell_type == "code"
        }
        resources[HIDDEN] = {cell.id for cell in nb.cells if is_hidden_test(cell)}
        return nb, resources


class ForReading(NbGraderPreprocessor):
    """Last of the steps: the answers back in, the hidden-test cells out, the banner first."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        answers, hidden = resources[ANSWERS], resources[HIDDEN]
        kept = [cell for cell in nb.cells if cell.id not in hidden]
        for cell in kept:
            cell.source = answers.get(cell.id, cell.source)
        if set(answers) - {cell.id for cell in kept}:
            raise ValueError(f"answer cells of {resources.get('unique_key')} were lost")
        banner = nbformat.v4.new_markdown_cell(BANNER, id=BANNER_ID)  # a fixed id: same bytes
        nb.cells = [banner, *kept]
        return nb, resources


def solution_steps(config: Config) -> list[Any]:
    """The course's release steps between ``TakeAnswers`` and ``ForReading``, without
    ``SaveCells`` (the solutions are not an assignment of the gradebook)."""
    release = config.GenerateAssignment.get("preprocessors") or (
        GenerateAssignment.class_traits()["preprocessors"].default()
    )
    return [TakeAnswers, *(step for step in release if step is not SaveCells), ForReading]


def solution_notebooks(course_root: Path, out: Path) -> dict[str, nbformat.NotebookNode]:
    """Run ``GenerateSolution`` on the masters into ``out``; the notebooks it wrote."""
    config = course_config(course_root)
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.solution_directory = str(out)  # absolute: the root is not joined
    config.GenerateSolution.preprocessors = solution_steps(config)
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = ASSIGNMENT
    converter = GenerateSolution(coursedir=coursedir, config=config)
    converter.log.setLevel("WARNING")
    converter.start()
    written = sorted((out / ASSIGNMENT).glob("*.ipynb"))
    return {path.name: nbformat.read(path, as_version=4) for path in written}


def problem(notebook: nbformat.NotebookNode, name: str) -> str | None:
    """What in a solution notebook must not reach students, or None."""
    text = nbformat.writes(notebook)
    found = leak(name, text.encode())
    if found:
        return found
    for marker in HIDDEN_MARKERS:
        if marker in text:
            return f"contains {marker!r}"
    return None


def write_solutions(course_root: Path) -> list[Path]:
    """Write ``release/bpe-solutions/*.ipynb`` (replacing it); returns the notebooks written."""
    masters = sorted((course_root / "source" / ASSIGNMENT).glob("*.ipynb"))
    released = course_root / "release" / ASSIGNMENT
    missing = [m.name for m in masters if not (released / m.name).is_file()]
    if not masters or missing:
        raise FileNotFoundError(
            f"no released copy of {missing or 'any lesson'} in {released}: "
            "run `make notebooks` first"
        )
    with tempfile.TemporaryDirectory() as scratch:
        try:
            notebooks = solution_notebooks(course_root, Path(scratch))
        except NbGraderException as error:  # nbgrader has logged why
            why = f"nbgrader's GenerateSolution failed; is {ASSIGNMENT} in the gradebook?"
            raise ValueError(f"{why} Run `make notebooks` first") from error
    if sorted(notebooks) != [m.name for m in masters]:
        raise ValueError(f"nbgrader wrote {sorted(notebooks)}, not every lesson")
    for name, notebook in notebooks.items():
        found = problem(notebook, name)
        if found:
            raise ValueError(f"the solution notebook {name} {found}: nothing was written")
    out = course_root / "release" / SOLUTIONS
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name, notebook in notebooks.items():
        nbformat.write(notebook, out / name)
    return [out / name for name in notebooks]


def run(course_root: Path) -> int:
    """Write the solution notebooks and say where; 1, and a line saying why, when refused."""
    try:
        written = write_solutions(course_root.resolve())
    except (FileNotFoundError, ValueError) as error:
        print(f"solutions not written: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} solution notebooks in {written[0].parent}")
    return 0
