"""Lesson 4 is paced: its exercise comes early, and what is extra follows its check cell.

Reads the master notebook only (no kernel), so it runs in well under a second. It checks that
the exercise's answer cell sits in the first half of the cells, that the words up to the
"Check this notebook" heading stay within budget, that a "Going further" heading comes after
the check cell, that the graded cells are exactly as they were, and that the grading
explanation is left to lesson 1.

But: it does not run the lesson nor judge its prose; tests/test_notebooks.py and
tests/test_lesson_claims.py run it and check what it prints.
"""

from __future__ import annotations

import hashlib
import json

import nbformat
import pytest

from tests.conftest import ROOT

LESSON = ROOT / "source" / "bpe" / "04_making_it_fast.ipynb"
WORD_BUDGET = 3_000
CHECK_HEADING = "## Check this notebook"
GOING_FURTHER = "## Going further"
# grade_id -> fingerprint of (cell type, source, nbgrader metadata), taken before lesson 4 was
# reordered. Grading and fairness across students depend on these cells staying byte-identical.
GRADED = {
    "merge_and_update": "05d7716dc2d4c845",
    "hints_merge_and_update": "3fa006a53b710b3c",
    "test_merge_and_update_examples": "ffd2ef412805129f",
    "test_merge_and_update_hidden_core": "4ff45b045a09434a",
    "test_merge_and_update_hidden_random": "9d9fb53656178192",
}
# The exercise's description may be reworded, but its nbgrader metadata may not change.
ABOUT = "about_merge_and_update"
ABOUT_METADATA = {
    "grade": False,
    "grade_id": ABOUT,
    "locked": True,
    "schema_version": 3,
    "solution": False,
}


def fingerprint(cell: nbformat.NotebookNode) -> str:
    """The first 16 hex digits of a hash of what grading reads from a cell."""
    fields = [cell.cell_type, cell.source, dict(cell.metadata["nbgrader"])]
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def words_up_to_check(cells: list[nbformat.NotebookNode]) -> int:
    """Words of every cell's source, markdown and code alike, up to and including the cell
    that holds the check heading; a word is a run of characters between whitespace.

    >>> words_up_to_check([nbformat.v4.new_markdown_cell("# One two"),
    ...                    nbformat.v4.new_markdown_cell("## Check this notebook"),
    ...                    nbformat.v4.new_code_cell("print(3)")])
    7
    """
    total = 0
    for cell in cells:
        total += len(cell.source.split())
        if CHECK_HEADING in cell.source:
            return total
    raise AssertionError(f"no cell holds {CHECK_HEADING!r}")


@pytest.fixture(scope="module")
def cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSON, as_version=4).cells


def index_of(cells: list[nbformat.NotebookNode], grade_id: str) -> int:
    return next(
        i
        for i, cell in enumerate(cells)
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def check_index(cells: list[nbformat.NotebookNode]) -> int:
    return next(i for i, cell in enumerate(cells) if CHECK_HEADING in cell.source)


def test_the_exercise_is_in_the_first_half_of_the_cells(cells: list) -> None:
    where = index_of(cells, "merge_and_update")
    assert where < len(cells) / 2, f"the answer cell is cell {where} of {len(cells)}"


def test_the_lesson_up_to_its_check_fits_the_word_budget(cells: list) -> None:
    assert words_up_to_check(cells) <= WORD_BUDGET


def test_going_further_comes_after_the_check_cell_and_holds_the_extras(cells: list) -> None:
    check = check_index(cells)
    assert "selfcheck import check" in cells[check + 1].source, "the check cell follows its heading"
    further = [i for i, cell in enumerate(cells) if GOING_FURTHER in cell.source]
    assert further and further[0] > check + 1, f"{GOING_FURTHER!r} must follow the check cell"
    extras = {"l04-hf-race", "l04-fast-path", "l04-14", "l04-12"}  # race, fast path, torch, parity
    before = {cell.id for cell in cells[: further[0]]}
    assert not extras & before, f"extras before {GOING_FURTHER!r}: {sorted(extras & before)}"


def test_the_graded_cells_are_unchanged(cells: list) -> None:
    graded = {
        cell.metadata["nbgrader"]["grade_id"]: fingerprint(cell)
        for cell in cells
        if "nbgrader" in cell.metadata and cell.metadata["nbgrader"]["grade_id"] != ABOUT
    }
    assert graded == GRADED
    about = cells[index_of(cells, ABOUT)]
    assert dict(about.metadata["nbgrader"]) == ABOUT_METADATA


def test_the_grading_explanation_is_one_sentence_that_points_to_lesson_1(cells: list) -> None:
    about = cells[index_of(cells, ABOUT)].source
    assert "fresh process" not in about, "the full explanation belongs to lesson 1 alone"
    assert "lesson 1" in about.split("graded", 1)[-1].split("\n\n", 1)[0]
