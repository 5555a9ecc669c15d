"""Fixing a test mid-term: edit the master, `make notebooks`, `make regrade`, and the report
names exactly the students whose grade moved, with their totals and the cells that moved.

It follows the documented path with the real Makefile in a scratch course: a class of four
hands in lesson 1 and is graded; then the master's hidden test of merge_pair is found to be
worth too little and gets 2 points instead of 1. Only the students who pass that hidden test
gain; the others' grades stay and the report leaves them out.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.grading.grade_class import changes
from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT

LESSON = "01_bpe_by_hand.ipynb"
CHANGED = "test_merge_pair_hidden_core"


def _make(root: Path, *args: str) -> subprocess.CompletedProcess:
    # The scratch course has no venv or grading code of its own: both come from this clone.
    grading = f"PYTHONPATH={ROOT} {ROOT / '.venv' / 'bin' / 'python'}"
    command = ["make", "-s", "-C", str(root), f"VENV={ROOT / '.venv'}", f"GRADING={grading}"]
    done = subprocess.run(
        [*command, "JOBS=1", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _set_points(master: Path, grade_id: str, points: int) -> None:
    notebook = nbformat.read(master, as_version=4)
    (cell,) = [
        c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    ]
    cell.metadata["nbgrader"]["points"] = points
    master.write_text(nbformat.writes(notebook) + "\n")


@pytest.mark.nbgrader
def test_a_changed_hidden_test_regraded_names_exactly_the_students_whose_grade_moved(
    tmp_path: Path,
) -> None:
    root = make_scratch_course(tmp_path / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)  # copy2: the venv's stamp stays newer
    (root / "notebooks").mkdir()
    for path in (root / "release" / "bpe").glob("*.ipynb"):
        shutil.copy(path, root / "notebooks" / path.name)
    right = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    class_ = {
        "right": right,
        "pairs-wrong": {**right, "pair_counts": WRONG["pair_counts"]["unweighted counts"]},
        "merge-wrong": {**right, "merge_pair": WRONG["merge_pair"]["right-to-left merges"]},
        "stub": {},
    }
    for student, answers in class_.items():
        write_submission(root, student, answers, [LESSON])
    _make(root, "autograde")

    _set_points(root / "source" / "bpe" / LESSON, CHANGED, 2)
    _make(root, "notebooks")
    done = _make(root, "regrade")

    (report,) = sorted((root / "artifacts" / "grading").glob("regrade-*.csv"))
    with report.open(newline="") as handle:
        moved = {row["student"]: row for row in csv.DictReader(handle)}
    assert sorted(moved) == ["pairs-wrong", "right"]
    assert moved["right"]["before"] == "6" and moved["right"]["after"] == "7"
    assert moved["right"]["change"] == "+1"
    assert moved["right"]["test cells that moved"] == f"{CHANGED} 1 → 2"
    assert moved["pairs-wrong"]["test cells that moved"] == f"{CHANGED} 1 → 2"
    assert moved["pairs-wrong"]["after"] == str(int(moved["pairs-wrong"]["before"]) + 1)
    # The printed table and the Markdown copy say the same.
    assert "| right | 6 | 7 | +1 | test_merge_pair_hidden_core 1 → 2 |" in done.stdout
    assert "2 of 4 students' grades moved; tell them." in done.stdout
    markdown = report.with_suffix(".md").read_text()
    assert "| right | 6 | 7 | +1 | test_merge_pair_hidden_core 1 → 2 |" in markdown
    assert "merge-wrong" not in markdown and "stub" not in markdown


def test_a_regrade_that_moves_nothing_says_so_and_new_students_are_listed() -> None:
    same = {"ada": {"test_a": 1.0, "test_b": None}}
    assert changes(same, same) == []
    (late,) = changes(same, {**same, "bo": {"test_a": 0.0}})
    assert (late.student, late.before, late.after, late.cells) == (
        "bo",
        None,
        0.0,
        [("test_a", None, 0.0)],
    )
    (hand,) = changes(same, {"ada": {"test_a": 1.0, "test_b": 0.5}})
    assert (hand.before, hand.after, hand.change) == (None, 1.5, None)


def _regrade_calls(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[int, list]:
    """Run regrade's main on ``argv`` with grading (the folder it was told) and the
    snapshots recorded, not done."""
    from autograder.grading import grade_class

    calls: list = []

    def grade(options) -> int:
        calls.append(("grade", options.course_root))
        return 0

    monkeypatch.setattr(grade_class, "run", grade)
    monkeypatch.setattr(
        grade_class, "snapshot", lambda root: calls.append(("snapshot", root)) or {}
    )
    monkeypatch.setattr(grade_class, "write_report", lambda *a: (Path("r.csv"), ""))
    try:
        return cli.main(["regrade", *argv]), calls
    except SystemExit as stop:  # argparse's way of refusing, as in grade_class
        return stop.code, calls


@pytest.mark.parametrize("argv", [["--stud", "ada"], ["--student=ada"], ["--st", "ada"]])
def test_regrade_refuses_some_students_however_the_option_is_written(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    status, calls = _regrade_calls(monkeypatch, argv)
    assert status == 2 and calls == []


@pytest.mark.parametrize("root", [["--ro", "{x}"], ["--root", "{x}"], ["--root={x}"]])
def test_regrade_snapshots_the_folder_grade_class_grades(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, root: list[str]
) -> None:
    argv = [arg.format(x=tmp_path) for arg in [*root, "--lean"]]
    status, calls = _regrade_calls(monkeypatch, argv)
    # grade_class's own parser reads the line: an abbreviation names the folder it names there.
    assert status == 0
    assert calls == [("snapshot", tmp_path), ("grade", tmp_path), ("snapshot", tmp_path)]
