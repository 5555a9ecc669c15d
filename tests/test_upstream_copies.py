"""Files taken from installed packages are checked against those packages, so an upgrade
forces a review of each copy instead of leaving it silently out of step.

Every template, script and stylesheet of the course (``.tpl``, ``.j2``, ``.html``, ``.js``,
``.css`` under ``autograder/``, ``hub/`` and the docs' ``templates/`` and ``static/``) says in
its header comment where it comes from, on one line:

- ``upstream-copy: nbgrader 0.9.6 nbgrader/.../manage_submissions.tpl sha256:<hex>``, a
  copy changed in a few places; ``upstream-extends:`` for a template that extends an
  upstream one and relies on its blocks; ``upstream-replaces:`` for one served in place of
  an upstream file;
- ``upstream: none, the course's own`` for a file with no upstream original (skipped).

A Python module that overrides private methods of an upstream class (nbgrader's collect's
``_path_to_record``) records that class's file the same way, with ``upstream-extends:``, in
its docstring; Python modules without such a line are not copies and are not checked.

For each upstream line the test finds the named file in the installed distribution's RECORD,
hashes it and fails, naming our file and what to review, when the hash or the version no
longer matches what the line records.

But: it does not check that our copy still differs from upstream only where its header says;
the review it forces is a person's. Files with no comment syntax (``conf.json``) are not
scanned.
"""

from __future__ import annotations

import hashlib
import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("autograder", "hub", "docs/templates", "docs/static")
SUFFIXES = {".tpl", ".j2", ".html", ".js", ".css"}
UPSTREAM = re.compile(
    r"upstream-(?P<kind>copy|extends|replaces): (?P<dist>\S+) (?P<version>\S+) "
    r"(?P<path>\S+) sha256:(?P<sha256>[0-9a-f]{64})"
)
OURS = "upstream: none, the course's own"
VERB = {"copy": "copies", "extends": "extends", "replaces": "replaces"}


def course_files(root: Path = ROOT) -> list[Path]:
    """Every template, script and stylesheet of the course, installed packages left out."""
    found = []
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and "node_modules" not in path.parts and path.is_file():
                found.append(path)
    return found


def installed(dist: str, path: str) -> Path:
    """The file ``path`` (as the distribution's RECORD names it, or a tail of that name) of
    the installed distribution ``dist``."""
    files = metadata.distribution(dist).files or []
    hits = [f for f in files if f.as_posix() == path or f.as_posix().endswith("/" + path)]
    assert len(hits) == 1, f"{dist} installs {len(hits)} files named {path}"
    return Path(str(metadata.distribution(dist).locate_file(hits[0])))


def python_extensions(root: Path = ROOT) -> list[Path]:
    """Every Python module of the course that records an upstream file it relies on."""
    return [
        path
        for folder in SCANNED
        for path in sorted((root / folder).rglob("*.py"))
        if UPSTREAM.search(path.read_text(encoding="utf-8"))
    ]


def upstream_problem(name: str, text: str) -> str | None:
    """What is wrong with the record of its upstream file in ``text`` (the file ``name``), or
    None when it holds."""
    marks = list(UPSTREAM.finditer(text))
    if OURS in text and not marks:
        return None
    if len(marks) != 1:
        return (
            f"{name}: its header must say where it comes from, on one line: "
            f"'upstream-copy|extends|replaces: DIST VERSION PATH sha256:HEX' or '{OURS}'"
        )
    mark = marks[0]
    dist, path = mark["dist"], mark["path"]
    try:
        now = metadata.version(dist)
        digest = hashlib.sha256(installed(dist, path).read_bytes()).hexdigest()
    except (metadata.PackageNotFoundError, AssertionError) as error:
        return f"{name}: its upstream file cannot be found: {error}"
    review = (
        f"review {name} against {dist} {now}'s {path} "
        f"(it {VERB[mark['kind']]} the file of {dist} {mark['version']})"
    )
    if digest != mark["sha256"]:
        return (
            f"{name}: {dist} {now}'s {path} no longer matches the file it "
            f"was made from (sha256 {digest}, recorded {mark['sha256']}): {review}, carry the "
            f"upstream change over, then record the new version and hash"
        )
    if now != mark["version"]:
        return (
            f"{name}: {path} is unchanged in {dist} {now}, but the header "
            f"records {mark['version']}: record {now}"
        )
    return None


@pytest.mark.parametrize("ours", course_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_file_matches_its_upstream(ours: Path) -> None:
    """Each file names its upstream original, and that original is still what was copied."""
    problem = upstream_problem(str(ours.relative_to(ROOT)), ours.read_text(encoding="utf-8"))
    assert problem is None, problem


def test_each_private_hook_names_its_upstream_file() -> None:
    """The collect's choice of entry runs through nbgrader's private hooks: an nbgrader whose
    collect.py changed fails here, naming the module to review, not silently in a collect."""
    found = python_extensions()
    assert ROOT / "autograder/plugins/owned_collect.py" in found, found
    problems = [upstream_problem(str(p.relative_to(ROOT)), p.read_text()) for p in found]
    assert problems == [None] * len(found), problems


def test_every_copy_is_marked_as_one() -> None:
    """A file whose header calls it a copy records the file it copies: the scan is not
    satisfied by 'the course's own' on a copy, and it finds the Formgrader's copies."""
    copies = [p for p in course_files() if "a copy of" in p.read_text(encoding="utf-8").lower()]
    unmarked = [
        str(p.relative_to(ROOT))
        for p in copies
        if "upstream-copy:" not in p.read_text(encoding="utf-8")
    ]
    assert len(copies) >= 8, [str(p) for p in copies]
    assert not unmarked, f"copies with no 'upstream-copy:' line: {unmarked}"


def test_a_changed_upstream_file_is_named() -> None:
    """A recorded hash that differs from the installed file fails with our file's name and
    what to review (the check itself can fail)."""
    copy = ROOT / "autograder/formgrader/templates/manage_submissions.tpl"
    text = copy.read_text(encoding="utf-8")
    recorded = UPSTREAM.search(text)
    assert recorded is not None
    problem = upstream_problem("scratch.tpl", text.replace(recorded["sha256"], "0" * 64))
    assert problem is not None
    assert problem.startswith("scratch.tpl: ")
    assert "review" in problem and "manage_submissions.tpl" in problem
