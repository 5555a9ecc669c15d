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
from collections.abc import Mapping

import numpy as np

from bpe_course.validate import check_training_args

Pair = tuple[str, str]
_SHIFT = 32  # a pair of ids (a, b) is the one integer a << 32 | b
_LOW = (1 << _SHIFT) - 1


class ArrayTrainer:
    """Distinct chunks as one array of symbol ids, trained or replayed one merge at a time.

    :meth:`step` learns the next merge; :meth:`apply` joins a given pair (a merge learned on
    other text) and returns how many tokens that saved, so a held-out table can follow a
    training one. ``total_tokens`` is the running length of the whole text in tokens.
    """

    def __init__(self, chunk_counts: Mapping[str, int]) -> None:
        chunks = [chunk for chunk in chunk_counts if chunk]
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        weights = np.fromiter((chunk_counts[c] for c in chunks), dtype=np.int64, count=len(chunks))
        codes = np.frombuffer("".join(chunks).encode("utf-32-le"), dtype=np.uint32)
        size = len(codes)
        # Ids number the characters in code-point order, so comparing strings is unchanged.
        alphabet = np.unique(codes)
        self.strings: list[str] = [chr(code) for code in alphabet.tolist()]
        self.ids: dict[str, int] = {s: i for i, s in enumerate(self.strings)}
        self.symbol = np.searchsorted(alphabet, codes).astype(np.int32)
        self.weight = np.repeat(weights, lengths)
        ends = np.cumsum(lengths) - 1  # the last position of each chunk
        self.next = np.arange(1, size + 1, dtype=np.int32)
        self.next[ends] = -1
        self.prev = np.arange(-1, size - 1, dtype=np.int32)
        self.prev[ends[:-1] + 1] = -1
        self._mark = np.zeros(size, dtype=np.int8)  # scratch: 1 left halves, 2 right halves
        self.total_tokens = int(self.weight.sum())

        starts = np.flatnonzero(self.next >= 0)  # every position that has a right neighbour
        keys = self._keys(self.symbol[starts], self.symbol[starts + 1])
        order = np.argsort(keys, kind="stable")
        keys, starts = keys[order], starts[order]
        firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else keys
        totals = np.add.reduceat(self.weight[starts], firsts) if len(keys) else keys
        pair_keys = keys[firsts].tolist()
        # where[key]: positions that held the pair when they were filed; some may be stale.
        self.where: dict[int, list[np.ndarray]] = {
            key: [part] for key, part in zip(pair_keys, np.split(starts, firsts[1:]))
        }
        self.pair_counts: dict[int, int] = dict(zip(pair_keys, totals.tolist()))
        self._heap = [(-n, *self._pair(k), k) for k, n in self.pair_counts.items()]
        heapq.heapify(self._heap)
        self.merges: list[Pair] = []

    @staticmethod
    def _keys(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return (left.astype(np.int64) << _SHIFT) | right.astype(np.int64)

    def _pair(self, key: int) -> Pair:
        return self.strings[key >> _SHIFT], self.strings[key & _LOW]

    def step(self) -> tuple[Pair, int] | None:
        """Learn the next merge (most frequent pair, ties to the smallest); ``None`` at the end."""
        heap, counts = self._heap, self.pair_counts
        while heap:
            negative, left, right, key = heapq.heappop(heap)
            count = counts.get(key)
            if count == -negative:
                self._join(key, left + right)
                self.merges.append((left, right))
                return (left, right), count
            if count is not None and count < -negative:
                heapq.heappush(heap, (-count, left, right, key))  # it fell: file it again
            # otherwise a newer entry, pushed when the count rose, is already ahead
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
        parts = self.where.pop(key, None)
        if not parts:
            return 0
        a, b = key >> _SHIFT, key & _LOW
        symbol, nxt, prv, mark = self.symbol, self.next, self.prev, self._mark
        at = parts[0] if len(parts) == 1 else np.concatenate(parts)
        at = at[symbol[at] == a]  # positions merged away since were set to -1
        right = nxt[at]
        keep = right >= 0
        at, right = at[keep], right[keep]
        keep = symbol[right] == b
        at, right = at[keep], right[keep]
        if a == b and len(at):
            at, right = self._left_to_right(at)
        if not len(at):
            return 0
        weight = self.weight[at]
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

        keys = np.concatenate(
            (
                self._keys(left_sym, np.full(len(lefts), a)),
                self._keys(np.full(len(rights), b), right_sym),
                born_left := self._keys(left_sym, np.full(len(lefts), new)),
                born_right := self._keys(np.full(len(rights), new), right_new),
            )
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
        order = np.argsort(keys, kind="stable")
        keys, changes = keys[order], changes[order]
        firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        sums = np.add.reduceat(changes, firsts)
        counts, heap, strings = self.pair_counts, self._heap, self.strings
        for key, change in zip(keys[firsts].tolist(), sums.tolist()):
            if not change or key == merged:
                continue
            count = counts.get(key, 0) + change
            if count:
                counts[key] = count
                if change > 0:
                    heapq.heappush(heap, (-count, strings[key >> _SHIFT], strings[key & _LOW], key))
            else:
                del counts[key]

    def _file(self, keys: np.ndarray, positions: np.ndarray) -> None:
        """Note each new pair at the position of its left half."""
        if not len(keys):
            return
        order = np.argsort(keys, kind="stable")
        keys, positions = keys[order], positions[order]
        firsts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        where = self.where
        for key, part in zip(keys[firsts].tolist(), np.split(positions, firsts[1:])):
            found = where.get(key)
            if found is None:
                where[key] = [part]
            else:
                found.append(part)


def learn_merges_arrays(chunk_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """The first ``num_merges`` merges of ``chunk_counts``: exactly ``learn_merges``'s."""
    check_training_args(chunk_counts, num_merges, counts_name="chunk_counts")
    trainer = ArrayTrainer(chunk_counts)
    while len(trainer.merges) < num_merges and trainer.step() is not None:
        pass
    return trainer.merges
