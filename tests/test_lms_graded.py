"""The Canvas and Moodle files from a class really graded: the guide's commands in a scratch
course after ``grade_class``, then after a hand grade and a late penalty.

Two students hand in lesson 1 (one right, one with a known-wrong ``merge_pair``) and one hands
in nothing; each LMS file must hold what nbgrader's gradebook holds (``submission.score`` less
``late_submission_penalty``), scaled as the guide says.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from autograder import cli
from autograder.reports.lms import scaled
from course_fixtures.catalogue import CORRECT, WRONG
from tests.support.lms import REPO
from tests.test_lms import readme_commands

pytestmark = pytest.mark.nbgrader

LESSON = "01_bpe_by_hand.ipynb"
ROSTER = """student_id,first_name,last_name,email,lms_user_id,sis_login_id,section
right,Rita,Right,rita@example.org,501,rright,A
wrong,Walt,Wrong,walt@example.org,502,wwrong,A
absent,Abe,Sent,abe@example.org,503,asent,B
"""
EXPORT = """Student,ID,SIS User ID,SIS Login ID,Section,bpe (90),Current Score
    Points Possible,,,,,25.00,(read only)
"Right, Rita",501,,rright,A,,0.00
"Wrong, Walt",502,,wwrong,A,,0.00
"Sent, Abe",503,,asent,B,,0.00
"Student, Test",999,,,A,,
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    root = make_scratch_course(tmp_path_factory.mktemp("lms-graded") / "course")
    right = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    wrong = {**right, "merge_pair": WRONG["merge_pair"]["right-to-left merges"]}
    write_submission(root, "right", right, [LESSON])
    write_submission(root, "wrong", wrong, [LESSON])
    command = ["--root", str(root), "--jobs", "2", "--no-progress", "--lean"]
    assert cli.main(["grade", *command]) == 0
    (root / "roster.csv").write_text(ROSTER)
    (root / "canvas-export.csv").write_text(EXPORT)
    return root


def gradebook_finals(root: Path) -> dict[str, float]:
    """nbgrader's own view: each submission's score less its late penalty."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {
            sub.student.id: max(0.0, sub.score - sub.late_submission_penalty)
            for sub in gb.assignment_submissions("bpe")
        }


def run_readme_commands(root: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for command in readme_commands():
        if command.startswith(".venv/bin/python -m "):
            argv = [sys.executable, *command.split()[1:]]
            done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stdout + done.stderr


def lms_files(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    folder = root / "artifacts" / "grading"
    with (folder / "canvas-import.csv").open(newline="") as handle:
        canvas = {row[1]: row[5] for row in list(csv.reader(handle))[2:]}
    with (folder / "moodle-import.csv").open(newline="") as handle:
        moodle = {row[0]: row[1] for row in list(csv.reader(handle))[1:]}
    return canvas, moodle


def expected(finals: dict[str, float], student: str, points: float) -> str:
    return f"{scaled(finals[student], 21, points):.2f}"


def test_the_lms_files_hold_what_the_gradebook_holds_after_hand_grades_and_late_work(
    graded: Path,
) -> None:
    from nbgrader.api import Gradebook

    run_readme_commands(graded)
    finals = gradebook_finals(graded)
    assert finals["right"] == 6.0 and finals["wrong"] < 6.0  # lesson 1 alone: 6 of 21
    canvas, moodle = lms_files(graded)
    assert canvas == {
        "501": expected(finals, "right", 25),
        "502": expected(finals, "wrong", 25),
        "503": "",  # no submission: blank, as Canvas held it, not 0
        "999": "",
    }
    assert canvas["501"] == "7.14"  # 6 × 25 / 21 = 7.142…
    assert moodle == {"rita@example.org": "6.00", "walt@example.org": expected(finals, "wrong", 21)}

    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        cell = gb.find_grade("test_train_bpe_hidden_core", "02_encoding_by_rank", "bpe", "wrong")
        cell.manual_score = cell.max_score  # a person gives the missing notebook's hidden test
        notebook = gb.find_submission_notebook(LESSON.removesuffix(".ipynb"), "bpe", "right")
        notebook.late_submission_penalty = 1.5
        gb.db.commit()
    run_readme_commands(graded)
    after = gradebook_finals(graded)
    assert after["right"] == 4.5 and after["wrong"] > finals["wrong"]
    canvas, moodle = lms_files(graded)
    assert canvas["501"] == expected(after, "right", 25) == "5.36"  # 4.5 × 25 / 21 = 5.357…
    assert canvas["502"] == expected(after, "wrong", 25)
    assert moodle["walt@example.org"] == f"{Decimal(str(after['wrong'])):.2f}"
    # grades.csv, from the same rows: the raw total and the penalty the LMS files subtracted.
    assert cli.main(["export", "--root", str(graded)]) == 0
    with (graded / "grades.csv").open(newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert (rows["right"]["total"], rows["right"]["late_penalty"]) == ("6", "1.5")
