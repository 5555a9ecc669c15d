"""The self-check runs a lesson lean, as grading does, from the marks the release leaves.

The released notebooks mark each lesson code cell with its id and source hash; with them the
self-check runs the lesson's cells for their definitions only and the student's own cells
whole, cuts a lesson cell the student edited in place as grading does (grading knows it by its
id), and reaches the same verdict as grading's lean steps (``TrimLessonCells``, nbgrader's
``Execute``) run in process on the same notebook, for a right answer and for one that leans on
a lesson variable. A copy released before the marks still checks, every cell whole, and says
so in one line.

But: the speed (under 5 s a notebook) is measured in ``make bench`` (bench/bench_selfcheck.py),
never timed here.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from bpe_course import selfcheck
from bpe_course.lesson_cells import MARK, is_tracked, source_sha256
from course_fixtures.catalogue import CORRECT
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs the self-check, a kernel per notebook

LESSON = "01_bpe_by_hand"
RIGHT = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
# A lesson cell that leaves traces when it runs, and defines a helper the answer may use.
DEMO = (
    "from pathlib import Path\n\n"
    "Path('demo-ran').write_text('the demonstration ran')\n"
    "print('a slow demonstration')\n\n\n"
    "def lesson_helper():\n    return 'defined'\n"
)


def released(lesson: str = LESSON) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)


def answered(notebook: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
    return notebook


def lesson_cell(notebook: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    (cell,) = [c for c in notebook.cells if c.get("id") == cell_id]
    return cell


def as_released_with(notebook: nbformat.NotebookNode, cell_id: str, source: str) -> None:
    """Make the lesson cell ``cell_id`` read ``source`` as if the lesson shipped it so."""
    cell = lesson_cell(notebook, cell_id)
    cell.source = source
    cell.metadata[MARK]["lesson"]["sha256"] = source_sha256(source)


def index_of(notebook: nbformat.NotebookNode, grade_id: str) -> int:
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells]
    return ids.index(grade_id)


def check(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    status = selfcheck.main([*options, str(path)])
    return status, capsys.readouterr().out


@pytest.mark.parametrize(
    "lesson", sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")), ids=str
)
def test_a_released_notebook_marks_each_lesson_code_cell(lesson: str) -> None:
    master = nbformat.read(ROOT / "source" / "bpe" / f"{lesson}.ipynb", as_version=4)
    master_ids = {c.get("id") for c in master.cells}
    marked = 0
    for cell in released(lesson).cells:
        mark = cell.metadata.get(MARK)
        if cell.cell_type != "code" or is_tracked(cell):
            assert mark is None, cell.get("id")
            continue
        assert mark == {"lesson": {"id": cell.id, "sha256": source_sha256(cell.source)}}
        assert cell.id in master_ids  # the master's id, which grading matches on
        marked += 1
    assert marked >= 3


def test_a_demonstration_does_not_run_but_the_students_own_cell_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = answered(released(), RIGHT)
    as_released_with(notebook, "l01-05", DEMO)
    own = "from pathlib import Path\n\nPath('mine-ran').write_text(lesson_helper())\n"
    notebook.cells.insert(index_of(notebook, "pair_counts"), new_code_cell(own, id="mine"))
    path = tmp_path / f"{LESSON}.ipynb"
    nbformat.write(notebook, path)
    status, out = check(path, capsys)
    assert status == 0, out
    assert "all 2 visible tests pass" in out and "ran whole" not in out
    assert not (tmp_path / "demo-ran").exists()  # the lesson's demonstration was skipped,
    assert (tmp_path / "mine-ran").read_text() == "defined"  # its def ran; the student's cell too
    # --whole runs the demonstration as before.
    status, out = check(path, capsys, "--whole")
    assert status == 0 and (tmp_path / "demo-ran").exists(), out


def test_an_edited_lesson_cell_is_cut_as_grading_cuts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograder.cells import LessonCells

    notebook = answered(released(), RIGHT)
    edited = lesson_cell(notebook, "l01-05")
    edited.source = "from pathlib import Path\n\nPath('edited-ran').write_text('ran')\n"
    # A lesson cell copied (its metadata with it, a new id) and then changed: the student's.
    copy = nbformat.from_dict(dict(lesson_cell(notebook, "l01-07")))
    copy.id = "pasted"
    copy.source = "from pathlib import Path\n\nPath('copy-ran').write_text('ran')"
    notebook.cells.insert(index_of(notebook, "pair_counts"), copy)
    path = tmp_path / f"{LESSON}.ipynb"
    nbformat.write(notebook, path)
    grading = LessonCells(nbformat.read(ROOT / "source" / "bpe" / f"{LESSON}.ipynb", 4))
    assert grading.holds(edited) and not grading.holds(copy)  # what grading does today
    status, out = check(path, capsys)
    assert status == 0, out
    assert not (tmp_path / "edited-ran").exists()  # cut, as grading cuts it
    assert (tmp_path / "copy-ran").exists()  # run whole, as grading runs it


PAIR_COUNTS = """
def pair_counts(words):
    out = {}
    for symbols, n in words.items():
        for pair in zip(symbols, symbols[1:]):
            %s
    return out
"""
# The student's own helper, in a cell of their own before the answer.
OWN_HELPER = "def count_into(out, pair, n):\n    out[pair] = out.get(pair, 0) + n\n"
USES_OWN_HELPER = PAIR_COUNTS % "count_into(out, pair, n)"
# Right in a whole run, but it reads the lesson's ``corpus``, which a lean run never defines.
LEANS_ON_THE_LESSON = PAIR_COUNTS % "out[pair] = out.get(pair, 0) + n * (len(corpus) > 0)"


def graders_verdicts(path: Path) -> dict[str, str | None]:
    """The visible tests' errors when grading's lean steps run the notebook at ``path``:
    ``TrimLessonCells`` against the master, then nbgrader's ``Execute`` (in process)."""
    from nbgrader.preprocessors import Execute

    from autograder.plugins.lessons import TrimLessonCells

    notebook = nbformat.read(path, as_version=4)
    resources = {"unique_key": path.stem, "metadata": {"path": str(path.parent)}}
    trim = TrimLessonCells(masters=str(ROOT / "source" / "bpe"))
    notebook, resources = trim.preprocess(notebook, resources)
    notebook, _ = Execute(timeout=selfcheck.CELL_TIMEOUT).preprocess(notebook, resources)
    return {
        cell.metadata["nbgrader"]["grade_id"]: selfcheck.first_error(cell)
        for cell in notebook.cells
        if selfcheck.is_test_cell(cell) and not selfcheck.only_comments(cell.source)
    }


@pytest.mark.parametrize("case", ["right", "leans on the lesson"])
def test_the_self_check_says_what_lean_grading_says(tmp_path: Path, case: str) -> None:
    if case == "right":
        notebook = answered(released(), {**RIGHT, "pair_counts": USES_OWN_HELPER})
        at = index_of(notebook, "pair_counts")
        notebook.cells.insert(at, new_code_cell(OWN_HELPER, id="own-helper"))
    else:
        notebook = answered(released(), {**RIGHT, "pair_counts": LEANS_ON_THE_LESSON})
    path = tmp_path / f"{LESSON}.ipynb"
    nbformat.write(notebook, path)
    mine = selfcheck.run_notebook(path)
    assert mine.lean
    verdicts = {r.name: r.error for r in mine.results if not r.hidden}
    assert verdicts == graders_verdicts(path)
    failed = sorted(name for name, error in verdicts.items() if error)
    assert failed == ([] if case == "right" else ["test_pair_counts_examples"])
    if case != "right":
        assert "corpus" in str(verdicts[failed[0]])  # named as missing, in both


def test_a_copy_without_marks_runs_whole_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = answered(released(), RIGHT)
    as_released_with(notebook, "l01-05", DEMO)
    for cell in notebook.cells:
        cell.metadata.pop(MARK, None)
    path = tmp_path / f"{LESSON}.ipynb"
    nbformat.write(notebook, path)
    status, out = check(path, capsys)
    assert status == 0, out
    assert f"{path}:\n{selfcheck.UNMARKED}\n" in out
    assert "all 2 visible tests pass" in out
    assert (tmp_path / "demo-ran").exists()
