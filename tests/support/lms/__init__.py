"""A course folder with a gradebook built through nbgrader's API, for the LMS files' tests.

``new_course`` makes a course root (``nbgrader_config.py`` and a gradebook whose assignment
``bpe`` has one test cell an exercise, 21 points in all); ``add_student`` gives a student a
submission with automatic scores, hand scores and a late penalty, as grading and a person
would leave them. ``CLASS`` is the class the committed Canvas and Moodle files were made
from, and ``make_class`` builds it. The files beside this module are those fixtures.

But: nothing here grades a notebook; ``course_fixtures.scratch_course`` is for that.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import EXERCISES, RESULTS_RECORD

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
NOTEBOOK = "01_bpe_by_hand"
POINTS = dict(zip(EXERCISES, (3, 3, 5, 5, 5)))
FULL = {name: float(points) for name, points in POINTS.items()}


def _url(root: Path) -> str:
    return f"sqlite:///{root / 'gradebook.db'}"


def cell(exercise: str) -> str:
    return f"test_{exercise}_hidden_core"


@contextlib.contextmanager
def _alembic_on_path() -> Iterator[None]:
    """nbgrader runs ``alembic`` from PATH when it makes a gradebook: the venv's."""
    before = os.environ.get("PATH", "")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + before
    try:
        yield
    finally:
        os.environ["PATH"] = before


def new_course(root: Path) -> Path:
    """A course root with the assignment and its test cells in a fresh gradebook."""
    from nbgrader.api import Gradebook

    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    with _alembic_on_path(), Gradebook(_url(root)) as gb:
        gb.update_or_create_assignment("bpe")
        gb.add_notebook(NOTEBOOK, "bpe")
        for name, points in POINTS.items():
            gb.add_grade_cell(cell(name), NOTEBOOK, "bpe", max_score=points, cell_type="code")
    return root


@dataclass
class Spec:
    """A student's record: automatic scores (None: no submission; a None score: waiting
    for a person), hand scores, a late penalty, and whether grading failed."""

    scores: dict[str, float | None] | None = None
    hand: dict[str, float] = field(default_factory=dict)
    late: float = 0.0
    failed: bool = False


def add_student(root: Path, student: str, spec: Spec) -> None:
    """Put ``student`` in the gradebook as ``spec`` says."""
    from nbgrader.api import Gradebook

    with Gradebook(_url(root)) as gb:
        gb.update_or_create_student(student)
        if spec.scores is None:
            return
        gb.add_submission("bpe", student)
        for name, score in spec.scores.items():
            grade = gb.find_grade(cell(name), NOTEBOOK, "bpe", student)
            grade.auto_score = score
            grade.needs_manual_grade = score is None
            if name in spec.hand:
                grade.manual_score = spec.hand[name]
                grade.needs_manual_grade = False
        notebook = gb.find_submission_notebook(NOTEBOOK, "bpe", student)
        notebook.late_submission_penalty = spec.late
        gb.db.commit()
    if spec.failed:
        path = root / RESULTS_RECORD
        path.parent.mkdir(parents=True, exist_ok=True)
        results = json.loads(path.read_text()) if path.exists() else []
        results.append({"student": student, "graded": False, "problems": []})
        path.write_text(json.dumps(results))


def scores(**changes: float | None) -> dict[str, float | None]:
    """Full marks but for ``changes``."""
    return {**FULL, **changes}


# The class behind the committed fixtures (roster.csv, the Canvas exports and the expected
# import files): each student is one case of the report.
CLASS = {
    "ada": Spec(scores()),  # 21 of 21
    "bo": Spec(scores(merge_and_update=2.0)),  # 18; "Smith, Jr., Bo" in Canvas
    "cy": Spec(scores(merge_and_update=0.0)),  # 16; matched by SIS Login ID alone
    "di": Spec(scores()),  # 21; Canvas holds 17.50, typed there
    "ed": Spec(scores(train_bpe=0.0, encode_bpe=0.0, pair_counts=1.0)),  # 9; EX in Canvas
    "fay": Spec(None),  # no submission
    "gus": Spec(scores(train_bpe=None)),  # waiting for a person
    "hal": Spec(scores(), failed=True),  # grading failed
    "ivy": Spec(scores(), late=3.0),  # 21, late: 18
    "jo": Spec(scores(merge_and_update=0.0), hand={"merge_and_update": 4.0}),  # by hand: 20
}


def make_class(root: Path) -> Path:
    """``CLASS`` in a new course at ``root``, with the committed roster."""
    new_course(root)
    for student, spec in CLASS.items():
        add_student(root, student, spec)
    shutil.copyfile(HERE / "roster.csv", root / "roster.csv")
    return root
