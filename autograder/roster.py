"""The class's students: who may be collected, graded and reach the gradebook and the exports.

``roster.csv`` at the course root has one row a student and a header naming its columns;
only ``student_id`` is required (the course's id: the hub account, the folder name in
``submitted/``), the others are optional and kept as text::

    student_id,first_name,last_name,email,lms_user_id,sis_login_id,section
    ada,Ada,Lovelace,ada@example.org,1001,alovelace,A

``make hub`` writes one from its accounts. Every id, in the roster or found in a folder name,
must be a safe id (``SAFE_ID``): letters, digits, ``_``, ``.`` and ``-``, starting with a
letter or a digit, at most 64 characters; such an id can be neither markup, nor a path, nor a
spreadsheet formula, nor split nbgrader's ``student+assignment+time`` names.

>>> is_safe_id("bpe-student1"), is_safe_id("<img src=x>"), is_safe_id("=1+1"), is_safe_id("..")
(True, False, False, False)

``by_identifier`` finds students by an id an LMS knows them by (``LMS_IDENTIFIERS``), for the
Canvas and Moodle files (``autograder.reports.canvas``, ``autograder.reports.moodle``).

But: it reads the file and answers questions; it changes nothing. Without ``roster.csv`` (a
course on one machine) every folder with a safe id is a student.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

ROSTER_FILE = "roster.csv"
NOT_A_STUDENT = "not a student of the class"  # the status exports give such an id
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def is_safe_id(text: str) -> bool:
    """True for a safe id (``SAFE_ID``, as the module says)."""
    return SAFE_ID.fullmatch(text) is not None


@dataclass(frozen=True)
class Student:
    """One row of the roster."""

    student_id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""


COLUMNS = tuple(f.name for f in fields(Student))


class RosterError(SystemExit):
    """``roster.csv`` cannot be read; the message names the row and what to do."""


def read_roster(course_root: Path) -> dict[str, Student] | None:
    """The roster's students by id, or None when the course has no ``roster.csv``.

    Raises ``RosterError`` naming the row for a missing ``student_id`` column, an empty,
    unsafe or repeated id, or a row with more cells than the header."""
    path = course_root / ROSTER_FILE
    if not path.exists():
        return None
    with path.open(newline="", encoding="utf-8-sig") as file:
        rows = csv.DictReader(file)
        header = [name.strip() for name in rows.fieldnames or []]
        if "student_id" not in header:
            raise RosterError(
                f"{path}: the first line must name the columns, one of them student_id "
                f"(columns: {', '.join(COLUMNS)}); it reads {','.join(header) or '(nothing)'}"
            )
        rows.fieldnames = header
        students: dict[str, Student] = {}
        for number, row in enumerate(rows, start=2):
            student_id = _checked_id(path, number, row, students)
            known = {name: (row.get(name) or "").strip() for name in COLUMNS[1:]}
            students[student_id] = Student(student_id, **known)
    return students


def _checked_id(
    path: Path, number: int, row: dict[str | None, Any], seen: dict[str, Student]
) -> str:
    if None in row:
        raise RosterError(f"{path}, row {number}: more cells than the header names")
    student_id = (row.get("student_id") or "").strip()
    if not student_id:
        raise RosterError(f"{path}, row {number}: student_id is empty; give every row an id")
    if not is_safe_id(student_id):
        raise RosterError(
            f"{path}, row {number}: the student_id {student_id!r} is not a safe id (letters, "
            "digits, _ . -, starting with a letter or digit, at most 64 characters)"
        )
    if student_id in seen:
        raise RosterError(f"{path}, row {number}: the student_id {student_id!r} is repeated")
    return student_id


def why_not_a_student(student_id: str, roster: dict[str, Student] | None) -> str | None:
    """Why ``student_id`` is no student of the class, or None when it is one.

    >>> why_not_a_student("ada", None) is None, why_not_a_student("bob", {})
    (True, "'bob' is not in roster.csv")
    """
    if not is_safe_id(student_id):
        return f"{student_id[:80]!r} is not a safe student id (letters, digits, _ . -)"
    if roster is not None and student_id not in roster:
        return f"{student_id!r} is not in {ROSTER_FILE}"
    return None


# The roster's columns an LMS knows a student by: Canvas's ``ID`` and ``SIS Login ID``, and
# Moodle's ID number, username and email address.
LMS_IDENTIFIERS = ("lms_user_id", "sis_login_id", "email")
# Spreadsheet formula characters (OWASP), for every CSV the course writes too: an identifier
# cannot be neutralized with a ``'``, since the LMS would then match nobody, so one that
# starts so is refused.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def identifier_key(column: str, value: str) -> str:
    """How an identifier compares: logins and email addresses ignore case, ids do not.

    >>> identifier_key("email", " Ada@Example.org"), identifier_key("lms_user_id", "A1")
    ('ada@example.org', 'A1')
    """
    value = value.strip()
    return value.casefold() if column in ("sis_login_id", "email") else value


def by_identifier(roster: dict[str, Student], column: str) -> dict[str, Student]:
    """The roster's students by ``column`` (one of ``LMS_IDENTIFIERS``, compared by
    ``identifier_key``); students with that cell empty are left out.

    Raises ``RosterError`` naming the row for an identifier two rows share, or one that
    begins with a spreadsheet formula character (``=``, ``+``, ``-``, ``@``, tab, CR).

    >>> students = {"ada": Student("ada", email="ada@x.org"), "bo": Student("bo")}
    >>> list(by_identifier(students, "email"))
    ['ada@x.org']
    """
    if column not in LMS_IDENTIFIERS:
        raise ValueError(f"{column!r} is not one of {', '.join(LMS_IDENTIFIERS)}")
    found: dict[str, Student] = {}
    rows = {student_id: row for row, student_id in enumerate(roster, start=2)}  # header: row 1
    for student_id, student in roster.items():
        value = getattr(student, column)
        if not value:
            continue
        row = rows[student_id]
        if value.startswith(FORMULA_START):
            raise RosterError(
                f"{ROSTER_FILE}, row {row}: the {column} {value[:80]!r} begins with "
                f"{value[0]!r}, which a spreadsheet runs as a formula, and an LMS matches "
                "students on it as written; correct it in the LMS and the roster"
            )
        key = identifier_key(column, value)
        if key in found:
            first = rows[found[key].student_id]
            raise RosterError(
                f"{ROSTER_FILE}, row {row}: the {column} {value!r} is also row {first}'s "
                f"({found[key].student_id}); each student needs their own"
            )
        found[key] = student
    return found
