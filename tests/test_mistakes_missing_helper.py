"""The class mistakes table names a helper from an earlier lesson that an answer calls
without defining it, rather than filing it under "unexplained".

Lesson 2 asks a student to paste lesson 1's ``pair_counts`` and ``merge_pair`` into their
answer; the judge runs the answer alone, so one who does not gets ``NameError: name
'pair_counts' is not defined``, on every input or (an answer that returns early on an empty
corpus) on some. Both are one bar, "missing helper from lesson 1 (pair_counts)"; a name that
is no exercise's stays unexplained. The lesson of each exercise is checked against the course's
notebooks. But: the verdicts are written here, nothing is graded.
"""

from __future__ import annotations

import json

from autograder.course import EXERCISES
from autograder.reports.mistakes import LESSON_OF, NAMED, UNEXPLAINED, count_mistakes, describe
from tests.conftest import ROOT

EVERY_INPUT = (
    "train_bpe raised NameError: name 'pair_counts' is not defined on every input; a name "
    "your answer uses is not defined when the answer runs alone. Define it ..."
)
SOME_INPUTS = (
    "train_bpe is wrong on 8 of 9 test inputs. The smallest:\n    train_bpe(['ab'], 1)\n"
    "raised NameError: name 'pair_counts' is not defined"
)
UNKNOWN_NAME = "train_bpe raised NameError: name 'STEP' is not defined on every input; ..."


def verdict(student: str, why: str) -> dict:
    cell = "test_train_bpe_hidden_core"
    return {"student": student, "cell": cell, "points": 3, "verified": 0.0, "why": why}


def test_a_missing_helper_from_lesson_1_is_named() -> None:
    bars = count_mistakes(
        [verdict("ada", EVERY_INPUT), verdict("bo", SOME_INPUTS), verdict("cy", UNKNOWN_NAME)]
    )
    found = [(b.exercise, b.kind, b.label, b.students) for b in bars]
    assert found == [
        ("train_bpe", NAMED, "missing helper from lesson 1 (pair_counts)", ["ada", "bo"]),
        ("train_bpe", UNEXPLAINED, "unexplained", ["cy"]),
    ]
    assert "missing helper from lesson 1 (pair_counts) 2 students" in describe(bars)


def test_each_exercise_is_in_the_lesson_the_map_says() -> None:
    assert set(LESSON_OF) == set(EXERCISES)
    for exercise, lesson in LESSON_OF.items():
        (notebook,) = (ROOT / "source" / "bpe").glob(f"{lesson:02d}_*.ipynb")
        ids = {
            c["metadata"].get("nbgrader", {}).get("grade_id")
            for c in json.loads(notebook.read_text())["cells"]
        }
        assert exercise in ids, (exercise, notebook.name)
