"""The hidden tests' checker: judge a student's outcomes on every case of a group.

- :func:`judge` compares outcomes (from ``bpe_course.outcomes.run_case``) with the
  reference's and returns failure messages, smallest failing input first, with the mistake
  by name only when the whole group's outcomes single it out (``bpe_course.mistakes.diagnose``).
- :func:`check` is what a master notebook's hidden test cell calls: run, judge, and raise
  ``AssertionError`` with the first message.

But: ``judge`` itself never runs student code, and nothing here keeps scores.

>>> from solutions import merge_pair
>>> outcomes = [run_case("merge_pair", merge_pair, args) for args in cases("merge_pair", "core")]
>>> judge("merge_pair", "core", outcomes)
[]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from autograder.hidden_tests.cases import EXAMPLES, GROUPS, cases
from autograder.hidden_tests.compare import reference, trials_of
from bpe_course.feedback import describe
from bpe_course.outcomes import Outcome, run_case


def size(args: Sequence[Any]) -> int:
    """How big an input is, for putting the smallest failing input first."""
    return len(repr(args))


def judge(
    name: str,
    group: str,
    outcomes: Sequence[Outcome],
    expected: Sequence[Outcome] | None = None,
    secret: str | None = None,
) -> list[str]:
    """Failure messages for ``outcomes`` of ``cases(name, group, secret)``,
    smallest input first; an empty list means every case passed. Runs only our own code.
    ``expected``, the reference's outcomes on the same cases, saves running the reference
    again when judging many students."""
    if group not in (*GROUPS, EXAMPLES):
        raise ValueError(f"unknown group {group!r}; expected 'core' or 'random'")
    all_args = cases(name, group, secret)
    if len(outcomes) != len(all_args):
        raise ValueError(
            f"{name}/{group} has {len(all_args)} cases but {len(outcomes)} outcomes were given"
        )
    if expected is None:
        expected = [run_case(name, reference(name), args) for args in all_args]
    if len(expected) != len(all_args):
        raise ValueError(f"{name}/{group} has {len(all_args)} cases but {len(expected)} expected")
    for got in outcomes:
        if type(got) is not Outcome:
            raise TypeError(f"judge takes Outcome objects, got {type(got).__name__}")
    trials = trials_of(name, all_args, outcomes, expected)
    return describe(name, trials, order=lambda trial: size(trial.args))


def check(name: str, group: str, func: Callable) -> None:
    """Run ``func`` on every case of ``name``/``group``; raise AssertionError if any fails."""
    if not callable(func):
        raise AssertionError(f"{name} should be a function, but it is a {type(func).__name__}")
    outcomes = [run_case(name, func, args) for args in cases(name, group)]
    messages = judge(name, group, outcomes)
    if messages:
        raise AssertionError(messages[0])
