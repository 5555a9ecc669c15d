"""The naive BPE of lessons 1 and 2: count pairs, merge one pair, train, encode by rank.

Each function is the plainest correct answer to its exercise, written to be read next to the
lesson. Speed is not a goal here (see ``solutions.fast``); exactness is.

>>> words = {tuple("tea"): 6, tuple("teas"): 2, tuple("eat"): 5}
>>> pair_counts(words)[("e", "a")]
13
>>> merge_pair(("a", "a", "a"), ("a", "a"))
('aa', 'a')
>>> train_bpe({"ab": 10, "bcd": 6}, 3)
[('a', 'b'), ('b', 'c'), ('bc', 'd')]
>>> encode_bpe("abcd", [("a", "b"), ("b", "c"), ("bc", "d")])
['ab', 'c', 'd']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_course.validate import check_training_args

Pair = tuple[str, str]


def pair_counts(words: Mapping[tuple[str, ...], int]) -> dict[Pair, int]:
    """Weighted count of every adjacent pair, overlapping positions included."""
    counts: dict[Pair, int] = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def merge_pair(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """A new tuple with each occurrence of ``pair`` joined, scanning left to right."""
    left, right = pair
    merged: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            merged.append(left + right)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)


def train_bpe(word_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges; ties go to the smallest pair in tuple order."""
    check_training_args(word_counts, num_merges)
    words = {tuple(word): count for word, count in word_counts.items()}
    merges: list[Pair] = []
    for _ in range(num_merges):
        counts = pair_counts(words)
        if not counts:  # every word is a single symbol
            break
        # min over (-count, pair): the highest count, then the smallest pair.
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        merges.append(best)
        words = {merge_pair(symbols, best): count for symbols, count in words.items()}
    return merges


def encode_bpe(word: str, merges: Sequence[Pair]) -> list[str]:
    """Split ``word`` by joining one pair at a time: the lowest-ranked pair present, at its
    leftmost occurrence, then look again, until no adjacent pair is in the table.

    A merge's rank is its index in ``merges``; a pair listed twice keeps its first rank.
    Joining every occurrence of the winning pair at once would give the same tokens for a
    table learned by training, where each merge makes a token no earlier merge made, but not
    for any hand-made table: with ``[("ab", "a"), ("a", "b")]`` the word ``abab`` becomes
    ``ab a b`` after one join, and then ``(ab, a)`` outranks the second ``(a, b)``.

    >>> encode_bpe("abab", [("ab", "a"), ("a", "b")])
    ['aba', 'b']
    """
    ranks: dict[Pair, int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), rank)  # a repeated merge keeps its first rank
    symbols = list(word)
    while len(symbols) > 1:
        ranked = [
            (ranks[pair], i) for i, pair in enumerate(zip(symbols, symbols[1:])) if pair in ranks
        ]
        if not ranked:
            break
        _, i = min(ranked)  # the lowest rank, then the leftmost position
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols
