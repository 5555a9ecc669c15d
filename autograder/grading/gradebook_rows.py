"""One student's grading as plain data, and its rows moved between nbgrader gradebooks.

Each submission is graded into a private copy of the gradebook (``make_template``), so no two
processes write one SQLite file; ``student_rows`` reads back what nbgrader wrote, and
``merge_student`` writes it into the class gradebook in one transaction, keeping every hand
score and comment and the extension a person granted (``carry_extension`` gives the private
copy that extension, for nbgrader's late penalty); ``flag_ungraded`` and ``flag_refused``
leave scores to a person.
``StudentResult`` is how every grading of a student ends (graded, refused, never came back).

>>> result = StudentResult("ada", graded=False, jailed=False, seconds=0.0,
...                        problems=(Problem(NOT_GRADED_KIND, "", "the worker died"),))
>>> result.stopped, result.record()["problems"]
(True, [{'kind': 'not_graded', 'notebook': '', 'detail': 'the worker died'}])

But: it does not grade or decide a status (``reports.summary`` does), and moving rows relies on
nbgrader's schema (gradebook 0.9, rows keyed by UUID strings, so files never collide).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry, SubmittedNotebook

from autograder.course import sqlite_uri
from autograder.problems import NOT_GRADED_KIND, Problem

Rows = dict[str, dict[str, Any]]  # table -> {"columns": [...], "rows": [[...], ...]}


def make_template(class_db: Path, template: Path) -> None:
    """Copy the class gradebook to ``template`` without any student or submission in it."""
    shutil.copyfile(class_db, template)
    with Gradebook(f"sqlite:///{template}") as gradebook:
        for student in gradebook.students:
            gradebook.remove_student(student.id)  # their submissions, grades and comments too
    # The API cannot compact a file: VACUUM keeps the copy each submission takes small.
    with sqlite3.connect(template) as db:
        db.execute("VACUUM")


def _submitted_notebooks(gradebook: Gradebook, student: str) -> list[SubmittedNotebook]:
    """Every notebook ``student`` submitted, in any assignment; none for an unknown student."""
    try:
        submissions = gradebook.find_student(student).submissions
    except MissingEntry:
        return []
    return [notebook for submission in submissions for notebook in submission.notebooks]


_SUBMISSION = (
    "SELECT s.id FROM submitted_assignment s JOIN assignment a ON s.assignment_id = a.id"
    " WHERE a.name = ? AND s.student_id = ?"
)
_NOTEBOOKS = f"SELECT id FROM submitted_notebook WHERE assignment_id IN ({_SUBMISSION})"
_EXTENSION = f"SELECT extension FROM submitted_assignment WHERE id IN ({_SUBMISSION})"
# Each table of a student's submission, parents first, with the rows that are theirs.
_OWN_ROWS = {
    "submitted_assignment": f"id IN ({_SUBMISSION})",
    "submitted_notebook": f"assignment_id IN ({_SUBMISSION})",
    "grade": f"notebook_id IN ({_NOTEBOOKS})",
    "comment": f"notebook_id IN ({_NOTEBOOKS})",
}


# nbgrader's schema has these columns only second in a unique pair (``cell_id, notebook_id``)
# or not at all, so finding a student's rows by them read every row of the class. nbgrader's
# own queries of a student's scores do the same: without these, the summary and grades.csv
# cost 1.5x more a student at 3,000 than at 1,000 (nbgrader's export 2.2x); with them, less.
# An upgrade of nbgrader's schema that drops them loses nothing: the next merge makes them.
INDEXES = {
    "course_grade_notebook": ("grade", "notebook_id"),
    "course_comment_notebook": ("comment", "notebook_id"),
    "course_submitted_notebook_assignment": ("submitted_notebook", "assignment_id"),
}


def ensure_indexes(db: sqlite3.Connection) -> None:
    """Make the ``INDEXES`` a student's rows are found by, where they are missing."""
    for name, (table, column) in INDEXES.items():
        db.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")


def _select(db: sqlite3.Connection, sql: str, params: tuple[str, ...]) -> dict[str, Any]:
    cursor = db.execute(sql, params)
    return {"columns": [d[0] for d in cursor.description], "rows": [list(r) for r in cursor]}


def student_rows(db_path: Path, assignment: str, student: str) -> Rows:
    """Everything nbgrader stored about ``student``'s submission of ``assignment``."""
    with sqlite3.connect(db_path) as db:
        rows = {"student": _select(db, "SELECT * FROM student WHERE id = ?", (student,))}
        for table, own in _OWN_ROWS.items():
            rows[table] = _select(db, f"SELECT * FROM {table} WHERE {own}", (assignment, student))
        return rows


# How long a merge waits for another writer (the Formgrader saving a hand grade) to let go of
# the class gradebook; past it, sqlite3 says the database is locked.
MERGE_WAIT_SECONDS = 60.0


# What a person gives in the Formgrader (or with nbgrader's API), kept across regrades.
_BY_HAND = {
    "grade": ("manual_score", "extra_credit"),
    "comment": ("manual_comment",),
}


def hand_marks(db: sqlite3.Connection, assignment: str, student: str) -> dict[str, list[list[Any]]]:
    """Every hand score, extra credit and comment a person gave ``student``, by table:
    rows of (notebook id, cell id, *values)."""
    marks = {}
    for table, columns in _BY_HAND.items():
        values = ", ".join(f"t.{c}" for c in columns)
        given = " OR ".join(f"t.{c} IS NOT NULL" for c in columns)
        # The assignment's notebook id, not the submitted notebook's: it stays across regrades.
        query = (
            f"SELECT sn.notebook_id, t.cell_id, {values} FROM {table} t"
            " JOIN submitted_notebook sn ON t.notebook_id = sn.id"
            f" WHERE sn.assignment_id IN ({_SUBMISSION}) AND ({given})"
        )
        marks[table] = [list(row) for row in db.execute(query, (assignment, student))]
    return marks


def carry_extension(class_db: Path, private_db: Path, assignment: str, student: str) -> None:
    """Give ``student``'s submission in ``private_db`` the extension a person granted them in
    the class gradebook, before nbgrader grades into it: its late penalty then counts the
    extension, and ``merge_student``, which replaces the submission's row with the private
    one, keeps it. Copied as stored: both files are nbgrader's schema."""
    if not class_db.is_file():
        return
    url = sqlite_uri(class_db, read_only=True)
    with contextlib.closing(sqlite3.connect(url, uri=True, timeout=MERGE_WAIT_SECONDS)) as db:
        found = db.execute(_EXTENSION, (assignment, student)).fetchone()
    if found is None or found[0] is None:
        return
    with Gradebook(f"sqlite:///{private_db}") as gradebook:
        gradebook.update_or_create_student(student)
        submission_id = gradebook.update_or_create_submission(assignment, student).id
    with contextlib.closing(sqlite3.connect(private_db)) as db, db:
        db.execute(
            "UPDATE submitted_assignment SET extension = ? WHERE id = ?", (found[0], submission_id)
        )


def _restore_hand_marks(
    db: sqlite3.Connection, assignment: str, student: str, marks: dict[str, list[list[Any]]]
) -> None:
    for table, rows in marks.items():
        columns = _BY_HAND[table]
        sets = ", ".join(f"{c} = ?" for c in columns)
        for notebook, cell, *values in rows:
            db.execute(
                f"UPDATE {table} SET {sets} WHERE cell_id = ? AND notebook_id IN ("
                " SELECT id FROM submitted_notebook WHERE notebook_id = ?"
                f" AND assignment_id IN ({_SUBMISSION}))",
                (*values, cell, notebook, assignment, student),
            )


def _insert(db: sqlite3.Connection, table: str, data: dict[str, Any], verb: str) -> None:
    columns = ", ".join(data["columns"])
    marks = ", ".join("?" for _ in data["columns"])
    db.executemany(f"{verb} INTO {table} ({columns}) VALUES ({marks})", data["rows"])


def merge_student(class_db: Path, assignment: str, student: str, rows: Rows) -> None:
    """Replace ``student``'s results for ``assignment`` in the class gradebook with ``rows``.

    One transaction: a reader sees either the old grading or the new one, never a mix.
    A student already in the class gradebook keeps their name and email, and every score,
    extra credit and comment a person gave them is put back on the same cell. Their
    submission keeps the extension the class gradebook holds now: a person's latest word,
    even one given while this grading ran (which ``carry_extension`` read at its start).

    SQL, not the ``Gradebook`` API: the API has no way to copy a submission from another
    gradebook, and its calls commit one object at a time (``remove_submission``, then
    ``add_submission`` with new ids, then each hand mark), so a Formgrader reading the class
    gradebook meanwhile would see a student half replaced, hand marks missing.
    """
    with contextlib.closing(sqlite3.connect(class_db, timeout=MERGE_WAIT_SECONDS)) as db, db:
        ensure_indexes(db)
        marks = hand_marks(db, assignment, student)
        granted = db.execute(_EXTENSION, (assignment, student)).fetchone()
        for table, own in reversed(_OWN_ROWS.items()):  # children first
            db.execute(f"DELETE FROM {table} WHERE {own}", (assignment, student))
        _insert(db, "student", rows["student"], "INSERT OR IGNORE")
        for table in _OWN_ROWS:
            _insert(db, table, rows[table], "INSERT")
        _restore_hand_marks(db, assignment, student, marks)
        if granted is not None:  # None: the student's first grading, with none to keep
            db.execute(
                f"UPDATE submitted_assignment SET extension = ? WHERE id IN ({_SUBMISSION})",
                (granted[0], assignment, student),
            )


def judged_scores_kept(
    db_path: Path, student: str, verdicts: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], str]]:
    """Each judged test cell whose automatic score in the gradebook is not the judged score,
    with why: the judge wrote the outputs nbgrader scored, so any difference means a cell's
    outputs were tampered with after it, and a person must look."""
    with Gradebook(f"sqlite:///{db_path}") as gradebook:
        stored = {
            (notebook.name, grade.name): grade.auto_score
            for notebook in _submitted_notebooks(gradebook, student)
            for grade in notebook.grades
        }
    wrong = []
    for verdict in verdicts:
        key = (verdict["notebook"], verdict["cell"])
        if verdict.get("applied") and key in stored and stored[key] != verdict["verified"]:
            why = f"{verdict['cell']}: stored {stored[key]}, judged {verdict['verified']:g}"
            wrong.append((verdict, why))
    return wrong


def flag_ungraded(db_path: Path, notebooks: set[str], student: str) -> None:
    """Mark the grades of notebooks nbgrader could not open as waiting for a person."""
    if not notebooks:
        return
    with Gradebook(f"sqlite:///{db_path}") as gradebook:
        for notebook in _submitted_notebooks(gradebook, student):
            if notebook.name in notebooks:
                for grade in notebook.grades:
                    grade.needs_manual_grade, grade.auto_score = True, None
        gradebook.db.commit()


def flag_refused(db_path: Path, student: str, comment: str) -> None:
    """Leave every score of ``student``'s submission to a person: no automatic score, every
    cell and notebook flagged, and ``comment`` as the automatic comment of every answer cell
    (the Formgrader's grading view shows it in the cell's comment box)."""
    with Gradebook(f"sqlite:///{db_path}") as gradebook:
        for notebook in _submitted_notebooks(gradebook, student):
            notebook.flagged = True
            for grade in notebook.grades:
                grade.auto_score, grade.needs_manual_grade = None, True
            for remark in notebook.comments:
                remark.auto_comment = comment
        gradebook.db.commit()


@dataclass(frozen=True)
class StudentResult:
    """One student's grading: what nbgrader did, what was found, the rows it scored."""

    student: str
    graded: bool  # nbgrader ran the notebooks (False: refused, or grading stopped)
    jailed: bool  # the student's kernels ran in the sandbox
    seconds: float  # grading this student took, in the worker
    problems: tuple[Problem, ...] = ()
    rows: Rows = field(default_factory=dict)  # the private gradebook's rows, to be merged
    verdicts: tuple[dict[str, Any], ...] = ()  # the judged verdict of each test cell
    log: str = ""  # nbgrader's log, or the traceback of a grading that stopped
    merge_seconds: float = 0.0  # writing the rows into the class gradebook, in the command

    @property
    def stopped(self) -> bool:
        """Whether grading stopped for a reason that is not the student's: nothing of it
        may reach the gradebook, whose earlier grades of the student stay."""
        return any(p.kind == NOT_GRADED_KIND for p in self.problems)

    def record(self) -> dict[str, Any]:
        """The entry of ``results.json``: everything but the rows, verdicts and log, which
        are kept elsewhere."""
        kept = {k: v for k, v in vars(self).items() if k not in ("rows", "verdicts", "log")}
        return {**kept, "problems": [asdict(p) for p in self.problems]}
