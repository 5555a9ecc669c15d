"""Write the solution notebooks students get after the deadline: the lessons, answers in.

``python -m autograder solutions`` (``make solutions``) writes
``release/bpe-solutions/<lesson>.ipynb`` for every lesson: the released student notebook, cell
for cell, with each answer cell holding the master's solution (its ``BEGIN``/``END SOLUTION``
lines dropped) and without the hidden-test cells, under a first cell saying the notebook is for
reading, not for submission (nbgrader's Assignment List shows a Submit button for every
fetched assignment; ``owned_collect`` refuses what comes of it). ``release/bpe-solutions`` is where
``nbgrader release_assignment bpe-solutions`` looks, so a hub's students can fetch it.

>>> solution_code("def f(x):\\n    ### BEGIN SOLUTION\\n    return x\\n    ### END SOLUTION")
'def f(x):\\n    return x'

But: it starts from the released copy, never from the master's other cells, so nothing but
the answers comes from the master; it refuses to write a notebook that would still hold a
hidden test, a solution marker or an import of the instructors' code.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat

from autograder.course import ASSIGNMENT, SOLUTIONS
from autograder.release.bundle import leak

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
HIDDEN_MARKERS = ("BEGIN HIDDEN TESTS", "hidden_tests")
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


def _nbgrader(cell: nbformat.NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_hidden_test(master_cell: nbformat.NotebookNode) -> bool:
    """A test cell whose master holds hidden tests: left out whole."""
    return "BEGIN HIDDEN TESTS" in master_cell.source


def solution_notebook(master: Path, released: Path) -> nbformat.NotebookNode:
    """The released notebook with the master's answers in and the hidden-test cells out."""
    answers = {
        cell.id: solution_code(cell.source)
        for cell in nbformat.read(master, as_version=4).cells
        if _nbgrader(cell).get("solution") and cell.cell_type == "code"
    }
    hidden = {cell.id for cell in nbformat.read(master, as_version=4).cells if is_hidden_test(cell)}
    notebook = nbformat.read(released, as_version=4)
    kept = []
    for cell in notebook.cells:
        if cell.id in hidden:
            continue
        if cell.id in answers:
            cell.source = answers[cell.id]
        kept.append(cell)
    if set(answers) - {cell.id for cell in kept}:
        raise ValueError(
            f"{released} lacks answer cells of {master.name}: run `make notebooks` first"
        )
    banner = nbformat.v4.new_markdown_cell(BANNER, id=BANNER_ID)  # a fixed id: same bytes
    notebook.cells = [banner, *kept]
    return notebook


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
    notebooks = {m.name: solution_notebook(m, released / m.name) for m in masters}
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
