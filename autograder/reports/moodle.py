"""Write the CSV that Moodle's Grades, Import, "CSV file" takes for the assignment.

``python -m autograder.reports.moodle`` (``make moodle``) writes
``artifacts/grading/moodle-import.csv``: one row a roster student with a grade here, the
identifier Moodle matches on (``--identifier``: ``email`` from the roster's ``email``,
``username`` from its ``sis_login_id``, ``idnumber`` from its ``lms_user_id``), then the
grade, scaled to ``--points`` (default: the assignment's maximum in the gradebook) as
``lms.scaled`` rounds, and, with ``--feedback``, a feedback column (the grade and each
exercise's score). At import, map the first column to that identifier and the others to the
grade item and its feedback.

>>> HEADERS["email"], HEADERS["idnumber"]
('Email address', 'ID number')

A student with no grade here has no row, so Moodle keeps what it holds (``--no-submission-zero``
writes 0 for a student with no submission).

But: the roster stands for Moodle's class list (Moodle's own export is not read), so a student
in Moodle and not in the roster is not reported. It writes a file for a person to upload; it
talks to no Moodle.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from decimal import Decimal
from pathlib import Path

from autograder.reports import lms
from autograder.reports.safe_csv import writer
from autograder.roster import Student, by_identifier

OUT = "artifacts/grading/moodle-import.csv"
# Moodle's names for its user fields, as its own grade export heads them.
HEADERS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
ROSTER_COLUMN = {"email": "email", "username": "sis_login_id", "idnumber": "lms_user_id"}


def rows(
    args: argparse.Namespace, roster: dict[str, Student], grades: dict[str, lms.ClassGrade]
) -> tuple[lms.Report, list[list[str]]]:
    """The file's rows (header first) and the report."""
    column = ROSTER_COLUMN[args.identifier]
    by_identifier(roster, column)  # refuses a repeated or formula-like identifier, by row
    report = lms.Report("Moodle")
    points = Decimal(str(args.points)) if args.points else None
    header = [HEADERS[args.identifier], args.assignment_name]
    if args.feedback:
        header.append(f"{args.assignment_name} (feedback)")
    out = [header]
    for student_id, grade in sorted(grades.items()):
        student = roster.get(student_id)
        ident = getattr(student, column) if student else ""
        if not ident:
            _absent(report, grade, student, column)
            continue
        who = f"{student_id} → {HEADERS[args.identifier]} {ident}"
        zero = lms.zero_for_no_submission(grade, args.no_submission_zero)
        if grade.final is None and not zero:
            line = f"{who}: {grade.here()}; the file: no row (Moodle keeps what it holds)"
            report.add(lms.NO_GRADE, line)
            continue
        scale = points or Decimal(str(grade.maximum))
        value = Decimal(0) if zero else lms.scaled(grade.final or 0.0, grade.maximum, scale)
        why = "no submission, 0 (--no-submission-zero)" if zero else grade.here()
        text = lms.as_text(value)
        report.add(lms.MATCHED, f"{who}: {why} → {text} of {lms.points_text(scale)}")
        out.append([ident, text, grade.feedback()] if args.feedback else [ident, text])
    return report, out


def _absent(
    report: lms.Report, grade: lms.ClassGrade, student: Student | None, column: str
) -> None:
    where = f"its {column} is empty in the roster" if student else "not in the roster"
    template = lms.UNMATCHED if grade.final is not None else lms.ABSENT
    report.add(template, f"{grade.student} ({where}): {grade.here()}")


def as_csv(table: list[list[str]]) -> str:
    """The rows as CSV text: the identifier column verbatim (checked), the rest neutralized."""
    handle = io.StringIO(newline="")
    out = writer(handle, verbatim={0}, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    out.writerows(table)
    return handle.getvalue()


def build(args: argparse.Namespace) -> lms.Builder:
    def make(root: Path, roster: dict[str, Student]) -> tuple[lms.Report, str]:
        report, table = rows(args, roster, lms.class_grades(root, roster))
        return report, as_csv(table)

    return make


def parser() -> argparse.ArgumentParser:
    """The command's options."""
    out = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    lms.common_options(out, OUT)
    out.add_argument(
        "--identifier",
        choices=sorted(HEADERS),
        default="email",
        help="what Moodle matches students on (default: email)",
    )
    out.add_argument(
        "--points",
        type=float,
        help="the grade item's maximum (default: the assignment's maximum in the gradebook)",
    )
    out.add_argument("--feedback", action="store_true", help="add a feedback column")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return lms.run(args, build(args))


if __name__ == "__main__":
    sys.exit(main())
