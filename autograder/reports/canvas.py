"""Fill the assignment's column of a Canvas gradebook export, for Canvas's Grades, Import.

``python -m autograder canvas EXPORT.csv`` (``make canvas CANVAS=EXPORT.csv``) reads
the CSV Canvas's Grades, Export gives (``Student, ID, SIS User ID, SIS Login ID, Section``,
one column per assignment named ``Name (id)``, maybe a ``Manual Posting`` row, a ``Points
Possible`` row, then one row a student, the test student last) and writes
``artifacts/grading/canvas-import.csv``: the same file with the assignment's column (the one
named ``bpe (id)`` or ``bpe``, after ``--assignment-name``, or ``--column``) holding each matched
student's grade scaled to the column's points possible (``lms.scaled``, which divides by the
assignment's maximum in the gradebook), or a new column ``bpe`` worth the assignment's points
(``--points``) when there is none. A roster student is the Canvas row whose ``ID`` is their
``lms_user_id``, else whose ``SIS Login ID`` is their ``sis_login_id``.
A grade Canvas holds that differs (typed in Canvas, ``EX``) is kept unless ``--overwrite``.

Every other cell is copied as it reads (the ``csv`` module reads and writes the file, quoting
a field only where it must, as Canvas does; the BOM and the line ends are kept), except a text
cell that begins with a spreadsheet formula character, which gets a ``'`` in front and is
reported; the identifier columns are never changed, and one that begins so stops the run.

But: it reads comma-separated exports with a decimal point (Canvas's default in English);
another separator is refused. It writes a file for a person to upload; it talks to no Canvas.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from autograder.reports import lms
from autograder.reports.safe_csv import check_identifier, is_formula, neutral
from autograder.roster import Student, by_identifier, identifier_key

OUT = "artifacts/grading/canvas-import.csv"
IDENTIFIERS = ("ID", "SIS User ID", "SIS Login ID", "Integration ID", "Root Account")
POINTS_POSSIBLE = "Points Possible"
TEST_STUDENT = "Student, Test"
_WITH_ID = re.compile(r"(?P<name>.*) \((?P<id>\d+)\)")


class ExportError(SystemExit):
    """The export is not in the shape Canvas gives; nothing is written."""


@dataclass
class Record:
    """One CSV record: its cells as they read."""

    cells: list[str]

    def value(self, index: int) -> str:
        return self.cells[index] if index < len(self.cells) else ""


def split_records(text: str) -> list[Record]:
    """The records of a CSV text, read by the ``csv`` module (a blank line has no cells);
    text after a closing quote is kept, as the module's default reader does (``"a"b``: ``ab``).

    >>> [r.cells for r in split_records('a,"b, ""c"" d"\\r\\n\\r\\n1,"x\\ny"\\n')]
    [['a', 'b, "c" d'], [], ['1', 'x\\ny']]
    """
    try:  # strict only to tell a file cut inside a quoted cell
        list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        if "end of data" in str(error):
            message = "the export ends inside a quoted cell: is it the whole file?"
            raise ExportError(message) from error
    return [Record(cells) for cells in csv.reader(io.StringIO(text, newline=""))]


def joined(records: list[Record], end: str) -> str:
    """The records as CSV text whose lines end in ``end``, each field quoted only when it
    holds a comma, a quote or a line end, as Canvas writes them.

    >>> joined([Record(["17.14", 'Lovelace, "Ada" A', "a\\rb"]), Record([])], "\\n")
    '17.14,"Lovelace, ""Ada"" A","a\\rb"\\n\\n'
    """
    lines = []
    for record in records:
        line = io.StringIO()
        # "\r\n" as the writer's terminator makes it quote a field holding either character.
        csv.writer(line, lineterminator="\r\n").writerow(record.cells)
        lines.append(line.getvalue()[: -len("\r\n")] + end)
    return "".join(lines)


def number(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


@dataclass
class Export:
    """A Canvas gradebook export, split into its header, special rows and student rows."""

    path: Path
    bom: str
    end: str  # the line end the file uses
    closed: bool  # whether its last line has one
    records: list[Record]
    header: list[str]
    points_row: int
    students: list[int]  # record indices of the student rows

    def where(self, index: int) -> str:
        return f"{self.path.name}, row {index + 1}"


def read_export(path: Path) -> Export:
    """Read and check the export's shape; ``ExportError`` says what is wrong."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExportError(f"cannot read {path} as a UTF-8 CSV file: {error}") from error
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    records = split_records(text[len(bom) :])
    first_end = re.search(r"\r\n|\n|\r", text)  # the file's line end is its first line's
    end = first_end.group() if first_end else "\r\n"
    closed = text.endswith(("\n", "\r"))
    if not records:
        raise ExportError(f"{path} is empty")
    header = list(records[0].cells)
    if "ID" not in header or not ({"Student", "LastName"} & set(header)):
        separator = " (it looks separated by ';')" if ";" in ",".join(header) else ""
        raise ExportError(
            f"{path}, row 1: a Canvas export starts with Student,ID,SIS User ID,SIS Login ID,"
            f"Section{separator}; download it again from Grades, Export (comma-separated)"
        )
    points_row = next(
        (i for i, r in enumerate(records) if r.value(0).strip() == POINTS_POSSIBLE), None
    )
    if points_row is None:
        raise ExportError(f"{path}: no '{POINTS_POSSIBLE}' row; export the whole gradebook")
    students = [i for i in range(points_row + 1, len(records)) if any(records[i].cells)]
    return Export(path, bom, end, closed, records, header, points_row, students)


def target_column(export: Export, name: str, column: str | None) -> int | None:
    """The index of the assignment's column, or None when Canvas has none yet."""
    if column is not None:
        if column not in export.header:
            raise ExportError(f"{export.path}: no column {column!r} (--column) in row 1")
        return export.header.index(column)
    found = [
        i
        for i, head in enumerate(export.header)
        if head == name or ((m := _WITH_ID.fullmatch(head)) and m["name"] == name)
    ]
    if len(found) > 1:
        heads = ", ".join(repr(export.header[i]) for i in found)
        raise ExportError(f"{export.path}: several columns are {name!r}: {heads}; pick --column")
    return found[0] if found else None


class Filler:
    """Builds the import file and the report from an export, the roster and the grades."""

    def __init__(self, export: Export, roster: dict[str, Student], args: CanvasOptions):
        self.export, self.roster, self.args = export, roster, args
        self.report = lms.Report("Canvas")
        self.by_id = by_identifier(roster, "lms_user_id")
        self.by_login = by_identifier(roster, "sis_login_id")

    def fill(self, grades: dict[str, lms.ClassGrade]) -> str:
        export = self.export
        self._neutralize()
        target = target_column(export, self.args.assignment_name, self.args.column)
        if target is None:
            target = self._add_column()
        points = self._points(target)
        self.report.title = (
            f"Canvas column {export.header[target]!r}, {lms.points_text(points)} points possible; "
            f"{len(export.students)} Canvas rows, {len(self.roster)} roster students"
        )
        matched: dict[str, int] = {}
        for index in export.students:
            student = self._match(index)
            if student is None:
                held = export.records[index].value(target) or "blank"
                line = f"{self._who(index)}: the file: as Canvas holds it ({held})"
                self.report.add(lms.NOT_IN_ROSTER, line)
                continue
            if student.student_id in matched:
                raise ExportError(
                    f"{export.where(index)} and row {matched[student.student_id] + 1} are both "
                    f"{student.student_id} of the roster: one Canvas row a student"
                )
            matched[student.student_id] = index
            self._fill_one(index, target, grades[student.student_id], points)
        for student_id, grade in sorted(grades.items()):
            if student_id in matched:
                continue
            student = self.roster.get(student_id)
            known = (
                f"roster lms_user_id {student.lms_user_id or '-'}, sis_login_id "
                f"{student.sis_login_id or '-'}"
                if student
                else "not in the roster"
            )
            self.report.add_absent(grade, known)
        body = joined(export.records, export.end)
        return export.bom + (body if export.closed else body[: -len(export.end)])

    def _neutralize(self) -> None:
        """A ``'`` before each cell a spreadsheet could run, but for the identifiers of the
        rows below the header: Canvas matches on those, so one that looks like a formula in a
        student's row stops the run (``check_identifier``)."""
        export = self.export
        students = set(export.students)  # a list's lookup per cell grew as the class squared
        for index, record in enumerate(export.records):
            for column, cell in enumerate(record.cells):
                name = export.header[column] if column < len(export.header) else ""
                if index and name in IDENTIFIERS:
                    if index in students:
                        check_identifier(cell, f"{export.where(index)}, {name}")
                elif is_formula(cell):
                    record.cells[column] = neutral(cell)
                    self.report.add(
                        lms.NEUTRALIZED,
                        f"{export.where(index)}, {name or 'column ' + str(column + 1)}",
                    )

    def _add_column(self) -> int:
        """A new column for the assignment: Canvas makes an assignment of it on import."""
        export = self.export
        column = len(export.header)
        points = self.args.points or lms.scaling_maximum(self.args.root.resolve())
        for index, record in enumerate(export.records):
            if index and index != export.points_row and not any(record.cells):
                continue  # a blank line stays as it is
            record.cells += [""] * (column - len(record.cells))
            value = {0: self.args.assignment_name, export.points_row: f"{points:.2f}"}
            record.cells.append(neutral(value.get(index, "")))
        export.header.append(self.args.assignment_name)
        return column

    def _points(self, column: int) -> Decimal:
        text = self.export.records[self.export.points_row].value(column)
        points = number(text)
        if points is None or points <= 0:
            raise ExportError(
                f"{self.export.where(self.export.points_row)}: the column "
                f"{self.export.header[column]!r} has points possible {text!r}; give the "
                "assignment points in Canvas and export again"
            )
        return points

    def _match(self, index: int) -> Student | None:
        record, header = self.export.records[index], self.export.header
        found = self.by_id.get(identifier_key("lms_user_id", record.value(header.index("ID"))))
        login = record.value(header.index("SIS Login ID")) if "SIS Login ID" in header else ""
        if found is None and login:
            found = self.by_login.get(identifier_key("sis_login_id", login))
        return found

    def _who(self, index: int) -> str:
        record, export = self.export.records[index], self.export
        name = record.value(0)
        ident = record.value(export.header.index("ID"))
        test = " (Canvas's test student)" if name == TEST_STUDENT else ""
        return f"{name} (Canvas ID {ident}, {export.where(index)}){test}"

    def _fill_one(self, index: int, column: int, grade: lms.ClassGrade, points: Decimal) -> None:
        record = self.export.records[index]
        held = record.value(column)
        who = f"{grade.student} → {self._who(index)}"
        given = grade.in_file(points, self.args.no_submission_zero)
        if given is None:
            line = f"{who}: {grade.here()}; the file: as Canvas holds it ({held or 'blank'})"
            self.report.add(lms.NO_GRADE, line)
            return
        text, why = given
        of = f"{text} of {lms.points_text(points)} ({why})"
        if held and number(held) != number(text):
            if not self.args.overwrite:  # a grade typed in Canvas, or EX: Canvas's stands
                self.report.add(lms.KEPT, f"{who}: Canvas holds {held}, here {of}; kept")
                return
            self.report.add(lms.OVERWRITTEN, f"{who}: Canvas held {held}, now {of}")
        else:
            self.report.add(lms.MATCHED, f"{who}: {of}")
        record.cells += [""] * (column + 1 - len(record.cells))
        record.cells[column] = text


@dataclass(frozen=True, kw_only=True)
class CanvasOptions(lms.LmsOptions):
    """What the Canvas command was told, besides what it shares with Moodle's."""

    export: Path  # the CSV from Canvas's Grades, Export
    column: str | None = None  # the assignment's column, as row 1 names it
    points: float | None = None  # points possible of a new column; None: the assignment's
    overwrite: bool = False  # replace grades Canvas holds that differ


def run(options: CanvasOptions) -> int:
    """Write the file Canvas imports (``lms.run``); the exit status."""

    def build(root: Path, roster: dict[str, Student]) -> tuple[lms.Report, str]:
        filler = Filler(read_export(options.export), roster, options)
        return filler.report, filler.fill(lms.class_grades(root, roster))

    return lms.run(options, build)
