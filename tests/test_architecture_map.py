"""The architecture guide's map is the tree: every package and module, each named once, none gone.

``docs/guides/architecture.md`` lists every package and module of ``autograder/`` and
``bpe_course/`` under "Every package and module", one line each (``- `path`: what it holds``);
every other file path the guide names (in backticks, relative to the repository, to
``autograder/`` or to ``bpe_course/``) must exist, so a move or a merge that forgets the map
fails here. A made-up tree shows that the check finds a missing line, a gone module and a name
listed twice.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

GUIDE = Path("docs/guides/architecture.md")
MAPPED = ("autograder", "bpe_course")
SECTION = "## Every package and module"
ENTRY = re.compile(r"^- `([\w/.]+)`: \S")
NAMED_FILE = re.compile(r"`([\w./-]+\.(?:py|svg|md))`")


def tree(root: Path) -> set[str]:
    """Every package (``name/``) and module (``name.py``, no ``__init__.py``) of ``MAPPED``."""
    found = set()
    for top in MAPPED:
        for path in (root / top).rglob("*.py"):
            if "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts:
                continue
            relative = path.relative_to(root)
            if path.name == "__init__.py":
                found.add(f"{relative.parent}/")
            else:
                found.add(str(relative))
    return found


def map_entries(text: str) -> list[str]:
    """The paths listed under ``SECTION``, in order, repeats kept."""
    if SECTION not in text:
        return []
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for line in section.splitlines() if (m := ENTRY.match(line))]


def map_errors(root: Path) -> list[str]:
    """What the guide's map gets wrong about the tree under ``root``, in words."""
    text = (root / GUIDE).read_text()
    listed = map_entries(text)
    errors = [f"{p}: listed twice" for p in sorted({p for p in listed if listed.count(p) > 1})]
    errors += [f"{p}: in the tree, not in the map" for p in sorted(tree(root) - set(listed))]
    errors += [f"{p}: in the map, not in the tree" for p in sorted(set(listed) - tree(root))]
    for name in sorted(set(NAMED_FILE.findall(text))):
        places = [root / name, *(root / top / name for top in MAPPED), root / GUIDE.parent / name]
        if not any(place.is_file() for place in places):
            errors.append(f"{name}: named in the guide, no such file")
    return errors


def test_the_architecture_guide_names_every_module_and_nothing_gone() -> None:
    assert map_entries((ROOT / GUIDE).read_text()), f"no entry read under {SECTION!r}"
    assert map_errors(ROOT) == []


def test_the_check_finds_a_missing_gone_or_repeated_entry(tmp_path: Path) -> None:
    for module in ("autograder/__init__.py", "autograder/a.py", "bpe_course/__init__.py"):
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text("")
    (tmp_path / GUIDE).parent.mkdir(parents=True)
    (tmp_path / GUIDE).write_text(
        f"See `autograder/a.py` and `gone.py`.\n\n{SECTION}\n\n"
        "- `autograder/`: the grader\n- `autograder/b.py`: gone\n"
        "- `bpe_course/`: the library\n- `bpe_course/`: again\n\n## Next\n\n- `x.py`: not read\n"
    )
    assert map_errors(tmp_path) == [
        "bpe_course/: listed twice",
        "autograder/a.py: in the tree, not in the map",
        "autograder/b.py: in the map, not in the tree",
        "autograder/b.py: named in the guide, no such file",
        "gone.py: named in the guide, no such file",
        "x.py: named in the guide, no such file",
    ]
