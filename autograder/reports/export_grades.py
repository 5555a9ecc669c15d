"""Write ``grades.csv``: one row per student, each exercise's score, the total and a status.

Unlike ``nbgrader export`` (one number per student, whatever was scored), the total is blank
unless the status is ``graded``, and an exercise is blank where a person must decide. It reads
the gradebook through ``summary.collect`` and the judged verdicts.

But: it grades nothing and does not change the gradebook.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from autograder.course import (
    EXERCISES,
    FAILED,
    GRADED,
    NO_SUBMISSION,
    VERDICTS_RECORD,
    Status,
    class_db_path,
    exercise_of,
    find_students,
)
from autograder.reports.summary import StudentRow, collect

COLUMNS = ("student_id", "status", "total", "max", *EXERCISES)


def _waiting_for_person(course_root: Path) -> dict[str, set[str]]:
    """Exercises the judge flagged for a person, by student (their judged score stands)."""
    path = course_root / VERDICTS_RECORD
    waiting: dict[str, set[str]] = {}
    for entry in json.loads(path.read_text()) if path.exists() else []:
        if not entry.get("needs_person"):
            continue
        name = exercise_of(str(entry.get("cell", "")))
        if name:
            waiting.setdefault(entry["student"], set()).add(name)
    return waiting


def export_row(row: StudentRow, waiting: set[str]) -> dict[str, str]:
    """A CSV row: scores only where nobody has to decide anything.

    >>> scores, maxima = {"pair_counts": 3.0, "train_bpe": None}, {"pair_counts": 3, "train_bpe": 5}
    >>> status = Status("needs manual grading", ("locked test cell deleted",))
    >>> row = StudentRow("ada", status, scores, maxima)
    >>> export_row(row, set())["pair_counts"], export_row(row, set())["train_bpe"]
    ('3', '')
    >>> export_row(row, set())["total"], export_row(row, set())["max"]
    ('', '8')
    """
    failed = row.state.kind == FAILED
    graded = row.state.kind == GRADED and row.total is not None
    out = {
        "student_id": row.student,
        "status": row.status,
        "total": f"{row.total:g}" if graded else "",
        "max": f"{sum(row.maxima.values()):g}",
    }
    for name in EXERCISES:
        score = row.scores.get(name)
        blank = score is None or failed or name in waiting
        out[name] = "" if blank else f"{score:g}"
    return out


def write_grades(course_root: Path, path: Path) -> list[dict[str, str]]:
    """Write the CSV for every student in the gradebook; return its rows."""
    from nbgrader.api import Gradebook

    rows = {row.student: row for row in collect(course_root)}
    waiting = _waiting_for_person(course_root)
    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        known = {s.id for s in gb.students}
    # Submitted but never graded (a run that stopped half-way): listed, never dropped.
    unseen = set(find_students(course_root)) - known - set(rows)
    for student in unseen:
        rows[student] = StudentRow(student, Status(FAILED, ("submitted but not graded yet",)))
    students = sorted(known | set(rows))
    lines = []
    for student in students:
        row = rows.get(student) or StudentRow(student, Status(NO_SUBMISSION))
        lines.append(export_row(row, waiting.get(student, set())))
    with path.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(lines)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="course root (default: .)")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="CSV to write")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not class_db_path(root).exists():
        print("no gradebook.db yet: run `make autograde` first", file=sys.stderr)
        return 1
    out = args.out if args.out.is_absolute() else root / args.out
    lines = write_grades(root, out)
    waiting = sum(1 for line in lines if line["status"] != GRADED)
    print(f"wrote {out.name}: {len(lines)} students, {waiting} not fully graded (blank total)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
