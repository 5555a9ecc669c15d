"""pyproject.toml declares what bpe_course needs; requirements-student.txt pins what a student
installs, requirements.txt the rest, each pin once.

The tests read every import in ``bpe_course/`` and in the lessons' code cells and find the
distribution that provides it here: each must be among pyproject's dependencies and in what
the students' list installs (its pins and everything they require, as installed in this
venv), and that install must bring no tool of the instructors'. Every dependency and extra is
pinned at a version its specifier allows. The wheel builds from pyproject.toml without a
deprecation warning from setuptools.

But: none installs a venv (``bench/bench_install.py`` builds the students' one and measures
it); that the pins resolve together is what ``make venv`` and ``make lab`` show.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
STUDENTS = "requirements-student.txt"
# Lesson 4's PyTorch cell is optional: it says how to install torch (README, make torch).
OPTIONAL = {"torch"}
# The instructors' and developers' tools, and the heaviest of what they bring.
INSTRUCTORS = {"nbgrader", "jupyterhub", "dask", "distributed", "playwright", "mypy", "mutmut"}
INSTRUCTORS |= {"pytest", "hypothesis", "ruff", "voila", "sphinx", "myst-nb", "sqlalchemy"}
INSTRUCTORS |= {"alembic", "django-static-mathjax", "latex2mathml", "pyseccomp", "cryptography"}


def _top_names(source: str, where: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"bpe_course", "__future__"}


# Modules of bpe_course imported only when asked for, each with the extra that declares
# what it needs beyond the dependencies (bpe_course.large imports it given a Dask client).
OPTIONAL_MODULES = {"dask_counting.py": "dask"}


def _imported_top_names(only: str | None = None) -> set[str]:
    """What bpe_course's modules import: every one but the optional ones, or ``only``."""
    names = set()
    for path in (ROOT / "bpe_course").glob("*.py"):
        if (path.name == only) if only else (path.name not in OPTIONAL_MODULES):
            names |= _top_names(path.read_text(), str(path))
    return names


def _lessons_top_names() -> set[str]:
    """What the students' notebooks import (magics and shell lines left out)."""
    names = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                lines = cell.source.splitlines()
                code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
                names |= _top_names(code, str(path))
    return names


def _pinned_lines(name: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-r "):
            package, version = line.split("==")
            pins[canonicalize_name(package)] = version.strip()
    return pins


def _pins() -> dict[str, str]:
    return {**_pinned_lines(STUDENTS), **_pinned_lines("requirements.txt")}


def _installed_with(names: set[str]) -> set[str]:
    """``names`` and every distribution they require, as installed here (extras left out)."""
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        found.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def _providers(names: set[str]) -> dict[str, set[str]]:
    providers = metadata.packages_distributions()
    return {
        name: {canonicalize_name(dist) for dist in providers.get(name, [name])} for name in names
    }


def _requirements() -> list[Requirement]:
    extras = PROJECT.get("optional-dependencies", {}).values()
    every = [*PROJECT.get("dependencies", []), *(text for extra in extras for text in extra)]
    return [Requirement(text) for text in every]


def test_every_package_bpe_course_imports_is_a_declared_dependency() -> None:
    declared = {
        canonicalize_name(Requirement(text).name) for text in PROJECT.get("dependencies", [])
    }
    needed = _providers(_imported_top_names())
    missing = {name: dists for name, dists in needed.items() if not dists & declared}
    assert not missing, f"bpe_course imports these, pyproject.toml does not declare them: {missing}"
    assert "ipykernel" in declared  # the self-check runs its notebook on a python3 kernel
    for module, extra in OPTIONAL_MODULES.items():
        with_extra = declared | {
            canonicalize_name(Requirement(text).name)
            for text in PROJECT["optional-dependencies"][extra]
        }
        needed = _providers(_imported_top_names(only=module))
        missing = {name: dists for name, dists in needed.items() if not dists & with_extra}
        assert not missing, f"{module} imports these, [{extra}] does not declare them: {missing}"


def test_every_declared_requirement_is_pinned_at_a_version_it_allows() -> None:
    pins = _pins()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        if name == canonicalize_name(PROJECT["name"]):  # an extra made of other extras
            assert requirement.extras <= set(PROJECT["optional-dependencies"]), requirement
            continue
        assert name in pins, f"{requirement} is declared but not pinned in requirements.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.txt pins {name}=={pins[name]}, which {requirement} excludes"
        )
    assert set(PROJECT["optional-dependencies"]) == {"grading", "hub", "dev", "dask"}


def test_the_students_list_pins_bpe_course_and_the_lessons_needs_and_no_instructor_tool() -> None:
    student = _pinned_lines(STUDENTS)
    installed = _installed_with(set(student))
    needed = _providers((_imported_top_names() | _lessons_top_names()) - OPTIONAL)
    assert "numpy" in needed and "nbclient" in needed  # the lessons' and the self-check's
    uncovered = {name: dists for name, dists in needed.items() if not dists & installed}
    assert not uncovered, f"the lessons or bpe_course import these, {STUDENTS} misses: {uncovered}"
    # bpe_course's own dependencies, the Lab and the self-check's kernel, pinned by name
    declared = {canonicalize_name(Requirement(text).name) for text in PROJECT["dependencies"]}
    assert declared | {"jupyterlab", "ipykernel"} <= set(student)
    brought = installed & INSTRUCTORS
    assert not brought, f"{STUDENTS} installs instructors' tools: {sorted(brought)}"


def test_each_pin_is_written_once_and_the_full_list_includes_the_students() -> None:
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    assert f"-r {STUDENTS}" in lines
    twice = set(_pinned_lines(STUDENTS)) & set(_pinned_lines("requirements.txt"))
    assert not twice, f"pinned in both lists: {sorted(twice)}"
    assert "nbgrader" in _pinned_lines("requirements.txt")


@pytest.mark.slow  # builds the wheel (a few seconds)
def test_the_wheel_builds_without_a_deprecation_warning(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT / "bpe_course", source / "bpe_course")
    for name in ("pyproject.toml", "LICENSE", "LICENSE-lessons"):
        shutil.copy(ROOT / name, source / name)
    # This venv's setuptools, offline: the backend the build-system table asks for, verbose so
    # that setuptools' warnings are shown.
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "--wheel-dir", str(tmp_path / "wheel"), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    output = built.stdout + built.stderr
    warned = [line for line in output.splitlines() if "deprecat" in line.lower()]
    assert not warned, "\n".join(warned)
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    backend = Requirement(build["requires"][0])
    assert backend.specifier.contains(metadata.version("setuptools")), backend
    (wheel,) = (tmp_path / "wheel").glob("bpe_course-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = archive.read("bpe_course-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT AND CC-BY-4.0" in info
    assert {"LICENSE", "LICENSE-lessons"} <= {Path(name).name for name in names}


def _dry_run(folder: Path, target: str) -> str:
    """What ``make -n target`` would run in ``folder`` (nothing is run)."""
    done = subprocess.run(
        ["make", "-n", target, f"PYTHON={sys.executable}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_make_lab_installs_the_students_list_alone_unless_make_venv_has_run(
    tmp_path: Path,
) -> None:
    for name in ("Makefile", "requirements.txt", STUDENTS, "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    fresh = _dry_run(tmp_path, "lab")
    assert f"pip install --quiet --no-compile -r {STUDENTS}" in fresh
    assert "uv==" not in fresh and "bin/uv" not in fresh  # 37 MB the students' venv lacks
    assert "-r requirements.txt" not in fresh
    assert "touch .venv/.installed-student" in fresh
    assert "--ServerApp.jpserver_extensions" not in fresh  # no nbgrader to serve it
    assert f"-r {STUDENTS}" in _dry_run(tmp_path, "check")
    # After make venv (its stamp newer than every list), lab installs nothing and serves the
    # Formgrader; make venv's recipe counts as the students' install too.
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").touch()
    full = _dry_run(tmp_path, "lab")
    assert "pip install" not in full
    assert "--ServerApp.jpserver_extensions=autograder.formgrader=True" in full
    (tmp_path / ".venv" / ".installed").unlink()
    everything = _dry_run(tmp_path, "venv")
    assert "uv pip install --python .venv/bin/python --quiet -r requirements.txt" in everything
    assert "touch .venv/.installed .venv/.installed-student" in everything
    # The full venv compiles what the students' set left to be compiled at import.
    assert "-m compileall" in everything and "-m compileall" not in fresh
