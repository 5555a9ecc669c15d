"""Feedback for a cell past the time limit says so in words a student understands.

A scratch course whose ``nbgrader_config.py`` sets a 2 s cell limit grades one student whose
``merge_pair`` never returns, with the real ``nbgrader autograde`` and ``generate_feedback``.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.bwrap import UNCONFINED_FLAG
from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission

pytestmark = pytest.mark.nbgrader

REPO = Path(__file__).resolve().parent.parent
LOOP = "def merge_pair(symbols, pair):\n    while True:\n        pass\n"


def test_a_cell_past_the_time_limit_gets_a_plain_message(tmp_path: Path) -> None:
    root = make_scratch_course(tmp_path / "course")
    with open(root / "nbgrader_config.py", "a") as config:
        config.write("\nc.Execute.timeout = 2\nc.ExecutePreprocessor.timeout = 2\n")
    answers = {"pair_counts": next(iter(CORRECT["pair_counts"].values())), "merge_pair": LOOP}
    write_submission(root, "looper", answers, ["01_bpe_by_hand.ipynb"])
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PYTHONPATH=str(REPO), PATH=bin_dir + os.pathsep + os.environ["PATH"])
    # A bare nbgrader autograde refuses to run kernels unconfined unless told to.
    for step, *flags in (("autograde", UNCONFINED_FLAG), ("generate_feedback",)):
        command = [sys.executable, "-m", "nbgrader", step, "bpe", "--force", "--log-level=WARN"]
        command += flags
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)

    page = root / "feedback" / "looper" / "bpe" / "01_bpe_by_hand.html"
    text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
    message = "this cell ran longer than the 2 s limit, so its tests score 0"
    # the visible example cell and both hidden cells call the looping merge_pair: one each
    assert text.count(message) == 3, "each timed-out cell should explain its timeout once"
    assert "look for a loop that never ends" in text
    assert not re.search(r"(KeyboardInterrupt|CellTimeoutError):\s*(\n|$)", text)
    assert "No reply from kernel" not in text and "HIDDEN TESTS" not in text
