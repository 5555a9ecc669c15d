"""What the grading service left, read from outside it: its store, the gradebook, its workers.

For the tests of the service with and without a hub (``tests/test_grading_service.py``,
``tests/test_hub_rush.py``): each entry's row of the store, each student's score and time in
the course's gradebook, a wait for a row the test names, and the service's Dask workers
killed by process group.

But: it only reads the store and the gradebook (read-only SQLite, nbgrader's ``Gradebook``) and
kills only processes of the group it is given.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.grading.service import STATE_FOLDER
from tests.test_exchange_collect import COURSE_ID


def kill_workers(group: int) -> int:
    """SIGKILL every Dask worker process of the process group ``group`` (the service's, which
    this test started), each named so by Dask. How many were killed."""
    killed = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            pgid = os.getpgid(int(proc.name))
            command = (proc / "cmdline").read_bytes()
        except (OSError, ProcessLookupError):
            continue
        if pgid == group and command.startswith(b"dask worker"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(proc.name), signal.SIGKILL)
                killed += 1
    return killed


def store_rows(root: Path) -> dict[str, tuple[str, str, int, str]]:
    """Each entry's (state, reason, gradings, feedback) in the service's store."""
    queue = root / STATE_FOLDER / "queue.db"
    with sqlite3.connect(f"file:{queue}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT name, state, reason, gradings, feedback FROM entry")
        return {name: tuple(rest) for name, *rest in rows}


def scores(root: Path) -> dict[str, tuple[float, str]]:
    """Every student's score and submission time in the course's gradebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        return {
            s.student_id: (float(s.score), str(s.timestamp))
            for s in gradebook.assignment_submissions("bpe")
        }


def wait_for_rows(root: Path, where: str, seconds: float, alive: Callable[[], str]) -> None:
    """Return once the service's store holds an entry ``where`` (SQL) says; ``alive`` says
    why not to wait on ('' while the service runs), and ends the wait with its words."""
    deadline = time.monotonic() + seconds
    queue = root / STATE_FOLDER / "queue.db"
    while time.monotonic() < deadline:
        why = alive()
        assert not why, why
        if queue.exists():
            with contextlib.suppress(sqlite3.OperationalError):  # its table not made yet
                with sqlite3.connect(f"file:{queue}?mode=ro", uri=True) as db:
                    found = db.execute(f"SELECT COUNT(*) FROM entry WHERE {where}").fetchone()
                if found[0]:
                    return
        time.sleep(0.2)
    raise AssertionError(f"no entry {where} in {seconds} s: {alive() or 'the service runs'}")


def cell_scores(root: Path) -> dict[str, dict[str, float]]:
    """Every student's score on each graded cell (``notebook/cell``) in the gradebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        return {
            s.student_id: {
                f"{book.name}/{grade.name}": float(grade.score)
                for book in s.notebooks
                for grade in book.grades
            }
            for s in gradebook.assignment_submissions("bpe")
        }
