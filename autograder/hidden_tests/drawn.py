"""Draw each core case anew for a term: the same purpose, other letters and counts.

``draw(name, fixed, seed)`` turns the fixed core cases of exercise ``name`` into this seed's:
each case's letters are renamed by a map that keeps their alphabetical order (so every tie
still goes to the same pair, every overlap, absent pair and unseen character stays what it
was), its counts are multiplied by one factor (none where a count of 1 is the point), and a
corpus's words are shuffled; for merge_and_update the trainer's state is renamed and
re-indexed the same way, keeping a ``where[pair]`` that a set iterates out of order so.
The same seed gives the same cases under any ``PYTHONHASHSEED``; the seed is the term's
secret, so every student of a term meets the same cases and a new term meets new ones.

But: it knows no expected answer (the reference computes those), and it leaves spaces and
the visible examples as they are.

>>> draw("merge_pair", [(("a", "a", "a"), ("a", "a"))], "term-2026-autumn")
[(('h', 'h', 'h'), ('h', 'h'))]
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Any

_POOL = string.ascii_lowercase  # the letters a drawn case is written in
_TRIES = 200  # permutations tried to keep a where[pair] out of order


def _letters(value: Any, found: set[str]) -> None:
    if type(value) is str:
        found.update(c for c in value if c in _POOL)
    elif type(value) in (tuple, list, set, frozenset):
        for item in value:
            _letters(item, found)
    elif type(value) is dict:
        for key, item in value.items():
            _letters(key, found)
            _letters(item, found)


def _renaming(case: tuple, rng: random.Random) -> Callable[[str], str]:
    """An order-keeping map of the case's letters into ``_POOL``, as a function on strings."""
    found: set[str] = set()
    _letters(case, found)
    old = sorted(found)
    new = sorted(rng.sample(_POOL, len(old)))
    table = str.maketrans(dict(zip(old, new)))
    return lambda text: text.translate(table)


def _renamed(value: Any, rename: Callable[[str], str]) -> Any:
    """``value`` with every string renamed; counts, indices and containers' types kept."""
    kind = type(value)
    if kind is str:
        return rename(value)
    if kind in (tuple, list):
        return kind(_renamed(item, rename) for item in value)
    if kind is dict:
        return {_renamed(k, rename): _renamed(v, rename) for k, v in value.items()}
    return value  # ints, and where's sets of word indices


def _factor(counts: list[int], rng: random.Random, keep_ones: bool) -> int:
    if keep_ones and 1 in counts:  # a count of 1 is this case's point (the last merge, ...)
        return 1
    return rng.randint(2, 6) if keep_ones else rng.randint(1, 9)


def _shuffled_dict(words: dict, factor: int, rng: random.Random) -> dict:
    items = list(words.items())
    rng.shuffle(items)
    return {word: count * factor for word, count in items}


def _corpus_case(case: tuple, rng: random.Random, keep_ones: bool) -> tuple:
    words, *rest = case
    factor = _factor(list(words.values()), rng, keep_ones)
    return (_shuffled_dict(words, factor, rng), *rest)


def _out_of_order(indices: set[int]) -> bool:
    return list(indices) != sorted(indices)


def _state_case(case: tuple, rng: random.Random) -> tuple:
    """merge_and_update's (words, counts, stats, where, pair), its words in another order and
    its counts scaled; a where[pair] that iterated out of order still does."""
    words, counts, stats, where, pair = case
    factor = _factor(counts, rng, keep_ones=True)
    keep_disorder = _out_of_order(where.get(pair, set()))
    order = list(range(len(words)))
    for _ in range(_TRIES):
        rng.shuffle(order)  # order[i]: where word i goes
        moved = {order[i] for i in where.get(pair, set())}
        if not keep_disorder or _out_of_order(moved):
            break
    else:
        order = list(range(len(words)))
    new_words: list = [None] * len(words)
    new_counts = [0] * len(words)
    for i, (word, count) in enumerate(zip(words, counts)):
        new_words[order[i]], new_counts[order[i]] = word, count * factor
    new_stats = {p: n * factor for p, n in stats.items()}
    new_where = {p: {order[i] for i in held} for p, held in where.items()}
    return (new_words, new_counts, new_stats, new_where, pair)


def _drawn_case(name: str, case: tuple, rng: random.Random) -> tuple:
    if name == "pair_counts":
        case = _corpus_case(case, rng, keep_ones=False)
    elif name == "train_bpe":
        case = _corpus_case(case, rng, keep_ones=True)
    elif name == "merge_and_update":
        case = _state_case(case, rng)
    return _renamed(case, _renaming(case, rng))


def draw(name: str, fixed: list[tuple], seed: str) -> list[tuple]:
    """The cases ``fixed`` of exercise ``name`` as ``seed`` draws them, one per fixed case."""
    # A str seed is hashed with SHA-512 by random: the same on every machine and hash seed.
    return [
        _drawn_case(name, case, random.Random(f"{seed}/{name}/core/{i}"))
        for i, case in enumerate(fixed)
    ]
