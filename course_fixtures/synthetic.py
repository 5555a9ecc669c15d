"""Write made-up submissions into a course folder, the way nbgrader's ``collect`` would.

A synthetic student is the released notebooks with some answer cells replaced by source
code of our choosing: a correct answer, a known-wrong one, or nothing (the untouched stub).
Tests and benchmarks use it to push many students through the real nbgrader pipeline. It
does not run or grade anything.

>>> import tempfile, nbformat
>>> from nbformat.v4 import new_code_cell, new_notebook
>>> root = Path(tempfile.mkdtemp())
>>> (root / "release" / "bpe").mkdir(parents=True)
>>> cell = new_code_cell("raise NotImplementedError()")
>>> cell.metadata["nbgrader"] = {"grade_id": "merge_pair", "solution": True}
>>> nbformat.write(new_notebook(cells=[cell]), root / "release" / "bpe" / "01.ipynb")
>>> folder = write_submission(root, "ada", {"merge_pair": "def merge_pair(s, p):\\n    return s"})
>>> nbformat.read(folder / "01.ipynb", as_version=4).cells[0].source
'def merge_pair(s, p):\\n    return s'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import nbformat

from autograder.course import ASSIGNMENT


def answer_cells(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The solution cells of a notebook, by grade_id."""
    found = {}
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id"):
            found[meta["grade_id"]] = cell
    return found


def fill_answers(source: Path, target: Path, answers: Mapping[str, str]) -> Path:
    """Write ``source`` to ``target`` with the answer cell of each grade_id in ``answers``
    replaced by its code (``target`` may be ``source``); returns ``target``."""
    notebook = nbformat.read(source, as_version=4)
    cells = answer_cells(notebook)
    unknown = sorted(set(answers) - set(cells))
    if unknown:
        raise ValueError(f"no answer cell with grade_id {unknown} in {source}")
    for name, code in answers.items():
        cells[name].source = code
        cells[name].outputs = []
        cells[name].execution_count = None
    nbformat.write(notebook, target)
    return target


def write_submission(
    course_root: Path,
    student: str,
    answers: Mapping[str, str],
    notebooks: Iterable[str] | None = None,
) -> Path:
    """Copy ``release/bpe/*.ipynb`` into ``submitted/<student>/bpe/``, replacing the answer
    cell whose grade_id is ``name`` by ``answers[name]``; returns the submission folder.

    ``notebooks`` (file names, e.g. ``["01_bpe_by_hand.ipynb"]``) limits which notebooks are
    submitted; by default all of them are. Raises ValueError when an answer names no answer
    cell of the submitted notebooks, so a typo never becomes a silent stub.
    """
    release = Path(course_root) / "release" / ASSIGNMENT
    paths = sorted(release.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(
            f"no released notebooks in {release}; run `nbgrader generate_assignment "
            f"{ASSIGNMENT}` (or `make notebooks`) in the course folder first"
        )
    if notebooks is not None:
        wanted = set(notebooks)
        unknown = wanted - {path.name for path in paths}
        if unknown:
            raise ValueError(f"no released notebook named {sorted(unknown)} in {release}")
        paths = [path for path in paths if path.name in wanted]
    folder = Path(course_root) / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    placed: set[str] = set()
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        for name, cell in answer_cells(notebook).items():
            if name in answers:
                cell.source = answers[name]
                cell.outputs = []
                cell.execution_count = None
                placed.add(name)
        nbformat.write(notebook, folder / path.name)
    missing = sorted(set(answers) - placed)
    if missing:
        raise ValueError(
            f"no answer cell with grade_id {missing} in the submitted notebooks "
            f"{[path.name for path in paths]}"
        )
    return folder
