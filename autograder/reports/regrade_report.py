"""Whose grade a regrade moved: the gradebook before and after, compared test cell by test cell.

``snapshot`` reads every student's test-cell scores from the gradebook (a person's score over
the automatic one, None where nobody could give one yet); ``changes`` lists each student with
a test cell whose score differs between two snapshots, with the totals before and after;
``write_report`` keeps them as ``artifacts/grading/regrade-<time>.csv`` and ``.md`` and
returns the table to print.

>>> before = {"ada": {"test_merge_pair_hidden_core": 0.0, "test_merge_pair_examples": 1.0}}
>>> after = {"ada": {"test_merge_pair_hidden_core": 1.0, "test_merge_pair_examples": 1.0}}
>>> [(c.student, c.before, c.after, c.cells) for c in changes(before, after)]
[('ada', 1.0, 2.0, [('test_merge_pair_hidden_core', 0.0, 1.0)])]

But: it grades nothing and changes no gradebook (``autograder.grading.grade_class`` regrades).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from autograder.course import ASSIGNMENT, RECORDS, class_db_path
from autograder.problems import printable
from autograder.reports.safe_csv import write_csv
from autograder.reports.summary import UNGRADED, given_score

# student -> test cell grade_id -> score (None: waiting for a person, or not scored)
Snapshot = dict[str, dict[str, float | None]]
COLUMNS = ("student", "before", "after", "change", "test cells that moved")


@dataclass(frozen=True)
class Change:
    """One student whose grade a regrade moved: totals (None: not complete) and the cells."""

    student: str
    before: float | None
    after: float | None
    cells: list[tuple[str, float | None, float | None]]

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


def snapshot(course_root: Path, assignment: str = ASSIGNMENT) -> Snapshot:
    """Every student's score on every test cell of ``assignment``, as the gradebook holds it."""
    from nbgrader.api import Gradebook, MissingEntry

    db = class_db_path(course_root)
    if not db.exists():
        return {}
    scores: Snapshot = {}
    with Gradebook(f"sqlite:///{db}") as gb:
        for student in sorted(s.id for s in gb.students):
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            scores[student] = {
                grade.name: given_score(grade)
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
    return scores


def total(cells: dict[str, float | None]) -> float | None:
    """A student's total, or None while any cell waits for a score (never a partial sum)."""
    if any(score is None for score in cells.values()):
        return None
    return sum(score for score in cells.values() if score is not None)


def changes(before: Snapshot, after: Snapshot) -> list[Change]:
    """Each student (by name) with a test cell scored differently after than before; a
    student new to the gradebook counts too, a student the regrade did not reach does not."""
    moved = []
    for student in sorted(after):
        old, new = before.get(student, {}), after[student]
        cells = [
            (cell, old.get(cell), new.get(cell))
            for cell in sorted(set(old) | set(new))
            if old.get(cell) != new.get(cell) or (cell in old) != (cell in new)
        ]
        if cells:
            moved.append(Change(student, total(old) if old else None, total(new), cells))
    return moved


def _score(score: float | None) -> str:
    return UNGRADED if score is None else f"{score:g}"


def _signed(score: float | None) -> str:
    return UNGRADED if score is None else f"{score:+g}"


def rows(moved: list[Change]) -> list[tuple[str, ...]]:
    """The report's rows as text, one per student: COLUMNS."""
    return [
        (
            c.student,
            _score(c.before),
            _score(c.after),
            _signed(c.change),
            "; ".join(f"{cell} {_score(a)} → {_score(b)}" for cell, a, b in c.cells),
        )
        for c in moved
    ]


def format_table(moved: list[Change], students: int) -> str:
    """The report as a Markdown table (also readable as plain text), with a closing line."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    # A student id is a folder name the student may have chosen: no escape sequence or "|"
    # of it reaches the terminal or the Markdown table.
    lines += [
        "| " + " | ".join(printable(text).replace("|", "\\|") for text in row) + " |"
        for row in rows(moved)
    ]
    if not moved:
        lines = []
    lines.append(
        f"{len(moved)} of {students} students' grades moved"
        + ("; tell them." if moved else ": nobody to tell.")
    )
    return "\n".join(lines)


def write_report(
    course_root: Path, before: Snapshot, after: Snapshot, when: datetime | None = None
) -> tuple[Path, str]:
    """Write ``regrade-<UTC time>.csv`` and ``.md`` under artifacts/grading; returns the CSV's
    path and the table to print."""
    when = when or datetime.now(UTC)
    moved = changes(before, after)
    out = course_root / RECORDS
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"regrade-{when:%Y%m%d-%H%M%S}"
    csv_path = stem.with_suffix(".csv")
    write_csv(csv_path, COLUMNS, rows(moved))  # text cells safe in a spreadsheet
    table = format_table(moved, len(after))
    title = f"# Regrade of {when:%Y-%m-%d %H:%M} UTC\n\nGrades are totals of the test cells "
    title += f"({UNGRADED}: waiting for a person); a hand grade counts over the automatic one.\n\n"
    stem.with_suffix(".md").write_text(title + table + "\n")
    return csv_path, table
