"""pyproject.toml declares what bpe_course needs, and requirements.txt pins each of it.

The first test reads every import in ``bpe_course/`` and finds the distribution that provides
it here; each must be among pyproject's dependencies. The second checks that every dependency
and extra is pinned in requirements.txt at a version its specifier allows.

But: neither installs anything; that the pins resolve together is what ``make venv`` shows.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _imported_top_names() -> set[str]:
    names = set()
    for path in (ROOT / "bpe_course").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"bpe_course", "__future__"}


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def _requirements() -> list[Requirement]:
    extras = PROJECT.get("optional-dependencies", {}).values()
    every = [*PROJECT.get("dependencies", []), *(text for extra in extras for text in extra)]
    return [Requirement(text) for text in every]


def test_every_package_bpe_course_imports_is_a_declared_dependency() -> None:
    providers = metadata.packages_distributions()
    declared = {
        canonicalize_name(Requirement(text).name) for text in PROJECT.get("dependencies", [])
    }
    needed = {
        name: {canonicalize_name(dist) for dist in providers.get(name, [name])}
        for name in _imported_top_names()
    }
    missing = {name: dists for name, dists in needed.items() if not dists & declared}
    assert not missing, f"bpe_course imports these, pyproject.toml does not declare them: {missing}"
    assert "ipykernel" in declared  # the self-check runs its notebook on a python3 kernel


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
    assert set(PROJECT["optional-dependencies"]) == {"grading", "hub", "dev"}
