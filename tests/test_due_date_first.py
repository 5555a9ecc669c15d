"""A due date set before the assignment was generated: grading still works, the date is kept.

The instructors' guide lets the due date be set "before or after students submit" with
``nbgrader db assignment add bpe --duedate=…``. Run first, in a course whose gradebook has never
seen ``make notebooks``, it makes the gradebook know ``bpe`` by name with no notebooks; every
command that needs the assignment must then add its notebooks, keeping that date.

But: one student, one lesson; the lateness itself is ``test_lateness``'s.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT
from tests.support import doc_text

GUIDE = "docs/guides/instructors.md"
LESSON = "01_bpe_by_hand.ipynb"
DUE = datetime.datetime(2026, 12, 15, 22, 59)


def _gradebook(root: Path) -> tuple[list[str], datetime.datetime | None]:
    """The notebooks the course's gradebook holds for ``bpe``, and its due date."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        assignment = gradebook.find_assignment("bpe")
        return sorted(n.name for n in assignment.notebooks), assignment.duedate


def _due_date_first(root: Path) -> None:
    """A gradebook as the guide's line leaves it in a course never generated: ``bpe`` by
    name, with the guide's due date and no notebooks."""
    (root / "gradebook.db").unlink()  # as before any `make notebooks`
    (root / ".venv").symlink_to(ROOT / ".venv")
    add, _ = doc_text.commands(GUIDE, "**Due date and late work.**")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(shlex.split(add), cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _gradebook(root) == ([], DUE)


@pytest.mark.nbgrader
def test_make_autograde_grades_after_a_due_date_set_first(tmp_path: Path) -> None:
    root = make_scratch_course(tmp_path / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)  # copy2: the venv's stamp stays newer
    _due_date_first(root)
    right = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    write_submission(root, "ada", right, [LESSON])

    grading = f"PYTHONPATH={ROOT} {ROOT / '.venv' / 'bin' / 'python'}"
    command = ["make", "-s", "-C", str(root), f"VENV={ROOT / '.venv'}", f"GRADING={grading}"]
    done = subprocess.run(
        [*command, "JOBS=1", "autograde"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "nbgrader failed" not in output, output
    (result,) = json.loads((root / "artifacts" / "grading" / "results.json").read_text())
    assert (result["student"], result["graded"]) == ("ada", True), result
    assert (root / "autograded" / "ada" / "bpe" / LESSON).is_file()
    masters = sorted(p.stem for p in (root / "source" / "bpe").glob("*.ipynb"))
    assert _gradebook(root) == (masters, DUE)
