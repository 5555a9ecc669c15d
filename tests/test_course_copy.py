"""The instructors' guide's mid-term recipe in a course copy like the hub's: no notebooks/, no git.

``make notebooks`` there regenerates release/bpe/ and makes notebooks/, and a refusal or a
failure leaves the gradebook and the notebooks as they were. But: it does not regrade (the
hub test runs ``make regrade`` in the hub's copy).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs nbgrader generate_assignment in a scratch copy

COPIED = ("autograder", "bpe_course", "solutions", "source", "nbgrader_config.py")


def course_copy(tmp_path: Path) -> Path:
    """The course as ``hub.layout.copy_course`` copies it: ``.venv`` a link to a built venv."""
    stamp = (ROOT / ".venv" / ".installed").stat().st_mtime
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    # The linked venv counts as built: a second older than its stamp, since a float time set
    # back can land a few nanoseconds after it, and make would rebuild the venv.
    for name in ("requirements.txt", "pyproject.toml"):
        os.utime(tmp_path / name, (stamp - 1, stamp - 1))
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / name)
    return tmp_path


def make(root: Path, *args: str) -> subprocess.CompletedProcess:
    command = ["make", "-s", "-C", str(root), *args]
    return subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_make_notebooks_works_in_a_copy_without_notebooks_or_git(tmp_path: Path) -> None:
    root = course_copy(tmp_path)
    done = make(root, "notebooks")
    assert done.returncode == 0, done.stdout + done.stderr
    made = sorted(path.name for path in (root / "notebooks").glob("*.ipynb"))
    assert made == sorted(path.name for path in (root / "source" / "bpe").glob("*.ipynb"))
    assert (root / "gradebook.db").exists() and not (root / "notebooks" / ".new").exists()


def test_a_failed_generate_leaves_no_notebooks_folder(tmp_path: Path) -> None:
    root = course_copy(tmp_path)
    shutil.rmtree(root / "source")  # generate_assignment fails: nothing to generate from
    done = make(root, "notebooks")
    assert done.returncode != 0 and not (root / "notebooks").exists()
