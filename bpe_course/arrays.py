"""BPE training on numpy arrays, for hundreds of thousands of distinct chunks.

The same algorithm as ``bpe_course.engine.Trainer`` (counts kept up to date, an index from
each pair to where it occurs, a lazy heap, ties to the smallest pair of strings), so it
learns exactly the same merges; only the bookkeeping moves into numpy. Every distinct chunk
is laid out in one array of symbol ids, linked to its neighbours by ``prev``/``next`` arrays,
and a merge rewrites all its occurrences with a handful of array operations instead of one
Python step per chunk. Memory grows with the symbols of the distinct chunks, not the text.

But: it trains on counted chunks and nothing else; reading and counting a large text is
``bpe_course.parallel``. It is not meant for reading: lesson 4 teaches the same ideas in
plain Python, and the widget and the curve use ``Trainer``.

>>> learn_merges_arrays({"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}, 4)
[('e', 'a'), ('ea', 't'), ('t', 'ea'), ('s', 'eat')]
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping

import numpy as np

from bpe_course.validate import check_training_args

Pair = tuple[str, str]
_SHIFT = 32  # a pair of ids (a, b) is the one integer a << 32 | b
_LOW = (1 << _SHIFT) - 1
_FLOOR_SHIFT = 6  # the heap leaves out pairs counted under 1/64 of the most frequent one
_BLOCK = 1 << 20  # positions handled at a time where a whole-text temporary would be large
_BATCH = 1 << 16  # chunks read from the table at a time


class ArrayTrainer:
    """Distinct chunks as one array of symbol ids, trained or replayed one merge at a time.

    :meth:`step` learns the next merge; :meth:`apply` joins a given pair (a merge learned on
    other text) and returns how many tokens that saved, so a held-out table can follow a
    training one. ``total_tokens`` is the running length of the whole text in tokens.
    """

    def __init__(self, chunk_counts: Mapping[str, int], take: bool = False) -> None:
        """Lay out ``chunk_counts``. With ``take``, empty it (a dict) first, so that its
        strings are freed a batch at a time as the arrays fill up rather than held beside
        them to the end."""
        codes, lengths, weights = _layout(chunk_counts, take)
        size = len(codes)
        # Ids number the characters in code-point order, so comparing strings is unchanged.
        present = np.zeros(0x110000, dtype=bool)
        present[codes] = True
        alphabet = np.flatnonzero(present)
        del present
        self.strings: list[str] = [chr(code) for code in alphabet.tolist()]
        self.ids: dict[str, int] = {s: i for i, s in enumerate(self.strings)}
        lookup = np.zeros(int(alphabet[-1]) + 1 if len(alphabet) else 1, dtype=np.int32)
        lookup[alphabet] = np.arange(len(alphabet), dtype=np.int32)
        self.symbol = lookup[codes]  # int32 straight away: searchsorted's int64 is twice this
        del codes
        # Positions fit 32 bits (checked above), and so do counts below 2**31: half the
        # memory of int64 for the arrays that have one entry per character. Sums of weights
        # are taken in int64 (here and in _join), so a pair's count never overflows.
        small = not len(weights) or int(weights.max()) < 1 << 31
        self.weight = np.repeat(weights.astype(np.int32 if small else np.int64), lengths)
        ends = np.cumsum(lengths) - 1  # the last position of each chunk
        del lengths, weights
        self.next = np.arange(1, size + 1, dtype=np.int32)
        self.next[ends] = -1
        self.prev = np.arange(-1, size - 1, dtype=np.int32)
        self.prev[ends[:-1] + 1] = -1
        del ends
        self._mark = np.zeros(size, dtype=np.int8)  # scratch: 1 left halves, 2 right halves
        self.total_tokens = int(self.weight.sum(dtype=np.int64))

        starts, firsts, keys = self._pairs_in_order()
        totals = np.add.reduceat(self.weight[starts], firsts, dtype=np.int64) if len(keys) else keys
        pair_keys = keys.tolist()
        # where[key]: positions that held the pair when they were filed; some may be stale.
        # Most pairs born in training occur once: one int, not an array (a tenth the memory).
        self.where: dict[int, np.ndarray | int] = dict(_runs(pair_keys, firsts, starts))
        self.pair_counts: dict[int, int] = dict(zip(pair_keys, totals.tolist()))
        self._heap: list[tuple[int, str, str, int]] = []
        self._floor = 0  # the heap holds every pair counted at least this often
        self._refill()
        self.merges: list[Pair] = []

    def _pairs_in_order(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every position with a right neighbour (int32), sorted by the pair that starts there;
        where each run of one pair starts in that order; and the run's pair key.

        With at most 65,536 characters a pair numbers below 2**32 (a * alphabet + b), so the
        pair and the position pack into one uint64 sorted in place: no int64 index array
        beside it, the larger part of this step's memory.
        """
        size = len(self.strings)
        if size > 1 << 16:  # rare: a pair does not fit 32 bits
            starts = np.flatnonzero(self.next >= 0)
            keys = self._keys(self.symbol[starts], self.symbol[self.next[starts]])
            order = np.argsort(keys, kind="stable")
            keys, starts = keys[order], starts[order].astype(np.int32)
            firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else keys
            return starts, firsts, keys[firsts]
        packed = self._pack_pairs(size)
        packed.sort()  # by pair, then by position: what a stable sort by pair gives
        starts = np.empty(len(packed), dtype=np.int32)
        for lo in range(0, len(packed), _BLOCK):
            starts[lo : lo + _BLOCK] = packed[lo : lo + _BLOCK] & np.uint64(_LOW)
        packed >>= np.uint64(32)
        if not len(packed):
            return starts, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        firsts = np.flatnonzero(np.r_[True, packed[1:] != packed[:-1]])
        left, right = np.divmod(packed[firsts], np.uint64(size))
        return starts, firsts, self._keys(left, right)

    def _pack_pairs(self, size: int) -> np.ndarray:
        """``(a * size + b) << 32 | position`` for each pair (a, b), in order of position; made
        a block at a time, so the temporaries are a block's, not the whole text's."""
        has_next = self.next >= 0
        packed = np.empty(int(np.count_nonzero(has_next)), dtype=np.uint64)
        filled = 0
        for lo in range(0, len(self.next), _BLOCK):
            here = np.flatnonzero(has_next[lo : lo + _BLOCK]) + lo
            block = self.symbol[here].astype(np.uint64)
            block *= np.uint64(size)
            block += self.symbol[self.next[here]].astype(np.uint64)
            block <<= np.uint64(32)
            block |= here.astype(np.uint64)
            packed[filled : filled + len(block)] = block
            filled += len(block)
        return packed

    @staticmethod
    def _keys(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return (left.astype(np.int64) << _SHIFT) | right.astype(np.int64)

    def _pair(self, key: int) -> Pair:
        return self.strings[key >> _SHIFT], self.strings[key & _LOW]

    def _refill(self) -> bool:
        """Make the heap hold the pairs counted at least 1/64 as often as the most frequent.

        Most pairs born in training are rare and would never be merged in the run; leaving
        them out of the heap saves a tuple each (a third of the training's memory at a
        gigabyte). Any pair counted at least ``_floor`` times has an entry, so the heap's
        top is the most frequent pair overall while the heap lasts; once it empties, this
        lowers the floor and refills. False when no pair is left at all.
        """
        counts = self.pair_counts
        if not counts:
            return False
        self._floor = max(counts.values()) >> _FLOOR_SHIFT
        self._heap = [(-n, *self._pair(k), k) for k, n in counts.items() if n >= self._floor]
        heapq.heapify(self._heap)
        return True

    def step(self) -> tuple[Pair, int] | None:
        """Learn the next merge (most frequent pair, ties to the smallest); ``None`` at the end."""
        counts = self.pair_counts
        while self._heap or self._refill():
            negative, left, right, key = heapq.heappop(self._heap)
            count = counts.get(key)
            if count == -negative:
                self._join(key, left + right)
                self.merges.append((left, right))
                return (left, right), count
            if count is not None and self._floor <= count < -negative:
                heapq.heappush(self._heap, (-count, left, right, key))  # it fell: file it again
            # otherwise a newer entry, pushed when the count rose, is already ahead, or the
            # count fell below the floor: _refill files it again when the floor comes down
        return None

    def apply(self, pair: Pair) -> int:
        """Join ``pair`` everywhere, as merge number ``len(merges)``; returns the tokens saved."""
        left, right = pair
        merged = left + right
        ids = self.ids
        self.merges.append((left, right))
        if left not in ids or right not in ids:
            ids.setdefault(merged, len(self.strings))
            if ids[merged] == len(self.strings):
                self.strings.append(merged)
            return 0
        return self._join((ids[left] << _SHIFT) | ids[right], merged)

    def _join(self, key: int, merged: str) -> int:
        """Rewrite every occurrence of the pair ``key`` as the new symbol ``merged``."""
        new = self.ids.setdefault(merged, len(self.strings))
        if new == len(self.strings):
            self.strings.append(merged)
        self.pair_counts.pop(key, None)
        filed = self.where.pop(key, None)
        if filed is None:
            return 0
        a, b = key >> _SHIFT, key & _LOW
        symbol, nxt, prv, mark = self.symbol, self.next, self.prev, self._mark
        at = np.array([filed], dtype=np.int32) if isinstance(filed, int) else filed
        right = nxt[at]
        # Positions merged away since were set to -1; a chunk's last position has no right
        # neighbour (its -1 reads the last symbol of all, and is masked out with it).
        keep = (symbol[at] == a) & (right >= 0) & (symbol[right] == b)
        at, right = at[keep], right[keep]
        if a == b and len(at):
            at, right = self._left_to_right(at)
        if not len(at):
            return 0
        weight = self.weight[at].astype(np.int64)
        before, after = prv[at], nxt[right]
        mark[at] = 1
        mark[right] = 2
        # Left neighbours, unless the neighbour is the right half of a join just before.
        has_left = before >= 0
        has_left[has_left] = mark[before[has_left]] != 2
        lefts, left_w = before[has_left], weight[has_left]
        left_sym = symbol[lefts]
        # Right neighbours; one that starts the next join becomes the new symbol too.
        has_right = after >= 0
        rights, right_w, right_at = after[has_right], weight[has_right], at[has_right]
        right_sym = symbol[rights]
        right_new = np.where(mark[rights] == 1, new, right_sym)
        mark[at] = 0
        mark[right] = 0
        # Rewrite: `at` holds the new symbol, `right` leaves the chain.
        symbol[at] = new
        symbol[right] = -1
        nxt[at] = after
        prv[rights] = right_at
        saved = int(weight.sum())
        self.total_tokens -= saved

        # Pair keys by arithmetic on one shifted array a side, rather than _keys on arrays
        # of a repeated id: the same numbers in fewer passes.
        left_high = left_sym.astype(np.int64) << _SHIFT
        born_left = left_high | new
        born_right = right_new.astype(np.int64) | (new << _SHIFT)
        keys = np.concatenate(
            (left_high | a, right_sym.astype(np.int64) | (b << _SHIFT), born_left, born_right)
        )
        changes = np.concatenate((-left_w, -right_w, left_w, right_w))
        self._count(keys, changes, key)
        self._file(np.concatenate((born_left, born_right)), np.concatenate((lefts, right_at)))
        return saved

    def _left_to_right(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For a pair (x, x): in a run x x x only the first two join, as scanning does."""
        at = np.sort(at)
        mark, prv = self._mark, self.prev
        mark[at] = 1
        before = prv[at]
        follows = np.zeros(len(at), dtype=bool)
        inside = before >= 0
        follows[inside] = mark[before[inside]] == 1
        mark[at] = 0
        if follows.any():
            taken: set[int] = set()
            keep = np.ones(len(at), dtype=bool)
            for i, (position, previous) in enumerate(zip(at.tolist(), before.tolist())):
                if previous in taken:
                    keep[i] = False
                else:
                    taken.add(position)
            at = at[keep]
        return at, self.next[at]

    def _count(self, keys: np.ndarray, changes: np.ndarray, merged: int) -> None:
        """Add each pair's net change to its count; push a heap entry where a count rose."""
        if not len(keys):
            return
        order = np.argsort(keys)  # sums do not depend on the order within a pair
        keys, changes = keys[order], changes[order]
        firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        sums = np.add.reduceat(changes, firsts)
        keys = keys[firsts]
        moved = (sums != 0) & (keys != merged)
        counts, heap, strings, floor = self.pair_counts, self._heap, self.strings, self._floor
        get = counts.get  # looked up once: this loop runs millions of times in a large run
        for key, change in zip(keys[moved].tolist(), sums[moved].tolist()):
            count = get(key, 0) + change
            if count:
                counts[key] = count
                if change > 0 and count >= floor:
                    heapq.heappush(heap, (-count, strings[key >> _SHIFT], strings[key & _LOW], key))
            else:
                del counts[key]
                self.where.pop(key, None)  # no occurrence left: every filed position is stale

    def _file(self, keys: np.ndarray, positions: np.ndarray) -> None:
        """Note each new pair at the position of its left half."""
        if not len(keys):
            return
        order = np.argsort(keys)  # a pair's positions may come in any order (see _join)
        keys, positions = keys[order], positions[order]
        firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        where = self.where
        for key, part in _runs(keys[firsts].tolist(), firsts, positions):
            found = where.get(key)
            if found is None:
                where[key] = part
            else:  # filed before: by the merge that made its other half
                where[key] = np.append(found, part)


def _runs(
    keys: list[int], firsts: np.ndarray, positions: np.ndarray
) -> Iterator[tuple[int, np.ndarray | int]]:
    """Each key with its run of ``positions`` (from its entry of ``firsts`` to the next's):
    a plain int where the run is one position, as most are, else a slice of the array.
    Slicing here costs a fraction of what ``np.split`` costs for many short runs."""
    ends = firsts[1:].tolist() + [len(positions)]
    singles = positions.tolist() if len(positions) <= 4 * len(keys) else None
    for key, lo, hi in zip(keys, firsts.tolist(), ends):
        if hi - lo > 1:
            yield key, positions[lo:hi]
        else:
            yield key, singles[lo] if singles is not None else int(positions[lo])


def _layout(
    chunk_counts: Mapping[str, int], take: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The characters of all non-empty chunks end to end (code points), each chunk's length
    and its count. With ``take`` the table (then a dict) is emptied before the characters
    are read, and each batch of strings is let go as soon as it is in the array."""
    if take and not isinstance(chunk_counts, dict):
        raise TypeError(f"take needs a dict to empty, got {type(chunk_counts).__name__}")
    chunks = list(chunk_counts)
    weights = np.fromiter(chunk_counts.values(), dtype=np.int64, count=len(chunks))
    if take:
        chunk_counts.clear()  # type: ignore[attr-defined]  # a dict, checked above
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    size = int(lengths.sum())
    if size >= 1 << 31:
        raise ValueError(f"{size:,} characters of distinct chunks are more than 2**31")
    codes = np.empty(size, dtype=np.uint32)
    end = size
    while chunks:  # from the last batch back, so that each is dropped off the list's end
        batch = np.frombuffer("".join(chunks[-_BATCH:]).encode("utf-32-le"), dtype=np.uint32)
        del chunks[-_BATCH:]
        codes[end - len(batch) : end] = batch
        end -= len(batch)
    kept = lengths > 0  # an empty chunk has no symbol, and no place in the arrays
    return codes, lengths[kept], weights[kept]


def learn_merges_arrays(chunk_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """The first ``num_merges`` merges of ``chunk_counts``: exactly ``learn_merges``'s."""
    check_training_args(chunk_counts, num_merges, counts_name="chunk_counts")
    trainer = ArrayTrainer(chunk_counts)
    while len(trainer.merges) < num_merges and trainer.step() is not None:
        pass
    return trainer.merges
