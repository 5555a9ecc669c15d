"""The real nbgrader pipeline on a temporary copy of the course: generate_assignment, synthetic
submissions made from the release, autograde, generate_feedback, export, then every score.

The class and how it is graded: tests/support/pipeline_class.py. Each wrong answer must lose
points on its own exercise and cost nothing elsewhere; each correct answer must get full marks.
``make feedback``'s command, a task per student on a local Dask cluster, must write the pages
bare ``nbgrader generate_feedback`` wrote for the same graded class, byte for byte and mode
for mode, and name the one student whose autograded notebook was broken.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_fixtures.catalogue import CORRECT, WRONG
from tests.conftest import ROOT
from tests.support.pipeline_class import GradedCourse

pytestmark = pytest.mark.nbgrader


def exercise_score(course: GradedCourse, student: str, name: str) -> float:
    return sum(
        score
        for grade_id, score in course.cell_scores[student].items()
        if grade_id.startswith(f"test_{name}_")
    )


def test_correct_answers_get_full_marks(graded_course: GradedCourse) -> None:
    graded = 0
    for student in graded_course.students:
        if not (student.name.startswith("correct-") or student.name == "master"):
            continue
        books = student.notebooks or list(graded_course.exercise_notebook.values())
        earned = 0.0
        for name, points in graded_course.exercise_points.items():
            if graded_course.exercise_notebook[name] in books:
                assert exercise_score(graded_course, student.name, name) == points, (
                    student.name,
                    name,
                )
                earned += points
                graded += student.name != "master"
        row = graded_course.export_rows[student.name]
        assert float(row["raw_score"]) == earned
        assert float(row["max_score"]) == sum(graded_course.exercise_points.values())
    # every catalogued correct answer went through nbgrader
    assert graded == sum(len(CORRECT[name]) for name in graded_course.exercise_notebook)


def test_the_untouched_stub_scores_zero(graded_course: GradedCourse) -> None:
    for name in graded_course.exercise_points:
        assert exercise_score(graded_course, "stub", name) == 0, name
    assert float(graded_course.export_rows["stub"]["raw_score"]) == 0


def test_each_wrong_answer_loses_points_on_its_own_exercise_only(
    graded_course: GradedCourse,
) -> None:
    checked = 0
    for student in graded_course.students:
        if not student.name.startswith("wrong-"):
            continue
        for name, notebook in graded_course.exercise_notebook.items():
            if notebook not in student.notebooks:
                continue
            score = exercise_score(graded_course, student.name, name)
            full = graded_course.exercise_points[name]
            if name in student.wrong:
                mistake = list(WRONG[name])[int(student.name.split("-")[1])]
                assert score < full, f"{student.name}: wrong {name} ({mistake}) kept {score}"
                checked += 1
            else:
                assert score == full, f"{student.name}: correct {name} lost points: {score}"
    # every catalogued wrong answer of every exercise in the notebooks went through nbgrader
    assert checked == sum(len(WRONG[name]) for name in graded_course.exercise_notebook)


def feedback_pages(course: GradedCourse, student: str) -> dict[str, str]:
    folder = course.roots[student] / "feedback" / student / "bpe"
    pages = {path.name: html.unescape(path.read_text()) for path in folder.glob("*.html")}
    # One page per notebook the student handed in (None: every released notebook).
    books = next(s.notebooks for s in course.students if s.name == student)
    if books is None:
        books = [path.name for path in course.release.glob("*.ipynb")]
    expected = sorted(Path(book).with_suffix(".html").name for book in books)
    assert sorted(pages) == expected, f"feedback pages of {student}"
    return pages


def test_feedback_names_every_catalogued_mistake(graded_course: GradedCourse) -> None:
    """Every wrong answer of the catalogue, graded under the term's secret cases, is named."""
    named = 0
    for student in graded_course.students:
        if not student.name.startswith("wrong-"):
            continue
        text = "\n".join(feedback_pages(graded_course, student.name).values())
        for name in student.wrong:
            mistake = list(WRONG[name])[int(student.name.split("-")[1])]
            assert f"Likely mistake: {mistake}." in text, (student.name, name)
            assert f"{name} is wrong on" in text, (student.name, name)
            named += 1
    assert named == sum(len(WRONG[name]) for name in graded_course.exercise_notebook)


def test_feedback_hides_hidden_tests_and_checker_tracebacks(graded_course: GradedCourse) -> None:
    for student in ("wrong-0", "wrong-1", "stub", "correct-0"):
        for page, text in feedback_pages(graded_course, student).items():
            # the page's text, without its style sheets and markup
            plain = re.sub(r"<[^>]+>", "", re.sub(r"(?s)<style.*?</style>", "", text))
            # a hidden cell's call, check("merge_pair", "core", merge_pair); the lessons' own
            # self-check cell, check("01_bpe_by_hand.ipynb"), is the student's and may show
            hidden_calls = [f'check("{name}"' for name in graded_course.exercise_notebook]
            for secret in ("HIDDEN TESTS", "autograder", "/solutions/", *hidden_calls):
                assert secret not in plain, f"{student}/{page} shows {secret!r}"
    # ...while the message of each failed hidden check is still there
    assert "Likely mistake:" in "".join(feedback_pages(graded_course, "wrong-1").values())
    stub = "".join(feedback_pages(graded_course, "stub").values())
    assert "NotImplementedError" in stub


def tree(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Each entry under ``folder`` by its relative path: its mode and, for a file, its bytes."""
    return {
        str(path.relative_to(folder)): (
            path.stat().st_mode,
            path.read_bytes() if path.is_file() else None,
        )
        for path in sorted(folder.rglob("*"))
    }


PAGE_BYTES = 300 * 1024  # the most a feedback page may weigh (issue 45)


def test_feedback_on_the_cluster_is_nbgraders_and_a_broken_notebook_stops_one_student(
    graded_course: GradedCourse, tmp_path: Path
) -> None:
    course = tmp_path / "course"
    shutil.copytree(graded_course.roots["stub"], course, symlinks=True)
    # Three students keep it short: the stub's pages (every notebook), a wrong one's, and one
    # whose notebook breaks.
    students = sorted(p.name for p in (course / "autograded").iterdir())[:3]
    for folder in (course / "autograded").iterdir():
        if folder.name not in students:
            shutil.rmtree(folder)
    made_by_nbgrader = {
        path: entry
        for path, entry in tree(course / "feedback").items()
        if path.split("/")[0] in students
    }
    shutil.rmtree(course / "feedback")
    broken = students[0]
    notebook = sorted((course / "autograded" / broken / "bpe").glob("*.ipynb"))[-1]
    notebook.write_text("{ not a notebook")
    gradebook = (course / "gradebook.db").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "feedback", "--root", str(course), "--jobs", "2"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("no feedback for ")]
    assert len(said) == 1 and said[0].startswith(f"no feedback for {broken}: "), done.stderr
    assert "NotJSONError" in said[0], said
    summary = f"feedback for {len(students) - 1} of {len(students)} student(s)"
    assert summary in done.stdout and "local Dask cluster of 2 worker(s)" in done.stdout
    made = tree(course / "feedback")
    # nbgrader removes a failed student's feedback/<student>/bpe and leaves the folder above it
    others = {p: entry for p, entry in made_by_nbgrader.items() if not p.startswith(f"{broken}/")}
    assert made == others, "the cluster's pages differ from nbgrader's generate_feedback"
    assert (course / "gradebook.db").read_bytes() == gradebook, "feedback wrote the gradebook"
    for path, (_, data) in made.items():
        if data is not None:
            assert len(data) <= PAGE_BYTES and b"<script" not in data.lower(), path


def cell_view(path: Path) -> list[tuple[str, str, dict]]:
    notebook = nbformat.read(path, as_version=4)
    return [(cell.cell_type, cell.source, dict(cell.metadata)) for cell in notebook.cells]


def test_student_notebooks_are_up_to_date_with_source(graded_course: GradedCourse) -> None:
    fresh = sorted(p.name for p in graded_course.release.glob("*.ipynb"))
    committed = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert committed == fresh, "notebooks/ and source/ hold different notebooks: make notebooks"
    for name in fresh:
        assert cell_view(ROOT / "notebooks" / name) == cell_view(graded_course.release / name), (
            f"notebooks/{name} is out of date with source/bpe/{name}: run `make notebooks`"
        )


def test_master_and_correct_notebooks_run_without_any_error(graded_course: GradedCourse) -> None:
    for student in graded_course.students:
        if not (student.name.startswith("correct-") or student.name == "master"):
            continue
        folder = graded_course.roots[student.name] / "autograded" / student.name / "bpe"
        ran = sorted(folder.glob("*.ipynb"))
        assert len(ran) == (len(student.notebooks) if student.notebooks else 4), student.name
        for path in ran:
            for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
                errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
                assert not errors, f"{student.name}/{path.name} cell {index}: {errors[0].evalue}"
