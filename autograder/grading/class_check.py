"""Find what strangers left in the class: made-up student ids and other accounts' Dask folders.

``python -m autograder check-class`` (``make check-class``; ``make autograde`` runs it
first) lists every id in the gradebook, ``submitted/`` or ``feedback/`` that is no student of
the class (``roster``: not a safe id, or not in ``roster.csv``), and every Dask scratch folder
in the temporary folder that another account owns (a Dask process started without a folder of
its own would import modules from it), each with how to remove it. It exits 1 when it found
any.

But: it removes nothing; a person decides. It cannot tell a student dropped from the roster
mid-term from a made-up id: both are listed.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from autograder.course import ASSIGNMENT, class_db_path
from autograder.problems import printable
from autograder.roster import read_roster, why_not_a_student


def _gradebook_ids(course_root: Path) -> list[str]:
    path = class_db_path(course_root)
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        known = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'student'").fetchone()
        return [row[0] for row in db.execute("SELECT id FROM student")] if known else []


def strangers(course_root: Path) -> list[str]:
    """One line for each id that is no student of the class, where it is and what to do."""
    roster = read_roster(course_root)
    lines = []
    for student in _gradebook_ids(course_root):
        why = why_not_a_student(student, roster)
        if why:
            lines.append(
                f"in the gradebook: {why}; remove it with "
                f"`nbgrader db student remove {_shell(student)} --force`"
            )
    for place in ("submitted", "feedback"):
        folder = course_root / place
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            why = why_not_a_student(path.name, roster)
            if why:
                lines.append(
                    f"in {place}/: {why}; move it out of the course with "
                    f"`mv {place}/{_shell(path.name)} <somewhere else>`"
                )
    return lines


def foreign_dask_folders(temporary: Path | None = None) -> list[str]:
    """One line for each Dask scratch folder in ``temporary`` another account owns."""
    temporary = temporary or Path(tempfile.gettempdir())
    lines = []
    for path in sorted(temporary.glob("dask-scratch-space*")):
        try:
            owner = path.lstat().st_uid
        except OSError:
            continue
        if owner not in (0, os.geteuid()):
            lines.append(
                f"{path} belongs to uid {owner}: a Dask program started without a folder of "
                f"its own would import modules from it; as root, `rm -rf {path}`"
            )
    return lines


def _shell(text: str) -> str:
    """``text`` quoted for a shell, with non-printing characters shown escaped."""
    import shlex

    return shlex.quote(printable(text)[:120])


def report(course_root: Path) -> list[str]:
    """Print what was found (nothing when all is well); return the lines."""
    lines = strangers(course_root) + foreign_dask_folders()
    for line in lines:
        print(f"check: {line}")
    return lines


def run(course_root: Path) -> int:
    """Print what was found, or that all is well; 1 when something was found."""
    lines = report(course_root)
    if not lines:
        print(f"check: every id of {ASSIGNMENT}'s gradebook and folders is a student's")
    return 1 if lines else 0
