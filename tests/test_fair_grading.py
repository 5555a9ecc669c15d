"""The same answer, the same score, whoever hands it in: a term's students meet the same cases.

- the grading step (``JudgeHiddenTests``, its sandbox swapped for an in-process runner, for
  speed) hands the judge the same cases and writes the same verdicts for 16 student ids;
- every answer of the catalogue (right and wrong, the two measured in a class of 16 among
  them) and every mutant of the reference that ``make mutants`` makes gets the same outcome
  in each hidden group under those 16 ids;
- every wrong answer of the catalogue and every wrong version of our own fails the core group
  under 16 term secrets, not only the random group;
- the fairness check refuses a hand-weakened core group, naming the exercise and the mistake,
  and ``grade_class`` (``make autograde``) then grades nobody.
"""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.hidden_tests import cases as cases_module
from autograder.hidden_tests.cases import GROUPS, agrees, cases, reference, uncaught, why_unfair
from autograder.plugins import hidden_tests_outside
from autograder.plugins.hidden_tests_outside import JudgeHiddenTests
from autograder.sandbox import judge_answers
from autograder.sandbox.judge_answers import exercises_of
from bpe_course.mistakes import MISTAKES
from bpe_course.outcomes import Outcome, run_case
from course_fixtures.catalogue import CORRECT, MORE_WRONG, WRONG
from tests.conftest import ROOT
from tests.test_checkers import load

SECRET = "term-2026-autumn"
STUDENTS = [f"u{i:02d}" for i in range(16)]
TERMS = [f"term-{year}-{season}" for year in range(2026, 2034) for season in ("spring", "autumn")]
# The wrong answers of the class of 16 the issue measured, one per exercise.
MEASURED = {
    "pair_counts": WRONG["pair_counts"]["unweighted counts"],
    "merge_pair": WRONG["merge_pair"]["symbols compared by their joined text"],
    "train_bpe": WRONG["train_bpe"]["ties broken by first appearance"],
    "encode_bpe": WRONG["encode_bpe"]["leftmost pair instead of lowest rank"],
    "merge_and_update": WRONG["merge_and_update"]["a pair between two joins updated twice"],
}
CASE_SECONDS = 0.5  # a mutant may loop forever: it then fails that case, as past a time limit


class TimeLimitError(Exception):
    """Raised in an answer that runs past ``CASE_SECONDS`` on one case."""


def _stop(signum: int, frame: object) -> None:
    raise TimeLimitError(f"did not finish within {CASE_SECONDS} s")


def run_limited(name: str, func: Callable, args: tuple) -> Outcome:
    """``run_case`` with a time limit, in this process."""
    previous = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        return run_case(name, func, args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def in_process_runner(handed: list) -> Callable:
    """A stand-in for the sandbox's ``run_answers``: the answers run here (they are our own
    catalogue's), and every job the judge hands over is kept in ``handed``."""

    def run_answers(
        jobs: list, seconds: float = 0.0, memory_gb: float = 0.0, unconfined: bool = False
    ) -> dict:
        handed.append(copy.deepcopy(jobs))
        found = {}
        for name, statements, groups in jobs:
            namespace: dict = {}
            for source in statements:
                exec(compile(source, "<answer>", "exec"), namespace)  # our catalogue's code
            func = namespace[name]
            found[name] = {g: [run_limited(name, func, a) for a in c] for g, c in groups.items()}
        return found

    return run_answers


def _with_answers(master: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    notebook = copy.deepcopy(master)
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nbformat.from_dict(notebook)


@pytest.fixture(scope="module")
def graded_step(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Per student id: the jobs the grading step handed the judge and the verdict lines and
    cell outputs it wrote, for the three notebooks holding the measured wrong answers."""
    record = tmp_path_factory.mktemp("fair") / "verdicts.jsonl"
    masters = {e.notebook: e.master for e in exercises_of(ROOT)}
    step = JudgeHiddenTests(course_root=str(ROOT), record=str(record), seconds=10.0)
    found: dict[str, dict] = {}
    with pytest.MonkeyPatch.context() as patch:
        handed: list = []
        patch.setattr(judge_answers, "run_answers", in_process_runner(handed))
        patch.setattr(hidden_tests_outside, "term_secret", lambda root: SECRET)
        for student in STUDENTS:
            handed.clear()
            record.write_text("")
            outputs = {}
            for stem, master in sorted(masters.items()):
                notebook = _with_answers(master, MEASURED)
                resources = {"unique_key": stem, "nbgrader": {"student": student}}
                notebook, _ = step.preprocess(notebook, resources)
                outputs[stem] = [cell.get("outputs", []) for cell in notebook.cells]
            lines = [json.loads(line) for line in record.read_text().splitlines()]
            found[student] = {
                "groups": {name: groups for job in handed for name, _, groups in job},
                "lines": [{k: v for k, v in line.items() if k != "student"} for line in lines],
                "outputs": outputs,
            }
    yield found


def test_the_grading_step_gives_every_student_the_same_cases_and_verdicts(graded_step) -> None:
    first = graded_step[STUDENTS[0]]
    assert set(first["groups"]) == set(MEASURED)  # every exercise was judged
    lost = {(line["cell"], line["verified"]) for line in first["lines"] if line["verified"] == 0}
    for name in MEASURED:  # each measured answer loses its core cell, for everyone
        assert (f"test_{name}_hidden_core", 0.0) in lost, name
    for student in STUDENTS[1:]:
        found = graded_step[student]
        for name in MEASURED:
            assert repr(found["groups"][name]) == repr(first["groups"][name]), (student, name)
        assert found["lines"] == first["lines"], student
        assert found["outputs"] == first["outputs"], student


def every_catalogued_answer() -> dict[tuple[str, str], str]:
    """(exercise, label) -> source, for every answer of the catalogue, right and wrong."""
    found = {(n, f"right: {label}"): src for n in CORRECT for label, src in CORRECT[n].items()}
    found |= {(n, mistake): src for n in WRONG for mistake, src in WRONG[n].items()}
    found |= {(n, label): src for n in MORE_WRONG for label, (_, src) in MORE_WRONG[n].items()}
    return found


_EXPECTED: dict[tuple[str, str], list[Outcome]] = {}


def passes(name: str, func: Callable, args_list: list, memo: dict) -> bool:
    """Whether ``func`` passes every case of ``args_list``; run once per distinct list of
    cases (``memo``: the same answer's earlier runs), so equal case lists cost one run."""
    text = repr(args_list)  # a set's order shows in its repr: lists that differ stay apart
    if (name, text) not in _EXPECTED:
        _EXPECTED[name, text] = [run_case(name, reference(name), a) for a in args_list]
    if text not in memo:
        memo[text] = all(
            agrees(name, want, run_limited(name, func, args))
            for args, want in zip(args_list, _EXPECTED[name, text])
        )
    return memo[text]


def outcomes_by_student(name: str, func: Callable, graded_step: dict) -> dict[str, tuple]:
    """Per student id: whether ``func`` passes each hidden group the step handed the judge."""
    memo: dict = {}
    return {
        student: tuple(passes(name, func, found["groups"][name][g], memo) for g in GROUPS)
        for student, found in graded_step.items()
    }


def test_every_catalogued_answer_gets_the_same_outcome_whoever_hands_it_in(graded_step) -> None:
    differ = {}
    for (name, label), source in every_catalogued_answer().items():
        by_student = outcomes_by_student(name, load(source, name), graded_step)
        if len(set(by_student.values())) > 1:
            differ[name, label] = by_student
    assert differ == {}


@pytest.mark.slow
def test_every_mutant_of_the_reference_gets_the_same_outcome_whoever_hands_it_in(
    graded_step,
) -> None:
    from tests.mutation.generate import all_mutants
    from tests.mutation.kill import owner
    from tests.test_mutants import mutated_function

    differ, judged = [], 0
    for mutant in all_mutants().values():
        name = owner(mutant.name)
        if name is None:  # the fast trainer: no exercise
            continue
        by_student = outcomes_by_student(name, mutated_function(mutant), graded_step)
        judged += 1
        if len(set(by_student.values())) > 1:
            differ.append((mutant.name, mutant.change))
    assert judged > 200 and differ == []


def wrong_versions() -> dict[tuple[str, str], Callable]:
    """(exercise, what) -> function, for every wrong answer of the catalogue and every wrong
    version of our own that the diagnosis runs."""
    found: dict[tuple[str, str], Callable] = {
        (n, mistake): load(src, n) for n in WRONG for mistake, src in WRONG[n].items()
    }
    found |= {
        (n, label): load(src, n) for n in MORE_WRONG for label, (_, src) in MORE_WRONG[n].items()
    }
    for name, mistakes in MISTAKES.items():
        for mistake in mistakes:
            for k, variant in enumerate(mistake.variants):
                found[name, f"variant {k} of {mistake.name}"] = variant
    return found


def test_every_wrong_answer_fails_the_core_group_of_every_term() -> None:
    answers = wrong_versions()
    missed = [
        (term, name, what)
        for term in TERMS
        for (name, what), func in answers.items()
        if passes(name, func, cases(name, "core", term), {})
    ]
    assert len(TERMS) >= 16 and missed == []
    assert [term for term in TERMS if uncaught(term)] == []


@pytest.fixture()
def weakened(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The core group of merge_pair as an instructor might edit it: without the case where
    two symbols read the same as the pair (ab c, asked for (a, bc))."""
    core = cases_module._CORE["merge_pair"]
    kept = [args for args in core() if args != (("ab", "c"), ("a", "bc"))]
    assert len(kept) == len(core()) - 1
    monkeypatch.setitem(cases_module._CORE, "merge_pair", lambda: copy.deepcopy(kept))
    cases_module._drawn.cache_clear()  # nothing drawn before the edit
    yield
    cases_module._drawn.cache_clear()  # nor kept after it


def test_the_fairness_check_names_the_exercise_and_the_mistake_a_weak_core_misses(
    weakened,
) -> None:
    assert uncaught(SECRET) == [("merge_pair", "symbols compared by their joined text")]
    said = why_unfair(SECRET)
    assert "refusing to grade" in said and "Nothing was graded" in said
    assert "merge_pair: 'symbols compared by their joined text'" in said


def test_make_autograde_grades_nobody_when_the_core_is_weak(weakened, tmp_path: Path) -> None:

    (tmp_path / "submitted" / "ada" / "bpe").mkdir(parents=True)
    (tmp_path / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    with pytest.raises(SystemExit) as refused:
        cli.main(["grade", "--root", str(tmp_path), "--jobs", "2", "--no-progress"])
    said = str(refused.value)
    assert said.startswith("refusing to grade") and "symbols compared by their joined text" in said
    assert not (tmp_path / "gradebook.db").exists()
    assert not (tmp_path / "autograded").exists()
