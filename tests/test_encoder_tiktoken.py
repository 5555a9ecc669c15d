"""``bpe_course.Encoder`` gives tiktoken's tokens on any text, tiktoken built from our ranks.

The table is learned from ASCII Shakespeare, so every token is ASCII and tiktoken can rank it
(``bpe_course.real_tokenizers``). Text outside that alphabet still has to agree: the same
chunks from the pre-tokenizer, the same merges inside them. The one honest difference is the
unit: a character the table never saw is one token for us (we merge characters) and one
token per UTF-8 byte for tiktoken (it merges bytes), so each such token is compared byte by
byte. Fresh encoders, encoders whose cache holds other text, and texts long enough to take
the batched path are all compared.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

import numpy as np
import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    Encoder,
    chunk_cache,
    chunk_counts,
    learn_merges,
    pretokenize,
    shakespeare_text,
)
from bpe_course.batch_encode import RankTable
from bpe_course.real_tokenizers import tiktoken_encoding, tiktoken_ranks

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)

# Characters where a pre-tokenizer or an encoder is most likely to go wrong: whitespace of
# every kind (Python's str.isspace and Unicode's White_Space disagree on \x1c-\x1f), digits
# and letters beyond ASCII, marks that combine, emoji built from several code points.
AWKWARD = (
    " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2003\u2028\u3000"
    "0123456789\u00b2\u0663\u2167"
    "'sStTrRvVmMlLdD"
    ',.;:!?-"()[]_@#'
    "e\u00e9\u00df\u0416\u4e2d\u05d0\u0301\u200d"
    "\U0001f642\U0001f44d\U0001f3fd"
)
VARIED = [
    "It's 42 o'clock, isn't it? We'll see; they'd've known.",
    "Tabs\tand   runs of  spaces\n\n\n  then\r\nwindows lines \x0b\x0c end   ",
    "caf\u00e9 na\u00efve \u00fcber Stra\u00dfe \u0416\u0443\u043a",
    "\u4e2d\u6587 \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "digits 3.14159 1,000,000 \u0663\u0664 \u00b2\u00b3 \u2167 year 2026",
    "emoji \U0001f642\U0001f44d\U0001f3fd family \U0001f468\u200d\U0001f469\u200d\U0001f467!",
    "combining e\u0301 and a\u0308, zero\u200bwidth, nbsp\u00a0here, ideographic\u3000space",
    "   leading spaces and trailing ones   ",
    "\n",
    "",
    "'''' ''s 'S 'LL '' ' 'd",
]
RANKED: dict[str, set[bytes]] = {}  # an encoding's name -> the bytes of its tokens


@pytest.fixture(scope="module")
def table() -> tuple[list[tuple[str, str]], str, tiktoken.Encoding]:
    """2,000 merges of 300 kB of Shakespeare, the next 100 kB held out, and tiktoken."""
    text = shakespeare_text(max_bytes=400_000)
    train, heldout = text[:300_000], text[300_000:]
    merges = learn_merges(chunk_counts(train), 2000)
    RANKED["shakespeare"] = set(tiktoken_ranks(merges))
    return merges, heldout, tiktoken_encoding(merges, name="shakespeare")


@pytest.fixture(scope="module")
def awkward_table() -> tuple[list[tuple[str, str]], tiktoken.Encoding]:
    """300 merges of random ASCII rich in whitespace, digits, quotes and punctuation.

    Shakespeare's table holds few merges across these characters, so a chunk split in the
    wrong place there rarely changes a token; this table joins them wherever they meet.
    """
    alphabet = " \t\n\r\x0b\x0c\x1c\x00\x7f0123'sStdlL,.!-ab"
    rng = random.Random(47)
    text = "".join(rng.choice(alphabet) for _ in range(60_000))
    merges = learn_merges(chunk_counts(text), 300)
    RANKED["awkward"] = set(tiktoken_ranks(merges))
    return merges, tiktoken_encoding(merges, name="awkward")


@pytest.fixture(scope="module")
def runs_table() -> tuple[list[tuple[str, str]], tiktoken.Encoding]:
    """200 merges of long runs of one character or one pair: ("a", "a"), ("aa", "aa"), ..."""
    runs = [unit * n for unit in ("a", "ab", "0", "-", "\t") for n in range(1, 90, 3)]
    merges = learn_merges(chunk_counts(" ".join(runs) + "\n" + " ".join(runs[::2])), 200)
    RANKED["runs"] = set(tiktoken_ranks(merges))
    return merges, tiktoken_encoding(merges, name="runs")


def as_tiktoken_bytes(tokens: list[str], ranks: set[bytes]) -> list[bytes]:
    """Our tokens in tiktoken's unit: a character the table never met splits into its bytes."""
    out = []
    for token in tokens:
        spelled = token.encode()
        if spelled in ranks:
            out.append(spelled)
        else:
            assert len(token) == 1, f"{token!r} is no single unranked character"
            out += [bytes([byte]) for byte in spelled]
    return out


def assert_same_tokens(encoder: Encoder, encoding: tiktoken.Encoding, text: str) -> None:
    ours = encoder.encode(text)
    assert "".join(ours) == text
    theirs = [encoding.decode_single_token_bytes(t) for t in encoding.encode_ordinary(text)]
    assert as_tiktoken_bytes(ours, RANKED[encoding.name]) == theirs, text


@pytest.mark.parametrize("text", VARIED)
def test_a_fresh_encoder_gives_tiktokens_tokens(table, text):
    merges, _, encoding = table
    assert_same_tokens(Encoder(merges), encoding, text)


def test_held_out_text_gives_tiktokens_tokens_cold_and_after_other_text(table):
    merges, heldout, encoding = table
    assert_same_tokens(Encoder(merges), encoding, heldout)  # thousands of new chunks at once
    warmed = Encoder(merges)
    warmed.encode(" ".join(VARIED) + heldout[: len(heldout) // 2])
    assert_same_tokens(warmed, encoding, heldout)
    assert_same_tokens(warmed, encoding, heldout)  # every chunk cached now
    mixed = "\n".join(VARIED) + heldout
    assert_same_tokens(Encoder(merges), encoding, mixed)


@SETTINGS
@given(st.text(alphabet=AWKWARD, max_size=80))
def test_awkward_characters_give_tiktokens_tokens(table, awkward_table, text):
    for merges, encoding in (table[::2], awkward_table):
        assert_same_tokens(Encoder(merges), encoding, text)


@SETTINGS
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_text_gives_tiktokens_tokens(table, awkward_table, text):
    # Pure ASCII takes the pre-tokenizer's own faster pattern: it must split as GPT-2's does.
    for merges, encoding in (table[::2], awkward_table):
        assert_same_tokens(Encoder(merges), encoding, text)


@SETTINGS
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=80), max_size=6))
def test_ascii_text_through_the_cache_of_arrays_gives_tiktokens_tokens(table, awkward_table, texts):
    # Every text through bpe_course.chunk_cache, cut into blocks of 16 characters: keys of
    # chunks up to 15 bytes (NUL bytes and the length included), longer chunks beside them,
    # one encoder for all the pieces and then for all of them at once.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Encoder, "ARRAYS_FROM", 0)
        patch.setattr(chunk_cache, "BLOCK", 16)
        for merges, encoding in (table[::2], awkward_table):
            encoder = Encoder(merges)
            for text in [*texts, "".join(texts), *texts]:
                assert_same_tokens(encoder, encoding, text)


def test_long_ascii_text_goes_through_the_cache_of_arrays(table, awkward_table, runs_table):
    # Held-out prose, awkward ASCII after a contraction that starts the text, and runs of up
    # to 256 characters with twins that differ in their last byte only (at 14 to 19 bytes,
    # around the longest key): each is long enough for Encoder to take the cache of arrays
    # itself, fresh and after other text. The cache keeps each distinct chunk once; a second
    # pass adds none and gives the same tokens.
    rng = random.Random(42)
    awkward = "".join(
        rng.choice(" \t\n\r\x0b\x0c\x1c\x00\x7f0123'sStdlLrvem,.!-ab") for _ in range(40_000)
    )
    runs = " ".join(
        unit * n for unit in ("a", "ab", "0", "-", "\t", " ") for n in (*range(1, 40), 97, 256)
    )
    twins = " ".join("a" * n + last for n in range(12, 18) for last in "ab")
    for merges, encoding in (table[::2], awkward_table, runs_table):
        for text in (table[1], "'s" + awkward, f"{runs} {twins}" * 10):
            assert len(text) >= Encoder.ARRAYS_FROM and text.isascii()
            encoder = Encoder(merges)
            assert_same_tokens(encoder, encoding, text)
            assert len(encoder._arrays) == len(set(pretokenize(text))) and not encoder._cache
            assert_same_tokens(encoder, encoding, text)
            assert len(encoder._arrays) == len(set(pretokenize(text)))
            warmed = Encoder(merges)
            warmed.encode(text[: len(text) // 3])
            assert_same_tokens(warmed, encoding, text)


class CountingEncoder:
    """Encodes chunks as their letters, and counts how often each chunk is asked for."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, chunks: list[str]) -> list[tuple[str, tuple[str, ...]]]:
        self.asked.update(chunks)
        return [(chunk, tuple(chunk)) for chunk in chunks][::-1]  # in no set order, as RankTable


def words(count: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join("".join(rng.choices("abcdefgh", k=rng.randrange(1, 18))) for _ in range(count))


def test_the_cache_of_arrays_asks_for_each_new_chunk_once_as_it_grows() -> None:
    # A few hundred, then thousands, then tens of thousands of new chunks: the table grows
    # under the ones it holds, a chunk met again is never asked for again, and chunks over
    # 15 bytes are asked for once too, from their dict.
    cache, encode = chunk_cache.ChunkCache(), CountingEncoder()
    texts = [words(count, seed) for seed, count in enumerate((300, 3000, 30_000))]
    for text in [*texts, texts[0]]:
        assert cache.encode(text, encode) == list(text)
    assert set(encode.asked.values()) == {1}
    assert set(encode.asked) == set().union(*map(pretokenize, texts))
    assert len(cache) == len(encode.asked)


def test_the_cache_of_arrays_is_right_when_every_key_hashes_alike(monkeypatch) -> None:
    # Every key in one chain of slots, every new key bidding for the same free slot.
    monkeypatch.setattr(chunk_cache, "_MIX", (np.uint64(0), np.uint64(0)))
    cache, encode = chunk_cache.ChunkCache(), CountingEncoder()
    text = words(400, 1)
    assert cache.encode(text, encode) == list(text) == cache.encode(text, encode)
    assert len(cache) == len(set(pretokenize(text))) == len(encode.asked)


def test_an_interrupted_cache_of_arrays_starts_afresh(monkeypatch) -> None:
    # Stopped inside the table's update (Ctrl-C in a notebook): what it kept must not point
    # at tokens the next chunks overwrite.
    insert = chunk_cache.ChunkCache._insert

    def interrupted(self, first, second, entries):
        kept = self._kept
        insert(self, first, second, entries)
        self._kept = kept  # as if stopped before the count went up
        raise KeyboardInterrupt

    cache, encode = chunk_cache.ChunkCache(), CountingEncoder()
    first_text, other = words(500, 2), words(500, 3)
    monkeypatch.setattr(chunk_cache.ChunkCache, "_insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.encode(first_text, encode)
    monkeypatch.setattr(chunk_cache.ChunkCache, "_insert", insert)
    assert cache.encode(other, encode) == list(other)
    assert cache.encode(first_text, encode) == list(first_text)


def test_chunk_keys_tell_every_short_chunk_apart() -> None:
    # Every chunk of 1 to 15 bytes of NUL and DEL: the bytes nearest the masks' edges.
    chunks = [
        "".join(bits)
        for length in range(1, chunk_cache.LONGEST + 1)
        for bits in product("\x00\x7f", repeat=length)
    ]
    data = "".join(chunks).encode()
    lengths = np.array([len(chunk) for chunk in chunks])
    first, second = chunk_cache.chunk_keys(data, np.cumsum(lengths) - lengths, lengths)
    assert len(set(zip(first.tolist(), second.tolist()))) == len(chunks) == 2**16 - 2
    assert (second != 0).all()


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"]), max_size=40), max_size=8))
def test_any_text_gives_tiktokens_tokens_through_one_encoder(table, texts):
    # One encoder for all the pieces: what it cached from one must not change the next.
    merges, heldout, encoding = table
    encoder = Encoder(merges)
    for text in [*texts, heldout[:2000], "".join(texts)]:
        assert_same_tokens(encoder, encoding, text)


@pytest.mark.parametrize("few", [0, RankTable.few])
def test_many_new_chunks_at_once_give_tiktokens_tokens(
    table, awkward_table, runs_table, few, monkeypatch
):
    # From Encoder.BATCH new chunks in one text on, Encoder encodes them together in numpy
    # (bpe_course.batch_encode): every chunk joins its own lowest pair in the same round, so
    # long runs of one pair ("aaaa", "abab", spaces), non-ASCII runs, characters no table
    # holds and random awkward snippets all go through it at once, fresh and warmed; with
    # few = 0 the rounds go on in numpy to the last chunk instead of finishing in Python.
    monkeypatch.setattr(RankTable, "few", few)
    rng = random.Random(47)
    units = ("a", "ab", "0", "-", "é", " ", "\n", "\U0001f642", "\u4e2d", "'s", "\u00a0")
    runs = [unit * n for unit in units for n in (*range(1, 40), 97, 256, 1000)]
    snippets = ["".join(rng.choices(AWKWARD, k=rng.randrange(1, 30))) for _ in range(600)]
    text = "x".join(runs) + " ".join(snippets) + " ".join(runs)
    assert len(set(pretokenize(text))) >= 2 * Encoder.BATCH
    for merges, encoding in (table[::2], awkward_table, runs_table):
        assert_same_tokens(Encoder(merges), encoding, text)
        warmed = Encoder(merges)
        warmed.encode(" ".join(snippets[::3]))
        assert_same_tokens(warmed, encoding, text)
