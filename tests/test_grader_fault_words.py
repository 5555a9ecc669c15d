"""A grading that stops for a reason not the student's says so, and says why, everywhere.

In a scratch course, ``ada``'s submission is graded with a gradebook that knows ``bpe`` by
name but none of its notebooks (what a due date set before ``make notebooks`` leaves): nbgrader
fails before any kernel starts. The result must carry nbgrader's own words for it, not only
"see the above traceback", in the line the summary shows and at the head of what goes to
``errors.log``, with the grading process's loggers as quiet as a Dask worker's; and
``make autograde`` exits 1 for it.

Then the class's records say ``ada``'s newest grading stopped while the gradebook holds an
earlier one: the summary, ``grades.csv`` and the Formgrader's submission records must each say
that the grade shown is from an earlier submission and the newer one is not graded.

But: nothing is run in a kernel here; the forged-message student is graded in
``tests/test_hostile_class.py``.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.course import RESULTS_RECORD, class_db_path
from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission

pytestmark = pytest.mark.nbgrader
EARLIER = "the grade shown is from an earlier submission; the newer one is not graded"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_scratch_course(tmp_path_factory.mktemp("fault"))
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    write_submission(root, "ada", good)
    return root


@pytest.fixture
def quiet_as_a_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The root logger at CRITICAL, and this Python's folder on the PATH (nbgrader runs
    ``alembic``), as ``grade_one.prepare_worker`` leaves a worker."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.CRITICAL)
    yield
    root.setLevel(level)


def test_a_stopped_grading_carries_the_exceptions_own_words(
    course: Path, tmp_path: Path, quiet_as_a_worker: None
) -> None:
    from nbgrader.api import Gradebook

    from autograder.grading.grade_one import grade_submission
    from autograder.grading.options import GradingOptions

    template = tmp_path / "template.db"
    with Gradebook(f"sqlite:///{template}") as gb:
        gb.update_or_create_assignment("bpe")  # its name only: no notebooks
    result = grade_submission(GradingOptions(course, lean=True), "ada", template)
    assert result.stopped and not result.rows
    detail = next(p.detail for p in result.problems if p.kind == "not_graded")
    assert "No notebooks found" in detail and "above traceback" not in detail, detail
    head = result.log.splitlines()[:3]
    assert head[0] == "what went wrong:" and "No notebooks found" in "\n".join(head), head
    # What `make autograde` then exits with: 1, as the README says, where a student left to
    # a person alone gives 0 (tests/test_hostile_class.py grades one).
    from autograder.grading.grade_class import _exit_status

    assert _exit_status([result], {}) == 1


def test_summary_export_and_formgrader_say_the_grade_is_from_an_earlier_submission(
    course: Path,
) -> None:
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory

    from autograder.formgrader.lateness import LateAPI
    from autograder.reports import export_grades, summary

    with Gradebook(f"sqlite:///{class_db_path(course)}") as gb:
        gb.update_or_create_student("ada")
        gb.update_or_create_submission("bpe", "ada")  # graded at an earlier run
    (course / "autograded" / "ada" / "bpe").mkdir(parents=True, exist_ok=True)
    stopped = {"kind": "not_graded", "notebook": "", "detail": "nbgrader failed: a worker died"}
    record = course / RESULTS_RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps([{"student": "ada", "graded": False, "problems": [stopped]}]))

    rows = {row.student: row for row in summary.collect(course)}
    assert rows["ada"].status.startswith(f"not graded: {EARLIER}; nbgrader failed"), rows
    export_grades.write_grades(course, course / "grades.csv")
    with open(course / "grades.csv", newline="") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert EARLIER in exported["ada"]["status"] and exported["ada"]["total"] == ""
    api = LateAPI(CourseDirectory(root=str(course)))
    submissions = {s["student"]: s for s in api.get_submissions("bpe")}
    assert submissions["ada"]["not_graded"] == EARLIER
    assert api.get_submission("bpe", "ada")["not_graded"] == EARLIER
