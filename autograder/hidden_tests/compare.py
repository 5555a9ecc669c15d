"""What counts as right: the reference's answer, and whether an outcome agrees with it.

``where_gaps`` and ``where_problem`` (what an answer's ``where`` misses) come from
``bpe_course.outcomes``, which the visible tests share.

``agrees`` compares plain-data outcomes exactly (types included); for merge_and_update,
``where`` only has to list every word that now holds each pair (stale indices are allowed).

But: it never runs student code; outcomes come from ``run.run_case``.
"""

from __future__ import annotations

from collections.abc import Callable

import solutions
from autograder.course import EXERCISES
from autograder.hidden_tests.plain import same
from autograder.hidden_tests.run import Outcome
from bpe_course.outcomes import where_gaps, where_problem  # noqa: F401 - re-exported


def reference(name: str) -> Callable:
    """The reference implementation of exercise ``name``."""
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; expected one of {', '.join(EXERCISES)}")
    return getattr(solutions, name)


def agrees(name: str, expected: Outcome, got: Outcome) -> bool:
    """True when ``got`` is a right answer, given the reference's ``expected`` outcome."""
    if got.error is not None:
        return False
    if name == "merge_and_update":
        return (
            same(expected.value, got.value)
            and same(expected.after[:3], got.after[:3])
            and where_problem(got.after, expected.after) is None
        )
    return same(expected.value, got.value) and same(expected.after, got.after)
