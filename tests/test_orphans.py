"""A grading worker killed mid-student cannot clean up: the next one removes its leftovers.

A process opens a student's kernel home, its folder of kernel specs and (as root) a process cap,
then is killed; a fresh grading process, set up as every worker is (``prepare_worker``), removes
them, and keeps the home, specs and cap of a process that still runs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import bwrap
from autograder.sandbox.kernels import kernels_folder, student_home
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # starts and kills sandboxed workers

HOLD = """
import contextlib, os, sys, time
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import kernels_folder, student_home
with student_home("orphan") as home, bwrap.process_cap("orphan", 10) as cap:
    print(home.home, cap, home.sockets, kernels_folder(), flush=True)
    time.sleep(120)
"""


def _held_then_killed() -> tuple[Path, Path, Path | None, Path]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    home, cap, sockets, specs = holder.stdout.readline().split()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    return Path(home), Path(sockets), None if cap == "None" else Path(cap).parent, Path(specs)


def test_a_new_worker_removes_what_a_killed_one_left_and_nothing_else() -> None:
    home, sockets, cap, specs = _held_then_killed()
    assert home.is_dir() and sockets.is_dir(), "the killed process could not remove them"
    assert specs.is_dir()
    assert cap is None or cap.is_dir()
    with student_home("alive") as live_home, bwrap.process_cap("alive", 10) as live_cap:
        setup = "from autograder.grading.grade_one import prepare_worker; prepare_worker()"
        subprocess.run([sys.executable, "-c", setup], cwd=ROOT, check=True)
        assert not home.exists() and not sockets.exists() and not specs.exists()
        assert cap is None or not cap.exists()
        assert live_home.home.is_dir() and kernels_folder().is_dir()
        assert live_cap is None or live_cap.exists()
