"""Which classes run on one hub environment: a small JSON marker per class inside the venv.

``make hub`` marks the venv it starts the class on (``<venv>/.bpe-classes/<id>.json``, holding
the class's folder and account prefix, written by root and readable by all); the take-down
reads the markers so it deletes a shared venv only with the last class that uses it.

>>> import tempfile
>>> venv, first, second = (Path(tempfile.mkdtemp()) for _ in range(3))
>>> _ = mark_class(venv, first, "bpe-"); _ = mark_class(venv, second, "bpe-b-")
>>> [mark["prefix"] for mark in other_classes(venv, first)]
['bpe-b-']
>>> second.rmdir()  # a class whose folder is gone is a class already taken down
>>> other_classes(venv, first)
[]
>>> unmark_class(venv, first); class_marker(venv, first) is None
True
>>> import shutil; shutil.rmtree(venv); first.rmdir()

But: a marker is only a record; it starts, stops and deletes nothing, and knows no class
whose ``make hub`` wrote none (a class is marked each time ``make hub`` starts it).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

MARKERS = ".bpe-classes"


def _absolute(path: Path) -> str:
    return os.path.abspath(path)


def marker_path(venv: Path, root: Path) -> Path:
    """Where the marker of the class in ``root`` lives: named by a hash of the root's path."""
    digest = hashlib.sha256(_absolute(root).encode()).hexdigest()[:16]
    return venv / MARKERS / f"{digest}.json"


def mark_class(venv: Path, root: Path, prefix: str) -> Path:
    """Record (or refresh) that the class in ``root`` with accounts ``prefix…`` uses ``venv``."""
    folder = venv / MARKERS
    folder.mkdir(mode=0o755, exist_ok=True)
    folder.chmod(0o755)  # whatever the umask: others read it, only its owner writes
    path = marker_path(venv, root)
    draft = path.with_suffix(".tmp")
    draft.unlink(missing_ok=True)
    draft.write_text(json.dumps({"root": _absolute(root), "prefix": prefix}) + "\n")
    draft.chmod(0o644)
    os.replace(draft, path)
    return path


def _read_marker(path: Path) -> dict | None:
    """A marker's content, or None for anything that is not a regular JSON file of ours."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd) as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        try:
            mark = json.loads(file.read())
        except (ValueError, UnicodeDecodeError):
            return None
    if not isinstance(mark, dict):
        return None
    if isinstance(mark.get("root"), str) and isinstance(mark.get("prefix"), str):
        return {"root": mark["root"], "prefix": mark["prefix"]}
    return None


def class_marker(venv: Path, root: Path) -> dict | None:
    """The marker of the class in ``root``, or None when the venv has none for it."""
    return _read_marker(marker_path(venv, root))


def other_classes(venv: Path, root: Path) -> list[dict]:
    """The markers (``{"root": ..., "prefix": ...}``) of the other classes on ``venv`` whose
    folder still exists, sorted by folder."""
    folder = venv / MARKERS
    if folder.is_symlink() or not folder.is_dir():
        return []
    ours = _absolute(root)
    marks = [_read_marker(path) for path in sorted(folder.glob("*.json"))]
    return sorted(
        (mark for mark in marks if mark and mark["root"] != ours and Path(mark["root"]).is_dir()),
        key=lambda mark: mark["root"],
    )


def settings_prefix(settings: dict) -> str | None:
    """The account prefix a class's ``state/settings.json`` names (from the instructor's name
    when it has no ``prefix``), or None.

    >>> settings_prefix({"prefix": "bpe-b-"}), settings_prefix({"instructor": "bpe-instructor"})
    ('bpe-b-', 'bpe-')
    """
    if isinstance(settings.get("prefix"), str):
        return settings["prefix"]
    instructor = settings.get("instructor")
    if isinstance(instructor, str) and instructor.endswith("instructor"):
        return instructor.removesuffix("instructor")
    return None


def claims(venv: Path, root: Path) -> list[tuple[str, str]]:
    """Which class ``root`` is, as (prefix, where it is written): its ``state/settings.json``
    and the venv's marker for it, each when there and readable."""
    found = []
    try:
        settings = json.loads((root / "state" / "settings.json").read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        settings = None
    named = settings_prefix(settings) if isinstance(settings, dict) else None
    if named is not None:
        found.append((named, f"{_absolute(root)}/state/settings.json"))
    marker = class_marker(venv, root)
    if marker is not None:
        found.append((marker["prefix"], f"the marker in {_absolute(venv)}"))
    return found


def unmark_class(venv: Path, root: Path) -> None:
    """Forget that the class in ``root`` uses ``venv`` (nothing happens if it had no marker)."""
    marker_path(venv, root).unlink(missing_ok=True)
