"""The text side of the library: pre-tokenizing, vectorized pair counts, the course texts,
loading a learner's own files, and drawing tokens."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    COURSE_TEXT,
    GPT2_PATTERN,
    byte_pair_counts,
    chunk_counts,
    load_text,
    pretokenize,
    shakespeare_text,
    show_pair,
    show_tokens,
    split_train_heldout,
    visible,
)
from bpe_course.pretokenize import ascii_chunk_starts

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)


@SETTINGS
@given(st.text())
def test_pretokenize_round_trips_any_text(text) -> None:
    chunks = pretokenize(text)
    assert "".join(chunks) == text
    assert all(chunks)
    assert sum(chunk_counts(text).values()) == len(chunks)


ascii_text = st.text(alphabet=[chr(code) for code in range(128)]) | st.text(
    alphabet=list(" \t\n\x0b\x0c\r\x1c\x00\x7f'sSlLdDvVeEtTrRmMA9.,")
)


@SETTINGS
@given(ascii_text)
def test_ascii_fast_path_splits_exactly_like_the_unicode_pattern(text) -> None:
    assert pretokenize(text) == regex.findall(GPT2_PATTERN, text)


def array_chunks(text: str) -> list[str]:
    starts = ascii_chunk_starts(np.frombuffer(text.encode(), np.uint8)).tolist()
    return [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)])]


@SETTINGS
@given(ascii_text)
def test_array_cuts_of_ascii_text_are_the_unicode_patterns(text) -> None:
    # The cache of arrays (bpe_course.chunk_cache) finds chunks without any regex.
    assert array_chunks(text) == regex.findall(GPT2_PATTERN, text)


# A quote after a space, a symbol or whitespace of each kind; contractions in upper case,
# cut short or run on; quotes at the very start.
QUOTES = [
    " 's", "a 'll", "x 'd.", "  's", " \n's", "\t's", "\n're", "\x0b'm", "\x1c's", "\x00's",
    "\x7f'd", ".'s", "''s", "'s", "'S", "'Re", "'rE", "'l", "'lll", "9'd", "s's's", "'ve'",
]  # fmt: skip


@pytest.mark.parametrize("text", QUOTES)
def test_array_cuts_around_quotes_are_the_unicode_patterns(text) -> None:
    assert array_chunks(text) == regex.findall(GPT2_PATTERN, text)


def test_array_cuts_of_a_long_random_ascii_text_are_the_unicode_patterns() -> None:
    rng = random.Random(47)
    for alphabet in ("".join(map(chr, range(128))), " \t\n\r'sStdlLrvem.,!09ab"):
        text = "".join(rng.choices(alphabet, k=200_000))
        assert array_chunks(text) == regex.findall(GPT2_PATTERN, text)


def test_pretokenize_keeps_the_leading_space_with_the_word() -> None:
    assert pretokenize("the cat's  hat\n") == ["the", " cat", "'s", " ", " hat", "\n"]


def test_pretokenize_names_a_non_str() -> None:
    with pytest.raises(TypeError, match="bytes"):
        pretokenize(b"the cat")


def counter_pair_counts(chunks, counts):
    total: Counter = Counter()
    for chunk, count in zip(chunks, counts):
        for pair in zip(chunk, chunk[1:]):
            total[pair] += count
    return dict(total)


@SETTINGS
@given(st.lists(st.tuples(st.binary(max_size=6), st.integers(1, 5)), max_size=12))
def test_byte_pair_counts_equals_a_counter_within_chunks(weighted) -> None:
    chunks = [chunk for chunk, _ in weighted]
    counts = [count for _, count in weighted]
    assert byte_pair_counts(chunks, counts) == counter_pair_counts(chunks, counts)


def test_byte_pair_counts_never_counts_across_a_chunk_boundary() -> None:
    counts = byte_pair_counts([b"ab", b"", b"cd", b"e"], [3, 9, 2, 1])
    assert counts == {(97, 98): 3, (99, 100): 2}
    assert (98, 99) not in counts and (100, 101) not in counts


def test_byte_pair_counts_on_ids_beyond_bytes() -> None:
    assert byte_pair_counts([[300, 7, 300]], vocab_size=301) == {(300, 7): 1, (7, 300): 1}
    with pytest.raises(ValueError, match="vocab_size"):
        byte_pair_counts([[300, 7]])


def test_byte_pair_counts_wants_one_count_per_chunk() -> None:
    with pytest.raises(ValueError, match="2 chunks but 1 counts"):
        byte_pair_counts([b"ab", b"cd"], [1])


def test_split_train_heldout_pretokenizes_like_the_whole() -> None:
    train, heldout = split_train_heldout(COURSE_TEXT)
    assert train + heldout == COURSE_TEXT
    assert heldout.startswith(" ")
    assert pretokenize(train) + pretokenize(heldout) == pretokenize(COURSE_TEXT)
    assert 0.6 < len(train) / len(COURSE_TEXT) < 0.7


def test_course_text_is_real_prose() -> None:
    chunks = chunk_counts(COURSE_TEXT)
    assert len(COURSE_TEXT) > 2000 and COURSE_TEXT.isascii()
    assert chunks[" the"] > 20
    assert len(chunks) < sum(chunks.values()) / 2  # words repeat, so deduplicating pays


def test_shakespeare_loads_and_cuts_at_a_line_end() -> None:
    whole = shakespeare_text()
    assert len(whole.encode()) > 4_000_000
    part = shakespeare_text(max_bytes=100_000)
    assert 90_000 < len(part.encode()) <= 100_000
    assert part.endswith("\n") and whole.startswith(part)
    assert " the" in chunk_counts(part)


def test_load_text_reads_a_file_and_a_folder(tmp_path) -> None:
    (tmp_path / "b.txt").write_text("second", encoding="utf-8")
    (tmp_path / "a.txt").write_text("first é", encoding="utf-8")
    (tmp_path / "notes.md").write_text("ignored", encoding="utf-8")
    assert load_text(tmp_path / "a.txt") == "first é"
    assert load_text(str(tmp_path)) == "first é\nsecond"


def test_load_text_names_a_missing_path(tmp_path) -> None:
    missing = tmp_path / "nowhere.txt"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        load_text(missing)


def test_load_text_names_a_file_that_is_not_utf8(tmp_path) -> None:
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("caf\u00e9".encode("latin-1"))
    with pytest.raises(ValueError, match=str(latin)) as excinfo:
        load_text(latin)
    assert "UTF-8" in str(excinfo.value)


def test_load_text_names_a_folder_with_no_txt(tmp_path) -> None:
    (tmp_path / "notes.md").write_text("not a .txt", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        load_text(tmp_path)


def test_display_draws_spaces_and_boundaries() -> None:
    assert visible(" a\tb\n") == "\u2423a\\tb\\n"
    assert show_tokens([" storm", "i", "er"]) == "\u2423storm|i|er"
    assert show_pair((" t", "he")) == "\u2423t he"
