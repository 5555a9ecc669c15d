"""The student notebooks give nothing away.

test_nbgrader_pipeline.py, which makes a fresh nbgrader release and grades it anyway, checks
that notebooks/ matches that release and that every master notebook in source/ runs top to
bottom with its own solutions and hidden tests, without a single error.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_fixtures.synthetic import answer_cells
from tests.conftest import ROOT

SOURCE = sorted((ROOT / "source" / "bpe").glob("*.ipynb"))
STUDENT = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)


def test_every_contract_notebook_exists() -> None:
    names = [
        "01_bpe_by_hand.ipynb",
        "02_encoding_by_rank.ipynb",
        "03_real_text_overfitting.ipynb",
        "04_making_it_fast.ipynb",
    ]
    assert [p.name for p in SOURCE] == names
    assert [p.name for p in STUDENT] == names


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: p.name)
def test_student_notebooks_hold_no_solution_and_no_hidden_test(path: Path) -> None:
    student = nbformat.read(path, as_version=4)
    master = nbformat.read(ROOT / "source" / "bpe" / path.name, as_version=4)
    text = "\n".join(cell.source for cell in student.cells)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "autograder", "solutions"):
        assert marker not in text, f"{path.name} contains {marker!r}"
    answers = answer_cells(student)
    for name, cell in answer_cells(master).items():
        assert "raise NotImplementedError()" in answers[name].source, name
        for block in SOLUTION.findall(cell.source):
            for line in block.splitlines():
                # A line of the answer (not blank, not just a keyword) must not reach students.
                if len(line.strip()) > 12:
                    assert line not in answers[name].source, f"{name}: {line.strip()!r}"
    for cell in student.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if "_hidden_" in grade_id:
            assert all(
                not line.strip() or line.lstrip().startswith("#")
                for line in cell.source.splitlines()
            ), f"{path.name}: {grade_id} holds code"
