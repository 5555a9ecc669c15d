"""What the Canvas and Moodle files share: each student's grade, its scaling, the run's report.

``class_grades`` reads every student from the same rows as ``grades.csv``
(``export_grades.class_rows``), with nbgrader's late penalty subtracted: the grade an LMS
gets is ``max(0, total - late_penalty)``, and only for a student whose status is ``graded``.
Any other status (no submission, failed, waiting for a person, or a kind added later) is no
grade, and the file leaves the LMS's own value alone unless ``--no-submission-zero`` gives a
student with no submission 0. ``scaled`` puts a grade on the LMS column's points:

>>> scaled(18, 21, 20), scaled(21, 21, 20), scaled(1, 2, 1.01)
(Decimal('17.14'), Decimal('20.00'), Decimal('0.51'))

``Report`` lists every student of both sides under one heading, never dropping one.

But: it writes no file itself (``canvas`` and ``moodle`` do), and it talks to no LMS.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from autograder.course import ASSIGNMENT, GRADED, NO_SUBMISSION, Status, class_db_path
from autograder.problems import printable
from autograder.reports.export_grades import assignment_maximum, class_rows, late_penalties
from autograder.reports.safe_csv import replacing
from autograder.roster import ROSTER_FILE, RosterError, Student, read_roster

CENT = Decimal("0.01")
EXIT_UNMATCHED = 2  # graded students the LMS file cannot reach; nothing written


@dataclass(frozen=True)
class ClassGrade:
    """One student's grade as the gradebook holds it."""

    student: str
    status: Status
    total: float | None  # before the late penalty; None unless graded
    maximum: float
    late_penalty: float = 0.0
    scores: dict[str, float | None] = field(default_factory=dict)
    maxima: dict[str, float] = field(default_factory=dict)

    @property
    def graded(self) -> bool:
        return self.status.kind == GRADED and self.total is not None

    @property
    def final(self) -> float | None:
        if not self.graded or self.total is None:
            return None
        return max(0.0, self.total - self.late_penalty)

    def here(self) -> str:
        """What the course holds for the student, in words."""
        if not self.graded:
            return printable(str(self.status))
        late = f", late penalty {self.late_penalty:g}: {self.final:g}" if self.late_penalty else ""
        return f"{self.total:g}/{self.maximum:g}{late}"

    def feedback(self) -> str:
        """A line for the LMS's feedback column: the grade and each exercise's score."""
        parts = [
            f"{name} {score:g}/{self.maxima.get(name, 0):g}"
            for name, score in self.scores.items()
            if score is not None
        ]
        text = f"{ASSIGNMENT} {self.here()}"
        return f"{text} ({', '.join(parts)})" if parts and self.graded else text

    def in_file(self, points: Decimal, no_submission_zero: bool) -> tuple[str, str] | None:
        """The file's grade on ``points``, two decimals as Canvas exports them, and why; or None."""
        if no_submission_zero and self.status.kind == NO_SUBMISSION:
            return "0.00", "no submission, 0 (--no-submission-zero)"
        if self.final is None:
            return None
        return f"{scaled(self.final, self.maximum, points):.2f}", self.here()


def scaling_maximum(course_root: Path) -> float:
    """The assignment's points in the gradebook, which an LMS's grades are scaled from;
    SystemExit when it holds no notebook of the assignment yet (students or a due date added
    by hand before the first grading), since nothing can be scaled from 0."""
    maximum = assignment_maximum(course_root)
    if maximum is None:
        raise SystemExit(
            f"gradebook.db holds no notebook of assignment {ASSIGNMENT} yet: "
            "run `make autograde` first"
        )
    return maximum


def class_grades(course_root: Path, roster: dict[str, Student]) -> dict[str, ClassGrade]:
    """Every student here or in the roster, by course id, as ``grades.csv`` has them
    (SystemExit as ``scaling_maximum`` says)."""
    maximum = scaling_maximum(course_root)
    penalties = late_penalties(course_root)
    grades = {}
    for row in class_rows(course_root):
        graded = row.state.kind == GRADED and row.total is not None and not row.waiting
        scores = {name: None if name in row.waiting else s for name, s in row.scores.items()}
        grades[row.student] = ClassGrade(
            row.student,
            row.state,
            row.total if graded else None,
            maximum,
            penalties.get(row.student, 0.0),
            scores,
            dict(row.maxima),
        )
    for student in roster:
        grades.setdefault(student, ClassGrade(student, Status(NO_SUBMISSION), None, maximum))
    return grades


def scaled(score: float, maximum: float, points: float | Decimal) -> Decimal:
    """``score`` of ``maximum`` as points of ``points``, rounded half up to two decimals
    (computed in decimal, so 0.505 is 0.51, not a float's 0.50)."""
    exact = Decimal(str(score)) * Decimal(str(points)) / Decimal(str(maximum))
    return exact.quantize(CENT, rounding=ROUND_HALF_UP)


def points_text(points: Decimal) -> str:
    return f"{float(points):g}"


MATCHED = "matched: the file holds their grade"
OVERWRITTEN = "differs from what {lms} holds: replaced (--overwrite)"
KEPT = "differs from what {lms} holds: {lms}'s kept (--overwrite replaces it)"
NO_GRADE = "in {lms}, no grade here"
NOT_IN_ROSTER = f"in {{lms}}, not in {ROSTER_FILE}"
UNMATCHED = "graded here, not in {lms}"
ABSENT = "not graded here, not in {lms}"
NEUTRALIZED = "cells neutralized for spreadsheets (a ' in front)"
ORDER = (MATCHED, OVERWRITTEN, KEPT, NO_GRADE, NOT_IN_ROSTER, UNMATCHED, ABSENT, NEUTRALIZED)


@dataclass
class Report:
    """What a run did for every student, by heading; printed whether or not it wrote."""

    lms: str
    title: str = ""
    sections: dict[str, list[str]] = field(default_factory=dict)

    def add(self, template: str, line: str) -> None:
        self.sections.setdefault(template, []).append(printable(line))

    def add_absent(self, grade: ClassGrade, where: str) -> None:
        """A student here whom the file cannot reach: ``where`` says what the roster holds."""
        template = UNMATCHED if grade.final is not None else ABSENT
        self.add(template, f"{grade.student} ({where}): {grade.here()}")

    def text(self) -> str:
        lines = [self.title] if self.title else []
        for template in ORDER:
            entries = self.sections.get(template, [])
            if entries:
                lines.append(f"{template.format(lms=self.lms)} ({len(entries)}):")
                lines += [f"  {entry}" for entry in entries]
        return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class LmsOptions:
    """What the Canvas and Moodle commands share: where, what to write, and which students."""

    root: Path  # the course folder
    out: Path  # the file to write; relative: in the course folder
    assignment_name: str = ASSIGNMENT  # the assignment's name in the LMS
    no_submission_zero: bool = False  # 0 for a student with no submission
    allow_unmatched: bool = False  # write even when graded students are not in the LMS


def run(
    options: LmsOptions, build: Callable[[Path, dict[str, Student]], tuple[Report, str]]
) -> int:
    """Check the course, ``build`` the file's text and the report, print the report, and
    write the file unless a graded student is unmatched (exit 2) or the input is wrong
    (exit 1): a failed run writes nothing and leaves an earlier file as it was."""
    root = options.root.resolve()
    if not class_db_path(root).exists():
        print("no gradebook.db yet: run `make autograde` first", file=sys.stderr)
        return 1
    try:
        roster = read_roster(root)  # maps the course's ids to the LMS's
        if roster is None:
            raise RosterError(
                f"{root / ROSTER_FILE} is missing: the LMS files need it to know each "
                "student in the LMS (columns: student_id,first_name,last_name,email,lms_user_id,"
                "sis_login_id,section; see docs/guides/instructors.md)"
            )
        report, text = build(root, roster)
    except SystemExit as error:  # a roster, export, identifier or gradebook problem
        print(error.code, file=sys.stderr)
        return 1
    out = options.out if options.out.is_absolute() else root / options.out
    unmatched = len(report.sections.get(UNMATCHED, []))
    print(report.text())
    if unmatched and not options.allow_unmatched:
        print(
            f"\n{unmatched} graded student(s) are not in {report.lms} (listed above): nothing "
            f"was written. Add them to {ROSTER_FILE} with their {report.lms} identifier, or "
            "pass --allow-unmatched to write the file without them.",
            file=sys.stderr,
        )
        return EXIT_UNMATCHED
    with replacing(out) as handle:
        handle.write(text)
    print(f"\nwrote {out}")
    return 0
