"""Write ``grades.csv``: one row per student, each exercise's score, the total and a status.

``nbgrader export`` writes one number per student: a submission with a deleted test cell, an
unreadable notebook or a kernel that could not be graded gets the sum of whatever was scored
(say 11/21), with nothing saying a person still has to look. ``make export`` runs this module
instead. It reads the same gradebook (through nbgrader's API, via ``autograder.summary``, so
verified scores and ``needs_manual_grade`` count) plus what ``make autograde`` recorded, and
writes for each student:

- ``status``: ``graded``, ``needs manual grading: <why>``, ``failed: <why>`` or ``no
  submission``;
- ``total``: the score out of ``max``, left blank unless the status is ``graded``, since a
  partial sum would read as a grade;
- one column per exercise: blank where a person must decide about that exercise.

It grades nothing and does not change the gradebook. nbgrader's own export stays available as
``make export-nbgrader`` (``grades-nbgrader.csv``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from autograder.summary import ASSIGNMENT, EXERCISES, OUT, StudentRow, collect

COLUMNS = ("student_id", "status", "total", "max", *EXERCISES)


def _waiting_for_person(course_root: Path) -> dict[str, set[str]]:
    """Exercises verify flagged for a person, by student (their verified score stands)."""
    path = course_root / OUT / "verify.json"
    waiting: dict[str, set[str]] = {}
    for entry in json.loads(path.read_text()) if path.exists() else []:
        if not entry.get("needs_person"):
            continue
        for name in EXERCISES:
            if str(entry.get("cell", "")).startswith(f"test_{name}_"):
                waiting.setdefault(entry["student"], set()).add(name)
    return waiting


def export_row(row: StudentRow, waiting: set[str]) -> dict[str, str]:
    """A CSV row: scores only where nobody has to decide anything.

    >>> scores, maxima = {"pair_counts": 3.0, "train_bpe": None}, {"pair_counts": 3, "train_bpe": 5}
    >>> row = StudentRow("ada", "needs manual grading: locked test cell deleted", scores, maxima)
    >>> export_row(row, set())["pair_counts"], export_row(row, set())["train_bpe"]
    ('3', '')
    >>> export_row(row, set())["total"], export_row(row, set())["max"]
    ('', '8')
    """
    failed = row.status.startswith("failed")
    graded = row.status == "graded" and row.total is not None
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

    from autograder.grade_class import class_db_path

    rows = {row.student: row for row in collect(course_root)}
    waiting = _waiting_for_person(course_root)
    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        students = sorted(s.id for s in gb.students)
    lines = []
    for student in students:
        row = rows.get(student) or StudentRow(student, status=f"no submission of {ASSIGNMENT}")
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
    from autograder.grade_class import class_db_path

    root = args.root.resolve()
    if not class_db_path(root).exists():
        print("no gradebook.db yet: run `make autograde` first", file=sys.stderr)
        return 1
    out = args.out if args.out.is_absolute() else root / args.out
    lines = write_grades(root, out)
    waiting = sum(1 for line in lines if line["status"] != "graded")
    print(f"wrote {out.name}: {len(lines)} students, {waiting} not fully graded (blank total)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
