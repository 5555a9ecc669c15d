"""The solution notebooks released after the deadline: every answer in, no hidden test out.

In a scratch course, `make solutions` writes them; each is compared cell by cell with the
released student notebook, searched for the hidden tests, the hidden cases and the term's
secret, run with the self-check (every visible test passes), and `make release-solutions`
puts them in a local nbgrader exchange from which a student fetches them. Each opens saying it
is not for submission, and a student's submission of them is never collected.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import EXERCISES
from autograder.hidden_tests.cases import cases
from autograder.release import BANNER_ID, SOLUTIONS, solution_code
from course_fixtures.scratch_course import SCRATCH_SECRET, make_scratch_course
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs make and nbgrader in a scratch course

WITH_TESTS = ("01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb", "04_making_it_fast.ipynb")


def _make(root: Path, *args: str) -> subprocess.CompletedProcess:
    grading = f"PYTHONPATH={ROOT} {ROOT / '.venv' / 'bin' / 'python'}"
    command = ["make", "-s", "-C", str(root), f"VENV={ROOT / '.venv'}", f"GRADING={grading}"]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_scratch_course(tmp_path_factory.mktemp("solutions") / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)  # copy2: the venv's stamp stays newer
    exchange = root.parent / "exchange"
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
    _make(root, "solutions")
    return root


def _cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def _grade_id(cell: nbformat.NotebookNode) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def test_each_solution_is_the_student_notebook_with_the_answers_in_and_no_hidden_cell(
    course: Path,
) -> None:
    masters = sorted((course / "source" / "bpe").glob("*.ipynb"))
    assert [p.name for p in sorted((course / "release" / SOLUTIONS).glob("*.ipynb"))] == [
        m.name for m in masters
    ]
    answered = set()
    for master in masters:
        solved = {c.id: c for c in _cells(course / "release" / SOLUTIONS / master.name)}
        released = _cells(course / "release" / "bpe" / master.name)
        master_cells = {c.id: c for c in _cells(master)}
        for cell in released:
            name = _grade_id(cell)
            if "_hidden_" in name:
                assert cell.id not in solved, name
            elif name in EXERCISES:
                answer = solution_code(master_cells[cell.id].source)
                assert solved[cell.id].source == answer, name
                assert "NotImplementedError" not in answer and f"def {name}(" in answer
                answered.add(name)
            else:  # lesson text, code, visible tests: exactly what students already have
                assert solved[cell.id] == cell, cell.id
        assert set(solved) - {BANNER_ID} <= {c.id for c in released}
    assert answered == set(EXERCISES)


def test_each_solution_opens_saying_it_is_not_for_submission(course: Path) -> None:
    for path in sorted((course / "release" / SOLUTIONS).glob("*.ipynb")):
        first = _cells(path)[0]
        assert (first.id, first.cell_type) == (BANNER_ID, "markdown"), path.name
        assert "not for submission" in first.source and "never collected" in first.source


def test_no_hidden_test_hidden_case_or_secret_reaches_the_solutions(course: Path) -> None:
    for path in sorted((course / "release" / SOLUTIONS).glob("*.ipynb")):
        text = path.read_text()
        sources = "\n".join(c.source for c in _cells(path))
        hidden_calls = [f'check(\\"{name}\\"' for name in EXERCISES]  # as JSON writes them
        for marker in ("HIDDEN TESTS", "hidden_tests", "SOLUTION", SCRATCH_SECRET, *hidden_calls):
            assert marker not in text, (path.name, marker)
        released = "\n".join(c.source for c in _cells(course / "release" / "bpe" / path.name))
        for name in EXERCISES:
            for group, secret in (("core", None), ("random", SCRATCH_SECRET)):
                for args in cases(name, group, secret):
                    shown = repr(args)
                    if shown not in released:  # a worked example the lesson shows anyway
                        assert shown not in sources, (path.name, name, shown)


def test_every_solution_passes_its_visible_tests(course: Path) -> None:
    folder = course / "release" / SOLUTIONS
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "bpe_course.selfcheck", *WITH_TESTS],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("all 2 visible tests pass") == 2
    assert "the visible test passes" in done.stdout  # lesson 4 has one
    assert "hidden " not in done.stdout  # no hidden cell left to report


def test_a_student_fetches_the_released_solutions_from_the_exchange(
    course: Path, tmp_path: Path
) -> None:
    _make(course, "release-solutions")
    home = tmp_path / "student"
    home.mkdir()
    exchange = course.parent / "exchange"
    nbgrader = [sys.executable, "-m", "nbgrader"]
    fetched = subprocess.run(
        [*nbgrader, "fetch_assignment", SOLUTIONS, "--course=bpe-from-scratch"]
        + [f"--Exchange.root={exchange}"],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    for path in sorted((course / "release" / SOLUTIONS).glob("*.ipynb")):
        assert (home / SOLUTIONS / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_submission_of_the_solutions_never_reaches_submitted(
    course: Path, tmp_path: Path
) -> None:
    _make(course, "release-solutions")
    home = tmp_path / "student"
    home.mkdir()
    exchange = course.parent / "exchange"
    nbgrader = [sys.executable, "-m", "nbgrader"]
    where = ["--course=bpe-from-scratch", f"--Exchange.root={exchange}"]
    for step in ("fetch_assignment", "submit"):
        # nbgrader lets a student submit anything fetched: the Submit button does this.
        done = subprocess.run(
            [*nbgrader, step, SOLUTIONS, *where], cwd=home, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert list((exchange / "bpe-from-scratch" / "inbound").glob(f"*+{SOLUTIONS}+*"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # the course's collect, as make runs it
    collected = subprocess.run(
        [*nbgrader, "collect", SOLUTIONS], cwd=course, env=env, capture_output=True, text=True
    )
    assert collected.returncode != 0
    assert "released solutions, for reading" in collected.stdout + collected.stderr
    assert not list((course / "submitted").glob(f"*/{SOLUTIONS}"))


def test_nbgraders_generate_solution_runs_the_release_steps_and_executes_nothing() -> None:
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions, Execute, SaveCells
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.release import ForReading, TakeAnswers, solution_steps

    steps = solution_steps(PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config())
    assert steps[0] is TakeAnswers and steps[-1] is ForReading
    assert ClearHiddenTests in steps and ClearSolutions in steps
    assert "autograder.plugins.lessons.MarkLessonCells" in steps
    assert Execute not in steps and SaveCells not in steps
