"""The lesson notebooks: the masters' cell contract, the student copies, and a full run.

- Every master in ``source/bpe/`` has the exercise cells the grading tools rely on (grade ids,
  points, the exact hidden-test cell), nbgrader metadata in schema 3, test cells that end with
  a statement, and no outputs. Every exercise statement says how its answer is graded.
- ``notebooks/`` is what ``make notebooks`` makes from the masters today, and holds no
  solution line and no hidden test.
- Each master runs top to bottom with its solutions in (hidden tests included, so the
  reference answers written in the notebooks pass the checkers), and the numbers its prose
  quotes are the numbers its cells print.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.course import ENGINE_MODULES
from tests.conftest import ROOT

SOURCE = Path(ROOT) / "source" / "bpe"
STUDENT = Path(ROOT) / "notebooks"
LESSONS = [
    "01_bpe_by_hand",
    "02_encoding_by_rank",
    "03_real_text_overfitting",
    "04_making_it_fast",
]
# exercise -> (lesson, points of the examples / hidden core / hidden random cells)
EXERCISES = {
    "pair_counts": ("01_bpe_by_hand", (1, 1, 1)),
    "merge_pair": ("01_bpe_by_hand", (1, 1, 1)),
    "train_bpe": ("02_encoding_by_rank", (1, 2, 2)),
    "encode_bpe": ("02_encoding_by_rank", (1, 2, 2)),
    "merge_and_update": ("04_making_it_fast", (1, 2, 2)),
}
FIRST_EXERCISE = "pair_counts"  # its statement says in full how answers are graded
HIDDEN_CELL = """# Hidden tests run here when your notebook is graded.
### BEGIN HIDDEN TESTS
from autograder.hidden_tests.judge import check
check("{name}", "{group}", {name})
### END HIDDEN TESTS"""
METADATA_KEYS = {"schema_version", "grade", "locked", "solution", "grade_id", "points"}
# What the prose of each lesson quotes from its cells' output; if the library changes one of
# these, the sentence around it must change too.
QUOTED = {
    "01_bpe_by_hand": [
        "6·3 + 2·4 + 5·3 + 3·4 + 4·4 + 3·3 = 78",
        "GPT-2: V = 256 + 50,000 + 1 = 50,257",
        "1  e a        20   a t 12",
        "5  e t         3   eat s 3=, s e 3=",
        "6  eat s       3   s et 3=",
        " 28",
        "teas ×2  →  tea | s",
        "␣the  made in round 3\n␣and  made in round 19\ning   made in round 28\n"
        "ed    made in round 76\nevery word is a single token after round 553",
    ],
    "02_encoding_by_rank": [
        "rank 3 (s eat)   seat s",
        "s t ea t     pairs  s t:·, t ea:2, ea t:1",
        "tokens: s + t + eat",
        "teatea → t + eat + ea",
        "BPE:      ab + c + d",
        "shortest: a + bcd",
    ],
    "03_real_text_overfitting": [
        "merge  3: ␣t he    → ␣the",
        "merge 161 is the first to win with a count of 1",
        "␣stormier    never seen        → ␣storm|i|er",
        "␣keeper      seen in training  → ␣keeper",
    ],
    "04_making_it_fast": [
        "1 MB of plays        999,955   272,408    15,412   111,018",
        "raw text:          'e␣'",
        "inside chunks:     '␣t'",
        "the two tables agree on the first 92 merges",
        "tiktoken gives the same tokens:     True",
        "Hugging Face gives the same tokens: True",
        "the same merges as the course's engine: True",
        "the same merges all three ways: True",
        "1,361,814 chunks, 36,351 distinct",
        "the same counts either way: True",
    ],
}


def read(folder: Path, lesson: str) -> nbformat.NotebookNode:
    return nbformat.read(folder / f"{lesson}.ipynb", as_version=4)


def graded_cells(nb: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell
        for cell in nb.cells
        if "nbgrader" in cell.metadata
    }


@pytest.mark.parametrize("lesson", LESSONS)
def test_master_metadata_is_nbgrader_schema_3_and_has_no_outputs(lesson: str) -> None:
    nb = read(SOURCE, lesson)
    ids = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, f"{lesson}: commit masters without outputs"
        meta = cell.metadata.get("nbgrader")
        if meta is None:
            continue
        assert meta["schema_version"] == 3, f"{lesson}: {meta}"
        assert set(meta) <= METADATA_KEYS, f"{lesson}: unexpected nbgrader keys in {meta}"
        assert {"grade", "locked", "solution", "grade_id"} <= set(meta), f"{lesson}: {meta}"
        assert ("points" in meta) == meta["grade"], f"{lesson}: points go with grade: {meta}"
        ids.append(meta["grade_id"])
    assert len(ids) == len(set(ids)), f"{lesson}: grade ids repeat: {ids}"


@pytest.mark.parametrize("name", EXERCISES)
def test_each_exercise_has_its_answer_cell_and_three_graded_test_cells(name: str) -> None:
    lesson, points = EXERCISES[name]
    cells = graded_cells(read(SOURCE, lesson))
    answer = cells[name]
    meta = answer.metadata["nbgrader"]
    assert (meta["solution"], meta["grade"], meta["locked"]) == (True, False, False), meta
    assert f"def {name}(" in answer.source
    assert "### BEGIN SOLUTION" in answer.source and "### END SOLUTION" in answer.source
    groups = ["examples", "hidden_core", "hidden_random"]
    for group, expected_points in zip(groups, points):
        cell = cells[f"test_{name}_{group}"]
        meta = cell.metadata["nbgrader"]
        assert (meta["grade"], meta["locked"], meta["solution"]) == (True, True, False), meta
        assert meta["points"] == expected_points, f"test_{name}_{group}: {meta['points']} points"
    for group in ("core", "random"):
        hidden = cells[f"test_{name}_hidden_{group}"].source
        assert hidden == HIDDEN_CELL.format(name=name, group=group)
    examples = cells[f"test_{name}_examples"].source
    # Literal asserts, or the shared check of bpe_course.examples (the hidden tests' words).
    assert "assert " in examples or f'check_examples("{name}", {name})' in examples
    assert "autograder" not in examples


@pytest.mark.parametrize("name", EXERCISES)
def test_visible_tests_need_only_the_answer_cell(name: str) -> None:
    # Grading may skip the lesson's demonstrations (grade_class --lean), and verify runs the
    # answers on their own: the answer and its visible tests must not lean on lesson variables.
    cells = graded_cells(read(SOURCE, EXERCISES[name][0]))
    namespace: dict[str, object] = {}
    exec(compile(cells[name].source, f"<{name}>", "exec"), namespace)
    exec(compile(cells[f"test_{name}_examples"].source, f"<test_{name}>", "exec"), namespace)


@pytest.mark.parametrize("name", EXERCISES)
def test_each_statement_says_how_its_answer_is_graded(name: str) -> None:
    # The grader runs answers in a fresh process and gives 0 to one that calls the course's
    # engine; a student must read both rules where the exercise is stated, not discover them.
    statement = graded_cells(read(SOURCE, EXERCISES[name][0]))[f"about_{name}"].source
    words = " ".join(statement.split())
    rules = [
        f"calls `{name}` on many inputs",
        "fresh process",
        "cells you added yourself",
        "imports and function definitions",
        "don't count on variables",
        "scores 0",
    ]
    engine = ["`bpe_course.Trainer`", "`Encoder`", "`learn_merges`", "`ChunkTable`"]
    engine += [f"`{module}`" for module in ENGINE_MODULES]  # every part of them is refused
    if name != FIRST_EXERCISE and "fresh process" not in words:
        # Past the first exercise a statement points to it for the details (said once) and
        # keeps only the two rules.
        here = (
            "exercise 1 above" if EXERCISES[name][0] == EXERCISES[FIRST_EXERCISE][0] else "lesson 1"
        )
        rules, engine = [here, "in your own cells", "scores 0"], ["`Trainer`", *engine[1:4]]
    missing = [rule for rule in rules + engine if rule not in words]
    assert not missing, f"about_{name} no longer states {missing}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_test_cells_end_with_a_statement_not_a_value(lesson: str) -> None:
    # nbgrader turns a test cell's trailing value into its score; a call returning None is fine.
    for grade_id, cell in graded_cells(read(SOURCE, lesson)).items():
        if not cell.metadata["nbgrader"]["grade"]:
            continue
        last = ast.parse(cell.source).body[-1]
        trailing_value = isinstance(last, ast.Expr) and not isinstance(last.value, ast.Call)
        assert not trailing_value, f"{lesson}: {grade_id} ends with an expression"


@pytest.mark.parametrize("lesson", LESSONS)
def test_student_notebooks_hold_stubs_and_no_solution_or_hidden_test(lesson: str) -> None:
    text = (STUDENT / f"{lesson}.ipynb").read_text(encoding="utf-8")
    for leak in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "autograder", "solutions"):
        assert leak not in text, f"notebooks/{lesson}.ipynb contains {leak!r}"
    cells = graded_cells(read(STUDENT, lesson))
    for name, (home, _) in EXERCISES.items():
        if home == lesson:
            assert "raise NotImplementedError()" in cells[name].source
            assert cells[f"test_{name}_hidden_core"].source.startswith("# Hidden tests run here")


@pytest.mark.nbgrader
def test_student_notebooks_are_what_make_notebooks_makes_today(tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(SOURCE, course / "source" / "bpe")
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH when it creates the gradebook.
    env["PATH"] = f"{Path(ROOT) / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    subprocess.run(
        [
            str(Path(ROOT) / ".venv" / "bin" / "nbgrader"),
            "generate_assignment",
            "bpe",
            "--log-level=WARN",
            f"--CourseDirectory.root={course}",
            f"--CourseDirectory.db_url=sqlite:///{tmp_path / 'gradebook.db'}",
        ],
        cwd=ROOT,  # so that nbgrader_config.py (timeouts, stub text) applies
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    for lesson in LESSONS:
        fresh = (course / "release" / "bpe" / f"{lesson}.ipynb").read_text(encoding="utf-8")
        committed = (STUDENT / f"{lesson}.ipynb").read_text(encoding="utf-8")
        assert fresh == committed, f"notebooks/{lesson}.ipynb is out of date: run `make notebooks`"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, nbformat.NotebookNode]:
    workdir = tmp_path_factory.mktemp("run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(ROOT))  # the hidden cells import autograder from the root
        # conftest picks Agg for the tests' own plots; a kernel shows figures as Jupyter does.
        patch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        runs = {}
        for lesson in LESSONS:
            nb = read(SOURCE, lesson)
            # A generous limit that only catches hangs; speed is measured by `make bench`.
            client = NotebookClient(
                nb,
                timeout=120,
                kernel_name="python3",
                allow_errors=True,
                resources={"metadata": {"path": str(workdir)}},
            )
            client.execute()
            runs[lesson] = nb
        return runs


def printed(nb: nbformat.NotebookNode) -> str:
    """What the code cells printed, a cell's stream outputs joined as they were written: the
    kernel flushes on a timer, so one print can arrive in two outputs on a busy machine."""
    return "\n".join(
        "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")
        for cell in nb.cells
        if cell.cell_type == "code"
    )


@pytest.mark.slow  # runs every lesson in a kernel (module fixture)
@pytest.mark.parametrize("lesson", LESSONS)
def test_master_runs_top_to_bottom_with_solutions_and_hidden_tests(
    executed: dict[str, nbformat.NotebookNode], lesson: str
) -> None:
    errors = [
        f"cell {i}: {output.ename}: {output.evalue}"
        for i, cell in enumerate(executed[lesson].cells)
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors, f"{lesson} raised: {errors}"


@pytest.mark.slow  # runs every lesson in a kernel (module fixture)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_prose_quotes_what_the_cells_print(
    executed: dict[str, nbformat.NotebookNode], lesson: str
) -> None:
    out = printed(executed[lesson])
    for quote in QUOTED[lesson]:
        assert quote in out, f"{lesson} no longer prints {quote!r}; update the prose around it"


@pytest.mark.slow  # runs every lesson in a kernel (module fixture)
def test_lesson_4_counts_with_pytorch_or_says_how_to_install_it(
    executed: dict[str, nbformat.NotebookNode],
) -> None:
    # CI runs `make torch` first, so there the PyTorch branch runs; without it, the hint shows.
    out = printed(executed["04_making_it_fast"])
    try:
        import torch  # noqa: F401
    except ImportError:
        assert "PyTorch is not installed (it is optional)" in out
        assert "%pip install torch==2.13.0 --index-url" in out  # no make needed
        return
    assert "PyTorch 2.13.0" in out
    assert "the same counts both ways: True" in out
    assert "the most frequent byte pair is 'e␣', 24,225 times" in out


@pytest.mark.slow  # runs every lesson in a kernel (module fixture)
def test_lesson_1_shows_the_widget_and_lesson_3_the_plot(
    executed: dict[str, nbformat.NotebookNode],
) -> None:
    def kinds(lesson: str) -> set[str]:
        return {
            kind
            for cell in executed[lesson].cells
            if cell.cell_type == "code"
            for output in cell.outputs
            for kind in output.get("data", {})
        }

    assert "application/vnd.jupyter.widget-view+json" in kinds("01_bpe_by_hand")
    assert "image/png" in kinds("03_real_text_overfitting")
