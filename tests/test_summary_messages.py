"""A failing test's whole message reaches the summary CSV; only the printed table cuts it."""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.grading.grade_one import MAX_CELLS, inspect_submission, read_outcomes
from autograder.problems import Problem
from autograder.reports import summary
from tests.conftest import ROOT

SOURCE = ROOT / "source" / "bpe"

MESSAGE = (
    "merge_pair is wrong on symbols=('a', 'b', 'a', 'b'), pair=('a', 'b'): expected "
    "['ab', 'ab'], got ('ab', 'ab') (likely mistake: wrong return types).\n"
    "The smallest failing input is shown first; merge_pair must return a new list of "
    "symbols, leaving the caller's list untouched, and never a tuple or a string."
)


def test_the_whole_first_failure_message_is_kept_and_only_the_table_cuts_it(
    tmp_path: Path,
) -> None:
    cell = new_code_cell("check('merge_pair', 'core', merge_pair)")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "test_merge_pair_hidden_core"}
    cell.outputs = [new_output("error", ename="AssertionError", evalue=MESSAGE, traceback=[])]
    nbformat.write(new_notebook(cells=[cell]), tmp_path / "01_bpe_by_hand.ipynb")
    problems = read_outcomes(tmp_path, ["01_bpe_by_hand"])
    note = problems[0].text()
    assert MESSAGE.replace("\n", " ") in note  # one line, nothing cut

    row = summary.StudentRow("ada", scores={"merge_pair": 1.0, "train_bpe": None})
    row.maxima = {"merge_pair": 3.0, "train_bpe": 5.0}
    lost = "kernel lost: 01_bpe_by_hand: " + "the kernel stopped answering " * 10
    row.notes = [note, lost]
    summary.write_csv([row], tmp_path / "summary.csv")
    with open(tmp_path / "summary.csv", newline="") as handle:
        written = next(csv.DictReader(handle))
    assert written["notes"] == f"{note} | {lost}"
    assert written["train_bpe"] == "" and written["total"] == ""  # ungraded: blank, not 0

    table = summary.format_table([row]).splitlines()
    printed = [line for line in table if "kernel lost" in line]
    assert printed and printed[0].endswith("…") and len(printed[0]) < len(lost) + 10
    assert f"{summary.UNGRADED:>7}" in table[2]  # the ungraded total and train_bpe


def test_the_score_figure_has_one_integer_tick_per_possible_score(
    tmp_path: Path, monkeypatch
) -> None:
    import matplotlib.pyplot as plt

    maxima = {"pair_counts": 3.0, "merge_pair": 3.0, "train_bpe": 5.0}
    maxima |= {"encode_bpe": 5.0, "merge_and_update": 5.0}
    rows = [summary.StudentRow(s, scores=dict.fromkeys(maxima, 2.0), maxima=maxima) for s in "ab"]
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to look at its axes
    summary.plot_distribution(rows, tmp_path / "scores.png")
    # Five panels of 3 x 3 inches at 100 dots per inch.
    assert plt.imread(tmp_path / "scores.png").shape == (300, 1500, 4)
    for ax, name in zip(figures[0].axes, summary.EXERCISES):
        assert list(ax.get_xticks()) == list(range(int(maxima[name]) + 1)), name
        # One bar per possible score; both students scored 2.
        heights = [bar.get_height() for bar in ax.patches]
        assert heights == [2 if score == 2 else 0 for score in range(int(maxima[name]) + 1)]


def test_a_notebook_of_thousands_of_cells_is_left_for_a_person(tmp_path: Path) -> None:
    """33,000 cells held a grading worker for minutes and slowed everyone's feedback."""
    masters = {"01_bpe_by_hand": nbformat.read(SOURCE / "01_bpe_by_hand.ipynb", as_version=4)}
    submitted = tmp_path / "bpe"
    submitted.mkdir()
    padded = new_notebook(cells=[new_code_cell("x = 1") for _ in range(MAX_CELLS + 1)])
    nbformat.write(padded, submitted / "01_bpe_by_hand.ipynb")
    problems, unreadable = inspect_submission(submitted, masters, None)
    assert unreadable == {"01_bpe_by_hand"}
    (problem,) = [p for p in problems if p.kind == "too_large"]
    assert problem.needs_person and f"{MAX_CELLS + 1:,} cells" in problem.text()


def test_names_from_a_submission_cannot_drive_the_terminal() -> None:
    """A file name with a newline could fake a summary row; an escape sequence could clear
    the screen or retitle the terminal."""
    name = "x\n z-fake     21/21 graded\x1b]0;owned\x07"
    text = Problem("extra_file", "", name).text()
    assert "\n" not in text and "\x1b" not in text and "\x07" not in text
    row = summary.StudentRow("a\x1b[2Jb", summary.Status(summary.GRADED, ()))
    assert "\x1b" not in summary.format_table([row])


def test_only_the_students_own_extra_files_are_named(tmp_path: Path) -> None:
    """nbgrader's submit writes ``timestamp.txt`` and ``submission_secret.txt`` into every
    submission: flagging them told every student on the hub of an extra file."""
    masters = {"01_bpe_by_hand": nbformat.read(SOURCE / "01_bpe_by_hand.ipynb", as_version=4)}
    submitted = tmp_path / "bpe"
    submitted.mkdir()
    nbformat.write(masters["01_bpe_by_hand"], submitted / "01_bpe_by_hand.ipynb")
    for name in ("timestamp.txt", "submission_secret.txt", "notes.txt"):
        (submitted / name).write_text("x\n")
    problems, _ = inspect_submission(submitted, masters, None)
    assert [p.text() for p in problems if p.kind == "extra_file"] == [
        Problem("extra_file", "", "notes.txt").text()
    ]
