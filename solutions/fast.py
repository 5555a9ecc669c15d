"""The fast trainer of lesson 4: incremental pair counts, a pair-to-words index, a lazy heap.

``merge_and_update`` is the "Research" exercise: it touches only the words that contain the
merged pair and never iterates over the whole word list. ``train_bpe_fast`` builds on it and
returns exactly what ``solutions.bpe.train_bpe`` returns, for every input.

Why a min-heap of ``(-count, pair)`` is enough: Python compares the tuples by count first and
then by the pair itself, so the smallest entry is the highest count with the smallest pair,
which is the tie-break rule of the naive trainer. Entries are never updated in place; a fresh
one is pushed whenever a pair's count changes, and an entry whose count no longer matches
``stats`` is stale and skipped when it surfaces.

>>> train_bpe_fast({"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}, 4)
[('e', 'a'), ('ea', 't'), ('t', 'ea'), ('s', 'eat')]
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from solutions.bpe import Pair, merge_pair
from solutions.validate import check_training_args


def merge_and_update(
    words: list[list[str]],
    counts: list[int],
    stats: dict[Pair, int],
    where: dict[Pair, set[int]],
    pair: Pair,
) -> list[int]:
    """Merge ``pair`` in the words ``where`` lists, keeping ``stats`` and ``where`` true.

    Returns the sorted indices of the words that changed; stale indices in ``where`` are
    skipped. Count changes are summed first and applied once per pair, so a pair whose
    count goes down and back up never passes through zero or leaves a zero entry behind.
    """
    delta: dict[Pair, int] = {}
    changed: list[int] = []
    for i in sorted(where.pop(pair, ())):
        old = words[i]
        new = merge_pair(old, pair)
        if len(new) == len(old):  # a stale index: this word no longer holds the pair
            continue
        weight = counts[i]
        for gone in zip(old, old[1:]):
            delta[gone] = delta.get(gone, 0) - weight
        for born in zip(new, new[1:]):
            delta[born] = delta.get(born, 0) + weight
            where.setdefault(born, set()).add(i)
        words[i] = list(new)
        changed.append(i)
    for p, change in delta.items():
        if change:
            total = stats.get(p, 0) + change
            if total:
                stats[p] = total
            else:
                del stats[p]
    return changed


def train_bpe_fast(word_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Same result as ``train_bpe``, in roughly the time of one pass per merged word."""
    check_training_args(word_counts, num_merges)
    words = [list(word) for word in word_counts]
    counts = list(word_counts.values())
    stats: dict[Pair, int] = {}
    where: dict[Pair, set[int]] = {}
    for i, symbols in enumerate(words):
        for p in zip(symbols, symbols[1:]):
            stats[p] = stats.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
    heap = [(-count, p) for p, count in stats.items()]
    heapq.heapify(heap)

    merges: list[Pair] = []
    while heap and len(merges) < num_merges:
        negative_count, best = heapq.heappop(heap)
        if stats.get(best) != -negative_count:
            continue  # stale entry: the pair's count changed after it was pushed
        merges.append(best)
        before = {i: words[i] for i in where.get(best, ())}
        touched: set[Pair] = set()
        for i in merge_and_update(words, counts, stats, where, best):
            touched.update(zip(before[i], before[i][1:]))
            touched.update(zip(words[i], words[i][1:]))
        for p in touched:
            if p in stats:
                heapq.heappush(heap, (-stats[p], p))
    return merges
