"""What one call of an exercise function did, as plain data, and comparing such outcomes exactly.

The one outcome model of the course: the notebooks' visible tests, the hidden tests and the
judge's sandbox (which loads this file's text on its own, so it imports only the standard
library) all record and compare answers with it, so a mistake reads the same everywhere.

- :func:`run_case` calls a function on deep copies of its arguments and records an
  :class:`Outcome`: the value, the error text and the arguments afterwards; for
  merge_and_update, ``words`` is a list that refuses to be looped over. :func:`run` is the
  same call without that guard (the visible examples and our own wrong answers).
- :func:`to_plain` turns whatever came back into plain data: objects whose type is exactly
  ``bool``, ``int``, ``float``, ``str``, ``None``, ``tuple``, ``list``, ``dict``, ``set`` or
  ``frozenset``. The standard library's dict types (exactly ``Counter``, ``defaultdict`` and
  ``OrderedDict``) become the plain ``dict`` they hold, read through ``dict``'s own methods;
  anything else becomes an :class:`Unplain` marker that equals nothing the reference returns.
- :func:`same` compares plain data with every type included (``1`` is not ``True``);
  :func:`dumps` and :func:`loads` carry it through JSON to and from another process.
- :func:`where_problem` and :func:`where_gaps` say what a merge_and_update answer left wrong
  in ``where``.

But: it knows no right answer and decides no score, and never calls a method of a student's
object (nor of its class, which an answer may have patched).

>>> run(lambda symbols, pair: list(symbols), (("a", "b"), ("a", "b"))).value
['a', 'b']
>>> same({("a", "b"): 1}, {("a", "b"): True}), same([("a", "b")], [("a", "b")])
(False, True)
>>> class Yes(str):
...     def __eq__(self, other):
...         return True
>>> to_plain(Yes("x"))
Unplain(type_name='Yes')
>>> from collections import Counter
>>> to_plain(Counter({("a", "b"): 2}))
{('a', 'b'): 2}
>>> loads(dumps({("a", "b"): {1, 2}}))
{('a', 'b'): {1, 2}}
"""

from __future__ import annotations

import copy
import json
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

SCALARS = (bool, int, float, str, type(None))
# Read as the dict they hold. Bound when this module loads, before any answer runs (the
# judge's sandbox loads it first), and matched by identity, so a dict subclass of the
# answer's own, or one planted under a standard name later, is not one of them.
DICT_TYPES = (dict, Counter, OrderedDict, defaultdict)
# Deeper than any answer to these exercises; stops a list that contains itself.
MAX_DEPTH = 12
MAX_ITEMS = 200_000
TOO_LARGE = "answer too large to check"  # the Unplain that stands for what is past MAX_ITEMS
ERROR_LIMIT = 500  # characters of an error's message kept: a huge one would swamp the feedback


@dataclass(frozen=True)
class Unplain:
    """Stands for an object that is not plain data; it equals only another ``Unplain``."""

    type_name: str

    def __repr__(self) -> str:
        return f"Unplain(type_name={self.type_name!r})"


@dataclass(frozen=True)
class Outcome:
    """One call of an exercise function, as plain data.

    ``value`` is what it returned (``None`` if it raised), ``error`` is ``"TypeName: message"``
    if it raised (else ``None``), and ``after`` holds every argument as it was after the call.
    """

    value: Any
    error: str | None
    after: tuple


def _one_of(cls: type, types: tuple[type, ...]) -> bool:
    # Identity, not ``in``: a metaclass could make ``==`` between classes say yes.
    return any(cls is allowed for allowed in types)


class _Budget:
    """Counts the items converted so far, so a huge answer cannot stall the checker."""

    def __init__(self) -> None:
        self.left = MAX_ITEMS

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def fits(value: Any) -> bool:
    """Whether plain data (as :func:`loads` gives it) holds at most ``MAX_ITEMS`` items; the
    count stops at the limit, so a huge value costs no more than a checkable one.

    >>> fits([0] * MAX_ITEMS), fits({"a": [0] * MAX_ITEMS})
    (True, False)
    """
    left, stack = MAX_ITEMS, [value]
    while stack:
        item = stack.pop()
        cls = type(item)
        if cls is dict:
            left -= 2 * len(item)
        elif cls is tuple or cls is list or cls is set or cls is frozenset:
            left -= len(item)
        else:
            continue
        if left < 0:  # checked before anything of it is copied
            return False
        stack += [*item.keys(), *item.values()] if cls is dict else item
    return True


def type_name(value: object) -> str:
    """The name of ``value``'s type, read without running any code of that type."""
    cls = type(value)
    try:
        name = type.__getattribute__(cls, "__qualname__")
    except Exception:  # a class can make attribute lookups fail
        name = "unknown type"
    return name if isinstance(name, str) and type(name) is str else "unknown type"


def to_plain(value: Any) -> Any:
    """``value`` as plain data with exact types; anything else becomes an ``Unplain``."""
    return _convert(value, 0, _Budget())


def _convert(value: Any, depth: int, budget: _Budget) -> Any:
    cls = type(value)
    if not budget.spend():
        return Unplain(TOO_LARGE)
    if _one_of(cls, SCALARS):
        return value
    if depth >= MAX_DEPTH:
        return Unplain("answer nested too deeply to check")
    if cls is tuple:
        return tuple(_convert(item, depth + 1, budget) for item in tuple.__iter__(value))
    if cls is list:
        return [_convert(item, depth + 1, budget) for item in list.__iter__(value)]
    if cls is set or cls is frozenset:
        items = [_convert(item, depth + 1, budget) for item in cls.__iter__(value)]
        return cls(items)
    if _one_of(cls, DICT_TYPES):
        # dict.items of the base type: whatever the answer's class overrides is never called.
        return {
            _convert(key, depth + 1, budget): _convert(item, depth + 1, budget)
            for key, item in dict.items(value)
        }
    return Unplain(type_name(value))


def is_plain(value: Any) -> bool:
    """True when ``value`` is built only of plain types (an ``Unplain`` marker is not)."""
    cls = type(value)
    if _one_of(cls, SCALARS):
        return True
    if cls is tuple or cls is list or cls is set or cls is frozenset:
        return all(is_plain(item) for item in value)
    if cls is dict:
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return False


def typed(value: Any) -> Any:
    """A form of plain data in which equal means equal in value and in every type."""
    cls = type(value)
    if _one_of(cls, SCALARS):
        return (cls.__name__, value)
    if cls is Unplain:
        return ("Unplain", value.type_name)
    if cls is tuple or cls is list:
        return (cls.__name__, tuple(typed(item) for item in value))
    if cls is set or cls is frozenset:
        return (cls.__name__, frozenset(typed(item) for item in value))
    if cls is dict:
        return ("dict", frozenset((typed(k), typed(v)) for k, v in value.items()))
    raise TypeError(f"typed() takes plain data; got a {cls.__name__} (run to_plain first)")


def same(expected: Any, got: Any) -> bool:
    """True when two pieces of plain data are equal, with exactly the same types throughout."""
    return typed(expected) == typed(got)


# ---- running one case --------------------------------------------------------------------


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


def error_text(error: BaseException) -> str:
    """``"Type: message"`` for an exception, its message cut to ``ERROR_LIMIT`` characters."""
    name = type(error).__name__
    try:
        message = str(error)
    except Exception:  # a student's exception class may fail to print itself
        message = ""
    if type(message) is not str:
        message = ""
    if len(message) > ERROR_LIMIT:
        message = message[:ERROR_LIMIT] + " ..."
    return f"{name}: {message}" if message else name


def run_case(name: str, func: Callable, args: Sequence[Any]) -> Outcome:
    """Call ``func`` on fresh deep copies of ``args`` and record what happened, as plain data;
    merge_and_update gets its ``words`` as a :class:`GuardedWords`."""
    call_args = list(copy.deepcopy(tuple(args)))
    if name == "merge_and_update":
        words, _counts, _stats, where, pair = call_args
        call_args[0] = GuardedWords(words, set(where.get(pair, ())))
    return _call(func, call_args)


def run(func: Callable, args: Sequence[Any]) -> Outcome:
    """Call ``func`` on fresh deep copies of ``args`` and record what happened, as plain data,
    with no argument guarded."""
    return _call(func, list(copy.deepcopy(tuple(args))))


def _call(func: Callable, call_args: list) -> Outcome:
    try:
        value = func(*call_args)
        error = None
    except KeyboardInterrupt:  # the grader's time limit, or the student's stop button
        raise
    except BaseException as exc:  # a student's bug (even SystemExit) is a result to judge
        value, error = None, error_text(exc)
    after = tuple(
        arg.as_plain_list() if isinstance(arg, GuardedWords) else to_plain(arg) for arg in call_args
    )
    return Outcome(value=to_plain(value), error=error, after=after)


# ---- carrying plain data to another process ------------------------------------------------


# JSON cannot hold tuples, sets or tuple keys, so each container is tagged with its type.
def _encode(value: Any) -> Any:
    cls = type(value)
    if _one_of(cls, SCALARS):
        return value
    if cls is Unplain:
        return {"unplain": value.type_name}
    if cls is list:
        return {"list": [_encode(item) for item in value]}
    if cls is tuple:
        return {"tuple": [_encode(item) for item in value]}
    if cls is set or cls is frozenset:
        ordered = sorted(value, key=lambda item: repr(typed(item)))
        return {cls.__name__: [_encode(item) for item in ordered]}
    if cls is dict:
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise TypeError(f"dumps() takes plain data; got a {cls.__name__} (run to_plain first)")


def _decode(value: Any) -> Any:
    if type(value) is not dict:
        return value
    ((tag, body),) = value.items()
    if tag == "unplain":
        if type(body) is not str:  # a forged line's "type name" would break typed()'s hash
            raise ValueError("an unplain marker names its type with a str")
        return Unplain(body)
    if tag == "list":
        return [_decode(item) for item in body]
    if tag == "tuple":
        return tuple(_decode(item) for item in body)
    if tag == "set":
        return {_decode(item) for item in body}
    if tag == "frozenset":
        return frozenset(_decode(item) for item in body)
    if tag == "dict":
        return {_decode(k): _decode(v) for k, v in body}
    raise ValueError(f"unknown tag {tag!r} in plain-data JSON")


def dumps(value: Any) -> str:
    """Plain data (``Unplain`` markers included) as JSON text that :func:`loads` restores."""
    return json.dumps(_encode(value))


def loads(text: str) -> Any:
    """The plain data that :func:`dumps` wrote."""
    return _decode(json.loads(text))


# ---- what merge_and_update left wrong in where ---------------------------------------------


def true_where(words: list) -> dict:
    """Each pair the words hold, with the indices of the words holding it (as
    ``bpe_course.engine.index_pairs`` builds it; written here so this module needs only the
    standard library)."""
    where: dict = {}
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            where.setdefault(pair, set()).add(i)
    return where


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
