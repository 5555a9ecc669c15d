"""Property tests of the reference BPE: what must hold for every corpus, not just the examples.

Corpora are drawn from tiny alphabets so that repeated letters (``aaaa``), one-letter words,
empty words and ties between equal counts are the common case rather than the rare one.
Hypothesis runs derandomized, so every run checks the same examples.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solutions import (
    encode_bpe,
    merge_and_update,
    merge_pair,
    pair_counts,
    train_bpe,
    train_bpe_fast,
)

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)

words_st = st.text(alphabet="abc", max_size=8) | st.text(alphabet="a", min_size=1, max_size=6)
corpora = st.dictionaries(words_st, st.integers(1, 4), max_size=8)
# All counts equal: every pair count is a tie with something.
tied_corpora = st.lists(words_st, max_size=8).map(lambda words: dict.fromkeys(words, 1))
num_merges_st = st.integers(0, 20)


def replay(word: str, merges: list[tuple[str, str]]) -> list[str]:
    """Apply each merge everywhere, in table order: what training does to a word."""
    symbols = tuple(word)
    for pair in merges:
        symbols = merge_pair(symbols, pair)
    return list(symbols)


def makes_new_symbols(merges: list[tuple[str, str]]) -> bool:
    """True when no two merges spell the same token, the condition of lesson 2's proof."""
    return len({left + right for left, right in merges}) == len(merges)


@SETTINGS
@given(corpora | tied_corpora, num_merges_st)
def test_fast_trainer_equals_naive_trainer(corpus, num_merges) -> None:
    assert train_bpe_fast(corpus, num_merges) == train_bpe(corpus, num_merges)


@SETTINGS
@given(corpora, num_merges_st)
def test_training_does_not_modify_its_argument(corpus, num_merges) -> None:
    before = dict(corpus)
    train_bpe(corpus, num_merges)
    train_bpe_fast(corpus, num_merges)
    assert corpus == before


@SETTINGS
@given(corpora | tied_corpora, num_merges_st)
def test_each_merge_is_the_best_pair_with_the_smallest_tie(corpus, num_merges) -> None:
    words = {tuple(word): count for word, count in corpus.items()}
    for pair in train_bpe(corpus, num_merges):
        counts = pair_counts(words)
        best = max(counts.values())
        assert pair == min(p for p, count in counts.items() if count == best)
        words = {merge_pair(symbols, pair): count for symbols, count in words.items()}


@SETTINGS
@given(corpora, num_merges_st, words_st)
def test_encoding_equals_replaying_the_table_in_order(corpus, num_merges, word) -> None:
    merges = train_bpe(corpus, num_merges)
    assume(makes_new_symbols(merges))
    assert encode_bpe(word, merges) == replay(word, merges)


@SETTINGS
@given(corpora, num_merges_st)
def test_training_word_encodes_to_its_training_segmentation(corpus, num_merges) -> None:
    merges = train_bpe(corpus, num_merges)
    assume(makes_new_symbols(merges))
    for word in corpus:
        assert encode_bpe(word, merges) == replay(word, merges)


pieces = st.text(alphabet="abc", min_size=1, max_size=3)


@SETTINGS
@given(st.lists(st.tuples(pieces, pieces), max_size=10), st.text(alphabet="abcz ", max_size=12))
def test_tokens_join_back_to_the_word_for_any_table(merges, word) -> None:
    assert "".join(encode_bpe(word, merges)) == word


class WordsThatCannotBeIterated(list):
    """The exercise's rule made concrete: index the words, never loop over all of them."""

    def __iter__(self):
        raise AssertionError("merge_and_update iterated over the whole word list")


def full_recount(words, counts):
    stats: dict[tuple[str, str], int] = {}
    for symbols, count in zip(list.__iter__(words), counts):
        for pair in zip(symbols, symbols[1:]):
            stats[pair] = stats.get(pair, 0) + count
    return stats


@SETTINGS
@given(corpora | tied_corpora, num_merges_st)
def test_merge_and_update_keeps_stats_and_where_true(corpus, num_merges) -> None:
    plain = [list(word) for word in corpus]
    counts = list(corpus.values())
    stats = full_recount(plain, counts)
    where: dict[tuple[str, str], set[int]] = {}
    for i, symbols in enumerate(plain):
        for pair in zip(symbols, symbols[1:]):
            where.setdefault(pair, set()).add(i)
    words = WordsThatCannotBeIterated(plain)
    # The trained merges make later steps meet stale indices; the last pair is absent.
    for pair in [*train_bpe(corpus, num_merges), ("c", "z")]:
        before = [list(symbols) for symbols in list.__iter__(words)]
        stats_before, changes = dict(stats), {}
        changed = merge_and_update(words, counts, stats, where, pair, changes)
        moved = {
            p for p in stats.keys() | stats_before.keys() if stats.get(p) != stats_before.get(p)
        }
        assert {p for p, change in changes.items() if change} == moved
        after = [list(merge_pair(symbols, pair)) for symbols in before]
        assert list(list.__iter__(words)) == after
        assert changed == [i for i in range(len(after)) if after[i] != before[i]]
        assert stats == full_recount(words, counts)
        assert 0 not in stats.values()
        for i, symbols in enumerate(after):
            for p in zip(symbols, symbols[1:]):
                assert i in where.get(p, ()), f"word {i} holds {p} but where does not say so"


def test_merge_and_update_on_a_run_of_one_letter() -> None:
    words = WordsThatCannotBeIterated([list("aaaaa")])
    stats, where = {("a", "a"): 8}, {("a", "a"): {0}}
    assert merge_and_update(words, [2], stats, where, ("a", "a")) == [0]
    assert list.__getitem__(words, 0) == ["aa", "aa", "a"]
    assert stats == {("aa", "aa"): 2, ("aa", "a"): 2}
    assert ("a", "a") not in where


@pytest.mark.parametrize("word", ["", "a", "ab", "abab", "aaaa", "seats"])
def test_train_on_one_word_until_done_gives_one_token(word) -> None:
    merges = train_bpe_fast({word: 3}, 100)
    assert merges == train_bpe({word: 3}, 100)
    assert encode_bpe(word, merges) == ([word] if word else [])
