"""Split text into GPT-2-style chunks, the units BPE trains and encodes on.

Each chunk keeps the space in front of its word (" the", not "the"), so the spaces live
inside the tokens and decoding is plain concatenation. Merges never cross a chunk boundary,
which is why BPE learns "␣the" rather than junk such as "e␣t". ASCII text takes a faster,
equivalent route through the standard library's ``re``; in mostly-ASCII text only the
stretches around other characters go through the Unicode pattern.

But: it only splits and counts; it knows nothing of merges.

>>> pretokenize("The cat's hat, 42 times!")
['The', ' cat', "'s", ' hat', ',', ' 42', ' times', '!']
>>> counts = chunk_counts("the cat saw the hat and the mat")
>>> counts[" the"], counts["the"]
(2, 1)
"""

from __future__ import annotations

import re
from collections import Counter

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
_WHITE = r"\t\n\x0b\x0c\r "
ASCII_PATTERN = (
    rf""" ?+[A-Za-z]++|'(?:[stmd]|re|ve|ll)| ?+[0-9]++| ?+[^{_WHITE}A-Za-z0-9]++"""
    rf"""|[{_WHITE}]+(?![^{_WHITE}])|[{_WHITE}]"""
)
_ascii_compiled = re.compile(ASCII_PATTERN)

# A chunk always ends where whitespace follows a non-space character, and the pattern never
# looks back, so text cut there splits piece by piece exactly as it does whole.
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_LAST_CUT = regex.compile(r"(?r)\S\s")
_NEXT_CUT = regex.compile(r"\S\s")


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
        before = _LAST_CUT.search(text, done, other.start())
        start = before.start() + 1 if before else done
        after = _NEXT_CUT.search(text, other.end() - 1)
        end = after.start() + 1 if after else len(text)
        if start > done:
            chunks += _ascii_compiled.findall(text[done:start])
        chunks += _compiled.findall(text[start:end])
        done = end
    chunks += _ascii_compiled.findall(text[done:])
    return chunks


def chunk_counts(text: str) -> Counter[str]:
    """How often each distinct chunk occurs: the deduplicated table that training reads."""
    return Counter(pretokenize(text))
