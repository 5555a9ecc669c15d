"""The verify step on its own: answers run in the sandbox, judged in this process (no nbgrader).

Every tampering trick that fools the in-kernel tests must earn nothing here, a correct answer
must pass every test cell, and a crash, a loop or a memory bomb in the sandbox must cost only
that answer. Each case is one sandbox run of a few tenths of a second (the loop: 1 s a group).
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest

from autograder.answer_code import answer_statements, example_calls
from autograder.verify import exercises_of, verify_exercise
from tests.catalogue import CORRECT

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = {exercise.name: exercise for exercise in exercises_of(ROOT)}
pytestmark = pytest.mark.skipif(
    len(EXERCISES) < 5, reason="the four source notebooks are not all there yet"
)


def _notebook_with(name: str, answer: str) -> nbformat.NotebookNode:
    """The master notebook of ``name`` with its answer cell replaced by ``answer``."""
    path = ROOT / "source" / "bpe" / f"{EXERCISES[name].notebook}.ipynb"
    notebook = copy.deepcopy(nbformat.read(path, as_version=4))
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name:
            cell.source = answer
    return notebook


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
    "plants a fake autograder.checks": (
        "pair_counts",
        "import sys, types\nfake = types.ModuleType('autograder.checks')\n"
        "fake.check = fake.judge = lambda *a, **k: []\nsys.modules['autograder.checks'] = fake\n"
        "def pair_counts(words):\n    return {}\n",
    ),
    "patches the checker": (
        "train_bpe",
        "try:\n    import autograder.checks as c\n    c.judge = lambda *a, **k: []\n"
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
    from autograder.verify import verify_notebook

    notebook = _notebook_with("pair_counts", "import os\n\nstatus = os._exit(1)\n")
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "merge_pair":
            cell.source = _correct("merge_pair")
    both = [EXERCISES["pair_counts"], EXERCISES["merge_pair"]]
    verdicts = verify_notebook(notebook, both, seconds=5)
    assert all(
        "while the answer cell was being defined" in v for v in verdicts["pair_counts"].values()
    )
    assert all(v in ("", None) for v in verdicts["merge_pair"].values())
    assert verdicts["merge_pair"]["test_merge_pair_hidden_core"] == ""
