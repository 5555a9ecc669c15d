"""The fast trainer with Hugging Face's tie-break, to show that ties are the only difference.

Hugging Face's ``BpeTrainer`` picks the most frequent pair just as ``train_bpe`` does, but
when counts are equal it prefers the pair whose token ids are smaller: single characters are
numbered in code-point order, and each merged token gets the next id when it is first made.
``train_bpe`` prefers the smaller pair of strings instead. This module swaps in the id rule
and nothing else; it reproduces Hugging Face's merge list exactly, which is what the parity
tests and ``make bench`` check. It is not a trainer anyone should use for the course.

Its heap gets a fresh entry on every change of a count, where ``train_bpe_fast`` pushes only
on a rise; both are exact because the first entry that agrees with ``stats`` is the best
pair either way: here every pair has an entry at its true count, and there an entry that
overstates a fallen count sorts ahead of the pair's true place and is filed again at the
true count before any pair behind it can be chosen.

>>> train_bpe_hf_ties({"ab": 1, "cd": 1}, 2)
[('a', 'b'), ('c', 'd')]
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from bpe_course.engine import index_pairs
from bpe_course.validate import check_training_args
from solutions.bpe import Pair
from solutions.fast import merge_and_update


def train_bpe_hf_ties(word_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Like ``train_bpe_fast``, but a tie goes to the pair with the smaller token ids."""
    check_training_args(word_counts, num_merges)
    words = [list(word) for word in word_counts]
    counts = list(word_counts.values())
    ids = {char: n for n, char in enumerate(sorted({c for word in words for c in word}))}
    stats, where = index_pairs(words, counts)

    def entry(p: Pair) -> tuple[int, int, int, Pair]:
        return (-stats[p], ids[p[0]], ids[p[1]], p)

    heap = [entry(p) for p in stats]
    heapq.heapify(heap)
    merges: list[Pair] = []
    while heap and len(merges) < num_merges:
        negative_count, _, _, best = heapq.heappop(heap)
        if stats.get(best) != -negative_count:
            continue  # stale entry
        merges.append(best)
        ids.setdefault(best[0] + best[1], len(ids))
        changes: dict[Pair, int] = {}
        merge_and_update(words, counts, stats, where, best, changes)
        for p, change in changes.items():
            if change and p in stats:
                heapq.heappush(heap, entry(p))
    return merges
