"""A resubmission after a first collect and grading is the one graded next, as the guides say.

The instructor's term in a scratch course with the real Makefile: a student submits lesson 1
with ``merge_pair`` wrong (the course's submit, into a real exchange); ``nbgrader collect
bpe``; ``make autograde``; the student submits again with both answers right; the same plain
``nbgrader collect bpe``; ``make autograde``. The gradebook then holds the higher score with
the newer submission's timestamp, and ``autograded/`` the newer notebook. But: the collect
rules themselves are ``test_collect_newest``'s; no hub is started.
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT
from tests.test_collect_newest import collect
from tests.test_exchange_collect import COURSE_ID
from tests.test_private_entries import PRIVATE, released_exchange, submit
from tests.test_regrade import _make

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

LESSON = "01_bpe_by_hand.ipynb"
RIGHT = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
FIRST = {**RIGHT, "merge_pair": WRONG["merge_pair"]["right-to-left merges"]}


def hand_in(root: Path, home: Path, exchange: Path, answers: dict[str, str]) -> None:
    """The student's lesson 1 with ``answers``, submitted with the course's submit."""
    drafts = root.parent / "drafts"
    (drafts / "release").mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / "release" / "bpe", drafts / "release" / "bpe", dirs_exist_ok=True)
    shutil.rmtree(drafts / "submitted", ignore_errors=True)
    written = write_submission(drafts, "draft", answers, [LESSON])
    shutil.copy(written / LESSON, home / "bpe" / LESSON)
    submit(home, exchange, PRIVATE)


def graded(root: Path, student: str) -> tuple[float, str]:
    """The gradebook's score of the student's submission and its timestamp."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        submission = gradebook.find_submission("bpe", student)
        return float(submission.score), str(submission.timestamp)


def test_the_resubmission_collected_after_a_first_grading_is_graded(tmp_path: Path) -> None:
    student = pwd.getpwuid(os.getuid()).pw_name  # nbgrader names the entry after the account
    root = make_scratch_course(tmp_path / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)  # copy2: the venv's stamp stays newer
    lesson = (root / "release" / "bpe" / LESSON).read_text()
    exchange, inbound, home = released_exchange(tmp_path, LESSON, lesson)

    hand_in(root, home, exchange, FIRST)
    collect(root, exchange)
    _make(root, "autograde")
    first_score, first_time = graded(root, student)

    hand_in(root, home, exchange, RIGHT)
    said = collect(root, exchange)
    assert f"Updating submission: {student}" in said, said
    _make(root, "autograde")
    second_score, second_time = graded(root, student)

    assert second_time > first_time
    assert second_score > first_score, (first_score, second_score)
    newer = (root / "submitted" / student / "bpe" / "timestamp.txt").read_text()
    assert (root / "autograded" / student / "bpe" / "timestamp.txt").read_text() == newer
    notebook = nbformat.read(root / "autograded" / student / "bpe" / LESSON, as_version=4)
    (answer,) = [
        c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "merge_pair"
    ]
    assert RIGHT["merge_pair"].strip() in answer.source
