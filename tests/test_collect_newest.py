"""A plain ``nbgrader collect bpe`` takes each student's newest entry every time it runs.

A student submits with the course's submit (``private_submit``) into a real exchange; the
instructor collects; the student submits again; the instructor runs the same plain collect
(no ``--update``): ``submitted/`` now holds the newer entry (its timestamp and its notebook),
the copy it replaced is kept under ``submitted/<student>/.replaced/``, and the output says so.
Then the student removes the newer entry from inbound (an entry is theirs): the older one left
there does not replace the newer copy. But: that the newer copy is what ``make autograde``
grades is ``test_collect_newest_graded``'s (it grades).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_private_entries import PRIVATE, released_exchange, submit

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

LESSON = "01_bpe_by_hand.ipynb"


def notebook(version: int) -> str:
    return json.dumps({"cells": [], "metadata": {"version": version}, "nbformat": 4})


def collect(course: Path, exchange: Path) -> str:
    """``nbgrader collect bpe`` exactly as the guides show it, in ``course``; its output."""
    course.mkdir(exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]  # alembic
    env = dict(os.environ, PATH=path, PYTHONPATH=str(ROOT), BPE_EXCHANGE=str(exchange))
    command = [sys.executable, "-m", "nbgrader", "collect", "bpe"]
    done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, timeout=300)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0, said
    return said


def test_a_second_plain_collect_takes_the_newer_entry_and_keeps_the_older(
    tmp_path: Path,
) -> None:
    student = pwd.getpwuid(os.getuid()).pw_name  # nbgrader names the entry after the account
    exchange, inbound, home = released_exchange(tmp_path, LESSON, notebook(0))
    course = tmp_path / "course"
    kept = course / "submitted" / student / "bpe"

    (home / "bpe" / LESSON).write_text(notebook(1))
    submit(home, exchange, PRIVATE)
    (first,) = inbound.iterdir()
    said = collect(course, exchange)
    assert f"Collecting submission: {student}" in said, said
    assert (kept / LESSON).read_text() == notebook(1)
    first_stamp = (kept / "timestamp.txt").read_text()

    (home / "bpe" / LESSON).write_text(notebook(2))
    submit(home, exchange, PRIVATE)
    (second,) = [entry for entry in inbound.iterdir() if entry != first]
    said = collect(course, exchange)
    assert (kept / LESSON).read_text() == notebook(2), said
    second_stamp = (kept / "timestamp.txt").read_text()
    assert second_stamp > first_stamp
    assert second_stamp.startswith(second.name.split("+")[2].split(".")[0])
    # Nothing lost: the copy it replaced is kept, and the output says where and what next.
    (replaced,) = (course / "submitted" / student / ".replaced" / "bpe").iterdir()
    assert (replaced / LESSON).read_text() == notebook(1)
    assert (replaced / "timestamp.txt").read_text() == first_stamp
    assert f"Updating submission: {student}" in said, said
    assert f"submitted/{student}/.replaced/bpe/{replaced.name}" in said, said
    assert "make autograde grades the newer one" in said, said

    # The student takes the newer entry back: the older one left in inbound is not newer.
    shutil.rmtree(second)
    said = collect(course, exchange)
    assert (kept / LESSON).read_text() == notebook(2)
    assert (kept / "timestamp.txt").read_text() == second_stamp
    assert f"submitted/ already holds the newest submission of {student}" in said, said
    assert len(list((course / "submitted" / student / ".replaced" / "bpe").iterdir())) == 1
