"""The verify step on its own: answers run in the sandbox, judged in this process (no nbgrader).

Every tampering trick that fools the in-kernel tests must earn nothing here, a correct answer
must pass every test cell, and a crash, a loop or a memory bomb in the sandbox must cost only
that answer. Each case is one sandbox run of a few tenths of a second (the loop: 1 s a group).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from autograder.cells import answer_statements, example_calls
from autograder.sandbox import judge_answers
from autograder.sandbox.judge_answers import exercises_of, judge_notebook
from course_fixtures.catalogue import CORRECT, DELEGATING, WRONG

pytestmark = pytest.mark.slow  # judges answers in the sandbox, a process each

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = {exercise.name: exercise for exercise in exercises_of(ROOT)}


def _notebook_with(name: str, answer: str) -> nbformat.NotebookNode:
    """The master notebook of ``name`` with its answer cell replaced by ``answer``."""
    path = ROOT / "source" / "bpe" / f"{EXERCISES[name].notebook}.ipynb"
    notebook = copy.deepcopy(nbformat.read(path, as_version=4))
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name:
            cell.source = answer
    return notebook


def verify_exercise(notebook: nbformat.NotebookNode, exercise, seconds: float) -> dict:
    """The verified verdicts of one exercise's test cells."""
    return judge_notebook(notebook, [exercise], seconds=seconds)[0][exercise.name]


def _verdicts(name: str, answer: str, seconds: float = 5) -> dict:
    return verify_exercise(_notebook_with(name, answer), EXERCISES[name], seconds=seconds)


def _correct(name: str) -> str:
    return next(src for src in CORRECT[name].values() if "Counter" not in src)


TAMPERING = {
    "imports the reference": (
        "merge_and_update",
        "def merge_and_update(words, counts, stats, where, pair):\n"
        "    import solutions\n"
        "    return solutions.merge_and_update(words, counts, stats, where, pair)\n",
    ),
    "reads the reference from the project folder on sys.path": (
        "encode_bpe",
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "def encode_bpe(word, merges):\n"
        "    import solutions\n"
        "    return solutions.encode_bpe(word, merges)\n",
    ),
    "plants a fake autograder.hidden_tests.judge": (
        "pair_counts",
        "import sys, types\nfake = types.ModuleType('autograder.hidden_tests.judge')\n"
        "fake.check = fake.judge = lambda *a, **k: []\n"
        "sys.modules['autograder.hidden_tests.judge'] = fake\n"
        "def pair_counts(words):\n    return {}\n",
    ),
    "patches the checker": (
        "train_bpe",
        "try:\n    import autograder.hidden_tests.judge as c\n    c.judge = lambda *a, **k: []\n"
        "except ImportError:\n    pass\n"
        "def train_bpe(word_counts, num_merges):\n    return []\n",
    ),
    "returns an object whose == always says yes": (
        "merge_pair",
        "class Yes(tuple):\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = tuple.__hash__\n"
        "def merge_pair(symbols, pair):\n    return Yes()\n",
    ),
    "reads the checker's variables": (
        "train_bpe",
        "import sys\ndef train_bpe(word_counts, num_merges):\n"
        "    return sys._getframe(1).f_globals['solutions'].train_bpe(word_counts, num_merges)\n",
    ),
    "writes fake result lines and exits": (
        "merge_pair",
        "import os\n"
        'FAKE = b\'{"group": "core", "index": 0, "outcome": "[1, null, [1, 2]]"}\\n\'\n'
        "def merge_pair(symbols, pair):\n"
        "    for fd in range(3, 12):\n"
        "        try:\n"
        "            os.write(fd, FAKE)\n"
        "        except OSError:\n"
        "            pass\n"
        "    os._exit(0)\n",
    ),
}


@pytest.mark.parametrize("trick", sorted(TAMPERING))
def test_tampering_gains_nothing(trick: str) -> None:
    name, answer = TAMPERING[trick]
    verdicts = _verdicts(name, answer)
    assert set(verdicts) == {
        f"test_{name}_examples",
        f"test_{name}_hidden_core",
        f"test_{name}_hidden_random",
    }
    for cell, verdict in verdicts.items():
        assert verdict, f"{trick}: {cell} passed outside the kernel"


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_a_correct_answer_passes_every_cell_outside_the_kernel(name: str) -> None:
    answer = (
        _correct(name)
        + '\nprint(\'{"group": "core", "index": 0}\')\nprint(1/0 if False else \'demo\')\n'
    )
    verdicts = _verdicts(name, answer)
    assert all(v in ("", None) for v in verdicts.values()), verdicts
    assert verdicts[f"test_{name}_hidden_core"] == ""


def test_crash_loop_and_memory_bomb_fail_with_a_reason() -> None:
    exit_now = "import os\ndef merge_pair(symbols, pair):\n    os._exit(3)\n"
    assert (
        "exited with status 3" in _verdicts("merge_pair", exit_now)["test_merge_pair_hidden_core"]
    )
    loop = "def merge_pair(symbols, pair):\n    while True:\n        pass\n"
    assert (
        "did not finish within 1 s"
        in _verdicts("merge_pair", loop, seconds=1)["test_merge_pair_hidden_random"]
    )
    bomb = "def merge_pair(symbols, pair):\n    return bytearray(20 * 2**30)\n"
    assert "MemoryError" in _verdicts("merge_pair", bomb)["test_merge_pair_hidden_core"]


def test_answer_code_keeps_imports_and_helpers_but_not_demo_calls() -> None:
    notebook = _notebook_with(
        "merge_pair",
        "from itertools import chain\n\ndef merge_pair(symbols, pair):\n    return helper()\n\n"
        "merge_pair(toy, ('a', 'b'))\n",
    )
    statements = answer_statements(notebook, "merge_pair")
    assert statements[-1].startswith("def merge_pair")
    assert "from itertools import chain" in statements
    assert not any("toy" in s for s in statements)
    calls = example_calls(
        't = ("a", "b")\nassert merge_pair(t, ("a", "b")) == ("ab",)', "merge_pair"
    )
    assert calls == [(("a", "b"), ("a", "b"))]


def test_an_answer_that_kills_the_sandbox_costs_only_its_own_exercise() -> None:
    notebook = _notebook_with("pair_counts", "import os\n\nstatus = os._exit(1)\n")
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "merge_pair":
            cell.source = _correct("merge_pair")
    both = [EXERCISES["pair_counts"], EXERCISES["merge_pair"]]
    verdicts, _ = judge_notebook(notebook, both, seconds=5)
    assert all(
        "while the answer cell was being defined" in v for v in verdicts["pair_counts"].values()
    )
    assert all(v in ("", None) for v in verdicts["merge_pair"].values())
    assert verdicts["merge_pair"]["test_merge_pair_hidden_core"] == ""


def _with_own_cells(name: str, answer: str, before: str | None, between: str | None):
    """The master of ``name`` with ``answer``, a student-added cell ``before`` the answer
    cell and one ``between`` it and its test cells (new ids, as JupyterLab gives them)."""
    from nbformat.v4 import new_code_cell

    notebook = _notebook_with(name, answer)
    index = next(
        i
        for i, cell in enumerate(notebook.cells)
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name
    )
    if between is not None:
        notebook.cells.insert(index + 1, new_code_cell(between, id="student-between"))
    if before is not None:
        notebook.cells.insert(index, new_code_cell(before, id="student-before"))
    return notebook


MERGE_HELPER = (
    "def join_pair(symbols, pair):\n"
    "    out, i = [], 0\n"
    "    while i < len(symbols):\n"
    "        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:\n"
    "            out.append(symbols[i] + symbols[i + 1])\n"
    "            i += 2\n"
    "        else:\n"
    "            out.append(symbols[i])\n"
    "            i += 1\n"
    "    return tuple(out)\n"
)
HONEST = {
    "a constant in the student's own earlier cell": (
        "pair_counts",
        "def pair_counts(words):\n"
        "    out = {}\n"
        "    for w, n in words.items():\n"
        "        for i in range(0, len(w) - 1, STEP):\n"
        "            out[w[i], w[i + 1]] = out.get((w[i], w[i + 1]), 0) + n\n"
        "    return out\n",
        "STEP = 1\nprint('step', STEP)\n",
        None,
    ),
    "a type alias in its own cell, used in the answer's annotations": (
        "merge_pair",
        "def merge_pair(symbols: tuple[str, ...], pair: Pair) -> tuple[str, ...]:\n"
        "    return tuple(join(symbols, pair))\n"
        "\n\njoin = lambda symbols, pair: list(_join(symbols, pair))\n",
        "Pair = tuple[str, str]\n\n" + MERGE_HELPER.replace("join_pair", "_join"),
        None,
    ),
    "a helper def in a cell between the answer and its tests": (
        "merge_pair",
        "def merge_pair(symbols, pair):\n    return join_pair(symbols, pair)\n",
        None,
        MERGE_HELPER,
    ),
}


@pytest.mark.parametrize("story", sorted(HONEST))
def test_an_honest_answer_may_rely_on_the_students_own_cells(story: str) -> None:
    name, answer, before, between = HONEST[story]
    notebook = _with_own_cells(name, answer, before, between)
    verdicts = verify_exercise(notebook, EXERCISES[name], seconds=5)
    assert verdicts == {cell: "" for cell in EXERCISES[name].cells}, verdicts


def test_lesson_cells_still_give_only_their_definitions() -> None:
    # A lesson cell (same id as in the master) keeps only imports and defs, even if edited.
    notebook = _notebook_with("pair_counts", _correct("pair_counts"))
    lesson = next(
        c
        for c in notebook.cells
        if c.cell_type == "code" and "nbgrader" not in c.get("metadata", {})
    )
    lesson.source = "SECRET = 1\n\ndef lesson_helper():\n    return SECRET\n"
    statements = answer_statements(notebook, "pair_counts", EXERCISES["pair_counts"].master)
    assert any(s.startswith("def lesson_helper") for s in statements)
    assert "SECRET = 1" not in statements


def test_the_same_error_everywhere_is_named_and_flagged_for_a_person(tmp_path: Path) -> None:
    from autograder.course import SECRET_FILE
    from autograder.plugins.hidden_tests_outside import JudgeHiddenTests

    exercise = EXERCISES["pair_counts"]
    answer = "def pair_counts(words):\n    return {p: STEP for w in words for p in zip(w, w[1:])}\n"
    # No error output in the examples cell: the kernel had STEP (say, from a lesson cell).
    notebook = _notebook_with("pair_counts", answer)
    record = tmp_path / "verdicts.jsonl"
    # A course of its own, so the random cases come from a known term secret, not the clone's.
    (tmp_path / "source").symlink_to(ROOT / "source")
    (tmp_path / SECRET_FILE).write_text("term-2\n")  # every random corpus holds a pair
    step = JudgeHiddenTests(course_root=str(tmp_path), record=str(record), seconds=5)
    step.preprocess(notebook, {"unique_key": exercise.notebook, "nbgrader": {"student": "ada"}})
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    verdicts = [v for v in lines if v["cell"].startswith("test_pair_counts_")]
    random_cell = next(v for v in verdicts if v["cell"] == "test_pair_counts_hidden_random")
    assert random_cell["why"].startswith(
        "pair_counts raised NameError: name 'STEP' is not defined on every input;"
    )
    # The judged score stands (no automatic restore); a person is asked to look.
    assert all(v["verified"] == 0 for v in verdicts if v["applied"])
    (flag,) = [v["needs_person"] for v in verdicts if v["needs_person"]]
    assert "pair_counts cannot run outside the student's kernel (NameError" in flag
    assert "the judged 0 stands until a person" in flag


@pytest.mark.parametrize("no_start", ["sys.exit('no start this time')", "time.sleep(60)"])
def test_a_sandbox_that_fails_to_start_is_started_again_then_left_to_a_person(
    no_start: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that stops, or hangs, before its "ready" line has run no answer. Once in CI,
    under load, one exited with status 1 there and a correct train_bpe lost every case. Such
    a child is now started again; a second stop is the judge's failure, in the sandbox's own
    words, and a person is asked to look."""
    from autograder.course import SECRET_FILE
    from autograder.plugins.hidden_tests_outside import JudgeHiddenTests

    name = "merge_pair"
    notebook = _notebook_with(name, _correct(name))
    started = tmp_path / "started"
    fails_once = tmp_path / "judge_child.py"
    fails_once.write_text(
        f"import os, sys, time\nif not os.path.exists({str(started)!r}):\n"
        f"    open({str(started)!r}, 'w').close()\n    {no_start}\n"
        + judge_answers.CHILD.read_text()
    )
    with monkeypatch.context() as patch:
        patch.setattr(judge_answers, "CHILD", fails_once)
        verdicts = judge_notebook(notebook, [EXERCISES[name]], seconds=5, unconfined=True)[0]
    assert started.exists() and set(verdicts[name].values()) == {""}, verdicts

    # bubblewrap that cannot start at all (a folder to show that is not there), each time.
    sandbox = judge_answers._answer_sandbox()
    missing = replace(sandbox, visible=(*sandbox.visible, tmp_path / "not-there"))
    monkeypatch.setattr(judge_answers, "_answer_sandbox", lambda: missing)
    record = tmp_path / "verdicts.jsonl"
    (tmp_path / "source").symlink_to(ROOT / "source")
    (tmp_path / SECRET_FILE).write_text("term-2\n")
    step = JudgeHiddenTests(course_root=str(tmp_path), record=str(record), seconds=5)
    step.preprocess(notebook, {"unique_key": EXERCISES[name].notebook})
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    mine = [v for v in lines if v["cell"].startswith(f"test_{name}_")]
    assert mine and all(v["needs_person"] for v in mine), mine
    said = mine[0]["needs_person"]
    assert "JudgeUnavailableError: it failed twice to start, before any answer: bwrap:" in said
    # What the student reads in the cell says a person will look, not this machine's paths.
    failures = [o for c in notebook.cells for o in c.get("outputs", []) if "evalue" in o]
    shown = {o.evalue for o in failures if "judge could not run" in o.evalue}
    assert shown and not any("bwrap" in text or str(tmp_path) in text for text in shown), shown


@pytest.mark.parametrize(
    ("name", "label"), [(name, label) for name in DELEGATING for label in DELEGATING[name]]
)
def test_answers_that_delegate_to_the_demonstration_engine_earn_nothing(
    name: str, label: str
) -> None:

    notebook = _notebook_with(name, DELEGATING[name][label])
    verdicts, findings = judge_notebook(notebook, [EXERCISES[name]], seconds=5)
    for cell, verdict in verdicts[name].items():
        assert verdict and "demonstration engine may not be used" in verdict, (cell, verdict)
    assert findings.engine[name], "the summary should say the answer used the engine"


def test_merge_and_update_examples_are_judged_outside_the_kernel() -> None:
    name = "merge_and_update"
    good = _verdicts(name, _correct(name))
    assert good["test_merge_and_update_examples"] == ""  # judged, not nbgrader's verdict
    # Passes the hidden groups' first case shape but not the examples' stale index 0.
    stale = WRONG[name]["stale indices reported as changed"]
    assert _verdicts(name, stale)["test_merge_and_update_examples"].startswith(
        "merge_and_update is wrong on"
    )


def test_every_exercise_of_the_course_is_found_with_its_test_cells() -> None:
    # The tests above run on the exercises found in source/; one whose grade_id went missing
    # from its master notebook would drop out of them without a word, so that must fail here.
    from autograder.course import EXERCISES as COURSE_EXERCISES

    found = exercises_of(ROOT)
    assert sorted(exercise.name for exercise in found) == sorted(COURSE_EXERCISES)
    for exercise in found:
        name = exercise.name
        groups = ("examples", "hidden_core", "hidden_random")
        assert sorted(exercise.cells) == sorted(f"test_{name}_{group}" for group in groups)
        assert all(points > 0 for points in exercise.cells.values()), exercise.cells
