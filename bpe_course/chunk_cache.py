"""Encode long ASCII texts with arrays: no Python step per chunk once the chunks are known.

``Encoder`` caches each chunk's tokens in a dict, so a text costs a regex match, a dict
lookup and a list extension per chunk: about a quarter of a microsecond each, which is most
of the time on a text whose chunks are known. :class:`ChunkCache` does the same with array
operations on the whole text: it finds the cuts (``ascii_chunk_starts``), reads each chunk
of at most 15 bytes as its own key (two integers: the first 8 bytes, then the next 7 and
the length), looks the keys up in a hash table of arrays, and gathers every token at once.
Chunks it has not met are encoded together by the function it is given, and kept.

But: it takes ASCII text only, and keeps longer chunks (rare in prose) in a plain dict, a
Python step each; ``Encoder.encode`` decides when to use it. Its hash is fixed, not seeded
as Python's is, so a text made for it could crowd the same slots and slow it down (never
change its tokens).

>>> def letters(chunks):
...     return [(chunk, tuple(chunk)) for chunk in chunks]  # stands in for encoding by rank
>>> ChunkCache().encode("to be, or not to be", letters)
['t', 'o', ' ', 'b', 'e', ',', ' ', 'o', 'r', ' ', 'n', 'o', 't', ' ', 't', 'o', ' ', 'b', 'e']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain

import numpy as np

from bpe_course.pretokenize import NEXT_CUT, ascii_chunk_starts

# Given distinct chunks, each with its tokens, in any order (as RankTable.tokens_of gives them).
EncodeChunks = Callable[[list[str]], Iterable[tuple[str, tuple[str, ...]]]]

LONGEST = 15  # bytes of the longest chunk that is its own key
# About this many characters are encoded at once: a block ends at the first place after it
# where a chunk must end, and its arrays take about 40 bytes a character.
BLOCK = 1 << 20
_ALL = (1 << 64) - 1
# _KEEP[n] keeps the low n bytes of a uint64; the text's bytes are read 8 at a time from any
# position, so the bytes past a chunk's end are masked away.
_KEEP = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [_ALL], dtype=np.uint64)
_LENGTH_AT = np.uint64(56)  # the second key's top byte holds the length, so it is never 0
_EMPTY = np.uint64(0)  # a free slot's second key
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))  # odd multipliers


def chunk_keys(
    data: bytes, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Two uint64 per chunk that tell any two chunks of at most ``LONGEST`` bytes apart.

    >>> data = b"a ab"
    >>> first, second = chunk_keys(data, np.array([0, 1]), np.array([1, 3]))
    >>> hex(first[1]), hex(second[1])  # " ab" little-endian, then the length 3
    ('0x626120', '0x300000000000000')
    """
    padded = data + bytes(16)
    # A uint64 starting at every byte: a view with a stride of one byte, nothing copied.
    wide = np.ndarray((len(data) + 8,), dtype="<u8", buffer=padded, strides=(1,))
    first = wide[starts] & _KEEP[np.minimum(lengths, 8)]
    second = wide[starts + 8] & _KEEP[np.clip(lengths - 8, 0, 7)]
    second |= lengths.astype(np.uint64) << _LENGTH_AT
    return first, second


class ChunkCache:
    """A hash table in arrays from chunk keys to runs of a flat array of token strings."""

    def __init__(self) -> None:
        self._clear()

    def __len__(self) -> int:
        """How many distinct chunks it keeps."""
        return self._kept + len(self._long)

    def encode(self, text: str, encode_chunks: EncodeChunks) -> list[str]:
        """The tokens of an ASCII ``text``, as ``Encoder.encode`` gives them.

        ``encode_chunks`` gives the distinct chunks not met before, each with its tokens.
        """
        tokens: list[str] = []
        done = 0
        while len(text) - done > BLOCK:
            cut = NEXT_CUT.search(text, done + BLOCK)
            if cut is None:
                break
            tokens += self._encode_block(text[done : cut.start() + 1], encode_chunks)
            done = cut.start() + 1
        if not done:
            return self._encode_block(text, encode_chunks)
        tokens += self._encode_block(text[done:], encode_chunks)
        return tokens

    def _clear(self) -> None:
        self._kept = 0  # distinct chunks in the table: entries 0 .. _kept - 1
        self._offset = np.zeros(0, dtype=np.int64)  # entry -> its first token in _tokens
        self._count = np.zeros(0, dtype=np.int64)  # entry -> how many tokens
        self._tokens = np.empty(0, dtype=object)
        self._stored = 0  # tokens in use at the front of _tokens
        self._long: dict[str, tuple[str, ...]] = {}
        self._make_table(1024)

    def _make_table(self, slots: int) -> None:
        bits = max(10, (slots - 1).bit_length())
        self._shift, self._mask = np.uint64(64 - bits), (1 << bits) - 1
        self._first = np.zeros(1 << bits, dtype=np.uint64)
        self._second = np.zeros(1 << bits, dtype=np.uint64)
        self._entry = np.full(1 << bits, -1, dtype=np.int64)  # slot -> entry

    def _encode_block(self, text: str, encode_chunks: EncodeChunks) -> list[str]:
        data = text.encode("ascii")
        starts = ascii_chunk_starts(np.frombuffer(data, dtype=np.uint8))
        lengths = np.diff(starts, append=len(data))
        short = lengths <= LONGEST
        entry = self._entries_of(text, data, starts[short], lengths[short], encode_chunks)
        from_table = self._tokens[_runs(self._offset[entry], self._count[entry])]
        if short.all():  # prose: every chunk is its own key
            return from_table.tolist()
        long_tokens = self._long_tokens(text, starts[~short], lengths[~short], encode_chunks)
        counts = np.empty(len(starts), dtype=np.int64)
        counts[short] = self._count[entry]
        counts[~short] = list(map(len, long_tokens))
        tokens = np.empty(int(counts.sum()), dtype=object)
        placed = np.repeat(short, counts)  # each token's place: from the table or not
        tokens[placed] = from_table
        tokens[~placed] = list(chain.from_iterable(long_tokens))
        return tokens.tolist()

    def _entries_of(
        self,
        text: str,
        data: bytes,
        starts: np.ndarray,
        lengths: np.ndarray,
        encode_chunks: EncodeChunks,
    ) -> np.ndarray:
        """The entry of each chunk (none longer than ``LONGEST``), kept first if new."""
        first, second = chunk_keys(data, starts, lengths)
        entry = self._find(first, second)
        missing = np.flatnonzero(entry < 0)
        if len(missing):
            try:
                entry[missing] = self._add(
                    text,
                    starts[missing],
                    lengths[missing],
                    first[missing],
                    second[missing],
                    encode_chunks,
                )
            except BaseException:
                self._clear()  # stopped half-way (an interrupt, no memory): start afresh
                raise
        return entry

    def _long_tokens(
        self, text: str, starts: np.ndarray, lengths: np.ndarray, encode_chunks: EncodeChunks
    ) -> list[tuple[str, ...]]:
        chunks = [text[at : at + size] for at, size in zip(starts.tolist(), lengths.tolist())]
        self._long.update(encode_chunks(list(set(chunks).difference(self._long))))
        return list(map(self._long.__getitem__, chunks))

    def _find(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Each key's entry, or -1; linear probing until the key or a free slot."""
        slots = _hash_slots(first, second, self._shift)
        found = np.full(len(first), -1, dtype=np.int64)
        probing = np.arange(len(first))
        while len(probing):
            at = slots[probing]
            there = self._second[at]
            hit = (there == second[probing]) & (self._first[at] == first[probing])
            found[probing[hit]] = self._entry[at[hit]]
            probing = probing[~hit & (there != _EMPTY)]
            slots[probing] = (slots[probing] + 1) & self._mask
        return found

    def _add(
        self,
        text: str,
        starts: np.ndarray,
        lengths: np.ndarray,
        first: np.ndarray,
        second: np.ndarray,
        encode_chunks: EncodeChunks,
    ) -> np.ndarray:
        """Encode the distinct ones of these new chunks, keep them, and give each its entry."""
        alike = _first_alike(first, second)
        distinct = np.flatnonzero(alike == np.arange(len(alike)))
        chunks = [
            text[at : at + size]
            for at, size in zip(starts[distinct].tolist(), lengths[distinct].tolist())
        ]
        found = dict(encode_chunks(chunks))
        tokens = list(map(found.__getitem__, chunks))
        counts = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        entries = self._kept + np.arange(len(distinct))
        self._store(tokens, counts)
        self._insert(first[distinct], second[distinct], entries)
        entry_of = np.empty(len(alike), dtype=np.int64)
        entry_of[distinct] = entries
        return entry_of[alike]

    def _store(self, tokens: list[tuple[str, ...]], counts: np.ndarray) -> None:
        """Put the tokens of new entries ``_kept``, ``_kept + 1``, ... after those stored."""
        need, entries = self._stored + int(counts.sum()), self._kept + len(counts)
        if need > len(self._tokens):
            self._tokens = _grown(self._tokens, need)
        if entries > len(self._offset):
            self._offset, self._count = _grown(self._offset, entries), _grown(self._count, entries)
        self._tokens[self._stored : need] = list(chain.from_iterable(tokens))
        self._offset[self._kept : entries] = self._stored + np.cumsum(counts) - counts
        self._count[self._kept : entries] = counts
        self._stored = need

    def _insert(self, first: np.ndarray, second: np.ndarray, entries: np.ndarray) -> None:
        """Keep keys the table lacks (each once), growing it to stay at most half full."""
        if 2 * (self._kept + len(entries)) > len(self._entry):
            self._grow_table(4 * (self._kept + len(entries)))
        self._place(first, second, entries)
        self._kept += len(entries)

    def _place(self, first: np.ndarray, second: np.ndarray, entries: np.ndarray) -> None:
        """Put each key, with its entry, in the first free slot from its home on."""
        slots = _hash_slots(first, second, self._shift)
        waiting = np.arange(len(first))
        while len(waiting):
            at = slots[waiting]
            free = self._second[at] == _EMPTY
            bidders, bid_at = waiting[free], at[free]
            # Of the keys that reach the same free slot, one takes it; reading the slot back
            # says which (numpy does not say which of several writes to one place lasts).
            self._entry[bid_at] = bidders
            won = self._entry[bid_at] == bidders
            winners, won_at = bidders[won], bid_at[won]
            self._first[won_at], self._second[won_at] = first[winners], second[winners]
            self._entry[won_at] = entries[winners]
            placed = np.zeros(len(waiting), dtype=bool)
            placed[np.flatnonzero(free)[won]] = True  # the winners, as places in `waiting`
            waiting = waiting[~placed]
            slots[waiting] = (slots[waiting] + 1) & self._mask

    def _grow_table(self, slots: int) -> None:
        live = self._second != _EMPTY
        first, second, entries = self._first[live], self._second[live], self._entry[live]
        self._make_table(slots)
        self._place(first, second, entries)


def _hash_slots(first: np.ndarray, second: np.ndarray, shift: np.uint64) -> np.ndarray:
    """Each key's home slot in a table of 2**(64 - shift) slots."""
    # uint64 products wrap around, which is what a multiplicative hash wants.
    return (((first * _MIX[0]) ^ (second * _MIX[1])) >> shift).astype(np.intp)


def _first_alike(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """For each key, the index of one key equal to it, the same for all equal keys.

    >>> alike = _first_alike(np.array([5, 7, 5], np.uint64), np.array([1, 1, 1], np.uint64))
    >>> bool(alike[0] == alike[2] != alike[1]), int(alike[1])
    (True, 1)
    """
    bits = max(4, (2 * len(first)).bit_length())
    mask = (1 << bits) - 1
    owner = np.full(1 << bits, -1, dtype=np.int64)
    slots = _hash_slots(first, second, np.uint64(64 - bits))
    alike = np.empty(len(first), dtype=np.int64)
    waiting = np.arange(len(first))
    while len(waiting):
        at = slots[waiting]
        free = owner[at] < 0
        owner[at[free]] = waiting[free]  # one of the keys reaching a free slot takes it
        holder = owner[at]
        same = (first[holder] == first[waiting]) & (second[holder] == second[waiting])
        alike[waiting[same]] = holder[same]
        waiting = waiting[~same]
        slots[waiting] = (slots[waiting] + 1) & mask
    return alike


def _runs(offsets: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions offsets[i], offsets[i] + 1, ... counts[i] of them, for every i in turn.

    >>> _runs(np.array([4, 0]), np.array([2, 3])).tolist()
    [4, 5, 0, 1, 2]
    """
    ends = np.cumsum(counts)
    return np.repeat(offsets - (ends - counts), counts) + np.arange(ends[-1] if len(ends) else 0)


def _grown(array: np.ndarray, need: int) -> np.ndarray:
    """``array`` with room for at least ``need`` items, doubling so that growth is cheap."""
    bigger = np.empty(max(need, 2 * len(array)), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger
