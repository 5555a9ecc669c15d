"""Write the CSV that Moodle's Grades, Import, "CSV file" takes for the assignment.

``python -m autograder moodle`` (``make moodle``) writes
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

import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from autograder.reports import lms
from autograder.reports.safe_csv import writer
from autograder.roster import Student, by_identifier

OUT = "artifacts/grading/moodle-import.csv"
# Moodle's names for its user fields, as its own grade export heads them.
HEADERS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
ROSTER_COLUMN = {"email": "email", "username": "sis_login_id", "idnumber": "lms_user_id"}


@dataclass(frozen=True, kw_only=True)
class MoodleOptions(lms.LmsOptions):
    """What the Moodle command was told, besides what it shares with Canvas's."""

    identifier: str = "email"  # what Moodle matches students on: a key of HEADERS
    points: float | None = None  # the grade item's maximum; None: the assignment's
    feedback: bool = False  # add a feedback column


def rows(
    args: MoodleOptions, roster: dict[str, Student], grades: dict[str, lms.ClassGrade]
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
            where = f"its {column} is empty in the roster" if student else "not in the roster"
            report.add_absent(grade, where)
            continue
        who = f"{student_id} → {HEADERS[args.identifier]} {ident}"
        scale = points or Decimal(str(grade.maximum))
        given = grade.in_file(scale, args.no_submission_zero)
        if given is None:
            line = f"{who}: {grade.here()}; the file: no row (Moodle keeps what it holds)"
            report.add(lms.NO_GRADE, line)
            continue
        text, why = given
        report.add(lms.MATCHED, f"{who}: {why} → {text} of {lms.points_text(scale)}")
        out.append([ident, text, grade.feedback()] if args.feedback else [ident, text])
    return report, out


def run(options: MoodleOptions) -> int:
    """Write the file Moodle imports (``lms.run``); the exit status."""

    def build(root: Path, roster: dict[str, Student]) -> tuple[lms.Report, str]:
        report, table = rows(options, roster, lms.class_grades(root, roster))
        handle = io.StringIO(newline="")
        # The identifier column verbatim (``rows`` checked it), the rest neutralized.
        writer(handle, verbatim={0}, lineterminator="\n").writerows(table)
        return report, handle.getvalue()

    return lms.run(options, build)
