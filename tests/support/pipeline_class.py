"""The catalogue class graded by the real nbgrader pipeline, once per run of the suite.

A temporary copy of the course goes through ``generate_assignment``, synthetic submissions
made from the release, ``autograde``, ``generate_feedback`` and ``export``, each a bare
``nbgrader`` command, and every score is read back. Students (exercises are graded
independently, so one student can carry one wrong answer per exercise; notebook runs dominate
the cost, so there are few students):

- ``master``: the solutions of the master notebooks in source/, every notebook;
- ``correct-<k>``: the k-th correct answer of the catalogue for each exercise, in the
  notebooks that still have one to grade;
- ``stub``: the released notebooks, untouched;
- ``wrong-<j>``: the j-th catalogued wrong answer of every exercise that has one, correct
  answers for the other exercises of the same notebooks, and only those notebooks.

``master`` is graded in a course of its own with every cell run whole, as a bare ``nbgrader
autograde`` runs it; the others lean, as ``make autograde`` grades (``lean_steps``: lesson
4's demonstrations alone take most of a full run). The courses differ only in how they
autograde, so the assignment is generated once and its release and gradebook copied to the
others; the master's course gets no feedback pages, which no test reads.

But: it asserts nothing; tests/test_nbgrader_pipeline.py checks the scores and pages, and
tests/test_dask_grading.py compares a cluster's grades of the same students with them. Both
are in one group of ``make test`` (``SHARED`` in conftest.py), so one process grades this
class once for both.
"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from autograder.course import SECRET_FILE
from autograder.sandbox.bwrap import UNCONFINED_FLAG
from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import SCRATCH_SECRET
from course_fixtures.synthetic import answer_cells, write_submission

ROOT = Path(__file__).resolve().parents[2]  # the course, this clone
NBGRADER = str(Path(ROOT) / ".venv" / "bin" / "nbgrader")


@dataclass
class Student:
    name: str
    answers: dict[str, str]
    notebooks: list[str] | None = None  # None: every notebook
    wrong: set[str] = field(default_factory=set)  # exercises answered wrongly on purpose


@dataclass
class GradedCourse:
    roots: dict[str, Path]  # student -> the course folder that graded them
    students: list[Student]
    exercise_notebook: dict[str, str]  # exercise -> notebook file name
    exercise_points: dict[str, float]
    release: Path  # nbgrader's fresh release of source/ (student notebooks)
    cell_scores: dict[str, dict[str, float]]  # student -> grade_id -> score
    export_rows: dict[str, dict[str, str]]
    logs: str


def nbgrader_env() -> dict[str, str]:
    # Hidden tests import autograder from ROOT; nbgrader runs `alembic` from PATH.
    path = f"{Path(NBGRADER).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return dict(os.environ, PYTHONPATH=str(ROOT), PATH=path)


def nbgrader_everywhere(courses: list[Path], *args: str) -> list[str]:
    """Run one nbgrader command in each course folder at once; return their logs."""
    runs = []
    try:
        for course in courses:
            log = open(course / f"nbgrader-{args[0]}.log", "w+")  # noqa: SIM115 - closed below
            process = subprocess.Popen(
                [NBGRADER, *args],
                cwd=course,
                env=nbgrader_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            runs.append((process, log))
        logs = []
        for process, log in runs:
            code = process.wait(timeout=600)
            log.seek(0)
            text = log.read()
            assert code == 0, f"nbgrader {' '.join(args)} failed:\n{text[-4000:]}"
            logs.append(text)
        return logs
    finally:
        for process, log in runs:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()


def exercise_layout(release: Path) -> tuple[dict[str, str], dict[str, float]]:
    """Which notebook holds each exercise, and how many points its test cells are worth."""
    where, points = {}, {}
    for path in sorted(release.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for name in answer_cells(notebook):
            where[name] = path.name
        for cell in notebook.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                name = next((n for n in where if meta["grade_id"].startswith(f"test_{n}_")), None)
                if name is not None:
                    points[name] = points.get(name, 0) + meta["points"]
    return where, points


def master_answers() -> dict[str, str]:
    """The answer cells of the master notebooks in source/, solutions and all."""
    answers = {}
    for path in sorted((ROOT / "source" / "bpe").glob("*.ipynb")):
        for name, cell in answer_cells(nbformat.read(path, as_version=4)).items():
            answers[name] = cell.source
    return answers


def make_students(exercise_notebook: dict[str, str]) -> list[Student]:
    exercises = list(exercise_notebook)
    first_correct = {name: next(iter(CORRECT[name].values())) for name in exercises}
    # The masters' own solutions, in every notebook: source/ runs top to bottom when graded.
    students = [Student("master", master_answers())]
    for k in range(max(len(CORRECT[name]) for name in exercises)):
        # Only the notebooks where this student brings a correct answer not graded yet.
        books = sorted({exercise_notebook[n] for n in exercises if k < len(CORRECT[n])})
        answers = {}
        for name in exercises:
            if exercise_notebook[name] in books:
                labels = list(CORRECT[name])
                answers[name] = CORRECT[name][labels[k % len(labels)]]
        students.append(Student(f"correct-{k}", answers, books))
    students.append(Student("stub", {}))
    for j in range(max(len(WRONG[name]) for name in exercises)):
        wrong = {name for name in exercises if j < len(WRONG[name])}
        books = sorted({exercise_notebook[name] for name in wrong})
        answers = {}
        for name in exercises:
            if exercise_notebook[name] not in books:
                continue
            answers[name] = list(WRONG[name].values())[j] if name in wrong else first_correct[name]
        students.append(Student(f"wrong-{j}", answers, books, wrong))
    return students


# Two course copies graded side by side use both cores; each has its own gradebook, so the
# processes never share a SQLite file. The master's course is a third.
SHARDS = 2
LEAN = """
# This copy grades lean, as make autograde does: lesson cells keep only their definitions.
from autograder.plugins.lessons import lean_steps
c.Autograde.autograde_preprocessors = lean_steps(c.Autograde.autograde_preprocessors)
c.TrimLessonCells.masters = os.path.join(ROOT, "source", "bpe")
"""

# Each course's kernels on UNIX sockets in its own folder (an absolute path: a kernel runs in
# its notebook's folder), not on TCP ports. jupyter_client picks ports that are free and the
# kernel binds them a moment later; the suite's other processes start kernels, servers and
# browsers meanwhile, and a port one of them takes first ("Address already in use") leaves a
# student of this class ungraded. `make autograde` puts its kernels on sockets too.
SOCKETS = """
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(ROOT, "kernel")
"""


def split(students: list[Student], shards: int) -> list[list[Student]]:
    """Students dealt out so that each shard runs about as many notebooks."""
    loads: list[list[Student]] = [[] for _ in range(shards)]
    weight = {id(s): len(s.notebooks) if s.notebooks else 4 for s in students}
    for student in sorted(students, key=lambda s: -weight[id(s)]):
        min(loads, key=lambda group: sum(weight[id(s)] for s in group)).append(student)
    return loads


def grade_pipeline_class(tmp_path_factory: pytest.TempPathFactory) -> GradedCourse:
    """The class graded in temporary course copies, and what nbgrader made of it."""
    from nbgrader.api import Gradebook

    base = tmp_path_factory.mktemp("courses")
    courses = []
    for k in range(SHARDS + 1):
        course = base / (f"course{k}" if k < SHARDS else "master")
        shutil.copytree(ROOT / "source", course / "source")
        # The scratch courses' term secret: the same hidden cases as tests/test_dask_grading's
        (course / SECRET_FILE).write_text(SCRATCH_SECRET + "\n")
        config = (ROOT / "nbgrader_config.py").read_text()
        (course / "nbgrader_config.py").write_text(config + SOCKETS + (LEAN if k < SHARDS else ""))
        courses.append(course)
    # One release for all: the copies differ only in how they autograde.
    logs = nbgrader_everywhere(courses[:1], "generate_assignment", "bpe", "--force")
    for course in courses[1:]:
        shutil.copytree(courses[0] / "release", course / "release")
        shutil.copy2(courses[0] / "gradebook.db", course / "gradebook.db")
    exercise_notebook, points = exercise_layout(courses[0] / "release" / "bpe")
    students = make_students(exercise_notebook)
    lean = [student for student in students if student.name != "master"]
    shards = [*split(lean, SHARDS), [student for student in students if student not in lean]]
    for course, group in zip(courses, shards):
        for student in group:
            write_submission(course, student.name, student.answers, student.notebooks)
    # A bare nbgrader autograde refuses to run kernels unconfined unless told to.
    logs += nbgrader_everywhere(courses, "autograde", "bpe", "--force", UNCONFINED_FLAG)
    # No test reads the master's pages: its course gets none.
    logs += nbgrader_everywhere(courses[:SHARDS], "generate_feedback", "bpe", "--force")
    logs += nbgrader_everywhere(courses, "export")

    scores: dict[str, dict[str, float]] = {}
    rows: dict[str, dict[str, str]] = {}
    folders: dict[str, Path] = {}
    for course in courses:
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            for student in gradebook.students:
                submission = gradebook.find_submission("bpe", student.id)
                scores[student.id] = {
                    grade.name: grade.score for nb in submission.notebooks for grade in nb.grades
                }
                folders[student.id] = course
        with open(course / "grades.csv", newline="") as handle:
            rows.update({row["student_id"]: row for row in csv.DictReader(handle)})
    assert set(scores) == {student.name for student in students}
    return GradedCourse(
        roots=folders,
        students=students,
        exercise_notebook=exercise_notebook,
        exercise_points=points,
        release=courses[0] / "release" / "bpe",
        cell_scores=scores,
        export_rows=rows,
        logs="\n".join(logs),
    )
