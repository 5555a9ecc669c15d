"""What counts as right: the reference's answer, and whether an outcome agrees with it.

``agrees`` compares plain-data outcomes exactly (types included); for merge_and_update,
``where`` only has to list every word that now holds each pair (stale indices are allowed).

But: it never runs student code; outcomes come from ``run.run_case``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import solutions
from autograder.course import EXERCISES
from autograder.hidden_tests.plain import same
from autograder.hidden_tests.run import Outcome
from bpe_course.engine import index_pairs


def reference(name: str) -> Callable:
    """The reference implementation of exercise ``name``."""
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; expected one of {', '.join(EXERCISES)}")
    return getattr(solutions, name)


def where_gaps(after: tuple, expected_after: tuple) -> list[tuple[Any, list[int]]]:
    """Each pair the words hold after merge_and_update whose entry in the student's ``where``
    misses some of those words, with the missing indices (in pair order). Empty when
    ``where`` lists every holder, or is not a dict of sets (see :func:`where_problem`)."""
    where = after[3]
    if type(where) is not dict:
        return []
    words = expected_after[0]
    _, true_where = index_pairs(words, [1] * len(words))
    gaps = []
    for pair, indices in sorted(true_where.items()):
        held = where.get(pair, set())
        if type(held) is set and indices - held:
            gaps.append((pair, sorted(indices - held)))
    return gaps


def where_problem(after: tuple, expected_after: tuple) -> str | None:
    """What is wrong with the student's ``where`` after merge_and_update, or None."""
    where = after[3]
    if type(where) is not dict:
        return "where is no longer a dict"
    words = expected_after[0]
    _, true_where = index_pairs(words, [1] * len(words))
    for pair, indices in sorted(true_where.items()):
        held = where.get(pair)
        if held is None:
            return f"where has no entry for {pair!r}, which words {sorted(indices)} now hold"
        if type(held) is not set:
            return f"where[{pair!r}] should be a set of word indices, got {held!r}"
        missing = sorted(indices - held)
        if missing:
            return f"where[{pair!r}] lacks word(s) {missing} that now hold {pair!r}"
    return None


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
