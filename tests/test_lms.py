"""The Canvas and Moodle import files, against committed fixtures (``tests/support/lms/``).

A class built through nbgrader's API (``tests.support.lms.CLASS``: full marks, partial marks,
a hand grade, a late penalty, no submission, waiting for a person, a failed grading) meets a
Canvas export with a ``Manual Posting`` row, a ``Points Possible`` row of 20 (which does not
divide 21), another assignment's column, names with commas, a concluded student, the test
student, a grade typed in Canvas and an ``EX``. The files written are compared cell for cell
with the expected ones; the report's every row, the exit codes, a failed run and the guide's
commands are tested too. One test grades a real scratch course (two students).
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.course import ASSIGNMENT, Status
from autograder.reports import canvas, lms, moodle
from autograder.reports.canvas import Record, joined, split_records
from tests.support import doc_text
from tests.support.lms import HERE, REPO, Spec, add_student, make_class, scores

EXPORT = HERE / "canvas-export.csv"
EXPORT_NEW = HERE / "canvas-export-new-column.csv"
OUT = Path("artifacts/grading/canvas-import.csv")
MOODLE_OUT = Path("artifacts/grading/moodle-import.csv")
TARGET = 6  # the bpe (502) column of the export


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_class(tmp_path_factory.mktemp("lms") / "course")


@pytest.fixture
def course(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of the class for one test."""
    return Path(shutil.copytree(built, tmp_path / "course"))


def run_canvas(root: Path, *args: str, export: Path = EXPORT) -> int:
    return cli.main(["canvas", str(export), "--root", str(root), *args])


def run_moodle(root: Path, *args: str) -> int:
    return cli.main(["moodle", "--root", str(root), *args])


def cells(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def assert_same_cells(got: Path, expected: Path) -> None:
    mine, theirs = cells(got), cells(expected)
    assert len(mine) == len(theirs), (len(mine), len(theirs))
    for number, (row, want) in enumerate(zip(mine, theirs), start=1):
        assert len(row) == len(want), f"row {number}: {row} != {want}"
        for column, (cell, wanted) in enumerate(zip(row, want), start=1):
            assert cell == wanted, f"row {number}, column {column}: {cell!r} != {wanted!r}"
    assert got.read_bytes() == expected.read_bytes()


def section(report: str, template: str, lms_name: str = "Canvas") -> list[str]:
    """The lines of the report under one heading."""
    head = template.format(lms=lms_name)
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(head + " ("):
            found = []
            for entry in lines[i + 1 :]:
                if not entry.startswith("  "):
                    break
                found.append(entry.strip())
            return found
    return []


def test_the_canvas_import_is_the_expected_file_cell_for_cell(course: Path, capsys) -> None:
    assert run_canvas(course) == 0
    assert_same_cells(course / OUT, HERE / "canvas-import.csv")
    filled = {row[1]: row[TARGET] for row in cells(course / OUT)[3:]}
    # 20 points possible: x/21 of 20, half up to two decimals; Canvas's own grades kept.
    assert filled["1001"] == "20.00" and filled["1010"] == "19.05"  # ada 21, jo 20 by hand
    assert filled["1009"] == "17.14"  # ivy: 21, less a late penalty of 3
    assert filled["1005"] == "EX" and filled["1004"] == "17.50"  # ed, di: Canvas's kept
    assert filled["1006"] == "" and filled["1007"] == "" and filled["9999"] == ""


def test_every_other_column_is_copied_byte_for_byte(course: Path) -> None:
    assert run_canvas(course) == 0
    before = split_records(EXPORT.read_bytes().decode("utf-8"))
    after = split_records((course / OUT).read_bytes().decode("utf-8"))
    assert len(before) == len(after)
    for old, new in zip(before, after):
        assert [c for i, c in enumerate(old.cells) if i != TARGET] == [
            c for i, c in enumerate(new.cells) if i != TARGET
        ]
        new.cells[TARGET : TARGET + 1] = old.cells[TARGET : TARGET + 1]
    # The target column put back as exported: the export, byte for byte.
    assert joined(after, "\n") == EXPORT.read_bytes().decode("utf-8")


def test_a_new_column_when_canvas_has_none_bom_and_crlf_kept(course: Path, capsys) -> None:
    assert run_canvas(course, export=EXPORT_NEW) == 0
    assert_same_cells(course / OUT, HERE / "canvas-import-new-column.csv")
    written = (course / OUT).read_bytes()
    assert written.startswith(b"\xef\xbb\xbfStudent,") and b"\r\n" in written
    # Take the new last column away: the export, byte for byte.
    records = split_records(written.decode("utf-8")[1:])
    stripped = joined([Record(r.cells[:-1]) for r in records], "\r\n")
    assert "\ufeff" + stripped == EXPORT_NEW.read_bytes().decode("utf-8")
    header, points = cells(course / OUT)[0], cells(course / OUT)[2]
    assert header[-1] == "bpe" and points[-1] == "21.00"
    assert "Canvas column 'bpe', 21 points possible" in capsys.readouterr().out


def test_a_second_run_on_the_import_file_changes_nothing(course: Path) -> None:
    assert run_canvas(course, export=EXPORT_NEW) == 0
    again = course / "again.csv"
    shutil.copyfile(course / OUT, again)
    assert run_canvas(course, export=again) == 0  # its "bpe" column is found, not added again
    assert (course / OUT).read_bytes() == again.read_bytes()


def test_the_report_lists_every_student_with_what_the_file_holds(course: Path, capsys) -> None:
    assert run_canvas(course) == 0
    out = capsys.readouterr().out
    matched = section(out, lms.MATCHED)
    assert [line.split(" ")[0] for line in matched] == ["ada", "jo", "ivy", "bo", "cy"]
    assert any(
        line.startswith("ivy") and "17.14 of 20 (21/21, late penalty 3: 18)" in line
        for line in matched
    )
    assert any(line.startswith("cy → Young, Cy (Canvas ID 2003") for line in matched)
    kept = section(out, lms.KEPT)
    assert any(
        line.startswith("ed") and "Canvas holds EX, here 8.57 of 20" in line for line in kept
    )
    assert any(line.startswith("di") and "Canvas holds 17.50, here 20.00" in line for line in kept)
    no_grade = section(out, lms.NO_GRADE)
    expected = {
        "gus": "needs manual grading",
        "hal": "failed",
        "fay": "no submission",
    }
    assert len(no_grade) == len(expected)
    for student, status in expected.items():
        line = next(line for line in no_grade if line.startswith(student + " "))
        assert status in line and line.endswith("the file: as Canvas holds it (blank)")
    outsiders = section(out, lms.NOT_IN_ROSTER)
    assert outsiders[0].startswith("Gone, Kim (Canvas ID 1011")
    assert "(Canvas's test student)" in outsiders[1]
    assert section(out, lms.UNMATCHED) == [] and section(out, lms.ABSENT) == []
    assert out.count(" → ") == 10  # each of the 10 roster students once


def test_overwrite_replaces_what_canvas_holds_and_says_so(course: Path, capsys) -> None:
    assert run_canvas(course, "--overwrite") == 0
    filled = {row[1]: row[TARGET] for row in cells(course / OUT)[3:]}
    assert filled["1005"] == "8.57" and filled["1004"] == "20.00"
    replaced = section(capsys.readouterr().out, lms.OVERWRITTEN)
    assert [line.split(" ")[0] for line in replaced] == ["ed", "di"]
    assert "Canvas held EX, now 8.57 of 20" in replaced[0]


def test_no_submission_zero_gives_0_only_to_students_with_no_submission(course: Path) -> None:
    assert run_canvas(course, "--no-submission-zero") == 0
    filled = {row[1]: row[TARGET] for row in cells(course / OUT)[3:]}
    assert filled["1006"] == "0.00"  # fay
    assert filled["1007"] == "" and filled["1008"] == ""  # gus waits, hal failed: no 0


def test_any_status_but_graded_is_no_grade_not_graded_included() -> None:
    export = canvas.read_export(EXPORT)
    roster = {"ada": _student("ada", "1001")}
    args = canvas_args()
    grades = {"ada": lms.ClassGrade("ada", Status("not graded", ("grading stopped",)), None, 21)}
    filler = canvas.Filler(export, roster, args)
    text = filler.fill(grades)
    assert section(filler.report.text(), lms.NO_GRADE) == [
        "ada → Lovelace, Ada (Canvas ID 1001, canvas-export.csv, row 7): not graded: grading "
        "stopped; the file: as Canvas holds it (blank)"
    ]
    assert text == EXPORT.read_text()
    table_report, table = moodle.rows(moodle_args(), roster, grades)
    assert table == [["Email address", "bpe"]]
    assert "not graded: grading stopped" in section(table_report.text(), lms.NO_GRADE, "Moodle")[0]


def _student(student_id: str, lms_user_id: str = "", **more: str):
    from autograder.roster import Student

    return Student(student_id, lms_user_id=lms_user_id, email=f"{student_id}@x.org", **more)


def canvas_args(**changes):
    fields = {"root": Path.cwd(), "out": Path(canvas.OUT), "export": Path("x.csv"), **changes}
    return canvas.CanvasOptions(**fields)


def moodle_args(**changes):
    return moodle.MoodleOptions(**{"root": Path.cwd(), "out": Path(moodle.OUT), **changes})


def test_an_unmatched_graded_student_exits_2_and_writes_nothing(course: Path, capsys) -> None:
    earlier = b"an earlier import file\n"
    (course / OUT).parent.mkdir(parents=True, exist_ok=True)
    (course / OUT).write_bytes(earlier)
    add_student(course, "zed", Spec(scores()))  # graded, in no roster
    assert run_canvas(course) == lms.EXIT_UNMATCHED
    captured = capsys.readouterr()
    assert section(captured.out, lms.UNMATCHED) == ["zed (not in the roster): 21/21"]
    assert "1 graded student(s) are not in Canvas" in captured.err
    assert (course / OUT).read_bytes() == earlier
    assert not list((course / OUT).parent.glob("*.tmp"))  # no half-written file left
    assert run_canvas(course, "--allow-unmatched") == 0
    assert_same_cells(course / OUT, HERE / "canvas-import.csv")


def test_a_roster_student_missing_from_the_export_is_unmatched(course: Path, capsys) -> None:
    text = EXPORT.read_text()
    export = course / "export.csv"
    export.write_text("".join(line for line in text.splitlines(True) if "Lovelace" not in line))
    add_student(course, "kai", Spec(None))  # no submission, not in the roster either
    assert run_canvas(course, export=export) == lms.EXIT_UNMATCHED
    out = capsys.readouterr().out
    assert section(out, lms.UNMATCHED) == [
        "ada (roster lms_user_id 1001, sis_login_id alovelace): 21/21"
    ]
    assert section(out, lms.ABSENT) == ["kai (not in the roster): no submission"]
    assert not (course / OUT).exists()


@pytest.mark.parametrize(
    ("change", "message", "identifier"),
    [
        (
            ("1002,bsmith", "1001,bsmith"),
            "roster.csv, row 3: the lms_user_id '1001' is also row 2's (ada)",
            "idnumber",
        ),
        (
            ("cyoung", "=cmd|calc"),
            "roster.csv, row 4: the sis_login_id '=cmd|calc' begins with '='",
            "username",
        ),
        (("hal,Hal", "ada,Hal"), "row 9: the student_id 'ada' is repeated", "email"),
        (("student_id,", "id,"), "the first line must name the columns", "email"),
    ],
)
def test_roster_errors_name_the_row_and_leave_the_earlier_file(
    course: Path, capsys, change: tuple[str, str], message: str, identifier: str
) -> None:
    earlier = b"earlier\n"
    for out in (OUT, MOODLE_OUT):
        (course / out).parent.mkdir(parents=True, exist_ok=True)
        (course / out).write_bytes(earlier)
    roster = course / "roster.csv"
    roster.write_text(roster.read_text().replace(*change, 1))
    assert run_canvas(course) == 1
    assert message in capsys.readouterr().err
    assert run_moodle(course, "--identifier", identifier) == 1
    assert message in capsys.readouterr().err
    assert (course / OUT).read_bytes() == earlier and (course / MOODLE_OUT).read_bytes() == earlier


def test_moodle_refuses_an_email_two_rows_share(course: Path, capsys) -> None:
    roster = course / "roster.csv"
    roster.write_text(roster.read_text().replace("jo@example.org", "Ada@Example.org"))
    assert run_moodle(course) == 1
    assert "roster.csv, row 11: the email 'Ada@Example.org' is also row 2's (ada)" in (
        capsys.readouterr().err
    )
    assert not (course / MOODLE_OUT).exists()
    assert run_moodle(course, "--identifier", "username") == 0  # emails are not read then


def test_no_roster_is_refused_with_what_to_write(course: Path, capsys) -> None:
    (course / "roster.csv").unlink()
    assert run_canvas(course) == 1
    assert "roster.csv is missing" in capsys.readouterr().err


@pytest.mark.parametrize("due_date_only", [False, True])
def test_a_gradebook_without_the_assignments_notebooks_is_one_line_and_writes_nothing(
    course: Path, capsys, due_date_only: bool
) -> None:
    """As the gradebook is before the first ``make autograde`` when students were added by
    hand (no assignment) or the due date was set first (the assignment, no notebook)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.remove_assignment(ASSIGNMENT)
        if due_date_only:
            gradebook.add_assignment(ASSIGNMENT, duedate="2026-12-24 17:00:00")
        assert gradebook.students  # the students stay
    assert run_canvas(course, export=EXPORT_NEW) == 1
    assert run_moodle(course) == 1
    said = capsys.readouterr().err
    refusal = f"gradebook.db holds no notebook of assignment {ASSIGNMENT} yet: run `make"
    assert said.count(refusal) == 2, said
    assert not (course / OUT).exists() and not (course / MOODLE_OUT).exists()
    # A new column's points come from the gradebook too, whatever ran before.
    filler = canvas.Filler(canvas.read_export(EXPORT_NEW), {}, canvas_args(root=course))
    with pytest.raises(SystemExit, match="holds no notebook"):
        filler.fill({})


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("    Points Possible", "Points"), "no 'Points Possible' row"),
        (
            lambda t: t.replace(",cyoung,", ",=HYPERLINK(1),"),
            "row 14, SIS Login ID: the identifier",
        ),
        (lambda t: t.replace(",", ";"), "(it looks separated by ';')"),
        (lambda t: t.replace("20.00,(read only)", ",(read only)"), "points possible ''"),
        (lambda t: t.replace("bpe (502)", "Quiz 1 (501)"), "several columns are"),
    ],
)
def test_a_wrong_export_exits_1_naming_the_row(course: Path, capsys, edit, message) -> None:
    export = course / "export.csv"
    export.write_text(edit(EXPORT.read_text()))
    names = ["--assignment-name", "Quiz 1"] if "several" in message else []
    assert run_canvas(course, *names, export=export) == 1
    assert message in capsys.readouterr().err
    assert not (course / OUT).exists()


def test_a_display_name_like_a_formula_is_neutralized_identifiers_verbatim(
    course: Path, capsys
) -> None:
    export = course / "export.csv"
    export.write_text(EXPORT.read_text().replace('"Gone, Kim"', '"=HYPERLINK(""x"",""y"")"'))
    assert run_canvas(course, export=export) == 0
    rows = cells(course / OUT)
    assert rows[3][0] == '\'=HYPERLINK("x","y")' and rows[3][1:4] == ["1011", "S1011", "kgone"]
    assert section(capsys.readouterr().out, lms.NEUTRALIZED) == ["export.csv, row 4, Student"]
    # Every other row as exported.
    assert rows[4:] == cells(HERE / "canvas-import.csv")[4:]


def test_the_moodle_files_are_the_expected_ones(course: Path, capsys) -> None:
    assert run_moodle(course) == 0
    assert_same_cells(course / MOODLE_OUT, HERE / "moodle-import.csv")
    out = capsys.readouterr().out
    assert [line.split(" ")[0] for line in section(out, lms.NO_GRADE, "Moodle")] == [
        "fay",
        "gus",
        "hal",
    ]
    assert "no row (Moodle keeps what it holds)" in out
    args = ["--identifier", "username", "--feedback", "--points", "100"]
    assert run_moodle(course, *args) == 0
    assert_same_cells(course / MOODLE_OUT, HERE / "moodle-import-username-feedback.csv")


def test_moodle_id_numbers_miss_a_student_without_one(course: Path, capsys) -> None:
    assert run_moodle(course, "--identifier", "idnumber") == lms.EXIT_UNMATCHED
    assert section(capsys.readouterr().out, lms.UNMATCHED, "Moodle") == [
        "cy (its lms_user_id is empty in the roster): 16/21"
    ]
    assert not (course / MOODLE_OUT).exists()
    assert (
        run_moodle(course, "--identifier", "idnumber", "--no-submission-zero", "--allow-unmatched")
        == 0
    )
    rows = dict(cells(course / MOODLE_OUT)[1:])
    assert rows["1006"] == "0.00" and "1003" not in rows and "1007" not in rows


def test_hand_grades_regrades_and_late_penalties_arrive_as_the_gradebook_holds_them(
    course: Path,
) -> None:
    from nbgrader.api import Gradebook

    from tests.support.lms import NOTEBOOK, cell

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.find_grade(cell("train_bpe"), NOTEBOOK, "bpe", "ada").manual_score = 2.5  # by hand
        gb.find_grade(cell("merge_and_update"), NOTEBOOK, "bpe", "bo").auto_score = 5.0  # regrade
        gb.find_submission_notebook(NOTEBOOK, "bpe", "cy").late_submission_penalty = 20.0
        gb.db.commit()
    assert cli.main(["export", "--root", str(course)]) == 0
    graded = {row["student_id"]: row for row in csv.DictReader((course / "grades.csv").open())}
    assert (graded["ada"]["total"], graded["bo"]["total"]) == ("18.5", "21")
    assert (graded["cy"]["total"], graded["cy"]["late_penalty"]) == ("16", "20")
    assert graded["fay"]["late_penalty"] == "" and graded["ada"]["course_version"]
    assert run_canvas(course) == 0
    filled = {row[1]: row[TARGET] for row in cells(course / OUT)[3:]}
    # 18.5 × 20 / 21 = 17.619…; 21 → 20.00; 16 − 20 is below 0: 0.00.
    assert (filled["1001"], filled["1002"], filled["2003"]) == ("17.62", "20.00", "0.00")
    assert run_moodle(course) == 0
    rows = dict(cells(course / MOODLE_OUT)[1:])
    assert (rows["ada@example.org"], rows["bo@example.org"], rows["cy@example.org"]) == (
        "18.50",
        "21.00",
        "0.00",
    )


def readme_commands() -> list[str]:
    """The LMS commands of the instructors' guide, comments taken off."""
    part = doc_text.section("docs/guides/instructors.md", "## Grades into Canvas or Moodle")
    block = re.search(r"```\n(make canvas.*?)```", part, re.S)
    assert block, "the instructors' guide shows the commands in a code block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.mark.slow  # two grading commands and make, each a process of its own
def test_the_readme_commands_run_as_shown(course: Path) -> None:
    commands = readme_commands()
    python = [c for c in commands if c.startswith(".venv/bin/python -m ")]
    makes = [c for c in commands if c.startswith("make ")]
    assert len(python) == 2 and len(makes) == 2
    shutil.copyfile(EXPORT, course / "canvas-export.csv")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for command in python:
        argv = [sys.executable, *command.split()[1:]]
        done = subprocess.run(argv, cwd=course, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert_same_cells(course / OUT, HERE / "canvas-import.csv")
    moodle_feedback = cells(course / MOODLE_OUT)
    assert moodle_feedback[0] == ["Email address", "bpe", "bpe (feedback)"]
    moodle_rows = cells(HERE / "moodle-import.csv")
    assert [row[:2] for row in moodle_feedback[1:]] == moodle_rows[1:]
    # Each make line runs the same module with the same options.
    canvas_line = " ".join(dry_run(makes[0]))
    assert '-m autograder canvas "canvas-export.csv"' in canvas_line
    moodle_line = " ".join(dry_run(makes[1]))
    assert "-m autograder moodle --identifier email" in moodle_line
    assert "--feedback" in moodle_line


def dry_run(command: str) -> list[str]:
    """What ``make`` would run for a line of the guide (the venv taken as made)."""
    argv = ["make", "-n", "-s", "-o", ".venv/.installed", *command.split()[1:]]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.replace("\\\n", " ").splitlines()


def test_quoted_fields_newlines_in_fields_and_blank_lines_read_and_write_back() -> None:
    text = 'Student,ID,Note\r\n"Lovelace, ""Ada""",1,"two\r\nlines"\r\n\r\n"Bo",2,"a\nb",\r\n'
    records = split_records(text)
    assert [r.cells for r in records] == [
        ["Student", "ID", "Note"],
        ['Lovelace, "Ada"', "1", "two\r\nlines"],
        [],
        ["Bo", "2", "a\nb", ""],
    ]
    # Written back as Canvas writes CSV: "Bo" needs no quotes, everything else is as read.
    assert joined(records, "\r\n") == text.replace('"Bo"', "Bo")
