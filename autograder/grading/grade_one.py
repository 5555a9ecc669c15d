"""Grade one student's submission with nbgrader's own Autograde, into a private gradebook.

``grade_submission`` maps one submission to plain data (a ``StudentResult``), so any engine
can map it over students. First ``inspect_submission`` compares the folder with the masters (a
missing, broken or too large notebook, an extra file, a locked test cell deleted or edited); a
submission holding a link or special file (``unsafe_entries``) is only recorded for a person.
After, ``read_outcomes`` reads the autograded notebooks for lost kernels, timeouts, memory and
failing test cells. ``prepare_worker`` sets up a grading process once; ``command_config`` is
the run's configuration over ``nbgrader_config.py``'s. ``write_pages`` is the same for
feedback: nbgrader's own ``GenerateFeedback`` for one student, with the course's configuration,
reading the gradebook through a read-only connection, so that a class is fed back as one task
per student (``make feedback``).

But: it never writes the class gradebook (``grade_class`` merges the rows) and judges
nothing itself: nbgrader runs the notebooks with the steps of ``plugins``.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import glob
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import jsonschema
import nbformat
from nbgrader.api import Gradebook
from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log, parse_utc
from traitlets.config import Config

from autograder.course import ASSIGNMENT, RECORDS, class_db_path, course_config, sqlite_uri
from autograder.grading.gradebook_rows import (
    Rows,
    StudentResult,
    carry_extension,
    flag_refused,
    flag_ungraded,
    judged_scores_kept,
    student_rows,
)
from autograder.grading.options import GradingOptions
from autograder.plugins.guarded_execute import KERNEL_LOST
from autograder.plugins.lessons import lean_steps
from autograder.plugins.outputs import MarkupAsText
from autograder.problems import (
    CROWDED_KIND,
    NBGRADER_FILES,
    NOT_GRADED_KIND,
    NOTEBOOK_FAILED_KIND,
    REFUSED_KIND,
    REPAIRED_KIND,
    Problem,
    printable,
)
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import (
    KERNEL_PROCESSES,
    KernelHome,
    give_kernels,
    jail_kernels,
    remove_orphaned_homes,
    student_home,
)
from autograder.sandbox.safe_walk import (
    FOLDER,
    MAX_TIMESTAMP_BYTES,
    TIMESTAMP,
    ChangedWhileWalkedError,
    TooManyEntriesError,
    reason,
    safe_copy,
    walk,
)
from bpe_course.lesson_cells import is_tracked, nbgrader_meta

# A lesson has about 30 cells and 50 KB; an answered one with every output a few MB. Far past
# that, a notebook only holds a grading worker (and everyone's feedback) for minutes.
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_CELLS = 1000


def graded_ids(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The cells nbgrader tracks (grade, solution or locked), by grade_id."""
    return {
        nbgrader_meta(cell)["grade_id"]: cell
        for cell in notebook.cells
        if nbgrader_meta(cell).get("grade_id") and is_tracked(cell)
    }


def has_graded_cells(notebook: nbformat.NotebookNode) -> bool:
    return any(nbgrader_meta(c).get("grade") for c in notebook.cells)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, raising ValueError with the reason when it is not one."""
    try:
        return nbformat.read(path, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError, UnicodeDecodeError) as error:
        raise ValueError(f"invalid JSON ({str(error).splitlines()[0][:120]})") from error
    except Exception as error:  # nbformat raises many kinds for a broken file
        raise ValueError(f"{type(error).__name__}: {str(error).splitlines()[0][:120]}") from error


def unsafe_entries(submitted: Path) -> list[str]:
    """Every link or special file in a submission (made one while walked too), relative to it
    ("." for itself): nbgrader follows links, so such a submission is only recorded. Raises
    ``TooManyEntriesError`` past collect's bounds (``safe_walk``)."""
    if submitted.is_symlink() or submitted.parent.is_symlink():
        return ["."]
    if not submitted.is_dir():
        return []
    try:
        top = os.open(submitted, FOLDER)
    except OSError as error:
        if error.errno == errno.ELOOP:  # it became a link since
            return ["."]
        raise
    found: list[str] = []
    try:
        for entry in walk(top):
            if not (entry.is_dir or entry.is_regular):  # a link, fifo, socket or device
                found.append(entry.path)
    except ChangedWhileWalkedError as changed:
        found.append(changed.path)
    finally:
        os.close(top)
    return sorted(found)


def inspect_submission(
    submitted: Path, masters: dict[str, nbformat.NotebookNode], released: Path | None
) -> tuple[list[Problem], set[str]]:
    """Problems found in ``submitted`` (one student's assignment folder) against ``masters``
    and the ``released`` notebooks, and the names of the notebooks nbgrader cannot open."""
    unreadable: set[str] = set()
    present = {p.name for p in submitted.iterdir()} if submitted.is_dir() else set()
    extras = present - {f"{name}.ipynb" for name in masters} - NBGRADER_FILES
    problems = [Problem("extra_file", "", extra) for extra in sorted(extras)]
    for name, master in masters.items():
        path = submitted / f"{name}.ipynb"
        if not path.exists():
            if has_graded_cells(master):  # a lesson without tests costs nothing when missing
                problems.append(Problem("missing_notebook", name, "not submitted; scored 0"))
            continue
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            unreadable.add(name)
            problems.append(Problem("too_large", name, f"{size:,} bytes; left ungraded"))
            continue
        try:
            notebook = read_notebook(path)
        except ValueError as error:
            unreadable.add(name)
            problems.append(Problem("invalid_json", name, f"{error}; left ungraded"))
            continue
        if len(notebook.cells) > MAX_CELLS:
            unreadable.add(name)
            cells = f"{len(notebook.cells):,} cells (at most {MAX_CELLS:,}); left ungraded"
            problems.append(Problem("too_large", name, cells))
            continue
        problems += _locked_cell_problems(name, notebook, master, released)
    return problems, unreadable


def _locked_cell_problems(
    name: str,
    notebook: nbformat.NotebookNode,
    master: nbformat.NotebookNode,
    released: Path | None,
) -> list[Problem]:
    problems = []
    theirs = graded_ids(notebook)
    for grade_id, cell in graded_ids(master).items():
        meta = nbgrader_meta(cell)
        if meta.get("grade") and not meta.get("solution") and grade_id not in theirs:
            problems.append(Problem("deleted_test_cell", name, grade_id))
    release_path = released / f"{name}.ipynb" if released else None
    if release_path and release_path.exists():
        release = graded_ids(nbformat.read(release_path, as_version=4))
        for grade_id, cell in release.items():
            locked = nbgrader_meta(cell).get("locked") and grade_id in theirs
            if locked and theirs[grade_id].source.strip() != cell.source.strip():
                problems.append(Problem("edited_locked_cell", name, grade_id))
    return problems


def _whole_message(output: nbformat.NotebookNode) -> str:
    """The whole error message on one line: the summary's CSV and JSON keep it in full
    (smallest failing input, expected, got, named mistake); only the printed table cuts it."""
    evalue = " ".join(line.strip() for line in str(output.get("evalue", "")).splitlines())
    return f"{output.get('ename', 'Error')}: {evalue.strip()}".strip().rstrip(":")


def read_outcomes(autograded: Path, names: list[str]) -> list[Problem]:
    """What went wrong while the autograded notebooks ran: lost kernels, timeouts, memory,
    and every test cell that failed, with its error."""
    problems: list[Problem] = []
    for name in names:
        path = autograded / f"{name}.ipynb"
        if not path.exists():
            continue
        notebook = nbformat.read(path, as_version=4)
        lost_reported = False
        for cell in notebook.cells:
            outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
            errors = [o for o in outputs if o.get("output_type") == "error"]
            if not errors:
                continue
            meta = nbgrader_meta(cell)
            error = errors[-1]
            ename = error.get("ename", "")
            if ename == KERNEL_LOST and not lost_reported:
                problems.append(Problem("kernel_lost", name, str(error.get("evalue", ""))[:200]))
                lost_reported = True
            elif ename in ("CellTimeoutError", "TimeLimit"):  # in the kernel, or judged outside
                problems.append(Problem("timeout", name, meta.get("grade_id") or "a code cell"))
            elif ename == "MemoryError":
                problems.append(Problem("memory", name, meta.get("grade_id") or "a code cell"))
            if meta.get("grade") and ename != KERNEL_LOST:
                problems.append(
                    Problem("test_failed", name, f"{meta['grade_id']}: {_whole_message(error)}")
                )
    return problems


def scratch_root(course_root: Path) -> Path:
    """Where private gradebooks live during a run: inside a folder kernels cannot see."""
    folder = course_root / RECORDS / "scratch"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def command_config(options: GradingOptions) -> Config:
    """What the command line said, as configuration over ``nbgrader_config.py``'s: the
    sandbox's settings and the per-cell timeout, each only when given (a flag left out leaves
    the file's value standing). Each task makes it from its options: no worker keeps a run's.

    >>> config = command_config(GradingOptions(Path("/c"), memory_gb=1.0, unconfined=True))
    >>> config.GradingSandbox.kernel_memory_gb, config.GradingSandbox.unconfined
    (1.0, True)
    """
    config = Config()
    if options.unconfined:
        config.GradingSandbox.unconfined = True
    if options.memory_gb is not None:
        config.GradingSandbox.kernel_memory_gb = options.memory_gb
    if options.judge_memory_gb is not None:
        config.GradingSandbox.judge_memory_gb = options.judge_memory_gb
    if options.timeout is not None:
        config.Execute.timeout = options.timeout
    return config


def put_alembic_on_path() -> None:
    """Put this Python's folder first on PATH: nbgrader runs `alembic` from its own
    process's PATH when it creates a gradebook, and takes no setting for it."""
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def prepare_worker(memory_gb: float = 0.0) -> None:
    """Set up a grading process once, before :func:`grade_submission`: its memory limit
    (``GradingSandbox.grader_memory_gb``; 0: none), ``alembic`` on its path, quiet logs, and
    what gone grading processes left removed. A student's settings travel with the task."""
    # What a kernel prints piles up here until the cell ends: a flood must stop this process
    # (its student then goes to a person), not the machine's other graders.
    limit = bwrap.memory_bytes(memory_gb)
    if limit:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    put_alembic_on_path()
    logging.getLogger().setLevel(logging.CRITICAL)
    # What a worker killed mid-student left on this machine: its kernels' homes, its caps.
    # Tidying up never stops grading.
    with contextlib.suppress(Exception):
        remove_orphaned_homes()
    with contextlib.suppress(Exception):
        bwrap.remove_orphaned_caps()


def _nbgrader_config(
    course_root: Path,
    db_path: Path,
    settings: Config,
    lean: bool,
    record: Path,
    kernels: KernelHome,
) -> Any:
    """nbgrader_config.py's configuration with the run's ``settings`` over it, for grading one
    student into ``db_path``; the judge's verdicts go to ``record``, repaired outputs beside."""
    config = course_config(course_root)
    config.merge(settings)
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.db_url = f"sqlite:///{db_path}"
    # In lean grading, lesson cells are cut to their definitions around Execute.
    if lean:
        steps = config.Autograde.autograde_preprocessors
        config.Autograde.autograde_preprocessors = lean_steps(list(steps))
    config.JudgeHiddenTests.course_root = str(course_root)
    config.MarkupAsText.course_root = str(course_root)
    config.JudgeHiddenTests.record = str(record)
    config.GuardedExecute.record = str(record.with_name(REPAIRS))
    # Lean runs a student's own cells whole; the masters say which cells are the lesson's.
    config.TrimLessonCells.masters = str(course_root / "source" / ASSIGNMENT)
    # Every cell has run and its outputs are saved: a polite shutdown only costs time.
    config.Execute.shutdown_kernel = "immediate"
    # UNIX sockets, not TCP ports: two workers (or another Jupyter on the machine) can pick
    # the same free port, and the kernel then dies at start ("Address already in use").
    give_kernels(config, kernels)
    return config


# Beside the judge's verdicts: each cell whose outputs GuardedExecute repaired, a JSON line.
REPAIRS = "repairs.jsonl"
# What converting a student's notebook raises when the notebook is at fault (it does not
# validate, nests too deep, holds text that cannot be written). A kernel that cannot start
# (RuntimeError), the gradebook (sqlalchemy) and nbgrader's metadata schema versions are
# the grader's, and still stop the student.
_NOTEBOOKS_FAULT = (jsonschema.ValidationError, RecursionError, ValueError, TypeError, KeyError)


class SkippingAutograde(Autograde):
    """nbgrader's Autograde that leaves out the notebooks named in ``skip``, and grades the
    rest of a submission when one notebook cannot be converted (``failed`` says why)."""

    skip: frozenset[str] = frozenset()
    notebooks: list[str]  # nbgrader's, set by init_assignment

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        super().init_assignment(assignment_id, student_id)
        self.notebooks = [p for p in self.notebooks if Path(p).stem not in self.skip]
        self.failed: dict[str, str] = {}

    def convert_single_notebook(self, notebook_filename: str) -> None:
        name = Path(notebook_filename).stem
        try:
            super().convert_single_notebook(notebook_filename)
        except _NOTEBOOKS_FAULT as error:
            text = str(error).strip().splitlines()[:1] or [""]
            self.failed[name] = f"could not be graded: {type(error).__name__}: {text[0]}"[:300]
            self.log.error("%s could not be graded, left for a person", name, exc_info=True)
            self._keep_for_a_person(name)

    def _keep_for_a_person(self, name: str) -> None:
        """The notebook as nbgrader's sanitizing pass left it in ``autograded/`` (locked cells
        restored, no outputs), with its markup as text; removed if even that fails."""
        path = Path(self.writer.build_directory) / f"{name}.ipynb"
        try:
            notebook = nbformat.read(path, as_version=4)
            for cell in notebook.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
            MarkupAsText(parent=self).preprocess(notebook, {"unique_key": name})
            nbformat.write(notebook, path)
        except Exception:  # nothing of it is shown rather than something unchecked
            path.unlink(missing_ok=True)


def grade_submission(options: GradingOptions, student: str, template_db: Path) -> StudentResult:
    """Autograde one student's submission as ``options`` say, into a copy of ``template_db``
    (an empty gradebook that knows the assignment); never raises for a bad submission."""
    settings = command_config(options)
    start = time.perf_counter()
    root = options.course_root
    source = root / "source" / ASSIGNMENT
    masters = {p.stem: nbformat.read(p, as_version=4) for p in sorted(source.glob("*.ipynb"))}
    submitted = root / "submitted" / student / ASSIGNMENT
    try:
        unsafe = unsafe_entries(submitted)
    except TooManyEntriesError as crowded:  # nbgrader would copy it all: it sees no more of it
        return record_refused(root, student, template_db, masters, [], start, str(crowded))
    if unsafe:  # nbgrader would follow the links: it sees a copy of the regular files only
        return record_refused(root, student, template_db, masters, unsafe, start)
    problems, unreadable = inspect_submission(submitted, masters, root / "release" / ASSIGNMENT)
    no_tests = {name for name, nb in masters.items() if not has_graded_cells(nb)}
    jailed = False
    scratch = Path(tempfile.mkdtemp(prefix=f"grade-{student}-", dir=scratch_root(root)))
    # Kernels get a fresh home, deleted below; the sandbox shows them no other.
    home = contextlib.ExitStack()
    try:
        kernels = home.enter_context(student_home(student))
        # "student-" keeps a student's caps apart from the judge's, the probe's and the
        # check's, whatever id the student has (an id may be "judge-<this pid>").
        cap = home.enter_context(bwrap.process_cap(f"student-{student}", KERNEL_PROCESSES))
        db_path = scratch / "gradebook.db"
        shutil.copyfile(template_db, db_path)
        carry_extension(class_db_path(root), db_path, ASSIGNMENT, student)
        record = scratch / "verdicts.jsonl"
        config = _nbgrader_config(root, db_path, settings, options.lean, record, kernels)
        jailed = jail_kernels(root, student, ASSIGNMENT, config, kernels, cap)
        if not jailed:
            why = "UNCONFINED=1" if bwrap.available() else bwrap.why_unavailable()
            problems.append(Problem("unconfined", "", why))
        coursedir = CourseDirectory(config=config, assignment_id=ASSIGNMENT, student_id=student)
        app = SkippingAutograde(coursedir=coursedir, config=config, force=True, create_student=True)
        app.skip = frozenset(unreadable | no_tests)
        outcome, errors = _autograde(app)
        log = outcome.get("log", "") + outcome.get("error", "")
        graded = bool(outcome["success"])
        failed: dict[str, str] = getattr(app, "failed", {})
        if graded:
            flag_ungraded(db_path, unreadable, student)
            autograded = root / "autograded" / student / ASSIGNMENT
            ran = [n for n in masters if n not in unreadable | no_tests | set(failed)]
            problems += read_outcomes(autograded, ran)
            problems += _repaired(record.with_name(REPAIRS), failed)
            problems += [Problem(NOTEBOOK_FAILED_KIND, n, why) for n, why in failed.items()]
        else:  # nbgrader itself failed (a kernel that did not start): not the student's doing
            said = [line for line in log.splitlines() if line.strip()] or ["see the log"]
            why = errors[0] if errors else said[-1]
            problems.append(Problem(NOT_GRADED_KIND, "", f"nbgrader failed: {why[:200]}"))
            if errors:  # errors.log opens with what went wrong, in the exceptions' words
                log = "what went wrong:\n" + "".join(f"  {line}\n" for line in errors) + log
        rows: Rows = student_rows(db_path, ASSIGNMENT, student) if graded else {}
        verdicts = [v for v in _json_lines(record) if v.get("notebook") not in failed]
        problems += [
            Problem("judge_mismatch", v["notebook"], why)
            for v, why in judged_scores_kept(db_path, student, verdicts)
        ]
    except Exception as error:  # a bug in grading must not stop the class, nor cost grades
        graded, rows, verdicts = False, {}, []
        log = "".join(traceback.format_exception(error))
        why = f"grading failed: {type(error).__name__}: {error}"[:200]
        problems.append(Problem(NOT_GRADED_KIND, "", why))
    finally:
        home.close()
        shutil.rmtree(scratch, ignore_errors=True)
    seconds = time.perf_counter() - start
    return StudentResult(
        student, graded, jailed, seconds, tuple(problems), rows, tuple(verdicts), log
    )


class _Errors(logging.Handler):
    """The text of every error nbgrader logs, with its exception's own words."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.causes: list[str] = []  # exceptions, in their own words
        self.messages: list[str] = []  # nbgrader's own lines

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        text = record.getMessage()
        if error is not None:
            self.causes.append(f"{type(error).__name__}: {error}".strip().splitlines()[0])
        elif "Traceback (most recent call last)" in text:  # nbgrader logs format_exc() as text
            self.causes += _exception_cause(text)
        elif text.strip() and "see the" not in text.lower():
            self.messages.append(text.strip().splitlines()[0][:300])


def _autograde(app: Autograde) -> tuple[dict[str, Any], list[str]]:
    """nbgrader's ``capture_log`` of ``app``, and the errors it logged, each in its own words
    (nbgrader's last one only says to see the traceback above)."""
    handler = _Errors()
    # nbgrader logs to the shared "traitlets" logger, which takes the root's level: CRITICAL
    # in a grading worker (prepare_worker), which would drop every error before any handler.
    level = app.log.level
    app.log.setLevel(min(app.log.getEffectiveLevel(), logging.ERROR))
    app.log.addHandler(handler)
    try:
        outcome = capture_log(app)
    finally:
        app.log.removeHandler(handler)
        app.log.setLevel(level)
    causes = handler.causes + _exception_cause(outcome.get("error", ""))
    return outcome, list(dict.fromkeys(causes + handler.messages))


def _exception_cause(formatted: str) -> list[str]:
    """The last ``Name: words`` line of a traceback, unless it is nbgrader's "see above"."""
    lines = [line for line in formatted.splitlines() if line and not line.startswith(" ")]
    lines = [line for line in lines if ": " in line and "see the" not in line.lower()]
    return lines[-1:]


def _repaired(repairs: Path, failed: dict[str, str]) -> list[Problem]:
    """One problem per notebook whose outputs ``GuardedExecute`` had to repair."""
    found: dict[str, list[str]] = {}
    for entry in _json_lines(repairs):
        if entry["notebook"] not in failed:
            found.setdefault(entry["notebook"], []).extend(entry["changed"])
    why = "output its kernel sent was not well-formed, repaired or dropped"
    return [
        Problem(REPAIRED_KIND, notebook, f"{why} ({'; '.join(dict.fromkeys(changed))})"[:300])
        for notebook, changed in sorted(found.items())
    ]


def record_refused(
    root: Path,
    student: str,
    template_db: Path,
    masters: dict[str, Any],
    unsafe: list[str],
    start: float,
    crowded: str = "",
) -> StudentResult:
    """A submission holding a link or special file (or, per ``crowded``, too many entries),
    recorded for a person and not graded: its regular-file notebooks, copied without following
    any link, go through nbgrader's sanitizing steps with nothing executed, and every score is
    left to a person, the reason as each answer cell's comment. Never raises."""
    kind, detail = (CROWDED_KIND, crowded) if crowded else (REFUSED_KIND, ", ".join(unsafe)[:200])
    problems = [Problem(kind, "", detail)]
    scratch = Path(tempfile.mkdtemp(prefix=f"refused-{student}-", dir=scratch_root(root)))
    log = ""
    try:
        copy = scratch / "submitted" / student / ASSIGNMENT
        kept, unreadable = _copy_regular_notebooks(root, student, masters, copy)
        db_path = scratch / "gradebook.db"
        shutil.copyfile(template_db, db_path)
        carry_extension(class_db_path(root), db_path, ASSIGNMENT, student)
        when = {"timestamp": stamp} if (stamp := _timestamp(copy)) else {}
        with Gradebook(f"sqlite:///{db_path}") as gb:  # every notebook submitted, none scored
            gb.update_or_create_student(student)
            gb.update_or_create_submission(ASSIGNMENT, student, **when)
        if kept:
            ok, log = _sanitize(root, scratch / "submitted", db_path, student)
            kept = kept if ok else []
        if not kept:
            _empty_autograded(root, student)
        flag_refused(db_path, student, reason(unsafe, kept, unreadable, crowded))
        rows: Rows = student_rows(db_path, ASSIGNMENT, student)
    except Exception as error:  # a bug here must not stop the class
        rows, log = {}, "".join(traceback.format_exception(error))
        why = f"recording a refused submission failed: {type(error).__name__}: {error}"[:200]
        problems.append(Problem(NOT_GRADED_KIND, "", why))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    seconds = time.perf_counter() - start
    return StudentResult(student, False, False, seconds, tuple(problems), rows, log=log)


def _copy_regular_notebooks(
    root: Path, student: str, masters: dict[str, Any], copy: Path
) -> tuple[list[str], list[str]]:
    """Copy the submission's regular-file notebooks and timestamp into ``copy``; return the
    notebooks kept and those removed again as not readable."""
    limits = {f"{name}.ipynb": MAX_NOTEBOOK_BYTES for name in masters}
    limits[TIMESTAMP] = MAX_TIMESTAMP_BYTES
    copied = safe_copy(root / "submitted", student, ASSIGNMENT, limits, copy)
    _, bad = inspect_submission(copy, masters, None)
    unreadable = sorted(f"{name}.ipynb" for name in bad)
    for name in unreadable:
        (copy / name).unlink()
    kept = sorted(n for n in copied if n != TIMESTAMP and n not in unreadable)
    return kept, unreadable


def _timestamp(copy: Path) -> datetime.datetime | None:
    """The copy's submission time; a timestamp nbgrader cannot read is dropped, since its
    reader then fails the whole submission."""
    path = copy / TIMESTAMP
    if not path.exists():
        return None
    try:
        return parse_utc(path.read_text().strip())
    except (ValueError, OverflowError, UnicodeDecodeError):
        path.unlink()
        return None


# What nbgrader does to a refused submission's notebooks after its sanitizing steps (outputs
# cleared, locked cells restored): the course's markup guard, and nothing that runs or scores.
_RECORD_ONLY = [
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "autograder.plugins.outputs.MarkupAsText",
    "nbgrader.preprocessors.CheckCellMetadata",
]


def _sanitize(root: Path, submitted: Path, db_path: Path, student: str) -> tuple[bool, str]:
    """nbgrader's autograde of the copy in ``submitted`` with nothing executed or scored, into
    ``autograded/<student>/<assignment>``; returns whether it succeeded, and its log."""
    config = course_config(root)
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.db_url = f"sqlite:///{db_path}"
    # Relative: nbgrader puts the folder, unescaped, into a pattern after the escaped root.
    config.CourseDirectory.submitted_directory = os.path.relpath(submitted, root)
    config.Autograde.autograde_preprocessors = list(_RECORD_ONLY)
    config.MarkupAsText.course_root = str(root)
    coursedir = CourseDirectory(config=config, assignment_id=ASSIGNMENT, student_id=student)
    app = Autograde(coursedir=coursedir, config=config, force=True, create_student=True)
    outcome = capture_log(app)
    return bool(outcome["success"]), outcome.get("log", "") + outcome.get("error", "")


def _empty_autograded(root: Path, student: str) -> None:
    """An empty ``autograded/<student>/<assignment>``, so the Formgrader lists the submission
    (it shows no earlier notebook): what an earlier grading left there goes."""
    parent = root / "autograded" / student
    if parent.is_symlink() or parent.parent.is_symlink():
        return
    folder = parent / ASSIGNMENT
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


def _json_lines(record: Path) -> list[dict[str, Any]]:
    """What a grading step wrote as JSON lines: the judge's verdicts, the repaired outputs."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()]


def write_pages(course_root: Path, student: str) -> str | None:
    """``student``'s feedback pages, by nbgrader's ``GenerateFeedback`` with the course's
    ``nbgrader_config.py`` (``course_config``), as ``nbgrader generate_feedback bpe --force``
    writes them for each student; None, or one line saying why not (nbgrader then removed
    what it had written of them, as it does). The gradebook is opened read-only: call
    ``on_dask.gradebook_ready_for_readers`` once first."""
    config = course_config(course_root)
    if "root" not in config.CourseDirectory:  # nbgrader's default: the folder it runs in
        config.CourseDirectory.root = str(course_root)
    # Read-only, and never made: an SQLite URI through SQLAlchemy.
    read_only = sqlite_uri(class_db_path(course_root), read_only=True)
    config.CourseDirectory.db_url = f"sqlite:///{read_only}&uri=true"
    # The student id is a glob to nbgrader: this student's folder alone.
    only = glob.escape(student)
    coursedir = CourseDirectory(config=config, assignment_id=ASSIGNMENT, student_id=only)
    converter = GenerateFeedback(coursedir=coursedir, config=config, force=True)
    try:
        outcome, errors = _autograde(converter)
    except Exception as error:  # a bug of ours or nbgrader's: this student, not the class
        errors, outcome = [f"{type(error).__name__}: {error}"], {"success": False}
    if outcome["success"]:
        return None
    why = errors[0] if errors else "nbgrader's generate_feedback failed"
    return printable(" ".join(why.split()))[:300]
