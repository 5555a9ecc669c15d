"""``grades.csv`` gives ``max`` as the assignment's maximum in the gradebook on every row.

The class behind the LMS fixtures (``tests.support.lms``: 21 points, ``fay`` with no
submission, ``hal`` whose grading failed, ``gus`` waiting for a person), its ``grades.csv``
written by ``export_grades``: every row says 21, the student with no submission too (an
instructor read 0 there). Then a test cell of one point is added to the assignment, as the
mid-term fix does, before anyone is regraded: every row says 22, the maximum the Canvas and
Moodle files divide by. But: nothing is graded; the gradebook is written through nbgrader's
API.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.api import Gradebook

from autograder.course import NO_SUBMISSION
from autograder.reports.export_grades import assignment_maximum, write_grades
from tests.support.lms import NOTEBOOK, make_class


def test_every_row_gives_the_assignments_maximum(tmp_path: Path) -> None:
    course = make_class(tmp_path / "course")
    lines = {line["student_id"]: line for line in write_grades(course, tmp_path / "grades.csv")}
    assert lines["fay"]["status"] == NO_SUBMISSION
    assert {line["max"] for line in lines.values()} == {"21"}, lines

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_grade_cell("test_fix", NOTEBOOK, "bpe", max_score=1, cell_type="code")
    assert assignment_maximum(course) == 22
    lines = {line["student_id"]: line for line in write_grades(course, tmp_path / "grades.csv")}
    assert {line["max"] for line in lines.values()} == {"22"}, lines
    written = (tmp_path / "grades.csv").read_text().splitlines()
    assert all(row.split(",")[3] == "22" for row in written[1:]), written
