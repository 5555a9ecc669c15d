"""What one call of an exercise function did, and comparing such outcomes exactly.

Shared by the notebooks' visible tests and the hidden tests, so that both judge and describe
an answer the same way:

- :class:`Result` is one call: the value, the error text and the arguments afterwards;
- :func:`run` calls a function on deep copies of its arguments and records a ``Result``;
- :func:`same` compares plain data with every type included (``1`` is not ``True``);
- :func:`where_problem` and :func:`where_gaps` say what a merge_and_update answer left wrong in
  ``where``.

But: it knows no right answer and decides no score; the graded run of an answer happens
outside the student's kernel, with its own runner.

>>> run(lambda symbols, pair: list(symbols), (("a", "b"), ("a", "b"))).value
['a', 'b']
>>> same({("a", "b"): 1}, {("a", "b"): True}), same([("a", "b")], [("a", "b")])
(False, True)
"""

from __future__ import annotations

import copy
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_course.engine import index_pairs

SCALARS = (bool, int, float, str, type(None))
CONTAINERS = (tuple, list, set, frozenset, dict)
DICT_TYPES = (Counter, OrderedDict, defaultdict)  # read as the plain dict they hold
ERROR_LIMIT = 500


@dataclass(frozen=True)
class Result:
    """One call: ``value`` returned (None if it raised), ``error`` as ``"Type: message"``
    (None if it returned), ``after`` every argument as it was after the call."""

    value: Any
    error: str | None
    after: tuple


def typed(value: Any) -> Any:
    """A form of ``value`` in which equal means equal in value and in every type; an object
    that is not plain data equals only itself."""
    cls = type(value)
    if any(cls is t for t in SCALARS):
        return (cls.__name__, value)
    if cls is tuple or cls is list:
        return (cls.__name__, tuple(typed(item) for item in value))
    if cls is set or cls is frozenset:
        return (cls.__name__, frozenset(typed(item) for item in value))
    if cls is dict:
        return ("dict", frozenset((typed(k), typed(v)) for k, v in value.items()))
    return ("other", cls.__qualname__, id(value))


def same(expected: Any, got: Any) -> bool:
    """True when two pieces of plain data are equal, with exactly the same types throughout."""
    return typed(expected) == typed(got)


def is_plain(value: Any) -> bool:
    """True when ``value`` is built only of plain types (no object of a class of its own)."""
    cls = type(value)
    if any(cls is t for t in SCALARS):
        return True
    if cls is tuple or cls is list or cls is set or cls is frozenset:
        return all(is_plain(item) for item in value)
    if cls is dict:
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return False


def plain(value: Any) -> Any:
    """``value`` with the standard library's dict types read as the dict they hold (a
    Counter answer earns what a dict does); everything else is left as it is."""
    cls = type(value)
    if any(cls is t for t in DICT_TYPES):
        return {plain(k): plain(v) for k, v in dict.items(value)}
    if cls is dict:
        return {plain(k): plain(v) for k, v in value.items()}
    if cls is tuple or cls is list:
        return cls(plain(item) for item in value)
    return value


def error_text(error: BaseException) -> str:
    """``"Type: message"`` for an exception, its message cut to ``ERROR_LIMIT`` characters."""
    try:
        message = str(error)
    except Exception:  # an exception class may fail to print itself
        message = ""
    if len(message) > ERROR_LIMIT:
        message = message[:ERROR_LIMIT] + " ..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def run(func: Callable, args: Sequence[Any]) -> Result:
    """Call ``func`` on deep copies of ``args``; what it returned or raised, and the
    arguments afterwards."""
    call_args = copy.deepcopy(tuple(args))
    try:
        value, error = func(*call_args), None
    except Exception as exc:
        value, error = None, error_text(exc)
    return Result(plain(value), error, tuple(plain(arg) for arg in call_args))


def true_where(words: list) -> dict:
    """Each pair the words hold, with the indices of the words holding it."""
    return index_pairs(words, [1] * len(words))[1]


def where_gaps(after: tuple, expected_after: tuple) -> list[tuple[Any, list[int]]]:
    """Each pair the words hold after merge_and_update whose entry in the answer's ``where``
    misses some of those words, with the missing indices (in pair order). Empty when
    ``where`` lists every holder, or is not a dict of sets (see :func:`where_problem`).

    >>> where_gaps(([], [], {}, {("a", "b"): set()}), ([["a", "b"]],))
    [(('a', 'b'), [0])]
    """
    where = after[3]
    if type(where) is not dict:
        return []
    gaps = []
    for pair, indices in sorted(true_where(expected_after[0]).items()):
        held = where.get(pair, set())
        if type(held) is set and indices - held:
            gaps.append((pair, sorted(indices - held)))
    return gaps


def where_problem(after: tuple, expected_after: tuple) -> str | None:
    """What is wrong with the answer's ``where`` after merge_and_update, or None."""
    where = after[3]
    if type(where) is not dict:
        return "where is no longer a dict"
    for pair, indices in sorted(true_where(expected_after[0]).items()):
        held = where.get(pair)
        if held is None:
            return f"where has no entry for {pair!r}, which words {sorted(indices)} now hold"
        if type(held) is not set:
            return f"where[{pair!r}] should be a set of word indices, got {held!r}"
        missing = sorted(indices - held)
        if missing:
            return f"where[{pair!r}] lacks word(s) {missing} that now hold {pair!r}"
    return None
