"""A small BPE engine for the course's demonstrations: the widget, the curve, the timings.

It trains one merge at a time with counts kept up to date (so a widget can step quickly and
show the competing candidates), replays a merge table on other text, and encodes text by
merge rank. It is deliberately separate from the exercises: students write their own
``train_bpe`` and ``encode_bpe``; the lessons use this engine to show what those functions do
at a scale where the naive loop would be slow.

>>> trainer = Trainer({"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3})
>>> trainer.total_tokens
78
>>> trainer.step()
Merge(rank=0, pair=('e', 'a'), count=20)
>>> trainer.total_tokens
58
>>> Encoder([("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")]).encode_chunk("seats")
['seat', 's']
"""

from __future__ import annotations

import gc
import heapq
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import repeat
from typing import NamedTuple

from bpe_course.batch_encode import RankTable
from bpe_course.chunk_cache import ChunkCache
from bpe_course.pretokenize import pretokenize
from bpe_course.validate import check_training_args

Pair = tuple[str, str]


class Merge(NamedTuple):
    """One learned merge: its rank (0 for the first), the pair, and its count when chosen."""

    rank: int
    pair: Pair
    count: int  # type: ignore[assignment]  # hides tuple.count: the name the lessons use


def _join(symbols: list[str], pair: Pair) -> list[str]:
    left, right = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if symbols[i] == left and i + 1 < len(symbols) and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def index_pairs(
    words: Sequence[Sequence[str]], counts: Sequence[int]
) -> tuple[dict[Pair, int], dict[Pair, set[int]]]:
    """Weighted pair counts and, for each pair, the indices of the words that hold it.

    The one place that builds both tables from scratch: ``ChunkTable``, ``Trainer`` and the
    instructors' fast trainers all start from it, then keep them up to date merge by merge.

    >>> index_pairs([["a", "b", "a", "b"], ["b", "a"]], [2, 5])
    ({('a', 'b'): 4, ('b', 'a'): 7}, {('a', 'b'): {0}, ('b', 'a'): {0, 1}})
    """
    stats: dict[Pair, int] = {}
    where: dict[Pair, set[int]] = {}
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            stats[pair] = stats.get(pair, 0) + counts[i]
            where.setdefault(pair, set()).add(i)
    return stats, where


class ChunkTable:
    """Distinct chunks as symbol lists, with their counts, an index from each pair to the
    chunks that hold it, and the running number of tokens of the whole text.

    Applying merges in table order to a ChunkTable is the same as encoding its text with the
    table by rank (lesson 2 proves it) under one precondition: every merge joins characters
    or tokens made by earlier merges, and no token is made by two different merges. Tables
    learned by training are built that way, so the held-out side of the overfitting curve is
    one ChunkTable that replays the training merges. A hand-made table can break it: with
    ``[("a", "bc"), ("b", "c")]`` replaying leaves ``abc`` as ``a bc``, while encoding by
    rank joins ``bc`` and then ``a bc`` into ``abc``.
    """

    def __init__(self, chunk_counts: Mapping[str, int]) -> None:
        self.chunks = [chunk for chunk in chunk_counts if chunk]
        self.counts = [chunk_counts[chunk] for chunk in self.chunks]
        self.symbols = [list(chunk) for chunk in self.chunks]
        # The counts are true only until the first merge; a Trainer takes them over and keeps
        # them true, a bare ChunkTable (which only replays merges) never reads them.
        self._starting_pair_counts, self.index = index_pairs(self.symbols, self.counts)
        self.total_tokens = sum(len(s) * n for s, n in zip(self.symbols, self.counts))

    def apply(self, pair: Pair) -> list[tuple[int, list[str]]]:
        """Join ``pair`` wherever it occurs; returns ``(chunk id, symbols before)`` per change."""
        changed = []
        for i in sorted(self.index.pop(pair, ())):
            before = self.symbols[i]
            after = _join(before, pair)
            if len(after) == len(before):
                continue  # the index may name chunks that lost the pair to an earlier merge
            self.symbols[i] = after
            self.total_tokens -= (len(before) - len(after)) * self.counts[i]
            for new_pair in zip(after, after[1:]):
                self.index.setdefault(new_pair, set()).add(i)
            changed.append((i, before))
        return changed

    def segmentation(self, chunk: str) -> list[str]:
        """The current tokens of one of this table's chunks."""
        return list(self.symbols[self.chunks.index(chunk)])


class Trainer(ChunkTable):
    """The lesson's training loop, one merge per :meth:`step`, with incremental counts.

    Ties go to the smallest pair in Python's tuple order, exactly as in the exercises.
    """

    def __init__(self, chunk_counts: Mapping[str, int]) -> None:
        super().__init__(chunk_counts)
        self.pair_counts: dict[Pair, int] = self._starting_pair_counts
        self._heap = [(-count, pair) for pair, count in self.pair_counts.items()]
        heapq.heapify(self._heap)
        self.merges: list[Merge] = []

    def candidates(self, k: int = 5) -> list[tuple[Pair, int]]:
        """The ``k`` pairs that would win next, best first, with their counts."""
        best = heapq.nsmallest(k, self.pair_counts.items(), key=lambda item: (-item[1], item[0]))
        return [(pair, count) for pair, count in best]

    def step(self) -> Merge | None:
        """Learn and apply the next merge; ``None`` once every chunk is a single token."""
        while self._heap:
            negative, pair = heapq.heappop(self._heap)
            if self.pair_counts.get(pair) == -negative:
                break
        else:
            return None
        return self._learn(pair)

    def replay(self, pair: Pair) -> Merge:
        """Learn ``pair`` as the next merge without searching for the best pair.

        For a caller that already knows the merge list of this text (from an earlier run),
        replaying it brings the trainer to the same state, counts and candidates included.
        """
        if pair not in self.pair_counts:
            raise ValueError(f"the pair {pair!r} does not occur in the text now; it cannot merge")
        return self._learn(pair)

    def _learn(self, pair: Pair) -> Merge:
        merge = Merge(len(self.merges), pair, self.pair_counts[pair])
        touched: dict[Pair, int] = {}
        for i, before in self.apply(pair):
            after, weight = self.symbols[i], self.counts[i]
            for gone in zip(before, before[1:]):
                touched[gone] = touched.get(gone, 0) - weight
            for born in zip(after, after[1:]):
                touched[born] = touched.get(born, 0) + weight
        for p, change in touched.items():
            count = self.pair_counts.get(p, 0) + change
            if count:
                self.pair_counts[p] = count
                if change:
                    heapq.heappush(self._heap, (-count, p))
            else:
                self.pair_counts.pop(p, None)
        self.merges.append(merge)
        return merge


def naive_merges(chunk_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """The same merges as :func:`learn_merges`, the slow way, for lesson 4 to time.

    Every round recounts every pair of every distinct chunk and rewrites every chunk, the
    loop of lessons 1 and 2 with none of the three ideas that make training fast.
    """
    check_training_args(chunk_counts, num_merges, counts_name="chunk_counts")
    chunks = {tuple(chunk): count for chunk, count in chunk_counts.items()}
    merges: list[Pair] = []
    while len(merges) < num_merges:
        totals: dict[Pair, int] = {}
        for symbols, count in chunks.items():
            for pair in zip(symbols, symbols[1:]):
                totals[pair] = totals.get(pair, 0) + count
        if not totals:
            break
        best = min(totals, key=lambda pair: (-totals[pair], pair))
        merges.append(best)
        chunks = {tuple(_join(list(symbols), best)): count for symbols, count in chunks.items()}
    return merges


def learn_merges(chunk_counts: Mapping[str, int], num_merges: int | None = None) -> list[Pair]:
    """Train on ``chunk_counts``; ``num_merges=None`` runs until every chunk is one token."""
    check_training_args(chunk_counts, num_merges, counts_name="chunk_counts", allow_none=True)
    trainer = Trainer(chunk_counts)
    while num_merges is None or len(trainer.merges) < num_merges:
        if trainer.step() is None:
            break
    return [merge.pair for merge in trainer.merges]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, then restore it as it was.

    Encoding or training makes hundreds of thousands of small tuples and lists in no cycle;
    left on, the collector rescans them over and over. Reference counting still frees them.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Encoder:
    """Encode text with a merge table: lowest rank first, with a cache per distinct chunk.

    A text that brings many chunks the cache has not met has them encoded together, in
    numpy (``bpe_course.batch_encode``), with exactly the tokens ``encode_chunk`` gives. A
    long ASCII text goes through a cache of arrays instead (``bpe_course.chunk_cache``): no
    Python step per chunk of up to 15 bytes, the same tokens.
    """

    BATCH = 256  # from this many new chunks on, encode them together
    ARRAYS_FROM = 1 << 14  # characters of ASCII text from which the cache of arrays is used

    def __init__(self, merges: Iterable[Sequence[str]]) -> None:
        self.merges = [(left, right) for left, right in merges]
        self.ranks: dict[Pair, int] = {}
        for rank, pair in enumerate(self.merges):
            self.ranks.setdefault(pair, rank)
        self._cache: dict[str, tuple[str, ...]] = {}
        self._table: RankTable | None = None
        self._arrays = ChunkCache()

    def encode_chunk(self, chunk: str) -> list[str]:
        """The tokens of one chunk, by repeatedly joining the lowest-ranked pair present."""
        cached = self._cache.get(chunk)
        if cached is None:
            cached = self._cache[chunk] = tuple(self._merge_by_rank(list(chunk)))
        return list(cached)

    def _merge_by_rank(self, symbols: list[str]) -> list[str]:
        if len(symbols) < 2:
            return symbols
        # Ranks are positions in the table the caller gave, so a repeated pair leaves gaps;
        # only a value above every rank can mean "not in the table".
        get, never = self.ranks.get, len(self.merges)
        # found[i] is the rank of the pair (symbols[i], symbols[i + 1]); min and index run
        # in C, and index finds the leftmost occurrence of the lowest rank.
        found = list(map(get, zip(symbols, symbols[1:]), repeat(never)))
        while True:
            rank = min(found)
            if rank == never:
                return symbols
            i = found.index(rank)
            joined = symbols[i] = symbols[i] + symbols.pop(i + 1)
            del found[i]
            # Only the pairs that touch the new symbol change.
            if i:
                found[i - 1] = get((symbols[i - 1], joined), never)
            if i < len(found):
                found[i] = get((joined, symbols[i + 1]), never)
            elif not found:
                return symbols

    def _encode_new(self, chunks: list[str]) -> Iterable[tuple[str, tuple[str, ...]]]:
        """Distinct chunks, each with its tokens, in no set order: in numpy when many."""
        if len(chunks) < self.BATCH:
            return ((chunk, tuple(self._merge_by_rank(list(chunk)))) for chunk in chunks)
        if self._table is None:
            self._table = RankTable(self.merges)
        return self._table.tokens_of(chunks)

    def encode(self, text: str) -> list[str]:
        """Pre-tokenize ``text`` and encode every chunk; joining the result gives ``text``."""
        with collector_paused():
            if isinstance(text, str) and len(text) >= self.ARRAYS_FROM and text.isascii():
                return self._arrays.encode(text, self._encode_new)
            chunks, cache = pretokenize(text), self._cache
            try:  # every chunk met before: a single pass in C
                return _joined(map(cache.__getitem__, chunks))
            except KeyError:
                pass
            new = list(set(chunks).difference(cache))  # in no set order: each is encoded alone
            cache.update(self._encode_new(new))
            return _joined(map(cache.__getitem__, chunks))


def _joined(token_tuples: Iterable[tuple[str, ...]]) -> list[str]:
    """One list of all the tokens, in order.

    ``list.extend`` copies a tuple's items straight in, where ``chain.from_iterable`` makes
    an iterator for each; on the 264,000 chunks of a megabyte it takes about a quarter less
    time (31 to 23 ms on bench_training's held-out text).
    The deque of length 0 only drives ``map`` to the end in C.
    """
    out: list[str] = []
    deque(map(out.extend, token_tuples), maxlen=0)
    return out
