"""The student self-check, run as students run it: outside the repo, with no PYTHONPATH, on
a student notebook (so neither solutions/ nor autograder/ can be imported)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_course import __version__
from course_fixtures.catalogue import CORRECT, MORE_WRONG, WRONG
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs the self-check, a kernel per notebook

LESSON = "01_bpe_by_hand.ipynb"


def selfcheck(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "bpe_course.selfcheck", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def student_copy(tmp_path: Path, answers: dict[str, str]) -> Path:
    """The student notebook with ``answers`` typed into its answer cells, alone in a folder."""
    release = tmp_path / "release" / "bpe"
    release.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / LESSON, release / LESSON)
    folder = write_submission(tmp_path, "me", answers, [LESSON])
    return folder / LESSON


def test_a_finished_notebook_passes(tmp_path: Path) -> None:
    answers = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    path = student_copy(tmp_path, answers)
    before = path.read_bytes()
    result = selfcheck(path.name, cwd=path.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all 2 visible tests pass" in result.stdout
    assert result.stdout.startswith(f"bpe-course {__version__} self-check\n")
    assert "hidden  test_pair_counts_hidden_core" in result.stdout
    assert path.read_bytes() == before  # the student's file is left alone


def test_a_wrong_answer_fails_and_is_named(tmp_path: Path) -> None:
    answers = {
        "pair_counts": next(iter(CORRECT["pair_counts"].values())),
        "merge_pair": WRONG["merge_pair"]["right-to-left merges"],
    }
    result = selfcheck(str(student_copy(tmp_path, answers)), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pass    test_pair_counts_examples" in result.stdout
    assert "FAIL    test_merge_pair_examples:\n          AssertionError: " in result.stdout
    assert "1 of 2 visible tests fail: test_merge_pair_examples" in result.stdout


def test_the_answers_students_found_passing_now_fail_with_the_mistake_named(tmp_path: Path) -> None:
    # Each of these once passed every visible test (issue 10); now its visible test fails
    # and says which mistake it is, in a message printed whole.
    found = {
        "merge_pair": WRONG["merge_pair"]["string replacement missing back-to-back pairs"],
        "train_bpe": WRONG["train_bpe"]["a pair counted once per word"],
        "encode_bpe": WRONG["encode_bpe"]["joining at the first copy of the left symbol"],
    }
    answers = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts",)}
    answers.update(found)
    lessons = ["01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb"]
    release = tmp_path / "release" / "bpe"
    release.mkdir(parents=True)
    for lesson in lessons:
        shutil.copy(ROOT / "notebooks" / lesson, release / lesson)
    folder = write_submission(tmp_path, "me", answers, lessons)
    result = selfcheck(*lessons, cwd=folder)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pass    test_pair_counts_examples" in result.stdout
    # The report wraps long messages; read it with its line breaks undone.
    text = " ".join(result.stdout.split())
    # Each is named as the hidden tests name it, with the same words.
    assert (
        "FAIL test_merge_pair_examples: AssertionError: merge_pair is wrong on 2 of 11 examples "
        "(likely mistake: string replacement missing back-to-back pairs)" in text
    )
    assert "uses up the space that the next occurrence starts with" in text
    assert "FAIL test_train_bpe_examples: AssertionError: train_bpe is wrong on " in text
    assert "(likely mistake: a pair counted once per word)" in text
    assert "FAIL test_encode_bpe_examples: AssertionError: encode_bpe is wrong on " in text
    assert "(likely mistake: joining at the first copy of the left symbol)" in text
    assert "symbols.index(left) finds the first copy" in text
    assert "2 of 2 visible tests fail: test_train_bpe_examples, test_encode_bpe_examples" in text
    assert max(len(line) for line in result.stdout.splitlines()) <= 100


def test_the_untouched_stub_fails_every_visible_test(tmp_path: Path) -> None:
    shutil.copy(ROOT / "notebooks" / LESSON, tmp_path / LESSON)
    result = selfcheck(LESSON, cwd=tmp_path)
    assert result.returncode == 1
    assert "2 of 2 visible tests fail: test_pair_counts_examples, test_merge_pair_examples" in (
        result.stdout
    )
    assert "still the stub" in result.stdout


def test_a_loop_is_stopped_at_the_graders_limit_and_explained(tmp_path: Path) -> None:
    answers = {
        "pair_counts": "def pair_counts(words):\n    while True:\n        pass\n",
        "merge_pair": next(iter(CORRECT["merge_pair"].values())),
    }
    result = selfcheck("--timeout", "2", str(student_copy(tmp_path, answers)), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL    test_pair_counts_examples:\n          still running after 2 s" in result.stdout
    assert "loop that never ends" in " ".join(result.stdout.split())
    assert "pass    test_merge_pair_examples" in result.stdout  # later cells still ran
    assert "without encryption" not in result.stdout + result.stderr  # kernel chatter hidden


def test_the_default_limit_is_the_graders() -> None:
    """The students' copy has no nbgrader_config.py, so the self-check keeps its own limit:
    the one grading reads from the course's configuration."""
    from autograder.course import course_config
    from autograder.plugins.guarded_execute import cell_timeout
    from bpe_course.selfcheck import CELL_TIMEOUT

    assert cell_timeout(course_config(ROOT)) == CELL_TIMEOUT


def test_the_hidden_markers_are_the_ones_nbgrader_clears() -> None:
    from nbgrader.preprocessors import ClearHiddenTests

    from bpe_course.selfcheck import BEGIN_HIDDEN, END_HIDDEN

    clear = ClearHiddenTests()
    assert (clear.begin_test_delimeter, clear.end_test_delimeter) == (BEGIN_HIDDEN, END_HIDDEN)


def test_bad_paths_are_explained(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_text("{ not json")
    result = selfcheck("missing.ipynb", "broken.ipynb", cwd=tmp_path)
    assert result.returncode == 2
    assert "missing.ipynb: no such notebook" in result.stderr
    assert "broken.ipynb: could not run it" in result.stderr


def test_hidden_regions_are_dropped_from_an_instructors_copy() -> None:
    from bpe_course.selfcheck import visible_source

    source = "# note\n### BEGIN HIDDEN TESTS\nfrom autograder.hidden_tests.judge import check\n"
    source += "### END HIDDEN TESTS\nx = 1"
    assert visible_source(source) == "# note\nx = 1"


@pytest.mark.parametrize("path", sorted((ROOT / "bpe_course").glob("*.py")), ids=lambda p: p.name)
def test_nothing_students_receive_imports_the_instructors_code(path: Path) -> None:
    text = path.read_text()
    for private in ("solutions", "autograder"):
        assert f"import {private}" not in text and f"from {private}" not in text, path


def visible_message(name: str, source: str) -> str:
    """What the exercise's visible test cell (as the self-check runs it) says of ``source``."""
    from tests.mutation.kill import visible_failure

    namespace: dict = {}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)  # our catalogue's code
    return visible_failure(name, namespace[name]) or ""


def test_the_walkthroughs_mistakes_are_named_for_what_they_are() -> None:
    # A student's walkthrough (issue 23): each used to be told something untrue.
    skip_one = visible_message(
        "merge_pair", MORE_WRONG["merge_pair"]["moves on by one after a join"][1]
    )
    assert "(likely mistake: overlapping merges)" in skip_one
    assert "keep every symbol" not in skip_one  # nothing was dropped
    changes = visible_message(
        "train_bpe", MORE_WRONG["train_bpe"]["changes its argument as it goes"][1]
    )
    assert "(likely mistake: changing the caller's input)" in changes.splitlines()[0]
    assert "ties" not in changes.splitlines()[0]
    assert changes.splitlines()[2].startswith("argument 1 was changed from: ")
    letters = visible_message(
        "pair_counts", MORE_WRONG["pair_counts"]["pairs the letters of the joined word"][1]
    )
    assert "(likely mistake: pairs of characters instead of symbols)" in letters
    leftmost = visible_message(
        "encode_bpe", WRONG["encode_bpe"]["leftmost pair instead of lowest rank"]
    )
    assert "(likely mistake: leftmost pair instead of lowest rank)" in leftmost
    zeros = visible_message(
        "merge_and_update", WRONG["merge_and_update"]["old neighbour pairs not subtracted"]
    )
    assert "should be" in zeros and "expected," not in zeros and "None" not in zeros
