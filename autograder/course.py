"""The bottom layer of the grading code: the course's facts and where its files live.

One place for the assignment's name, its five exercises, the parts of the demonstration
engine an answer may not use, the records a grading run leaves, a student's status, the
reading of the course's ``nbgrader_config.py`` (``course_config``), and the addresses its
SQLite files are opened by (``sqlite_uri``, ``read_only_db_url``).

But: it reads no notebook and grades nothing; every other module of ``autograder`` may
import it, and it imports none of them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from traitlets.config import Config

CODE_ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "bpe"
SOLUTIONS = f"{ASSIGNMENT}-solutions"  # the nbgrader assignment the solutions go out as
EXERCISES = ("pair_counts", "merge_pair", "train_bpe", "encode_bpe", "merge_and_update")
# The course's modules that do an exercise's work, and their parts by name: an answer that
# uses them earns nothing (the judge's sandbox serves stand-ins that refuse).
ENGINE_MODULES = ("bpe_course.engine", "bpe_course.arrays", "bpe_course.batch_encode")
ENGINE_PARTS = ("Trainer", "Encoder", "ChunkTable", "learn_merges", "_join")

RECORDS = Path("artifacts") / "grading"  # relative to the course root
RESULTS_RECORD = RECORDS / "results.json"  # what grading found, per student
VERDICTS_RECORD = RECORDS / "verdicts.json"  # the judged verdict of every test cell
ERRORS_LOG = RECORDS / "errors.log"  # tracebacks of grading that stopped, not the students'
REFUSED_RECORD = RECORDS / "refused.json"  # folders of submitted/ that are no student's
FILED_LATE_RECORD = RECORDS / "filed-late.json"  # copies dated on time, changed after
SECRET_FILE = ".grading-secret"  # seeds the random hidden cases for a term


def term_secret(course_root: Path) -> str:
    """The secret that seeds this course's random hidden cases, made on first use and kept in
    ``<course root>/.grading-secret`` for the term, so a regrade draws the same cases. Keep it
    out of version control and out of students' reach (the sandbox hides it)."""
    path = course_root / SECRET_FILE
    if not path.exists():
        _make_secret(path)
    return path.read_text().strip()


def _make_secret(path: Path) -> None:
    """Write a new secret to ``path`` unless one is there: readable by its owner alone from
    the first byte, and whole before anyone can read it. Two graders starting at once (two
    Dask workers) keep the first one's, so every student draws from the same secret."""
    import secrets
    import tempfile

    descriptor, draft = tempfile.mkstemp(dir=path.parent, prefix=".grading-secret-")
    try:
        with os.fdopen(descriptor, "w") as out:  # mkstemp's mode is 0600
            out.write(secrets.token_hex(16) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)  # atomic: fails when another grader's secret is there
    finally:
        os.unlink(draft)


def exercise_of(cell: str) -> str | None:
    """The exercise a test cell belongs to, from its grade_id ``test_<name>_<group>``.

    >>> exercise_of("test_merge_and_update_hidden_core"), exercise_of("intro")
    ('merge_and_update', None)
    """
    return next((name for name in EXERCISES if cell.startswith(f"test_{name}_")), None)


def course_config(course_root: Path) -> Config:
    """The configuration nbgrader run in ``course_root`` reads: the ``nbgrader_config.py`` of
    each Jupyter config folder (``jupyter --paths``; on a hub, the settings every account
    reads, ``OwnedCollect.require_account`` among them), then the course's own, which wins.
    Every reader of the course's settings starts here."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    # nbgrader lets the first folder of the list win, and the folder it runs in over all.
    own = os.path.realpath(course_root)
    for folder in reversed(jupyter_config_path()):
        if os.path.realpath(folder) == own:  # read last, once (on a hub it is on the path)
            continue
        if os.path.isfile(os.path.join(folder, "nbgrader_config.py")):
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
    config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config())
    return config


def class_db_path(course_root: Path) -> Path:
    """The SQLite gradebook that ``nbgrader_config.py`` names."""
    config = course_config(course_root)
    url = str(config.CourseDirectory.get("db_url", f"sqlite:///{course_root / 'gradebook.db'}"))
    if not url.startswith("sqlite:///"):
        raise SystemExit(f"grading needs an SQLite gradebook; nbgrader_config.py says {url}")
    return Path(url.removeprefix("sqlite:///"))


def sqlite_uri(path: Path, read_only: bool = False) -> str:
    """``path`` as the URI ``sqlite3.connect(..., uri=True)`` opens, read-only (and never made)
    if asked; a ``?``, ``#`` or ``%`` in a folder's name stays part of the path.

    >>> sqlite_uri(Path("/srv/CS #2/gradebook.db"), read_only=True)
    'file:///srv/CS%20%232/gradebook.db?mode=ro'
    """
    uri = path.resolve().as_uri()
    return f"{uri}?mode=ro" if read_only else uri


def read_only_db_url(path: Path) -> str:
    """An nbgrader ``db_url`` that opens the SQLite file ``path`` read-only, never making it:
    ``sqlite_uri``'s address, escaped once more for SQLAlchemy, which decodes it once."""
    from sqlalchemy.engine import URL

    query = {"mode": "ro", "uri": "true"}
    return URL.create("sqlite", database=sqlite_uri(path), query=query).render_as_string()


def find_students(course_root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Every student with a folder ``submitted/<student>/<assignment>``, sorted."""
    submitted = course_root / "submitted"
    if not submitted.is_dir():
        return []
    return sorted(p.name for p in submitted.iterdir() if (p / assignment).is_dir())


GRADED = "graded"
NEEDS_PERSON = "needs manual grading"
FAILED = "failed"
NOT_GRADED = "not graded"  # grading stopped for a reason not the student's; earlier grades kept
NO_SUBMISSION = "no submission"


@dataclass(frozen=True)
class Status:
    """Where a student's grade stands: one of the kinds above, and why.

    >>> str(Status(NEEDS_PERSON, ("locked test cell deleted",)))
    'needs manual grading: locked test cell deleted'
    """

    kind: str = GRADED
    reasons: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.kind}: {'; '.join(self.reasons)}" if self.reasons else self.kind

    def adding(self, kind: str, reasons: list[str]) -> Status:
        """This status with more reasons; a graded one takes the new kind."""
        return Status(kind if self.kind == GRADED else self.kind, (*self.reasons, *reasons))
