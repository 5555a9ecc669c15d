"""What counts as right: the reference's answer, and whether an outcome agrees with it.

``agrees`` compares plain-data outcomes exactly (types included); for merge_and_update,
``where`` only has to list every word that now holds each pair (stale indices are allowed).
``trials_of`` pairs a group's outcomes with the reference's, as the ``Trial`` records from
which ``bpe_course.feedback`` writes messages and ``bpe_course.mistakes`` names a mistake.

But: it never runs student code; outcomes, ``same`` and ``where_problem`` come from
``bpe_course.outcomes``, the outcome model the visible tests share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import solutions
from autograder.course import EXERCISES
from bpe_course.mistakes import Trial
from bpe_course.outcomes import Outcome, same, where_problem


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


def trials_of(
    name: str, all_args: Sequence[tuple], outcomes: Sequence[Any], expected: Sequence[Any]
) -> list[Trial]:
    """The group's trials: each case with the reference's and the answer's outcome, and
    whether the answer agrees with the reference there."""
    return [
        Trial(tuple(args), want, got, agrees(name, want, got))
        for args, want, got in zip(all_args, expected, outcomes)
    ]
