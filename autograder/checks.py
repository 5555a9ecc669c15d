"""The hidden tests' checker: run a student's function on every case, then judge the results.

Grading is split in two so that the judging never runs student code:

- :func:`run_case` calls the student's function once, on deep copies of the case, and
  records an :class:`Outcome` (return value, error text, the arguments after the call), all
  converted to plain data with exact types by ``autograder.plain``.
- :func:`judge` compares outcomes with the reference in ``solutions`` and returns failure
  messages: the smallest failing input, what was expected, what came back, and the mistake
  by name when ``autograder.mistakes`` recognises one. It only reads plain data.
- :func:`check` is what a notebook's hidden test cell calls: both steps in one process, then
  ``AssertionError`` with the first message.

The grading-at-scale tools call ``run_case`` in a sandboxed subprocess and ``judge`` in a
process that never runs student code. This module does not grade notebooks or keep scores.

>>> from solutions import merge_pair
>>> outcomes = [run_case("merge_pair", merge_pair, args) for args in cases("merge_pair", "core")]
>>> judge("merge_pair", "core", outcomes)
[]
>>> run_case("merge_pair", lambda symbols, pair: list(symbols), (("a", "b"), ("a", "b"))).value
['a', 'b']
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import solutions
from autograder.cases import EXAMPLES, EXERCISES, GROUPS, cases
from autograder.plain import same, to_plain


@dataclass(frozen=True)
class Outcome:
    """One call of an exercise function, as plain data.

    ``value`` is what it returned (``None`` if it raised), ``error`` is ``"TypeName: message"``
    if it raised (else ``None``), and ``after`` holds every argument as it was after the call.
    """

    value: Any
    error: str | None
    after: tuple


ERROR_LIMIT = 500


class WordsLoopError(RuntimeError):
    """Raised when merge_and_update reads words that ``where`` does not point it to."""


LOOP_HINT = (
    "merge_and_update must not loop over all the words: read only the words that where[pair] lists"
)


class GuardedWords(list):
    """The ``words`` list merge_and_update receives: it refuses to be looped over or measured
    with ``len()`` (as the visible test's list does), and any read of a word that
    ``where[pair]`` does not list counts as looping over all words."""

    def __init__(self, words: list, allowed: set[int]) -> None:
        super().__init__(words)
        self._allowed = frozenset(allowed)

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise WordsLoopError(LOOP_HINT)

    __iter__ = __reversed__ = __contains__ = _refuse
    index = count = _refuse

    def __len__(self) -> NoReturn:  # the number of words is only needed to visit them all
        raise WordsLoopError(LOOP_HINT + " (len(words) is a step towards visiting every word)")

    def copy(self) -> NoReturn:  # a copy would be looped over next
        raise WordsLoopError(LOOP_HINT)

    def __getitem__(self, i):
        if type(i) is not int:
            raise WordsLoopError(LOOP_HINT + f" (words[{i!r}] reads many words at once)")
        if i < 0:
            i += list.__len__(self)
        if i not in self._allowed:
            raise WordsLoopError(LOOP_HINT + f" (words[{i}] is not in where[pair])")
        return list.__getitem__(self, i)

    def as_plain_list(self) -> list:
        return to_plain(list(list.__iter__(self)))


def _error_text(error: BaseException) -> str:
    name = type(error).__name__
    try:
        message = str(error)
    except Exception:  # a student's exception class may fail to print itself
        message = ""
    if type(message) is not str:
        message = ""
    if len(message) > ERROR_LIMIT:  # a huge message would swamp the feedback
        message = message[:ERROR_LIMIT] + " ..."
    return f"{name}: {message}" if message else name


def run_case(name: str, func: Callable, args: Sequence[Any]) -> Outcome:
    """Call ``func`` on fresh deep copies of ``args`` and record what happened, as plain data."""
    call_args = list(copy.deepcopy(tuple(args)))
    if name == "merge_and_update":
        words, _counts, _stats, where, pair = call_args
        call_args[0] = GuardedWords(words, set(where.get(pair, ())))
    try:
        value = func(*call_args)
        error = None
    except KeyboardInterrupt:  # the grader's time limit: let it stop the cell
        raise
    except BaseException as exc:  # a student's bug (even SystemExit) is a result to judge
        value, error = None, _error_text(exc)
    after = tuple(
        arg.as_plain_list() if isinstance(arg, GuardedWords) else to_plain(arg) for arg in call_args
    )
    return Outcome(value=to_plain(value), error=error, after=after)


def reference(name: str) -> Callable:
    """The reference implementation of exercise ``name``."""
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; expected one of {', '.join(EXERCISES)}")
    return getattr(solutions, name)


def true_where(words: list) -> dict:
    """For each pair, the set of indices of the words that hold it."""
    where: dict = {}
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            where.setdefault(pair, set()).add(i)
    return where


def where_problem(after: tuple, expected_after: tuple) -> str | None:
    """What is wrong with the student's ``where`` after merge_and_update, or None."""
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


def call_text(name: str, args: Sequence[Any]) -> str:
    return f"{name}({', '.join(repr(arg) for arg in args)})"


def size(args: Sequence[Any]) -> int:
    """How big an input is, for putting the smallest failing input first."""
    return len(repr(args))


def judge(
    name: str,
    group: str,
    outcomes: Sequence[Outcome],
    expected: Sequence[Outcome] | None = None,
) -> list[str]:
    """Failure messages for ``outcomes`` of ``cases(name, group)``, smallest input first;
    an empty list means every case passed. Runs only our own code. ``expected``, the
    reference's outcomes on the same cases, saves running the reference again when judging
    many students."""
    from autograder.mistakes import describe_failures

    if group not in (*GROUPS, EXAMPLES):
        raise ValueError(f"unknown group {group!r}; expected 'core' or 'random'")
    all_args = cases(name, group)
    if len(outcomes) != len(all_args):
        raise ValueError(
            f"{name}/{group} has {len(all_args)} cases but {len(outcomes)} outcomes were given"
        )
    if expected is None:
        expected = [run_case(name, reference(name), args) for args in all_args]
    if len(expected) != len(all_args):
        raise ValueError(f"{name}/{group} has {len(all_args)} cases but {len(expected)} expected")
    failures = []
    for args, want, got in zip(all_args, expected, outcomes):
        if type(got) is not Outcome:
            raise TypeError(f"judge takes Outcome objects, got {type(got).__name__}")
        if not agrees(name, want, got):
            failures.append((args, want, got))
    failures.sort(key=lambda failure: size(failure[0]))
    return describe_failures(name, failures, total=len(all_args))


def check(name: str, group: str, func: Callable) -> None:
    """Run ``func`` on every case of ``name``/``group``; raise AssertionError if any fails."""
    if not callable(func):
        raise AssertionError(f"{name} should be a function, but it is a {type(func).__name__}")
    outcomes = [run_case(name, func, args) for args in cases(name, group)]
    messages = judge(name, group, outcomes)
    if messages:
        raise AssertionError(messages[0])
