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

from collections.abc import Iterable, Sequence

import numpy as np

_SHIFT = 32
_NONE = np.iinfo(np.int64).max  # the rank of a pair the table does not hold


class RankTable:
    """A merge table as sorted arrays: pair of token ids -> rank and the id of the join."""

    def __init__(self, merges: Iterable[Sequence[str]]) -> None:
        self.strings: list[str] = []
        self.ids: dict[str, int] = {}
        found: dict[int, tuple[int, int]] = {}  # pair key -> (rank, joined id); first rank wins
        for rank, (left, right) in enumerate(merges):
            key = (self._id(left) << _SHIFT) | self._id(right)
            if key not in found:
                found[key] = (rank, self._id(left + right))
        keys = np.fromiter(found, dtype=np.int64, count=len(found))
        order = np.argsort(keys)
        self.keys = keys[order]
        values = np.array(list(found.values()), dtype=np.int64).reshape(-1, 2)[order]
        self.ranks, self.joined = values[:, 0].copy(), values[:, 1].copy()
        # Single characters with an id, by code point, to turn text into ids quickly.
        chars = sorted((s, i) for s, i in self.ids.items() if len(s) == 1)
        self.char_codes = np.array([ord(s) for s, _ in chars], dtype=np.int64)
        self.char_ids = np.array([i for _, i in chars], dtype=np.int64)

    def _id(self, symbol: str) -> int:
        found = self.ids.get(symbol)
        if found is None:
            found = self.ids[symbol] = len(self.strings)
            self.strings.append(symbol)
        return found

    def _lookup(self, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and table row of each pair (left, right); ``_NONE`` where the table lacks it."""
        if not len(self.keys) or not len(left):
            return np.full(len(left), _NONE, dtype=np.int64), np.zeros(len(left), dtype=np.int64)
        keys = (left << _SHIFT) | np.maximum(right, 0)
        rows = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        known = (self.keys[rows] == keys) & (left >= 0) & (right >= 0)
        return np.where(known, self.ranks[rows], _NONE), rows

    def encode(self, chunks: Sequence[str]) -> list[tuple[str, ...]]:
        """The tokens of each chunk, as ``Encoder.encode_chunk`` gives them, as tuples."""
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        codes = np.frombuffer("".join(chunks).encode("utf-32-le"), dtype=np.uint32)
        codes = codes.astype(np.int64)
        # A character the table never saw gets a negative id, -1 - its code point.
        symbols = -1 - codes
        if len(self.char_codes):
            at = np.minimum(np.searchsorted(self.char_codes, codes), len(self.char_codes) - 1)
            known = self.char_codes[at] == codes
            symbols[known] = self.char_ids[at[known]]
        chunk = np.repeat(np.arange(len(chunks)), lengths)
        # rank[i]: the rank of the pair that starts at i; _NONE at the end of a chunk.
        rank, row = self._lookup(symbols[:-1], symbols[1:])
        rank = np.r_[np.where(chunk[:-1] == chunk[1:], rank, _NONE), _NONE]
        row = np.r_[row, 0]
        done_symbols, done_chunks = [], []
        while len(symbols):
            starts = np.flatnonzero(np.r_[True, chunk[1:] != chunk[:-1]])
            best = np.minimum.reduceat(rank, starts)
            best_here = np.repeat(best, np.diff(np.r_[starts, len(rank)]))
            going = best_here != _NONE  # chunks with a ranked pair left
            done_symbols.append(symbols[~going])
            done_chunks.append(chunk[~going])
            # Each chunk joins its lowest-ranked pair, the leftmost where it occurs twice.
            lowest = np.flatnonzero(going & (rank == best_here))
            owner = chunk[lowest]
            join = lowest[np.r_[True, owner[1:] != owner[:-1]]] if len(lowest) else lowest
            symbols[join] = self.joined[row[join]]
            keep = going
            keep[join + 1] = False
            moved = np.cumsum(keep) - 1
            symbols, chunk, rank, row = symbols[keep], chunk[keep], rank[keep], row[keep]
            join = moved[join]
            # Only the pairs on either side of a join change.
            for at in (join[join > 0] - 1, join):
                after = np.minimum(at + 1, len(symbols) - 1)
                inside = (at + 1 < len(symbols)) & (chunk[after] == chunk[at])
                rank[at[~inside]] = _NONE
                at = at[inside]
                rank[at], row[at] = self._lookup(symbols[at], symbols[at + 1])
        symbols = np.concatenate(done_symbols) if done_symbols else symbols
        chunk = np.concatenate(done_chunks) if done_chunks else chunk
        order = np.argsort(chunk, kind="stable")  # a chunk leaves whole, its symbols in order
        symbols = symbols[order]
        strings = self.strings
        if len(symbols) and symbols.min() < 0:  # characters the table never saw
            tokens = [strings[s] if s >= 0 else chr(-1 - s) for s in symbols.tolist()]
        else:
            tokens = list(map(strings.__getitem__, symbols.tolist()))
        ends = np.cumsum(np.bincount(chunk, minlength=len(chunks))).tolist()
        return [tuple(tokens[start:end]) for start, end in zip([0, *ends[:-1]], ends)]
