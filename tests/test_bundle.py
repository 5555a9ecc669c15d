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

import pytest

from autograder.release.bundle import NAME, build_bundle, leak, student_requirements
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("dist"))


def test_the_bundle_holds_what_a_student_needs_and_nothing_else(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        names = {name.removeprefix(f"{NAME}/") for name in archive.namelist()}
        contents = {name: archive.read(f"{NAME}/{name}") for name in names}
    notebooks = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    library = {f"bpe_course/{p.name}" for p in (ROOT / "bpe_course").glob("*.py")}
    assert names == notebooks | library | {"requirements.txt", "pyproject.toml", "README.md"}
    assert "bpe_course/selfcheck.py" in names
    assert len(notebooks) == 4
    for name in notebooks:
        assert contents[name] == (ROOT / name).read_bytes()
    for name, data in contents.items():
        assert leak(name, data) is None, name
    requirements = contents["requirements.txt"].decode()
    assert "nbclient" in requirements and "jupyterlab" in requirements
    assert "nbgrader" not in requirements and "pytest" not in requirements
    readme = contents["README.md"].decode()
    # The notebooks say `make check NB=...`; the bundle has no Makefile, so the README gives
    # the plain command and how to make the venv it runs in.
    assert "Makefile" not in names and "make check NB=" in readme
    assert ".venv/bin/python -m bpe_course.selfcheck notebooks/01_bpe_by_hand.ipynb" in readme
    assert "python3 -m venv .venv" in readme and "pip install -r requirements.txt" in readme
    # pyproject.toml installs bpe_course and says nothing about tests/ or source/.
    pyproject = tomllib.loads(contents["pyproject.toml"].decode())
    assert pyproject["tool"] == {"setuptools": {"packages": ["bpe_course"]}}
    assert pyproject["project"]["name"] == "bpe-course" and "build-system" in pyproject
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


def test_a_leaking_notebook_stops_the_build(tmp_path: Path) -> None:
    course = tmp_path / "course"
    for name in ("notebooks", "bpe_course"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("requirements.txt", "pyproject.toml"):
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


def test_instructor_packages_are_left_out_of_the_requirements() -> None:
    text = "# c\njupyterlab==1\nnbgrader==0.9\npytest==9\n\nnbclient==0.11\n"
    assert student_requirements(text).splitlines()[1:] == ["jupyterlab==1", "nbclient==0.11"]
