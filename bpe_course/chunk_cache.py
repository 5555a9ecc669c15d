"""Encode long ASCII texts with arrays: no Python step per chunk once the chunks are known.

``Encoder`` caches each chunk's tokens in a dict, so a text costs a regex match, a dict
lookup and a list extension per chunk: about a quarter of a microsecond each, which is most
of the time on a text whose chunks are known. :class:`ChunkCache` does the same with array
operations on the whole text: it finds the cuts (``ascii_chunk_starts``), reads each chunk
of at most 15 bytes as its own key (two integers: the first 8 bytes, then the next 7 and
the length), looks the keys up in a hash table of arrays, and gathers every token at once.
Chunks it has not met are encoded by the function it is given, together, and kept.

But: it takes ASCII text only, and keeps longer chunks (rare in prose) in a plain dict;
``Encoder.encode`` decides when to use it.

>>> def letters(chunks):
...     return [tuple(chunk) for chunk in chunks]  # stands in for encoding by rank
>>> ChunkCache(letters).encode("to be, or not to be")
['t', 'o', ' ', 'b', 'e', ',', ' ', 'o', 'r', ' ', 'n', 'o', 't', ' ', 't', 'o', ' ', 'b', 'e']
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

import numpy as np

from bpe_course.pretokenize import _NEXT_CUT, ascii_chunk_starts

EncodeChunks = Callable[[list[str]], list[tuple[str, ...]]]

LONGEST = 15  # bytes of the longest chunk that is its own key
BLOCK = 1 << 20  # characters encoded at once: the arrays take about 30 bytes a character
_ALL = (1 << 64) - 1
# _KEEP[n] keeps the low n bytes of a uint64; the text's bytes are read 8 at a time from any
# position, so the bytes past a chunk's end are masked away.
_KEEP = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [_ALL], dtype=np.uint64)
_LENGTH_AT = np.uint64(56)  # the second key's top byte holds the length, so it is never 0
_EMPTY = np.uint64(0)  # a free slot's second key
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))  # odd multipliers


def chunk_keys(data: bytes, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
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

    def __init__(self, encode_chunks: EncodeChunks) -> None:
        self.encode_chunks = encode_chunks  # distinct new chunks -> their tokens, in order
        self._first = self._second = np.zeros(0, dtype=np.uint64)
        self._entry = np.zeros(0, dtype=np.int64)
        self._entries = 0
        self._offset = np.zeros(0, dtype=np.int64)  # entry -> its first token in _tokens
        self._count = np.zeros(0, dtype=np.int64)  # entry -> how many tokens
        self._tokens = np.empty(0, dtype=object)
        self._stored = 0  # tokens in use at the front of _tokens
        self._long: dict[str, tuple[str, ...]] = {}
        self._resize(1024)

    def __len__(self) -> int:
        """How many distinct chunks it keeps."""
        return self._entries + len(self._long)

    def encode(self, text: str) -> list[str]:
        """The tokens of an ASCII ``text``, as ``Encoder.encode`` gives them."""
        tokens: list[str] = []
        done = 0
        while len(text) - done > BLOCK:
            # Cut where a non-space meets whitespace: a chunk always ends there.
            cut = _NEXT_CUT.search(text, done + BLOCK)
            if cut is None:
                break
            tokens += self._encode_block(text[done : cut.start() + 1])
            done = cut.start() + 1
        if not done:
            return self._encode_block(text)
        tokens += self._encode_block(text[done:])
        return tokens

    def _encode_block(self, text: str) -> list[str]:
        data = text.encode("ascii")
        starts = ascii_chunk_starts(np.frombuffer(data, dtype=np.uint8))
        lengths = np.diff(starts, append=len(data))
        short = lengths <= LONGEST
        if short.all():  # prose: every chunk is its own key
            entry = self._entries_of(text, data, starts, lengths)
            return self._tokens[_runs(self._offset[entry], self._count[entry])].tolist()
        entry = self._entries_of(text, data, starts[short], lengths[short])
        long_tokens = self._long_tokens(text, starts[~short], lengths[~short])
        counts = np.empty(len(starts), dtype=np.int64)
        counts[short] = self._count[entry]
        counts[~short] = list(map(len, long_tokens))
        tokens = np.empty(int(counts.sum()), dtype=object)
        from_table = np.repeat(short, counts)
        tokens[from_table] = self._tokens[_runs(self._offset[entry], counts[short])]
        tokens[~from_table] = list(chain.from_iterable(long_tokens))
        return tokens.tolist()

    def _entries_of(
        self, text: str, data: bytes, starts: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """The entry of each chunk (none longer than ``LONGEST``), kept first if new."""
        first, second = chunk_keys(data, starts, lengths)
        entry = self._find(first, second)
        missing = np.flatnonzero(entry < 0)
        if len(missing):
            entry[missing] = self._add(
                text, starts[missing], lengths[missing], first[missing], second[missing]
            )
        return entry

    def _long_tokens(
        self, text: str, starts: np.ndarray, lengths: np.ndarray
    ) -> list[tuple[str, ...]]:
        chunks = [text[at : at + size] for at, size in zip(starts.tolist(), lengths.tolist())]
        new = list(set(chunks).difference(self._long))
        self._long.update(zip(new, self.encode_chunks(new)))
        return list(map(self._long.__getitem__, chunks))

    def _slots(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        # uint64 products wrap around, which is what a multiplicative hash wants.
        mixed = (first * _MIX[0]) ^ (second * _MIX[1])
        return (mixed >> self._shift).astype(np.intp)

    def _find(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Each key's entry, or -1; linear probing until the key or a free slot."""
        slots = self._slots(first, second)
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
    ) -> np.ndarray:
        """Encode the distinct ones of these new chunks, keep them, and give each its entry."""
        alike = _first_alike(first, second)
        distinct = np.flatnonzero(alike == np.arange(len(alike)))
        chunks = [
            text[at : at + size]
            for at, size in zip(starts[distinct].tolist(), lengths[distinct].tolist())
        ]
        tokens = self.encode_chunks(chunks)
        counts = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        entries = self._entries + np.arange(len(distinct))
        self._store(tokens, counts)
        self._insert(first[distinct], second[distinct], entries)
        entry_of = np.empty(len(alike), dtype=np.int64)
        entry_of[distinct] = entries
        return entry_of[alike]

    def _store(self, tokens: list[tuple[str, ...]], counts: np.ndarray) -> None:
        need, entries = self._stored + int(counts.sum()), self._entries + len(counts)
        if need > len(self._tokens):
            self._tokens = _grown(self._tokens, need)
        if entries > len(self._offset):
            self._offset, self._count = _grown(self._offset, entries), _grown(self._count, entries)
        self._tokens[self._stored : need] = list(chain.from_iterable(tokens))
        self._offset[self._entries : entries] = self._stored + np.cumsum(counts) - counts
        self._count[self._entries : entries] = counts
        self._stored = need

    def _insert(self, first: np.ndarray, second: np.ndarray, entries: np.ndarray) -> None:
        """Put keys the table lacks (each once) into free slots, keeping it at most half full."""
        if 2 * (self._entries + len(entries)) > len(self._entry):
            self._resize(4 * (self._entries + len(entries)))
        slots = self._slots(first, second)
        waiting = np.arange(len(first))
        while len(waiting):
            at = slots[waiting]
            free = self._second[at] == _EMPTY
            bidders, bid_at = waiting[free], at[free]
            # Keys that reach the same free slot: whichever numpy writes last takes it.
            self._entry[bid_at] = bidders
            won = self._entry[bid_at] == bidders
            winners, won_at = bidders[won], bid_at[won]
            self._first[won_at], self._second[won_at] = first[winners], second[winners]
            self._entry[won_at] = entries[winners]
            placed = np.zeros(len(waiting), dtype=bool)
            placed[np.flatnonzero(free)[won]] = True
            waiting = waiting[~placed]
            slots[waiting] = (slots[waiting] + 1) & self._mask
        self._entries += len(entries)

    def _resize(self, slots: int) -> None:
        live = self._second != _EMPTY
        first, second, entries = self._first[live], self._second[live], self._entry[live]
        bits = max(10, (slots - 1).bit_length())
        self._shift, self._mask = np.uint64(64 - bits), (1 << bits) - 1
        self._first = np.zeros(1 << bits, dtype=np.uint64)
        self._second = np.zeros(1 << bits, dtype=np.uint64)
        self._entry = np.full(1 << bits, -1, dtype=np.int64)
        self._entries -= len(entries)
        self._insert(first, second, entries)


def _first_alike(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """For each key, the index of one key equal to it, the same for all equal keys.

    >>> alike = _first_alike(np.array([5, 7, 5], np.uint64), np.array([1, 1, 1], np.uint64))
    >>> bool(alike[0] == alike[2] != alike[1]), int(alike[1])
    (True, 1)
    """
    bits = max(4, (2 * len(first)).bit_length())
    shift, mask = np.uint64(64 - bits), (1 << bits) - 1
    owner = np.full(1 << bits, -1, dtype=np.int64)
    slots = (((first * _MIX[0]) ^ (second * _MIX[1])) >> shift).astype(np.intp)
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
