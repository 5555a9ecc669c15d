"""Late work, as the gradebook records it, reaches the summary and grades.csv with how late.

A due date set on the assignment (the Formgrader's Edit dialog and ``nbgrader db assignment add
bpe --duedate=…`` write it there; ``nbgrader_config.py`` cannot) and nbgrader's submission
timestamp are the only inputs. But: no grading runs; the submissions hold no notebooks.
"""

from __future__ import annotations

import csv
import datetime
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.reports import export_grades, summary

DUE = datetime.datetime(2026, 12, 1, 12, 0, 0)


def make_gradebook(root: Path) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        gb.add_assignment("bpe", duedate=DUE)
        for student, delay in (("early", -60), ("late", 3725), ("absent", None)):
            gb.add_student(student)
            if delay is not None:
                stamp = DUE + datetime.timedelta(seconds=delay)
                gb.add_submission("bpe", student, timestamp=stamp)


def test_late_work_is_marked_late_with_how_late(tmp_path: Path, monkeypatch) -> None:
    # nbgrader runs `alembic` from PATH when it makes a gradebook.
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    make_gradebook(tmp_path)
    rows = {row.student: row for row in summary.collect(tmp_path)}
    assert rows["late"].late == "late by 1 h 2 min" and rows["early"].late == ""
    assert "(late by 1 h 2 min)" in summary.format_table(list(rows.values()))
    summary.write_csv(list(rows.values()), tmp_path / "summary.csv")
    with open(tmp_path / "summary.csv") as file:
        table = {row["student"]: row for row in csv.DictReader(file)}
    assert table["late"]["late"] == "late by 1 h 2 min" and table["early"]["late"] == ""
    export_grades.write_grades(tmp_path, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv") as file:
        grades = {row["student_id"]: row for row in csv.DictReader(file)}
    assert grades["late"]["late"] == "late by 1 h 2 min"
    assert grades["early"]["late"] == grades["absent"]["late"] == ""


def test_how_late_reads_as_a_person_would() -> None:
    assert summary.how_late(0.4) == "0 s"
    assert summary.how_late(59) == "59 s" and summary.how_late(60) == "1 min"
    assert summary.how_late(2 * 86400 + 5) == "2 d 5 s"


INSTRUCTORS_GUIDE = "docs/guides/instructors.md"


@pytest.mark.slow  # a copy of the course, then six nbgrader programs of seconds each
def test_the_guides_due_date_commands_set_it_and_each_form_it_names_means_the_same(
    tmp_path: Path,
) -> None:
    """The instructors' guide's two ``nbgrader db assignment`` lines as written, in a copy of the
    course; then its add line with each way of writing the time that its text names."""
    from tests.support import doc_text
    from tests.support.course_copy import REPO, tracked_files

    root = tracked_files(tmp_path / "course")
    (root / ".venv").symlink_to(REPO / ".venv")
    add, listing = doc_text.commands(INSTRUCTORS_GUIDE, "**Due date and late work.**")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    def run(line: str) -> str:
        done = subprocess.run(
            shlex.split(line), cwd=root, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    run(add)
    written = [line for line in doc_text.text(INSTRUCTORS_GUIDE).splitlines() if listing in line]
    shown = written[0].split("# ", 1)[1]  # what the guide's comment says the list shows
    assert shown.strip() == "bpe (due: 2026-12-15 22:59:00)", shown
    assert shown.strip() in run(listing).splitlines()
    forms = re.findall(r'`"(2026-12-15[ T]23:59:00[^"]*)"`', doc_text.text(INSTRUCTORS_GUIDE))
    assert forms == ["2026-12-15 23:59:00 Europe/Paris", "2026-12-15T23:59:00+01:00"], forms
    for form in forms:
        run(add.replace('"2026-12-15 22:59:00"', f'"{form}"'))
        assert shown.strip() in run(listing).splitlines(), form
