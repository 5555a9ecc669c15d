"""What is wrong with one student's submission, before and after nbgrader grades it.

``inspect_submission`` compares the submitted folder with the masters (a missing notebook,
one that is not JSON, an extra file, a locked test cell deleted or edited); ``read_outcomes``
reads the autograded notebooks for a lost kernel, a timeout, memory running out, and every
failing test cell with its whole message. Each finding is a plain-data ``Problem``
(``autograder.problems``).

But: it does not grade and does not touch the gradebook.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import nbformat

from autograder.plugins.guarded_execute import KERNEL_LOST
from autograder.problems import (  # noqa: F401 - the names grading reads from here
    NBGRADER_FILES,
    NOT_GRADED_KIND,
    REFUSED_KIND,
    Problem,
    printable,
)
from autograder.sandbox.safe_walk import (  # noqa: F401 - grading catches TooManyEntriesError
    FOLDER,
    ChangedWhileWalkedError,
    TooManyEntriesError,
    walk,
)
from bpe_course.lesson_cells import is_tracked, nbgrader_meta

# A lesson has about 30 cells and 50 KB; an answered one with every output a few MB. Far past
# that, a notebook only holds a grading worker (and everyone's feedback) for minutes.
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_CELLS = 1000


def graded_ids(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The cells nbgrader tracks (grade, solution or locked), by grade_id."""
    out = {}
    for cell in notebook.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id and is_tracked(cell):
            out[grade_id] = cell
    return out


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
    """Every link or special file in a submission (paths relative to it), the submission's
    folders themselves included. nbgrader follows links when it copies and writes, so a
    submission holding one is not graded (``grade_one.record_refused`` records it).

    Raises ``TooManyEntriesError`` past collect's bounds (``safe_walk.MAX_ENTRIES`` files
    and folders, ``MAX_DEPTH`` deep), having listed no further: a ``submitted/`` filled by
    hand is bounded as collect bounds an entry. A part that changes while walked (made a link
    since it was listed) is listed as unsafe too."""
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
    """Problems found in ``submitted`` (one student's assignment folder), and the names of the
    notebooks nbgrader cannot open. ``masters`` maps notebook name to its source notebook;
    ``released`` is the release folder, for telling an edited locked cell from the master."""
    problems: list[Problem] = []
    unreadable: set[str] = set()
    present = {p.name for p in submitted.iterdir()} if submitted.is_dir() else set()
    for extra in sorted(present - {f"{name}.ipynb" for name in masters} - NBGRADER_FILES):
        problems.append(Problem("extra_file", "", extra))
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
    ours = graded_ids(master)
    for grade_id, cell in ours.items():
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
    and every test cell that failed, with the first line of its error."""
    problems: list[Problem] = []
    for name in names:
        path = autograded / f"{name}.ipynb"
        if not path.exists():
            continue
        notebook = nbformat.read(path, as_version=4)
        lost_reported = False
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            meta = nbgrader_meta(cell)
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if not errors:
                continue
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
