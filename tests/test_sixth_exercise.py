"""A sixth exercise added from the architecture guide's list alone, then graded.

The guide's section "To add an exercise, edit these files" is read here, not copied: in a copy
of the course, a toy exercise, ``vocab_size(word_counts, merges)``, is added to lesson 2 by
editing each file the list names (``EDITS`` holds one edit per listed path), the guide's
``make notebooks`` writes the student notebook, and git says what changed. Two students then
hand in the released notebooks, the five real exercises answered right and the toy one right
or wrong (the catalogue's answers, as edited), and ``make autograde`` grades them with the
copy's own grading code, in the sandbox, one worker.

But: the copy's kernels import the course library the shared venv points to, not the copy's
(the sandbox shows them only that one), so in the kernel the toy's visible cell fails; the
judge grades it outside the kernel with the copy's library, and its verdict is what scores.
The rest of the suite is not run on the copy.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from course_fixtures.synthetic import write_submission
from tests.support import doc_text
from tests.support.course_copy import course_copy

pytestmark = pytest.mark.nbgrader

GUIDE = "docs/guides/architecture.md"
SECTION = "## To add an exercise, edit these files"
NAME = "vocab_size"
LESSON = "02_encoding_by_rank.ipynb"  # after encode_bpe, whose merge tables it counts
AFTER = "test_encode_bpe_hidden_random"  # the toy's cells go after this one
MISTAKE = "characters counted with repeats"


def listed_paths() -> list[str]:
    """The paths the guide's numbered list names before each item's colon (a folder ends
    in ``/``), in order."""
    text = doc_text.section(GUIDE, SECTION)
    items = re.findall(r"^\d+\. (.+)$", text, re.MULTILINE)
    assert items, f"{GUIDE}'s {SECTION!r} holds no numbered list"
    return [path for item in items for path in re.findall(r"`([^`]+)`", item.split(": ")[0])]


def guide_command() -> str:
    """The command the section says writes the student notebook, as written there."""
    found = re.search(r"`(make [^`]+)` then writes", doc_text.section(GUIDE, SECTION))
    assert found, f"{GUIDE}'s {SECTION!r} names no make command that writes the notebooks"
    return found.group(1)


# ---- the edits, one per path the guide lists ----------------------------------------------


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text().rstrip("\n") + "\n\n\n" + text.strip("\n") + "\n")


def _meta(grade_id: str, *, solution: bool = False, points: int = 0) -> dict:
    """nbgrader's metadata of a master cell: a test cell when it has points."""
    meta = {"grade": bool(points), "grade_id": grade_id, "locked": not solution}
    meta.update(schema_version=3, solution=solution)
    return {"nbgrader": {**meta, "points": points} if points else meta}


def _test_cell(group: str, source: str, points: int) -> nbformat.NotebookNode:
    grade_id = f"test_{NAME}_{group}"
    return new_code_cell(
        source, id=grade_id.replace("_", "-"), metadata=_meta(grade_id, points=points)
    )


def _hidden(group: str) -> str:
    return (
        "# Hidden tests run here when your notebook is graded.\n### BEGIN HIDDEN TESTS\n"
        "from autograder.hidden_tests.judge import check\n"
        f'check("{NAME}", "{group}", {NAME})\n### END HIDDEN TESTS'
    )


def edit_master(root: Path) -> None:
    path = root / "source" / "bpe" / LESSON
    notebook = nbformat.read(path, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells]
    at = ids.index(AFTER) + 1
    about = (
        "## Exercise 6 (toy) · How big is the vocabulary?\n\nWrite `vocab_size(word_counts, "
        "merges)`: one token for each distinct character of the words, plus one per merge."
    )
    answer = (
        f"def {NAME}(word_counts: dict[str, int], merges: list[tuple[str, str]]) -> int:\n"
        '    """Distinct characters of the words, plus one token per merge."""\n'
        "    ### BEGIN SOLUTION\n"
        "    return len({c for word in word_counts for c in word}) + len(merges)\n"
        "    ### END SOLUTION"
    )
    examples = f'from bpe_course.examples import check_examples\n\ncheck_examples("{NAME}", {NAME})'
    notebook.cells[at:at] = [
        new_markdown_cell(about, id="about-vocab-size", metadata=_meta(f"about_{NAME}")),
        new_code_cell(answer, id="vocab-size", metadata=_meta(NAME, solution=True)),
        _test_cell("examples", examples, 1),
        _test_cell("hidden_core", _hidden("core"), 2),
        _test_cell("hidden_random", _hidden("random"), 2),
    ]
    nbformat.write(notebook, path)


def edit_solutions(root: Path) -> None:
    _append(
        root / "solutions" / "bpe.py",
        f'''
def {NAME}(word_counts: dict[str, int], merges: list[tuple[str, str]]) -> int:
    """How many tokens the vocabulary holds: each distinct character once, and each merge."""
    return len({{char for word in word_counts for char in word}}) + len(merges)
''',
    )


def edit_solutions_init(root: Path) -> None:
    _append(
        root / "solutions" / "__init__.py",
        f'from solutions.bpe import {NAME}  # noqa: E402\n\n__all__.append("{NAME}")',
    )


def edit_course(root: Path) -> None:
    _append(root / "autograder" / "course.py", f'EXERCISES = (*EXERCISES, "{NAME}")')


def edit_cases(root: Path) -> None:
    _append(
        root / "autograder" / "hidden_tests" / "cases.py",
        f"""
def _{NAME}_core() -> list[Case]:
    return [
        (dict(TOY), list(TOY_MERGES)),
        (dict(TOY), []),
        ({{"aaaa": 3}}, [("a", "a"), ("aa", "aa")]),  # a letter repeated counts once
        ({{"ab": 1, "ba": 1}}, [("a", "b")]),  # and a letter two words share
        ({{}}, []),
    ]


def _{NAME}_random(rng: random.Random) -> list[Case]:
    return [(c, train_bpe(c, rng.randint(0, 6))) for c in (_random_corpus(rng) for _ in range(20))]


_CORE["{NAME}"] = _{NAME}_core
_RANDOM["{NAME}"] = _{NAME}_random
""",
    )


def edit_examples(root: Path) -> None:
    _append(
        root / "bpe_course" / "examples.py",
        f'EXAMPLES["{NAME}"] = [((dict(TOY), TOY_MERGES), 10), (({{"aaa": 2}}, [("a", "a")]), 2)]',
    )


def edit_lesson_of(root: Path) -> None:
    _append(root / "autograder" / "reports" / "mistakes.py", f'LESSON_OF["{NAME}"] = 2')


def edit_catalogue(root: Path) -> None:
    _append(
        root / "course_fixtures" / "catalogue.py",
        f'''
CORRECT["{NAME}"] = {{
    "a set of characters": _src("""
        def {NAME}(word_counts, merges):
            letters = set()
            for word in word_counts:
                letters.update(word)
            return len(letters) + len(merges)
        """),
}}
WRONG["{NAME}"] = {{
    "{MISTAKE}": _src("""
        def {NAME}(word_counts, merges):
            return sum(len(word) for word in word_counts) + len(merges)
        """),
}}
''',
    )


def edit_variants(root: Path) -> None:
    _append(
        root / "bpe_course" / "variants.py",
        f'''
def vocab_with_repeats(word_counts: dict, merges: list) -> int:
    """{NAME} counting every character of every word, repeats and all."""
    return sum(len(word) for word in word_counts) + len(merges)
''',
    )


def edit_mistakes(root: Path) -> None:
    _append(
        root / "bpe_course" / "mistakes.py",
        f"""
from bpe_course.variants import vocab_with_repeats  # noqa: E402

MISTAKES["{NAME}"] = [
    Mistake("{MISTAKE}", "Count each distinct character once.", (vocab_with_repeats,))
]
""",
    )


EDITS: dict[str, Callable[[Path], None]] = {
    "source/bpe/": edit_master,
    "solutions/bpe.py": edit_solutions,
    "solutions/__init__.py": edit_solutions_init,
    "autograder/course.py": edit_course,
    "autograder/hidden_tests/cases.py": edit_cases,
    "bpe_course/examples.py": edit_examples,
    "autograder/reports/mistakes.py": edit_lesson_of,
    "course_fixtures/catalogue.py": edit_catalogue,
    "bpe_course/variants.py": edit_variants,
    "bpe_course/mistakes.py": edit_mistakes,
}


# ---- the copy, edited, released and graded -------------------------------------------------


@dataclass(frozen=True)
class Sixth:
    root: Path
    changed: set[str]  # paths git reports changed or new after the edits and the release
    scores: dict[str, dict[str, str]]  # summary.csv's row by student
    verdicts: list[dict]
    points: dict[str, float]  # each exercise's points, from the copy's masters
    table: str  # what make autograde printed


def _run(command: list[str], root: Path) -> str:
    done = subprocess.run(
        command, cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"{shlex.join(command)}:\n{done.stdout}{done.stderr}"
    return done.stdout


def _git(root: Path, *args: str) -> str:
    who = ["-c", "user.name=sixth", "-c", "user.email=sixth@example.invalid"]
    return _run(["git", *who, *args], root)


def _catalogue(root: Path) -> ModuleType:
    """The copy's catalogue, as edited (this process imported the repository's)."""
    spec = importlib.util.spec_from_file_location(
        "sixth_catalogue", root / "course_fixtures" / "catalogue.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _points(root: Path) -> dict[str, float]:
    points: dict[str, float] = {}
    for path in (root / "source" / "bpe").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            found = re.match(
                r"test_(\w+?)_(examples|hidden_core|hidden_random)$", meta.get("grade_id", "")
            )
            if meta.get("grade") and found:
                points[found.group(1)] = points.get(found.group(1), 0) + meta["points"]
    return points


@pytest.fixture(scope="module")
def sixth(tmp_path_factory: pytest.TempPathFactory) -> Sixth:
    root = course_copy(tmp_path_factory.mktemp("sixth") / "course", generate=False)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the course as copied")
    for path in listed_paths():
        EDITS[path](root)
    _run(shlex.split(guide_command()), root)
    status = _git(root, "status", "--porcelain", "--untracked-files=all")
    changed = {line[3:] for line in status.splitlines()}

    catalogue = _catalogue(root)
    right = {name: next(iter(answers.values())) for name, answers in catalogue.CORRECT.items()}
    write_submission(root, "right", right)
    write_submission(root, "wrong", {**right, NAME: catalogue.WRONG[NAME][MISTAKE]})
    table = _run(["make", "-s", "JOBS=1", "autograde"], root)

    records = root / "artifacts" / "grading"
    with (records / "summary.csv").open(newline="") as summary:
        scores = {row["student"]: row for row in csv.DictReader(summary)}
    verdicts = json.loads((records / "verdicts.json").read_text())
    return Sixth(root, changed, scores, verdicts, _points(root), table)


def test_the_guide_lists_the_files_a_new_exercise_edits() -> None:
    listed = listed_paths()
    assert len(listed) == len(set(listed)), listed
    unknown, unlisted = sorted(set(listed) - set(EDITS)), sorted(set(EDITS) - set(listed))
    assert not unknown and not unlisted, (
        f"the guide lists {unknown}, which this test does not edit; this test edits "
        f"{unlisted}, which the guide does not list"
    )


def test_only_the_listed_files_and_the_student_notebook_changed(sixth: Sixth) -> None:
    files = {p for p in listed_paths() if not p.endswith("/")}
    folders = [p for p in listed_paths() if p.endswith("/")]
    in_folders = {p for p in sixth.changed if any(p.startswith(f) for f in folders)}
    assert in_folders == {f"source/bpe/{LESSON}"}, in_folders
    # make notebooks writes the student notebook of the one lesson that changed.
    assert sixth.changed == files | in_folders | {f"notebooks/{LESSON}"}, sixth.changed


def test_the_right_answer_earns_the_toy_points_and_the_wrong_loses_exactly_them(
    sixth: Sixth,
) -> None:
    assert sorted(sixth.scores) == ["right", "wrong"]
    assert sixth.points[NAME] == 5 and len(sixth.points) == 6, sixth.points
    right, wrong = sixth.scores["right"], sixth.scores["wrong"]
    assert right["status"] == wrong["status"] == "graded", (right, wrong)
    for name, points in sixth.points.items():
        assert float(right[name]) == points, (name, right)
        assert float(wrong[name]) == (0 if name == NAME else points), (name, wrong)
    assert float(right["total"]) == float(right["max"]) == sum(sixth.points.values())
    assert float(right["total"]) - float(wrong["total"]) == sixth.points[NAME]


def test_the_wrong_answer_is_told_its_mistake(sixth: Sixth) -> None:
    toy = [
        v
        for v in sixth.verdicts
        if v["student"] == "wrong" and v["cell"].startswith(f"test_{NAME}_")
    ]
    assert len(toy) == 3, toy
    for verdict in toy:
        assert verdict["verified"] == 0, verdict
        assert f"likely mistake: {MISTAKE}" in verdict["why"].lower(), verdict


def test_the_class_table_has_a_column_for_each_exercise(sixth: Sixth) -> None:
    head = next(line for line in sixth.table.splitlines() if line.startswith("student "))
    labels = head.split()[2:-1]  # between "student total" and "status"
    assert len(labels) == len(sixth.points), head
    right = next(line for line in sixth.table.splitlines() if line.startswith("right "))
    scores = re.findall(r" (\d+/\d+)", right)  # the total, then one per exercise
    assert len(scores) == 1 + len(labels), (head, right)
