"""Check your own notebook: run it as the grader does and report each visible test.

    python -m bpe_course.selfcheck notebooks/01_bpe_by_hand.ipynb [more notebooks ...]

or, from a cell of the notebook itself (it checks the saved file)::

    from bpe_course.selfcheck import check
    check("01_bpe_by_hand.ipynb")

The notebook runs top to bottom in a fresh kernel, in its own folder, lean as the grader runs
it: each of the lesson's own code cells runs only its ``import``, ``def`` and ``class``
statements (its demonstrations are skipped), and every other code cell runs whole: answer
and test cells, and the cells you added. A lesson cell you edited is still the lesson's and
is cut the same way, because grading tells the lesson's cells by their ids (then by their
text) and cuts an edited one too; the self-check says what the grader will say. The lesson's
cells are known by the marks the release puts in their metadata
(``bpe_course.lesson_cells``); a copy without marks runs every cell whole, as ``--whole``
does, and the report says so. A cell that fails does not stop the rest. Then each test cell
(the locked cells nbgrader grades) is reported as passed or failed with its error, and the
command exits 1 if any failed, 0 if all passed, 2 if a notebook could not be read or run.
``nbgrader validate`` exits 0 even when tests fail; this does not.

But: it does not grade and knows no hidden tests: those run only when the instructor grades,
and their cells in your copy hold just a comment. It changes nothing on disk.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_course.lesson_cells import LessonMarks, definitions_only, nbgrader_meta

if TYPE_CHECKING:  # nbformat takes a second to import: the check cell of every lesson pays it
    import nbformat

# The hidden-test markers (nbgrader's ClearHiddenTests delimiters): the graders import them here.
BEGIN_HIDDEN = "BEGIN HIDDEN TESTS"
END_HIDDEN = "END HIDDEN TESTS"
# The grader's per-cell limit (nbgrader_config.py): a cell that passes here in 15 s would
# score 0 when graded. A cell stuck in a loop is interrupted and later cells still run.
CELL_TIMEOUT = 10
# What a cell shows after the kernel was interrupted for running too long.
TIMED_OUT = ("KeyboardInterrupt", "CellTimeoutError")
# Set in the kernels the self-check starts, so that a notebook's own check cell does not start
# another check of the same notebook, and so on forever.
INSIDE_SELFCHECK = "BPE_COURSE_SELFCHECK"
# nbgrader sets this in the kernels it starts to grade or validate a notebook.
INSIDE_GRADER = "NBGRADER_EXECUTION"


@dataclass
class TestResult:
    """One test cell after the run: its nbgrader grade_id and its error, if it failed."""

    name: str
    error: str | None
    hidden: bool = False

    @property
    def passed(self) -> bool:
        return self.error is None


def visible_source(source: str) -> str:
    """A cell's source without hidden-test regions, in case an instructor's copy is checked."""
    kept, hidden = [], False
    for line in source.split("\n"):
        if BEGIN_HIDDEN in line:
            hidden = True
        elif END_HIDDEN in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def is_test_cell(cell: nbformat.NotebookNode) -> bool:
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(meta.get("grade")) and "grade_id" in meta


def only_comments(source: str) -> bool:
    return all(not line.strip() or line.strip().startswith("#") for line in source.splitlines())


def first_error(cell: nbformat.NotebookNode, timeout: int = CELL_TIMEOUT) -> str | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), output.get("evalue", "")
            if name in TIMED_OUT:
                return (
                    f"still running after {timeout} s, the grader's limit per cell, so it was "
                    "stopped: look for a loop that never ends"
                )
            message = f"{name}: {value}" if value else name
            if name == "NotImplementedError":
                message += " (an answer above is still the stub: write your code there)"
            return message
    return None


@dataclass
class Checked:
    """A notebook's test results, and whether its lesson cells ran lean (definitions only)."""

    results: list[TestResult]
    lean: bool


def trim_lesson_cells(notebook: nbformat.NotebookNode) -> bool:
    """Cut each of the lesson's code cells of ``notebook`` to its definitions, as lean grading
    does; False (and nothing cut) when no cell carries a lesson mark."""
    marks = LessonMarks.of_release(notebook.cells)
    if marks is None:
        return False
    for cell in notebook.cells:
        if marks.trims(cell):
            cell.source = definitions_only(cell.source)
    return True


def run_notebook(path: Path, timeout: int = CELL_TIMEOUT, whole: bool = False) -> Checked:
    """Run the notebook at ``path`` in a fresh kernel, lean unless ``whole``; the results of
    its test cells."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    lean = not whole and trim_lesson_cells(notebook)
    hidden = set()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and BEGIN_HIDDEN in cell.source:
            cell.source = visible_source(cell.source)
        if is_test_cell(cell) and only_comments(cell.source):
            hidden.add(index)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        interrupt_on_timeout=True,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    # The kernel's own log lines (e.g. its warning about TCP without encryption) are not the
    # student's business: keep them out of the report.
    client.execute(stderr=subprocess.DEVNULL, env={**os.environ, INSIDE_SELFCHECK: "1"})
    results = [
        TestResult(nbgrader_meta(cell)["grade_id"], first_error(cell, timeout), index in hidden)
        for index, cell in enumerate(notebook.cells)
        if is_test_cell(cell)
    ]
    return Checked(results, lean)


# A failure's message is printed whole, wrapped to this width under its test's name.
REPORT_WIDTH = 100
INDENT = " " * 10


def wrapped(message: str, width: int = REPORT_WIDTH) -> list[str]:
    """``message`` as indented lines of at most ``width`` characters; no character is lost,
    only spaces at the breaks.

    >>> wrapped("AssertionError: " + "word " * 30, width=60)[1]
    '            word word word word word word word word word'
    """
    lines = []
    for line in message.splitlines() or [""]:
        lines += textwrap.wrap(
            line,
            width=width,
            initial_indent=INDENT,
            subsequent_indent=INDENT + "  ",
            break_on_hyphens=False,
            drop_whitespace=True,
        ) or [INDENT]
    return lines


# The one line of a report on a copy released before the lesson marks, which ran whole.
UNMARKED = "  every cell ran whole (slower): this copy has no lesson marks, it predates them"


def report(path: Path, results: list[TestResult], note: str | None = None) -> str:
    lines = [f"{path}:"] + ([note] if note else [])
    for result in results:
        if result.hidden:
            lines.append(f"  hidden  {result.name} (runs when your notebook is graded)")
        elif result.passed:
            lines.append(f"  pass    {result.name}")
        else:
            lines.append(f"  FAIL    {result.name}:")
            lines += wrapped(result.error or "")
    visible = [r for r in results if not r.hidden]
    failed = [r.name for r in visible if not r.passed]
    if not visible:
        lines.append("  (no visible tests in this notebook)")
    elif failed:
        lines.append(f"  {len(failed)} of {len(visible)} visible tests fail: {', '.join(failed)}")
    else:
        lines.append(
            "  the visible test passes"
            if len(visible) == 1
            else f"  all {len(visible)} visible tests pass"
        )
    return "\n".join(lines)


def check(notebook: str | Path) -> None:
    """Check a saved notebook from one of its own cells, and print the report.

    It runs ``python -m bpe_course.selfcheck`` on the file in a fresh process with this
    kernel's Python, so what it checks is the file on disk: save the notebook first. A relative
    path is read from the kernel's folder, which in Jupyter is the notebook's own.

    But: inside a self-check's or a grader's run of the notebook it only says so, since it
    would otherwise check the notebook again from inside that check.
    """
    if os.environ.get(INSIDE_SELFCHECK) or os.environ.get(INSIDE_GRADER):
        print("the self-check cell does nothing while the notebook is being checked or graded")
        return
    # The run starts a kernel and reruns the saved notebook: say so before a silent wait.
    print(f"checking {Path(notebook).name} as saved, in a fresh kernel as the grader runs it...")
    sys.stdout.flush()
    done = subprocess.run(
        [sys.executable, "-m", "bpe_course.selfcheck", str(notebook)],
        capture_output=True,
        text=True,
    )
    print(done.stdout + done.stderr, end="")


def version_line() -> str:
    """The report's first line: which version of the course checks the notebooks.

    >>> version_line().startswith("bpe-course ")
    True
    """
    from bpe_course import __version__

    return f"bpe-course {__version__} self-check"


def skip_iri_checker() -> None:
    """Keep jsonschema from loading its IRI format checker in this process.

    nbformat imports jsonschema, which imports ``rfc3987_syntax`` when it is installed (as
    JupyterLab's dependencies install it with jsonschema 4.25 and later; the course pins
    4.24.1), and that compiles about 35 grammars at import: 2.5 s here, more than the rest of
    a lean check (jsonschema issue 1428). For a learner's own environment: nbformat never
    checks formats, so the check is the same without it.
    """
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.selfcheck",
        description="Run a course notebook and report its visible tests; exit 1 if any fails.",
    )
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebook files to check")
    parser.add_argument(
        "--timeout", type=int, default=CELL_TIMEOUT, help="seconds allowed per cell"
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="run the lesson's demonstrations too (slower; the grader skips them)",
    )
    args = parser.parse_args(argv)
    print(version_line())
    skip_iri_checker()
    status = 0
    for path in args.notebooks:
        if not path.is_file():
            print(f"{path}: no such notebook; give the path of a .ipynb file", file=sys.stderr)
            status = 2
            continue
        try:
            checked = run_notebook(path, args.timeout, whole=args.whole)
        except Exception as error:  # unreadable JSON, a kernel that died, no kernel
            print(f"{path}: could not run it: {type(error).__name__}: {error}", file=sys.stderr)
            status = 2
            continue
        note = UNMARKED if not (checked.lean or args.whole) else None
        print(report(path, checked.results, note))
        if any(not r.passed for r in checked.results if not r.hidden):
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
