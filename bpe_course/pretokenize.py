"""Split text into GPT-2-style chunks, the units BPE trains and encodes on.

Each chunk keeps the space in front of its word (" the", not "the"), so the spaces live
inside the tokens and decoding is plain concatenation. Merges never cross a chunk boundary,
which is why BPE learns "␣the" rather than junk such as "e␣t". ASCII text takes a faster,
equivalent route through the standard library's ``re``; in mostly-ASCII text only the
stretches around other characters go through the Unicode pattern. For long ASCII texts,
``ascii_chunk_starts`` finds the same cuts with array operations, without a match per chunk.

But: it only splits and counts; it knows nothing of merges.

>>> pretokenize("The cat's hat, 42 times!")
['The', ' cat', "'s", ' hat', ',', ' 42', ' times', '!']
>>> counts = chunk_counts("the cat saw the hat and the mat")
>>> counts[" the"], counts["the"]
(2, 1)
"""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np
import regex

# The pattern GPT-2 published: contractions, then letters, digits or other symbols, each
# with at most one leading space; runs of whitespace stay apart from the words after them.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_compiled = regex.compile(GPT2_PATTERN)

# The same pattern for text that is pure ASCII, where a letter is A-Z or a-z, a number is a
# digit and whitespace is one of six characters. The standard library's `re` runs it about
# twice as fast as `regex` runs the Unicode one, and most course text is ASCII. Written so
# that `re` gives up sooner, with the same matches: words come first (no contraction starts
# with a space or a letter, so the order of those two cannot matter), the space in front and
# the runs are possessive (`?+`, `++`: giving the space back could never let a letter, digit
# or symbol match a space), and the last alternative takes one whitespace character, all
# `\s+` can take there (a longer run has already matched the one before it). About a tenth
# faster on Shakespeare (bench_training's held-out megabyte, 47.6 to 42.2 ms).
_WHITESPACE = "\t\n\x0b\x0c\r "
_WHITE = "".join(f"\\x{ord(char):02x}" for char in _WHITESPACE)  # as a regex spells them
ASCII_PATTERN = (
    rf""" ?+[A-Za-z]++|'(?:[stmd]|re|ve|ll)| ?+[0-9]++| ?+[^{_WHITE}A-Za-z0-9]++"""
    rf"""|[{_WHITE}]+(?![^{_WHITE}])|[{_WHITE}]"""
)
_ascii_compiled = re.compile(ASCII_PATTERN)

# A chunk always ends where whitespace follows a non-space character, and the pattern never
# looks back, so text cut there splits piece by piece exactly as it does whole. `regex`'s \s
# is the one GPT2_PATTERN uses, so "whitespace" means the same thing in both.
LAST_CUT = regex.compile(r"(?r)\S\s")
NEXT_CUT = regex.compile(r"\S\s")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def pretokenize(text: str) -> list[str]:
    """The chunks of ``text`` in order; joining them gives ``text`` back."""
    if not isinstance(text, str):
        raise TypeError(f"pretokenize takes a str, got {type(text).__name__}")
    if text.isascii():
        return _ascii_compiled.findall(text)
    chunks: list[str] = []
    done = 0  # text[:done] is split already
    while (other := _NON_ASCII.search(text, done)) is not None:
        # The stretch around these characters, from the cut before them to the cut after.
        before = LAST_CUT.search(text, done, other.start())
        start = before.start() + 1 if before else done
        after = NEXT_CUT.search(text, other.end() - 1)
        end = after.start() + 1 if after else len(text)
        if start > done:
            chunks += _ascii_compiled.findall(text[done:start])
        chunks += _compiled.findall(text[start:end])
        done = end
    chunks += _ascii_compiled.findall(text[done:])
    return chunks


# The kinds of ASCII character the pattern tells apart, by code point.
_LETTER, _DIGIT, _OTHER, _SPACE, _WHITE_NOT_SPACE = range(5)
_KIND = np.full(128, _OTHER, dtype=np.uint8)
_KIND[np.frombuffer(string.ascii_letters.encode(), np.uint8)] = _LETTER
_KIND[np.frombuffer(string.digits.encode(), np.uint8)] = _DIGIT
_KIND[np.frombuffer(_WHITESPACE.encode(), np.uint8)] = _WHITE_NOT_SPACE
_KIND[ord(" ")] = _SPACE
_RUN = np.minimum(_KIND, _SPACE)  # a run of whitespace is one run, whichever characters
_ONE_LETTER = np.zeros(256, dtype=bool)  # 's 't 'm 'd
_ONE_LETTER[np.frombuffer(b"stmd", np.uint8)] = True


def ascii_chunk_starts(codes: np.ndarray) -> np.ndarray:
    """Where each chunk of an ASCII text starts: the cuts ``pretokenize`` makes, as positions.

    ``codes`` holds the text's bytes (uint8). A chunk starts wherever a run of letters,
    digits, other symbols or whitespace starts, but for three rules of the pattern:
    whitespace before a non-space keeps its last character back for the next chunk; that
    character, if it is a space, goes in front of what follows; and a quote where a match
    starts takes a contraction's letters with it ('s 't 'm 'd 're 've 'll, lower case).

    >>> text = "It's 42  o'clock!"
    >>> starts = ascii_chunk_starts(np.frombuffer(text.encode(), np.uint8)).tolist()
    >>> [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    ['It', "'s", ' 42', ' ', ' o', "'", 'clock', '!']
    """
    if not len(codes):
        return np.zeros(0, dtype=np.intp)
    kind, run = _KIND[codes], _RUN[codes]
    start = np.empty(len(codes), dtype=bool)
    start[0] = True
    np.not_equal(run[1:], run[:-1], out=start[1:])
    white = run == _SPACE
    last_white = np.flatnonzero(white[:-1] & ~white[1:])  # whitespace, then a non-space
    start[last_white] = True
    start[last_white[kind[last_white] == _SPACE] + 1] = False
    quote, length = _contractions(codes, kind)
    start[quote + 1] = False
    ends = quote + length
    start[ends[ends < len(codes)]] = True
    return np.flatnonzero(start)


def _contractions(codes: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a contraction starts, and its length with the quote (2 or 3).

    A quote starts a match, and so may start a contraction, unless a symbol comes before it
    (the quote is then part of that symbol's run) or a space does (the space joins the quote).
    """
    quote = np.flatnonzero(codes[:-1] == ord("'"))
    before = kind[quote - 1]
    before[quote == 0] = _LETTER  # nothing comes before the text's first character
    quote = quote[(before != _OTHER) & (before != _SPACE)]
    after, then = codes[quote + 1], np.zeros(len(quote), dtype=np.uint8)
    inside = quote + 2 < len(codes)
    then[inside] = codes[quote[inside] + 2]
    two = (((after == ord("r")) | (after == ord("v"))) & (then == ord("e"))) | (
        (after == ord("l")) & (then == ord("l"))
    )
    length = np.where(_ONE_LETTER[after], 2, np.where(two, 3, 0))
    return quote[length > 0], length[length > 0]


def chunk_counts(text: str) -> Counter[str]:
    """How often each distinct chunk occurs: the deduplicated table that training reads."""
    return Counter(pretokenize(text))
