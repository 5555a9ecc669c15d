"""Our BPE next to the real libraries: same tokens as Hugging Face and tiktoken, and Hugging
Face's own trainer learning our merges up to the first tie it breaks differently.

Everything is built offline from our merge tables (``bpe_course.real_tokenizers``). The
tables are byte-level in effect: the texts are ASCII, so each character is one byte, and the
alphabet given to Hugging Face is all 128 ASCII characters.
"""

from __future__ import annotations

import socket

import pytest
import tiktoken

from bpe_course import (
    COURSE_TEXT,
    Encoder,
    Trainer,
    chunk_counts,
    shakespeare_text,
    split_train_heldout,
)
from bpe_course.real_tokenizers import (
    hf_tokenizer,
    hf_tokens,
    hf_train,
    tiktoken_encoding,
    tiktoken_ranks,
)
from solutions import train_bpe_fast
from solutions.hf_ties import train_bpe_hf_ties

ASCII = [chr(code) for code in range(128)]
NUM_MERGES = 2000


@pytest.fixture(scope="module")
def shakespeare() -> tuple[str, str]:
    text = shakespeare_text(max_bytes=1_000_000)
    assert text.isascii()
    return split_train_heldout(text, train_fraction=0.8)


@pytest.fixture(scope="module")
def shakespeare_counts(shakespeare):
    return chunk_counts(shakespeare[0])


@pytest.fixture(scope="module")
def shakespeare_merges(shakespeare_counts) -> list[tuple[str, str]]:
    return train_bpe_fast(shakespeare_counts, NUM_MERGES)


@pytest.fixture(scope="module")
def course_table() -> tuple[list[tuple[str, str]], str]:
    """Every merge the course text's training part allows: long, overfitted tokens."""
    train, heldout = split_train_heldout(COURSE_TEXT)
    return train_bpe_fast(chunk_counts(train), 10_000), heldout


def tiktoken_tokens(encoding: tiktoken.Encoding, text: str) -> list[str]:
    return [encoding.decode_single_token_bytes(t).decode() for t in encoding.encode_ordinary(text)]


def test_hf_tokenizer_encodes_held_out_shakespeare_like_us(shakespeare, shakespeare_merges):
    heldout = shakespeare[1]
    ours = Encoder(shakespeare_merges).encode(heldout)
    tokenizer = hf_tokenizer(shakespeare_merges, ASCII)
    assert hf_tokens(tokenizer, heldout) == ours
    assert tokenizer.decode(tokenizer.encode(heldout).ids) == heldout


def test_tiktoken_encodes_held_out_shakespeare_like_us(shakespeare, shakespeare_merges):
    heldout = shakespeare[1]
    ours = Encoder(shakespeare_merges).encode(heldout)
    encoding = tiktoken_encoding(shakespeare_merges)
    assert tiktoken_tokens(encoding, heldout) == ours
    ranks = tiktoken_ranks(shakespeare_merges)
    assert encoding.encode_ordinary(heldout) == [ranks[token.encode()] for token in ours]
    assert encoding.decode(encoding.encode_ordinary(heldout)) == heldout


def test_both_libraries_agree_on_an_overfitted_table(course_table):
    merges, heldout = course_table
    ours = Encoder(merges).encode(heldout)
    assert len(merges) > 400
    assert hf_tokens(hf_tokenizer(merges, ASCII), heldout) == ours
    assert tiktoken_tokens(tiktoken_encoding(merges), heldout) == ours


def test_hf_trainer_learns_our_merges_until_a_tie(shakespeare_counts, shakespeare_merges):
    theirs = hf_train(shakespeare_counts, NUM_MERGES)
    assert len(theirs) == NUM_MERGES
    first = next(i for i, (a, b) in enumerate(zip(shakespeare_merges, theirs)) if a != b)
    assert first > 20  # the frequent pairs come first and have no ties
    assert theirs[:first] == shakespeare_merges[:first]
    trainer = Trainer(shakespeare_counts)
    for _ in range(first):
        trainer.step()
    ours_pair, their_pair = shakespeare_merges[first], theirs[first]
    assert trainer.pair_counts[ours_pair] == trainer.pair_counts[their_pair]
    assert ours_pair < their_pair  # we take the smaller pair of strings


def test_hf_trainer_is_our_trainer_with_ties_broken_by_token_id(shakespeare_counts):
    # So every difference between its merges and ours comes from a tie.
    assert hf_train(shakespeare_counts, NUM_MERGES) == train_bpe_hf_ties(
        shakespeare_counts, NUM_MERGES
    )


def test_hf_trainer_matches_the_tie_rule_on_a_tie_heavy_text():
    counts = chunk_counts(COURSE_TEXT)
    theirs = hf_train(counts, 10_000)
    assert theirs == train_bpe_hf_ties(counts, 10_000)
    assert theirs != train_bpe_fast(counts, 10_000)


def test_building_and_using_them_never_touches_the_network(monkeypatch, course_table):
    def refuse(*args, **kwargs):
        raise AssertionError("tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    merges, heldout = course_table
    assert tiktoken_tokens(tiktoken_encoding(merges), heldout)
    assert hf_tokens(hf_tokenizer(merges, ASCII), heldout)
    assert hf_train(chunk_counts(heldout), 50)


def test_tiktoken_ranks_tokens_not_pairs():
    # The documented limit of the tiktoken bridge: it joins "a" + "bc" because "abc" has a
    # rank, although the table only ever joins (a, bc) after (a, b) has taken the b.
    merges = [("a", "b"), ("b", "c"), ("a", "bc")]
    assert Encoder(merges).encode("abc") == ["ab", "c"]
    assert tiktoken_tokens(tiktoken_encoding(merges), "abc") == ["abc"]
