"""A class of 16 hands in the same notebooks: through ``make autograde``'s grading (grade_class,
two Dask workers, lean), every student gets the same score on every test cell and reads the
same verdict.

The notebooks are the two wrong answers measured in such a class, where the cases were once
drawn per student: ``merge_pair`` comparing joined text (1 of 3 points for some students, 2 of
3 for others) and ``merge_and_update`` updating the pair between two joins twice (0 or 2 of
5). Only notebooks 01 and 04 are handed in, to keep the run short.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from autograder import cli
from course_fixtures.catalogue import CORRECT, WRONG

pytestmark = pytest.mark.nbgrader

STUDENTS = [f"u{i:02d}" for i in range(16)]
NB1, NB4 = "01_bpe_by_hand.ipynb", "04_making_it_fast.ipynb"
ANSWERS = {
    "pair_counts": next(iter(CORRECT["pair_counts"].values())),
    "merge_pair": WRONG["merge_pair"]["symbols compared by their joined text"],
    "merge_and_update": WRONG["merge_and_update"]["a pair between two joins updated twice"],
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    root = make_scratch_course(tmp_path_factory.mktemp("same"))
    for student in STUDENTS:
        write_submission(root, student, ANSWERS, [NB1, NB4])
    command = ["--root", str(root), "--jobs", "2", "--lean", "--no-progress"]
    assert cli.main(["grade", *command]) == 0
    return root


def _scores(root: Path) -> dict[str, dict[str, float]]:
    """Each student's automatic score of every graded test cell, by cell."""
    with sqlite3.connect(root / "gradebook.db") as db:
        rows = db.execute(
            "SELECT sa.student_id, c.name, g.auto_score FROM grade g"
            " JOIN base_cell c ON g.cell_id = c.id"
            " JOIN submitted_notebook sn ON g.notebook_id = sn.id"
            " JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
        ).fetchall()
    found: dict[str, dict[str, float]] = {}
    for student, cell, score in rows:
        found.setdefault(student, {})[cell] = score
    return found


def test_sixteen_students_with_the_same_answers_get_the_same_scores(graded: Path) -> None:
    scores = _scores(graded)
    assert sorted(scores) == STUDENTS
    first = scores[STUDENTS[0]]
    assert first["test_merge_pair_hidden_core"] == 0  # caught by the core cases
    assert first["test_merge_and_update_hidden_core"] == 0
    assert first["test_pair_counts_hidden_core"] == 1  # the right answer keeps its points
    assert all(scores[student] == first for student in STUDENTS), scores


def test_sixteen_students_with_the_same_answers_read_the_same_verdicts(graded: Path) -> None:
    verdicts = json.loads((graded / "artifacts" / "grading" / "verdicts.json").read_text())
    by_student: dict[str, list] = {}
    for line in verdicts:
        kept = {k: v for k, v in line.items() if k != "student"}
        by_student.setdefault(line["student"], []).append(kept)
    assert sorted(by_student) == STUDENTS
    first = sorted(by_student[STUDENTS[0]], key=json.dumps)
    assert any("symbols compared by their joined text" in line["why"] for line in first), first
    for student in STUDENTS[1:]:
        assert sorted(by_student[student], key=json.dumps) == first, student
