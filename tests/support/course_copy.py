"""A copy of this clone's course folder in which the README's make commands run as written.

:func:`course_copy` copies the files git tracks (modification times kept, so make sees the
venv as up to date), links ``.venv`` to this clone's, generates the assignment and fixes the
term secret, so ``make autograde``, ``make scheduler`` and the like run there as in a fresh
clone whose ``make venv`` has run (``tests.support.doc_text`` reads the commands the docs show).

But: it writes no submissions (``course_fixtures.synthetic`` does) and the venv is shared: its
editable ``bpe_course`` is this clone's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.course import SECRET_FILE
from course_fixtures.scratch_course import SCRATCH_SECRET

REPO = Path(__file__).resolve().parents[2]


def tracked_files(folder: Path) -> Path:
    """The files git tracks in this clone, copied into ``folder`` (times kept)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


def course_copy(folder: Path, generate: bool = True) -> Path:
    """The tracked files of this clone in ``folder``, ready to grade; returns ``folder``.
    ``generate=False`` leaves the assignment for the caller to generate (as ``make notebooks``
    does), after changing the masters."""
    tracked_files(folder)
    (folder / ".venv").symlink_to(REPO / ".venv")
    # As after `make venv` there: the venv's stamp newer than what it was built from (this
    # clone's venv is, unless someone changed the requirements since: then this one is stale
    # anyway, and rebuilding it from a copy would be wrong).
    built = (REPO / ".venv" / ".installed").stat().st_mtime
    for name in ("requirements.txt", "requirements-student.txt", "pyproject.toml"):
        os.utime(folder / name, (built - 1, built - 1))
    (folder / SECRET_FILE).write_text(SCRATCH_SECRET + "\n")
    if not generate:
        return folder
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    command = [sys.executable, "-m", "nbgrader", "generate_assignment", "bpe", "--force"]
    subprocess.run([*command, "--log-level=ERROR"], cwd=folder, env=env, check=True)
    return folder
