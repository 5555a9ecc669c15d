"""Encode many distinct chunks at once by merge rank, with numpy.

Encoding one chunk by rank is a short loop: join the lowest-ranked pair present (the leftmost
if it occurs twice), again and again. :class:`RankTable` runs that loop for thousands of
chunks together: in each round every chunk joins its own lowest-ranked pair, and a chunk
with no ranked pair left is done. Rounds are as many as the most joins one chunk needs, and
each is a few array operations over all the symbols, so an encoder meeting a text for the
first time spends its time in numpy instead of one Python step per join.

But: it gives exactly the tokens of ``Encoder.encode_chunk`` and nothing more; it keeps no
cache (``Encoder`` does) and knows nothing of pre-tokenization.

>>> RankTable([("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")]).encode(["seats", "teat"])
[('seat', 's'), ('t', 'eat')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import numpy as np

# A pair of symbol ids is one int64 key, left << 32 | right. Ids stay below 2**31: a
# character the table never saw gets the id (number of known strings) + its code point,
# which no key in the table can hold, so it needs no test of its own.
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
_HIGH = -(1 << _SHIFT)  # as int64, every bit above the low 32
# Each symbol carries the rank of the pair it starts, shifted left by 32, so that OR-ing
# in its position gives one key whose minimum over a chunk is the lowest rank, and at that
# rank the leftmost pair: one reduction finds each chunk's next join.
_MAX_RANK = 1 << 30
_NO_PAIR = _MAX_RANK << _SHIFT  # the table does not hold this pair
_END = (_MAX_RANK + 1) << _SHIFT  # the last symbol of its chunk: no pair starts here
_EMPTY = -1  # a free slot of the hash table; every real key is >= 0
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: multiply, keep the top bits


class RankTable:
    """A merge table as a hash table in arrays: pair of token ids -> rank and joined id."""

    # When this few chunks are still joining, they finish one at a time in Python: those are
    # the longest words, with dozens of rounds left, each round a few dozen numpy calls on a
    # handful of symbols. On Shakespeare that tail was a fifth of the batch's time.
    few = 64

    def __init__(self, merges: Iterable[Sequence[str]]) -> None:
        self.strings: list[str] = []
        self.ids: dict[str, int] = {}
        found: dict[int, int] = {}  # pair key -> rank; the first rank of a repeated pair wins
        joined: list[int] = []  # rank -> id of the token the pair makes
        for rank, (left, right) in enumerate(merges):
            key = (self._id(left) << _SHIFT) | self._id(right)
            found.setdefault(key, rank)
            joined.append(self._id(left + right))
        if len(joined) >= _MAX_RANK or len(self.strings) >= (1 << 31) - 0x110000:
            raise ValueError("the merge table is too large to encode with arrays")
        self.joined = np.array(joined, dtype=np.int64)
        self._rank_of, self._joined_ids = found, joined  # for the last few chunks, in Python
        keys = np.fromiter(found.keys(), dtype=np.int64, count=len(found))
        ranks = np.fromiter(found.values(), dtype=np.int64, count=len(found))
        self._build_hash(keys, ranks << _SHIFT)
        # Known single characters by code point, to turn text into ids with one gather.
        chars = {ord(s): i for s, i in self.ids.items() if len(s) == 1}
        self.char_ids = np.full(max(chars, default=0) + 1, -1, dtype=np.int64)
        if chars:
            self.char_ids[np.fromiter(chars.keys(), dtype=np.int64, count=len(chars))] = list(
                chars.values()
            )

    def _id(self, symbol: str) -> int:
        found = self.ids.get(symbol)
        if found is None:
            found = self.ids[symbol] = len(self.strings)
            self.strings.append(symbol)
        return found

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        # uint64 multiplication wraps around, which is what the hash wants.
        return ((keys.view(np.uint64) * _GOLDEN) >> self._hash_shift).astype(np.intp)

    def _build_hash(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Open addressing with linear probing, at most a quarter full, filled in rounds.

        A binary search (``searchsorted``) over the sorted keys took about a quarter of the
        batch's time on Shakespeare; a slot found in one step, rarely two, is about three
        times faster.
        """
        bits = max(3, (4 * len(keys)).bit_length())
        size = 1 << bits
        self._hash_shift = np.uint64(64 - bits)
        self._mask = size - 1
        self._hash_keys = np.full(size, _EMPTY, dtype=np.int64)
        self._hash_values = np.zeros(size, dtype=np.int64)
        slots = self._slots(keys)
        waiting = np.arange(len(keys))
        while len(waiting):
            # Of the keys that reach a free slot, the first of each slot takes it; every other
            # waiting key moves one slot on, past a slot that is taken now either way.
            at = slots[waiting]
            free = np.flatnonzero(self._hash_keys[at] == _EMPTY)
            _, first = np.unique(at[free], return_index=True)
            placed = waiting[free[first]]
            self._hash_keys[slots[placed]] = keys[placed]
            self._hash_values[slots[placed]] = values[placed]
            left = np.ones(len(waiting), dtype=bool)
            left[free[first]] = False
            waiting = waiting[left]
            slots[waiting] = (slots[waiting] + 1) & self._mask

    def _lookup(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The shifted rank of each pair (left, right); ``_NO_PAIR`` where the table lacks it."""
        keys = (left << _SHIFT) | right
        slots = self._slots(keys)
        there = self._hash_keys[slots]
        ranks = np.where(there == keys, self._hash_values[slots], _NO_PAIR)
        probing = np.flatnonzero((there != keys) & (there != _EMPTY))
        while len(probing):
            slots[probing] = (slots[probing] + 1) & self._mask
            there = self._hash_keys[slots[probing]]
            hit = there == keys[probing]
            ranks[probing[hit]] = self._hash_values[slots[probing[hit]]]
            probing = probing[~hit & (there != _EMPTY)]
        return ranks

    def encode(self, chunks: Sequence[str]) -> list[tuple[str, ...]]:
        """The tokens of each chunk, as ``Encoder.encode_chunk`` gives them, as tuples."""
        found = dict(self.tokens_of(chunks))
        return [found[chunk] for chunk in chunks]

    def tokens_of(self, chunks: Sequence[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each chunk with its tokens, in no set order, grouped into tuples in C.

        ``Encoder`` puts these straight into its cache: no Python step per chunk.
        """
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        if int(lengths.sum()) > _LOW:  # a position must fit in the low 32 bits of a key
            if len(chunks) == 1:
                raise ValueError("a chunk of more than 2**32 characters")
            half = len(chunks) // 2
            return chain(self.tokens_of(chunks[:half]), self.tokens_of(chunks[half:]))
        codes = np.frombuffer("".join(chunks).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        codes = codes.astype(np.int64)
        symbols = len(self.strings) + codes
        known = np.flatnonzero(codes < len(self.char_ids))
        ids = self.char_ids[codes[known]]
        symbols[known[ids >= 0]] = ids[ids >= 0]
        # The chunks still joining: their index in `chunks`, length and first position.
        chunk = np.flatnonzero(lengths)  # an empty chunk has no symbol to hold its place
        length = lengths[chunk]
        empty = [("", ())] if len(chunk) < len(chunks) else []
        start = np.cumsum(length) - length
        # One int64 per symbol: the shifted rank of the pair it starts, OR its id; one array
        # to compact each round instead of two.
        state = np.empty(len(symbols), dtype=np.int64)
        state[:-1] = self._lookup(symbols[:-1], symbols[1:])
        state[start + length - 1] = _END
        state |= symbols
        done_symbols, done_chunks, done_lengths = [], [], []
        while len(chunk) > self.few:
            best = np.minimum.reduceat((state & _HIGH) | np.arange(len(state)), start)
            going = best < _NO_PAIR
            keep = np.repeat(going, length)
            if not going.all():  # chunks with no ranked pair left leave, whole
                done_symbols.append(state[~keep])
                done_chunks.append(chunk[~going])
                done_lengths.append(length[~going])
                best, chunk, length, start = best[going], chunk[going], length[going], start[going]
            # Each chunk joins its lowest-ranked pair: the symbol at `at` becomes the joined
            # token (its rank is set below) and the one after it goes.
            at = best & _LOW
            offset = at - start
            last = state[at + 1] >= _END  # the join took the chunk's last symbol
            state[at] = self.joined[best >> _SHIFT]
            keep[at + 1] = False
            state = state[keep]
            length -= 1
            start = np.cumsum(length) - length
            at = start + offset
            # Only the pairs on either side of a join change.
            state[at[last]] |= _END
            changed = np.concatenate([at[~last], at[offset > 0] - 1])
            symbols = state[changed] & _LOW
            state[changed] = self._lookup(symbols, state[changed + 1] & _LOW) | symbols
        if len(chunk):
            ids = (state & _LOW).tolist()
            finished: list[int] = []
            sizes = []
            for begin, size in zip(start.tolist(), length.tolist()):
                rest = self._finish(ids[begin : begin + size])
                finished += rest
                sizes.append(len(rest))
            done_symbols.append(np.array(finished, dtype=np.int64))
            done_chunks.append(chunk)
            done_lengths.append(np.array(sizes, dtype=np.int64))
        if not done_symbols:
            return iter(empty)
        return chain(empty, self._grouped(chunks, done_symbols, done_chunks, done_lengths))

    def _finish(self, symbols: list[int]) -> list[int]:
        """One chunk's remaining joins, as ``Encoder._merge_by_rank`` makes them, on ids."""
        get, never, joined = self._rank_of.get, _MAX_RANK, self._joined_ids
        found = [get(left << _SHIFT | right, never) for left, right in zip(symbols, symbols[1:])]
        while found:
            rank = min(found)
            if rank == never:
                break
            i = found.index(rank)  # the leftmost pair of the lowest rank
            symbols[i] = joined[rank]
            del symbols[i + 1], found[i]
            if i:
                found[i - 1] = get(symbols[i - 1] << _SHIFT | symbols[i], never)
            if i < len(found):
                found[i] = get(symbols[i] << _SHIFT | symbols[i + 1], never)
        return symbols

    def _grouped(
        self,
        chunks: Sequence[str],
        done_symbols: list[np.ndarray],
        done_chunks: list[np.ndarray],
        done_lengths: list[np.ndarray],
    ) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Pair each finished chunk with its tokens, in no set order.

        ``zip(*[run] * n)`` cuts a run of tokens into tuples of n in C; putting the chunks of
        the same token count side by side first makes that one call per distinct count
        instead of a slice per chunk, so there is no Python step per chunk.
        """
        symbols = np.concatenate(done_symbols) & _LOW
        chunk, length = np.concatenate(done_chunks), np.concatenate(done_lengths)
        start = np.cumsum(length) - length
        order = np.argsort(length, kind="stable")
        chunk, length, start = chunk[order], length[order], start[order]
        new_start = np.cumsum(length) - length
        symbols = symbols[np.arange(len(symbols)) + np.repeat(start - new_start, length)]
        names = self.strings
        unseen = symbols >= len(names)
        if unseen.any():  # characters the table never saw: name each once, after the table
            codes, inverse = np.unique(symbols[unseen] - len(names), return_inverse=True)
            symbols[unseen] = len(names) + inverse
            names = names + [chr(code) for code in codes.tolist()]
        tokens = list(map(names.__getitem__, symbols.tolist()))
        per_count = np.bincount(length)  # every finished chunk has at least one token
        sizes = np.flatnonzero(per_count)
        firsts = np.searchsorted(length, sizes).tolist()
        pieces = []
        for size, first, many, begin in zip(
            sizes.tolist(), firsts, per_count[sizes].tolist(), new_start[firsts].tolist()
        ):
            owners = map(chunks.__getitem__, chunk[first : first + many].tolist())
            run = iter(tokens[begin : begin + size * many])
            pieces.append(zip(owners, zip(*[run] * size)))
        return chain.from_iterable(pieces)
