"""A throw-away copy of the course for tests and benchmarks of class grading.

:func:`make_scratch_course` copies ``source/`` and ``nbgrader_config.py`` into an empty folder
and runs ``nbgrader generate_assignment`` there, so a synthetic class can be submitted, graded
and verified without touching the real course's ``submitted/``, ``autograded/`` or
``gradebook.db``. The grading code itself still comes from this repository (the grading
workers put it on the kernels' ``PYTHONPATH``). It writes no submissions itself
(``course_fixtures.synthetic`` does).

``generate_assignment`` costs about 11 s of CPU and gives the same course every time (only the
gradebook's random row ids differ), so a process runs it once per assignment, into a folder of
its own removed at exit, and each scratch course is a copy of that one.

But: a copy made after ``source/`` changed in this repository, in the same process, is of the
release made before.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.course import SECRET_FILE

REPO = Path(__file__).resolve().parents[1]
SCRATCH_SECRET = "scratch-course-term"


def make_scratch_course(folder: Path, assignment: str = "bpe") -> Path:
    """Copy the course masters into ``folder`` (created) with the release generated there."""
    folder.mkdir(parents=True, exist_ok=True)
    mode = folder.stat().st_mode
    shutil.copytree(_generated(assignment), folder, symlinks=True, dirs_exist_ok=True)
    folder.chmod(mode)  # copytree gave it the private mode of the generated course's folder
    return folder


_GENERATED: dict[str, Path] = {}  # assignment -> this process's generated course


def _generated(assignment: str) -> Path:
    """This process's course with ``assignment`` generated, made on first use."""
    if assignment not in _GENERATED:
        folder = Path(tempfile.mkdtemp(prefix="bpe-scratch-course-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _generate(folder, assignment)
        _GENERATED[assignment] = folder
    return _GENERATED[assignment]


def _generate(folder: Path, assignment: str) -> None:
    shutil.copytree(REPO / "source" / assignment, folder / "source" / assignment)
    shutil.copyfile(REPO / "nbgrader_config.py", folder / "nbgrader_config.py")
    # A fixed term secret: the random hidden cases are the same in every test run.
    (folder / SECRET_FILE).write_text(SCRATCH_SECRET + "\n")
    bin_dir = str(Path(sys.executable).parent)
    # The course's release steps live in autograder/, which nbgrader_config.py finds from the
    # course root; a scratch copy has no autograder/ of its own, so it is given the repo's.
    env = dict(
        os.environ,
        PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
        PYTHONPATH=str(REPO),
    )
    command = [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"]
    subprocess.run([*command, "--log-level=ERROR"], cwd=folder, env=env, check=True)
