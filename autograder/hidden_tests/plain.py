"""Turn whatever a student's function returned into plain data, and compare plain data exactly.

Plain data is built only of objects whose type is exactly ``bool``, ``int``, ``float``, ``str``,
``None``, ``tuple``, ``list``, ``dict``, ``set`` or ``frozenset``. The standard library's dict
types (exactly ``collections.Counter``, ``defaultdict`` and ``OrderedDict``) become the plain
``dict`` they hold, read through ``dict``'s own methods; anything else becomes an ``Unplain``
marker that equals nothing the reference returns. ``same`` compares types too;
``dumps``/``loads`` carry plain data through JSON for graders in another process.

But: it judges nothing and never calls a method of a student's object (nor of its class,
which an answer may have patched).

>>> to_plain({("a", "b"): 2})
{('a', 'b'): 2}
>>> class Yes(str):
...     def __eq__(self, other):
...         return True
>>> to_plain(Yes("x"))
Unplain(type_name='Yes')
>>> from collections import Counter
>>> to_plain(Counter({("a", "b"): 2}))
{('a', 'b'): 2}
>>> same({"x": 1}, {"x": True}), same([("a", "b")], [("a", "b")])
(False, True)
>>> loads(dumps({("a", "b"): {1, 2}}))
{('a', 'b'): {1, 2}}
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict, defaultdict
from dataclasses import dataclass
from typing import Any

SCALARS = (bool, int, float, str, type(None))
# Read as the dict they hold. Bound when this module loads, before any answer runs (the
# verify sandbox loads it first), and matched by identity, so a dict subclass of the
# answer's own, or one planted under a standard name later, is not one of them.
DICT_TYPES = (dict, Counter, OrderedDict, defaultdict)
# Deeper than any answer to these exercises; stops a list that contains itself.
MAX_DEPTH = 12
MAX_ITEMS = 200_000


@dataclass(frozen=True)
class Unplain:
    """Stands for an object that is not plain data; it equals only another ``Unplain``."""

    type_name: str

    def __repr__(self) -> str:
        return f"Unplain(type_name={self.type_name!r})"


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
        return Unplain("answer too large to check")
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
