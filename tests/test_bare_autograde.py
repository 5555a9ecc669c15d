"""A bare ``nbgrader autograde`` (the Formgrader's Autograde button runs the same) never runs a
student's notebook outside the sandbox, as the instructor.

A student's answer writes a marker file naming the folder of the reference it could list. With
the course's steps, a bare ``nbgrader autograde`` refuses to start the kernel and says how to
grade; told ``--GradingSandbox.unconfined=True`` (the control), it runs the code, which writes the
marker as the instructor.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.bwrap import UNCONFINED_FLAG
from tests.conftest import ROOT

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]


def _autograde(course: Path, *flags: str) -> subprocess.CompletedProcess:
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=bin_dir + os.pathsep + os.environ["PATH"])
    command = [sys.executable, "-m", "nbgrader", "autograde", "bpe", "--force", *flags]
    return subprocess.run(
        [*command, "--notebook", "01_bpe_by_hand"], cwd=course, env=env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_a_bare_autograde_refuses_to_run_a_notebook_unconfined(tmp_path: Path) -> None:
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    course = make_scratch_course(tmp_path / "course")
    marker = tmp_path / "ran-as-instructor"
    attack = f"import os\nopen({str(marker)!r}, 'w').write(str(os.getuid()))\n"
    attack += "def pair_counts(words):\n    return {}\n"
    write_submission(course, "mallory", {"pair_counts": attack}, ["01_bpe_by_hand.ipynb"])
    refused = _autograde(course)
    said = refused.stdout + refused.stderr
    assert "refusing to run a student's notebook outside the sandbox" in said, said
    assert "make autograde" in said and not marker.exists()
    allowed = _autograde(course, UNCONFINED_FLAG)
    assert marker.exists(), allowed.stdout + allowed.stderr
