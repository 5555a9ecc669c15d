"""Call a student's function once on a case and record what happened, as plain data.

:func:`run_case` deep-copies the arguments, calls the function, and returns an
:class:`Outcome`: the value, the error text, and every argument as it was afterwards, all
converted by ``plain.to_plain``. For merge_and_update, ``words`` is a list that refuses to be
looped over.

But: it knows no expected answer and judges nothing, and imports only ``plain``, so the
judge's sandbox can load its text where neither ``solutions`` nor ``autograder`` exists.

>>> run_case("merge_pair", lambda symbols, pair: list(symbols), (("a", "b"), ("a", "b"))).value
['a', 'b']
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from autograder.hidden_tests.plain import to_plain


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
