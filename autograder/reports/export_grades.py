"""Write ``grades.csv``: one row per student, each exercise's score, the total and a status.

Unlike ``nbgrader export`` (one number per student, whatever was scored), the total is blank
unless the status is ``graded``, and an exercise is blank where a person must decide. It reads
the gradebook and the judged verdicts through ``summary.collect`` (``class_rows``, which the
LMS files read too); ``late_penalty`` is nbgrader's, which the LMS files subtract, ``late``
the summary's words ('late by 2 min 5 s', blank when on time), and ``course_version`` the
version of ``bpe_course`` the file was written with. ``max`` is the assignment's maximum in
the gradebook on every row (a student with no submission included), the figure the LMS
files divide by. Every text cell is safe to open in a spreadsheet (``safe_csv``).

But: it grades nothing and does not change the gradebook.
"""

from __future__ import annotations

import sys
from pathlib import Path

import bpe_course
from autograder.course import (
    ASSIGNMENT,
    EXERCISES,
    FAILED,
    GRADED,
    NO_SUBMISSION,
    Status,
    class_db_path,
    find_students,
)
from autograder.reports.safe_csv import write_csv
from autograder.reports.summary import StudentRow, collect
from autograder.roster import NOT_A_STUDENT, is_safe_id, read_roster, why_not_a_student

COLUMNS = (
    "student_id",
    "status",
    "total",
    "max",
    *EXERCISES,
    "late",
    "late_penalty",
    "course_version",
)


def export_row(row: StudentRow, maximum: float | None = None) -> dict[str, str]:
    """A CSV row: scores only where nobody has to decide anything; ``max`` is ``maximum``
    (the assignment's), else the sum of the row's own exercises' maxima.

    >>> scores, maxima = {"pair_counts": 3.0, "train_bpe": None}, {"pair_counts": 3, "train_bpe": 5}
    >>> status = Status("needs manual grading", ("locked test cell deleted",))
    >>> row = StudentRow("ada", status, scores, maxima)
    >>> export_row(row)["pair_counts"], export_row(row)["train_bpe"], export_row(row)["total"]
    ('3', '', '')
    >>> export_row(row)["max"], export_row(StudentRow("bo", Status("no submission")), 21.0)["max"]
    ('8', '21')
    """
    failed = row.state.kind == FAILED
    graded = row.state.kind == GRADED and row.total is not None
    out = {
        "student_id": row.student,
        "status": row.status,
        "total": f"{row.total:g}" if graded else "",
        "max": f"{sum(row.maxima.values()) if maximum is None else maximum:g}",
        "late": row.late,
    }
    for name in EXERCISES:
        score = row.scores.get(name)
        blank = score is None or failed or name in row.waiting
        out[name] = "" if blank else f"{score:g}"
    return out


NOT_YET = "submitted but not graded yet"
UNSAFE_ID = "not a safe student id: an entry from before the class had a roster"


def class_rows(course_root: Path) -> list[StudentRow]:
    """Every student of the gradebook, the records and ``submitted/``, sorted: the one source
    of ``grades.csv`` and the LMS files."""
    from nbgrader.api import Gradebook

    rows = {row.student: row for row in collect(course_root)}
    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        known = {s.id for s in gb.students}
    # Submitted but never graded (a run that stopped half-way): listed, never dropped. An id
    # that is no student of the class (made up, or from before the roster) keeps its line,
    # with no score and why; `make check-class` says how to remove it.
    roster = read_roster(course_root)
    for student in set(find_students(course_root)) - known - set(rows):
        why = why_not_a_student(student, roster)
        state = Status(NOT_A_STUDENT, (why,)) if why else Status(FAILED, (NOT_YET,))
        rows[student] = StudentRow(student, state)
    for student in known | set(rows):
        if not is_safe_id(student):
            rows[student] = StudentRow(student, Status(NOT_A_STUDENT, (UNSAFE_ID,)))
    return [
        rows.get(student) or StudentRow(student, Status(NO_SUBMISSION))
        for student in sorted(known | set(rows))
    ]


def late_penalties(course_root: Path) -> dict[str, float]:
    """nbgrader's late penalty of each student with a submission (0 when on time)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        return {
            sub.student.id: float(sub.late_submission_penalty or 0.0)
            for sub in gb.assignment_submissions(ASSIGNMENT)
        }


def assignment_maximum(course_root: Path) -> float | None:
    """The assignment's points in the gradebook; None when it holds no notebook of it yet (no
    assignment, or one added with only its due date, whose points nbgrader sums to 0)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        try:
            return float(gb.find_assignment(ASSIGNMENT).max_score) or None
        except MissingEntry:
            return None


def course_version() -> str:
    """The version of ``bpe_course`` here (its ``__version__``, from the installed package)."""
    return bpe_course.__version__


def write_grades(course_root: Path, path: Path) -> list[dict[str, str]]:
    """Write the CSV for every student in the gradebook; return its rows."""
    penalties = late_penalties(course_root)
    version = course_version()
    maximum = assignment_maximum(course_root)
    lines = [export_row(row, maximum) for row in class_rows(course_root)]
    for line in lines:
        penalty = penalties.get(line["student_id"])
        line["late_penalty"] = "" if penalty is None else f"{penalty:g}"
        line["course_version"] = version
    write_csv(path, COLUMNS, ([line[name] for name in COLUMNS] for line in lines))
    return lines


def run(course_root: Path, out: Path = Path("grades.csv")) -> int:
    """Write the grades to ``out`` (relative: in the course folder) and say how many are not
    fully graded; 1, and nothing written, before the first grading."""
    root = course_root.resolve()
    if not class_db_path(root).exists():
        print("no gradebook.db yet: run `make autograde` first", file=sys.stderr)
        return 1
    lines = write_grades(root, root / out)  # an absolute out stays as it is
    waiting = sum(1 for line in lines if line["status"] != GRADED)
    print(f"wrote {out.name}: {len(lines)} students, {waiting} not fully graded (blank total)")
    return 0
