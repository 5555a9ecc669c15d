"""Judge one notebook's answers outside the student's kernel: run them in the sandbox, judge here.

``exercises_of`` reads the masters: which exercise lives in which notebook, its test cells
and their points, and the literal calls of its visible examples. ``judge_notebook`` takes each
answer's code from a notebook (``cells.answer_statements``), runs it in the sandbox on the
hidden cases drawn for this term, the same for every student, and on the examples
(``judging.sandbox``; only plain data comes back), the expected outcomes computed here by the
reference, and judges the outcomes in this process (``hidden_tests.judge``): per test cell ""
(passed), the failure message, or None (examples too stateful to re-run alone: the kernel's
verdict stands).

But: it writes no notebook and no gradebook; ``hidden_tests_outside`` puts its verdicts into
the notebook nbgrader scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.course import ASSIGNMENT, EXERCISES
from autograder.hidden_tests.came_back import shorten
from autograder.hidden_tests.cases import EXAMPLES, cases
from autograder.hidden_tests.compare import agrees, reference, trials_of
from autograder.hidden_tests.judge import judge, size
from autograder.judging.sandbox import DEFAULT_MEMORY_GB, DEFAULT_SECONDS, run_answers
from autograder.shared.cells import answer_statements, engine_uses, example_calls
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.outcomes import Outcome, run_case

GROUP_OF_CELL = {"examples": "examples", "hidden_core": "core", "hidden_random": "random"}
# Errors that mean the answer could not run on its own, outside the student's kernel.
_ALONE_ERRORS = ("NameError", "ImportError", "ModuleNotFoundError")


@dataclass(frozen=True)
class Exercise:
    """Where an exercise lives and what its test cells are worth, from the master notebook."""

    name: str
    notebook: str
    cells: dict[str, float]  # test cell grade_id -> points
    examples: list[tuple]
    master: Any = field(default=None, compare=False, repr=False)  # the master notebook


@dataclass
class Findings:
    """What judging one notebook found besides the verdicts, per exercise."""

    alone: dict[str, str] = field(default_factory=dict)  # the error when it cannot run alone
    engine: dict[str, list[str]] = field(default_factory=dict)  # engine parts it refers to


def exercises_of(course_root: Path, assignment: str = ASSIGNMENT) -> list[Exercise]:
    """The exercises of the assignment, read from the master notebooks in source/."""
    found = []
    for path in sorted((course_root / "source" / assignment).glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        metas = [(c, nbgrader_meta(c)) for c in notebook.cells]
        for name in EXERCISES:
            if not any(m.get("solution") and m.get("grade_id") == name for _, m in metas):
                continue
            tests = {
                m["grade_id"]: float(m.get("points", 0))
                for _, m in metas
                if m.get("grade") and str(m.get("grade_id", "")).startswith(f"test_{name}_")
            }
            shown = [c.source for c, m in metas if m.get("grade_id") == f"test_{name}_examples"]
            examples = example_calls(shown[0], name) if shown else []
            found.append(Exercise(name, path.stem, tests, examples, notebook))
    return found


def group_of(cell: str, name: str) -> str | None:
    """The group of cases a test cell of exercise ``name`` stands for."""
    return GROUP_OF_CELL.get(cell.removeprefix(f"test_{name}_"))


_EXPECTED: dict[tuple, list[Outcome]] = {}
_KEPT = 256  # groups of expected outcomes kept: a term's, and examples' literal calls


def expected_outcomes(
    name: str,
    group: str,
    calls: list[tuple] | None = None,
    secret: str | None = None,
) -> list[Outcome]:
    """The reference's outcomes on a group's cases of the term (or on ``calls``), computed
    here, outside the sandbox, once per process."""
    key = (name, group, secret) if calls is None else (name, repr(calls))
    if key not in _EXPECTED:
        if len(_EXPECTED) >= _KEPT:
            _EXPECTED.clear()
        args_list = cases(name, group, secret) if calls is None else calls
        _EXPECTED[key] = [run_case(name, reference(name), args) for args in args_list]
    return _EXPECTED[key]


def _has_example_cases(name: str) -> bool:
    try:
        cases(name, EXAMPLES)
    except ValueError:
        return False
    return True


def _groups(exercise: Exercise, secret: str | None) -> dict[str, list[tuple]]:
    name = exercise.name
    groups = {g: cases(name, g, secret) for g in ("core", "random")}
    if exercise.examples:
        groups["examples"] = list(exercise.examples)
    elif _has_example_cases(name):  # stateful examples, rebuilt as cases
        groups["examples"] = cases(name, EXAMPLES)
    return groups


def cannot_run_alone(name: str, outcomes: dict[str, list[Outcome]], secret: str | None) -> str:
    """The error when every hidden case the answer gets wrong raised NameError or ImportError
    (it leans on something outside what the sandbox runs; cases such as an empty corpus may
    never reach that name and pass), else ""."""
    wrong = [
        got
        for group in ("core", "random")
        for want, got in zip(expected_outcomes(name, group, secret=secret), outcomes.get(group, []))
        if not agrees(name, want, got)
    ]
    if wrong and all((o.error or "").split(":")[0] in _ALONE_ERRORS for o in wrong):
        return str(wrong[0].error)
    return ""


def _examples_verdict(name: str, calls: list[tuple], outcomes: list) -> str:
    for args, expected, got in zip(calls, expected_outcomes(name, "literal", calls), outcomes):
        if not agrees(name, expected, got):
            shown = got.error or repr(got.value)
            return f"example {name}{args!r} gave {shown[:150]}"
    return ""


def verdict(
    name: str,
    group: str,
    outcomes: list[Outcome],
    expected: list[Outcome],
    secret: str | None = None,
) -> str:
    """The empty string when every case of the group passed, else the message about the
    smallest failing one, with about 200 characters of what came back (``came_back``)."""
    messages = judge(name, group, outcomes, expected, secret)
    if not messages:
        return ""
    trials = trials_of(name, cases(name, group, secret), outcomes, expected)
    smallest = min((t for t in trials if not t.passed), key=lambda t: size(t.args))
    return shorten(messages[0], smallest)


def _judge_exercise(
    exercise: Exercise, outcomes: dict[str, list], secret: str | None
) -> dict[str, str | None]:
    name = exercise.name
    verdicts: dict[str, str | None] = {}
    for cell in exercise.cells:
        group = group_of(cell, name)
        if group in ("core", "random"):
            expected = expected_outcomes(name, group, secret=secret)
            verdicts[cell] = verdict(name, group, outcomes[group], expected, secret)
        elif group == "examples" and exercise.examples:
            verdicts[cell] = _examples_verdict(name, exercise.examples, outcomes["examples"])
        elif group == "examples" and "examples" in outcomes:
            expected = expected_outcomes(name, EXAMPLES)
            verdicts[cell] = verdict(name, EXAMPLES, outcomes["examples"], expected)
        elif group == "examples":
            # Not re-runnable alone; a function that fails every hidden case outside the
            # kernel (an imported reference, a planted module) keeps nothing.
            core = expected_outcomes(name, "core", secret=secret)
            passes_some = any(agrees(name, e, o) for e, o in zip(core, outcomes["core"]))
            verdicts[cell] = None if passes_some else "fails every core case outside the kernel"
    return verdicts


def judge_notebook(
    notebook: nbformat.NotebookNode,
    exercises: list[Exercise],
    secret: str | None = None,
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
    unconfined: bool = False,
) -> tuple[dict[str, dict[str, str | None]], Findings]:
    """For each exercise of one notebook and each of its test cells: "" if it passes outside
    the kernel, else why not; None where the kernel's verdict stands; and what a person
    should know about each exercise. The hidden cases are this term's (``secret``), the
    same for every student; one sandbox process serves the whole notebook, one case at a
    time (``run_answers``, with ``memory_gb`` and ``unconfined``)."""
    verdicts: dict[str, dict[str, str | None]] = {}
    findings = Findings()
    jobs = []
    for exercise in exercises:
        statements = answer_statements(notebook, exercise.name, exercise.master)
        if statements is None:
            why = f"no answer cell with grade_id {exercise.name!r}"
            verdicts[exercise.name] = {cell: why for cell in exercise.cells}
        else:
            jobs.append((exercise.name, statements, _groups(exercise, secret)))
            uses = engine_uses(notebook, exercise.name, exercise.master)
            if uses:
                findings.engine[exercise.name] = uses
    outcomes = run_answers(jobs, seconds, memory_gb, unconfined) if jobs else {}
    for exercise in exercises:
        if exercise.name in outcomes:
            found = outcomes[exercise.name]
            verdicts[exercise.name] = _judge_exercise(exercise, found, secret)
            alone = cannot_run_alone(exercise.name, found, secret)
            if alone:
                findings.alone[exercise.name] = alone
            errors = [o.error or "" for group in found.values() for o in group]
            if any(error.startswith("EngineRefusedError") for error in errors):
                findings.engine.setdefault(exercise.name, ["the engine, when it ran"])
    return verdicts, findings
