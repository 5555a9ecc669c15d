"""Every CSV the course writes is safe to open in a spreadsheet (OWASP: CSV injection).

A class whose ``submitted/`` folders are named like formulas (``=1+1``, ``@SUM(A1)``,
``+CMD|'-C calc'!A0``, ``-2+3``) goes through ``grades.csv``, the summary, the mistakes table,
a regrade report and both LMS files, each written from the gradebook and the records as
grading leaves them (collect and autograde refuse such ids, so the class is built through
nbgrader's API); no text cell of any of them begins with a formula character, and the ids are
still there, behind a ``'``. Then ``safe_csv`` alone: numbers stay numbers, identifier columns
stay verbatim, and ``replacing`` never leaves half a file.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from autograder import cli
from autograder.course import RECORDS, VERDICTS_RECORD
from autograder.grading import grade_class
from autograder.reports import safe_csv, summary
from tests.support.lms import Spec, add_student, new_course, scores

pytestmark = pytest.mark.slow  # builds a graded class through nbgrader's gradebook

PAYLOADS = ("=1+1", "@SUM(A1)", "+CMD|'-C calc'!A0", "-2+3")
ROSTER = "student_id,first_name,last_name,email,lms_user_id,sis_login_id,section\n"
EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,bpe (7)\n"
    "    Points Possible,,,,,21.00\n"
    '"=HYPERLINK(""http://x"",""y"")",11,S11,ada,@A,\n'
    "-2+3,12,S12,bo,+B,\n"
)


INPUTS = ("roster.csv", "export.csv")  # what the instructor gave, not what the course wrote


def all_cells(root: Path) -> dict[Path, list[list[str]]]:
    """Every CSV the course wrote under ``root``, as rows of cells."""
    return {
        path: list(csv.reader(path.open(newline="", encoding="utf-8-sig")))
        for path in sorted(root.rglob("*.csv"))
        if path.name not in INPUTS
    }


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = new_course(tmp_path_factory.mktemp("formulas") / "course")
    for number, name in enumerate(PAYLOADS):
        add_student(root, name, Spec(scores(merge_pair=float(number % 2))))
        (root / "submitted" / name / "bpe").mkdir(parents=True)
    # Two safe students for the LMS files, whose Canvas display names are formulas.
    add_student(root, "ada", Spec(scores()))
    add_student(root, "bo", Spec(scores(merge_pair=0.0)))
    verdicts = [
        {"student": name, "cell": "test_merge_pair_hidden_core", "points": 3, "verified": 0.0}
        | {"why": "merge_pair is wrong on 1 of 9 test inputs", "nbgrader": 0.0}
        for name in PAYLOADS
    ]
    (root / VERDICTS_RECORD).parent.mkdir(parents=True, exist_ok=True)
    (root / VERDICTS_RECORD).write_text(json.dumps(verdicts))
    (root / "roster.csv").write_text(
        ROSTER + "ada,Ada,L,ada@x.org,11,ada,@A\nbo,Bo,S,bo@x.org,12,bo,+B\n"
    )
    (root / "export.csv").write_text(EXPORT)

    before = grade_class.snapshot(root)
    assert cli.main(["export", "--root", str(root)]) == 0
    summary.report(root, quiet=True)
    add_student(root, "=2+2", Spec(scores()))  # a regrade that moved, and a new student
    grade_class.write_report(root, before, grade_class.snapshot(root))
    assert (
        cli.main(["canvas", str(root / "export.csv"), "--root", str(root), "--allow-unmatched"])
        == 0
    )
    assert cli.main(["moodle", "--root", str(root), "--feedback", "--allow-unmatched"]) == 0
    return root


def test_no_text_cell_of_any_csv_the_course_writes_begins_with_a_formula_character(
    hostile: Path,
) -> None:
    tables = all_cells(hostile)
    names = {path.relative_to(hostile).as_posix() for path in tables}
    expected = {"grades.csv", "summary.csv", "mistakes.csv", "canvas-import.csv"}
    assert expected | {"moodle-import.csv"} <= {Path(n).name for n in names}
    assert any(Path(n).name.startswith("regrade-") for n in names)
    for path, rows in tables.items():
        for number, row in enumerate(rows, start=1):
            for cell in row:
                assert not safe_csv.is_formula(cell), f"{path.name}, row {number}: {cell!r}"


def test_the_formula_ids_are_kept_behind_a_quote_never_dropped(hostile: Path) -> None:
    with (hostile / "grades.csv").open(newline="") as handle:
        ids = [row["student_id"] for row in csv.DictReader(handle)]
    assert {"'" + name for name in PAYLOADS} <= set(ids)
    with (hostile / RECORDS / "summary.csv").open(newline="") as handle:
        assert {"'" + name for name in PAYLOADS} <= {
            row["student"] for row in csv.DictReader(handle)
        }
    mistakes = (hostile / RECORDS / "mistakes.csv").read_text()
    assert "'" + " ".join(sorted(PAYLOADS)) in mistakes  # the students of the bar, one cell
    regrade = next((hostile / RECORDS).glob("regrade-*.csv")).read_text()
    assert "'=2+2" in regrade


def test_the_lms_files_neutralize_names_and_keep_identifiers_verbatim(hostile: Path) -> None:
    rows = list(csv.reader((hostile / RECORDS / "canvas-import.csv").open(newline="")))
    assert rows[2] == ['\'=HYPERLINK("http://x","y")', "11", "S11", "ada", "'@A", "21.00"]
    assert rows[3] == ["'-2+3", "12", "S12", "bo", "'+B", "18.00"]
    rows = list(csv.reader((hostile / RECORDS / "moodle-import.csv").open(newline="")))
    assert [row[:2] for row in rows] == [
        ["Email address", "bpe"],
        ["ada@x.org", "21.00"],
        ["bo@x.org", "18.00"],
    ]


def test_numbers_stay_numbers_and_text_is_neutralized() -> None:
    for number in ("-2", "+3", "-0.5", "1e-3", "21", ".5"):
        assert safe_csv.neutral(number) == number
    for text in ("=1+1", "-2+3", "+CMD|'-C calc'!A0", "@SUM(A1)", "\t=1", "\r=1", "-", "+"):
        assert safe_csv.neutral(text) == "'" + text
    assert safe_csv.neutral("a=1") == "a=1" and safe_csv.neutral(None) == ""


def test_identifier_columns_are_written_verbatim_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    with path.open("w", newline="") as handle:
        out = safe_csv.writer(handle, verbatim={0})
        out.writerow(["-7", "=x", 3])
        out.writerow(["ada@x.org", "-2+3", -1.5])
    assert path.read_bytes() == b"-7,'=x,3\r\nada@x.org,'-2+3,-1.5\r\n"
    assert safe_csv.check_identifier("ada", "here") == "ada"
    with pytest.raises(safe_csv.UnsafeIdentifier, match="roster.csv, row 4: the identifier"):
        safe_csv.check_identifier("=1+1", "roster.csv, row 4")


def test_replacing_leaves_the_earlier_file_when_the_run_fails(tmp_path: Path) -> None:
    target = tmp_path / "grades.csv"
    target.write_text("earlier\n")
    with pytest.raises(RuntimeError), safe_csv.replacing(target) as handle:
        handle.write("half a fi")
        raise RuntimeError("the run failed")
    assert target.read_text() == "earlier\n"
    assert os.listdir(tmp_path) == ["grades.csv"]
    safe_csv.write_csv(target, ["a"], [["=1"]])
    assert target.read_bytes() == b"a\r\n'=1\r\n"


def test_replacing_a_link_replaces_the_link_not_what_it_points_to(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours\n")
    link = tmp_path / "grades.csv"
    link.symlink_to(elsewhere)
    safe_csv.write_csv(link, ["a"], [["1"]])
    assert elsewhere.read_text() == "not yours\n"
    assert not link.is_symlink() and link.read_bytes() == b"a\r\n1\r\n"
