"""The instructors' guide states the Canvas and Moodle rounding rule as the tools apply it.

The rule divides by the assignment's maximum in the gradebook, not by a fixed 21: after a fix
adds a one-point test (22 in all), ivy's 18 (21 less a late penalty of 3) on Canvas's 20-point
column is 16.36, where 18 of 21 was 17.14. The guide's worked examples ("18 of 21 on a
20-point column is 17.14", ...) are each computed with ``lms.scaled`` and the class behind the
LMS fixtures (``tests.support.lms``) is run through ``canvas.py`` and ``moodle.py``. But:
nothing is graded; the gradebook is written through nbgrader's API.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder import cli
from autograder.reports import lms
from tests.support import doc_text
from tests.support.lms import NOTEBOOK, make_class
from tests.test_lms import MOODLE_OUT, OUT, TARGET, cells, run_canvas, run_moodle

GUIDE = "docs/guides/instructors.md"


def rule() -> str:
    part = doc_text.section(GUIDE, "## Grades into Canvas or Moodle")
    start = part.index("**The rounding rule**")
    return " ".join(part[start:].split())


def test_the_guide_divides_by_the_assignments_maximum() -> None:
    said = rule()
    assert "divided by 21" not in said, said[:400]
    assert "divided by the assignment's maximum" in said, said[:400]
    examples = re.findall(r"(\d+) of (\d+)(?: on a (\d+)-point column)? is (\d+\.\d\d)", said)
    assert len(examples) >= 3 and any(of == "22" for _, of, _, _ in examples), examples
    for score, of, points, grade in examples:
        assert lms.scaled(float(score), float(of), Decimal(points or "20")) == Decimal(grade)


def test_after_a_one_point_fix_canvas_and_moodle_divide_by_22(tmp_path: Path) -> None:
    course = make_class(tmp_path / "course")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_grade_cell("test_fix", NOTEBOOK, "bpe", max_score=1, cell_type="code")
    assert run_canvas(course) == 0
    filled = {row[1]: row[TARGET] for row in cells(course / OUT)[3:]}
    assert filled["1009"] == "16.36", filled  # ivy: 18 of 22 on a 20-point column
    assert run_moodle(course, "--points", "20") == 0
    moodle = {row[0]: row[1] for row in cells(course / MOODLE_OUT)[1:]}
    assert "16.36" in moodle.values(), moodle


def test_moodle_help_names_no_fixed_maximum(capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` of the Moodle tool says where the default maximum comes from, not a number
    that a mid-term fix makes wrong."""
    with pytest.raises(SystemExit):
        cli.main(["moodle", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert not re.search(r"default: \d", said), said
    assert "the assignment's maximum in the gradebook" in said, said
