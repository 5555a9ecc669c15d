"""Every number of the lessons' worked examples, one test each, against the reference code.

The six-word corpus (tea 6, teas 2, eat 5, eats 3, seat 4, set 3) is traced by hand in
lesson 1; the encoding examples come from lesson 2. If one of these fails, the notebooks
and the reference disagree about a number a student checks with pencil and paper.
"""

from __future__ import annotations

import pytest
import tiktoken

from bpe_course import Trainer
from bpe_course.real_tokenizers import tiktoken_ranks
from solutions import encode_bpe, merge_pair, pair_counts, train_bpe, train_bpe_fast

CORPUS = {"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}
SIX_MERGES = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat"), ("e", "t"), ("eat", "s")]


def as_symbols(corpus: dict[str, int]) -> dict[tuple[str, ...], int]:
    return {tuple(word): count for word, count in corpus.items()}


def corpus_tokens(merges: list[tuple[str, str]]) -> int:
    """Tokens of the whole corpus after replaying ``merges`` on every word."""
    total = 0
    for word, count in CORPUS.items():
        symbols = tuple(word)
        for pair in merges:
            symbols = merge_pair(symbols, pair)
        total += len(symbols) * count
    return total


def test_corpus_starts_at_78_tokens() -> None:
    assert corpus_tokens([]) == 78
    assert Trainer(CORPUS).total_tokens == 78


def test_e_a_counts_20() -> None:
    assert pair_counts(as_symbols(CORPUS))[("e", "a")] == 20


def test_a_t_counts_12_and_is_the_runner_up() -> None:
    counts = pair_counts(as_symbols(CORPUS))
    assert counts[("a", "t")] == 12
    ranked = sorted(counts, key=lambda pair: (-counts[pair], pair))
    assert ranked[:2] == [("e", "a"), ("a", "t")]


def test_step_4_candidates() -> None:
    words = as_symbols(CORPUS)
    for pair in SIX_MERGES[:3]:
        words = {merge_pair(symbols, pair): count for symbols, count in words.items()}
    counts = pair_counts(words)
    assert counts[("s", "eat")] == 4
    assert counts[("e", "t")] == counts[("eat", "s")] == counts[("s", "e")] == 3


@pytest.mark.parametrize("train", [train_bpe, train_bpe_fast])
def test_six_merges_in_order(train) -> None:
    assert train(CORPUS, 6) == SIX_MERGES


def test_step_5_tie_goes_to_e_t_and_step_6_to_eat_s() -> None:
    # Three pairs tie at 3 after four merges; ("e", "t") < ("eat", "s") < ("s", "e").
    assert train_bpe(CORPUS, 5)[4] == ("e", "t")
    assert ("eat", "s") < ("s", "et")
    assert train_bpe(CORPUS, 6)[5] == ("eat", "s")


@pytest.mark.parametrize(("num_merges", "tokens"), [(0, 78), (1, 58), (2, 46), (3, 38), (4, 34)])
def test_corpus_size_after_each_merge(num_merges: int, tokens: int) -> None:
    assert corpus_tokens(train_bpe(CORPUS, num_merges)) == tokens


def test_trainer_reports_the_same_sizes_and_counts() -> None:
    trainer = Trainer(CORPUS)
    sizes, counts = [trainer.total_tokens], []
    for _ in range(4):
        merge = trainer.step()
        sizes.append(trainer.total_tokens)
        counts.append(merge.count)
    assert sizes == [78, 58, 46, 38, 34]
    assert counts == [20, 12, 8, 4]


def test_vocabulary_after_four_merges_is_b_plus_m() -> None:
    merges = train_bpe(CORPUS, 4)
    base = {char for word in CORPUS for char in word}
    vocab = base | {left + right for left, right in merges}
    assert vocab == {"a", "e", "s", "t", "ea", "eat", "tea", "seat"}
    assert len(vocab) == len(base) + len(merges) == 4 + 4


def test_gpt2_vocabulary_is_256_plus_50000_plus_1() -> None:
    # 50,000 merges, each making a new two-byte token, over the 256 bytes, plus one special
    # token: tiktoken counts the same 50,257 that GPT-2's tokenizer has.
    merges = [(bytes([a]), bytes([b])) for a in range(256) for b in range(256)][:50_000]
    ranks = tiktoken_ranks(merges)
    encoding = tiktoken.Encoding(
        name="gpt2-sized",
        pat_str=r"\S+|\s+",
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": len(ranks)},
    )
    assert len(ranks) == 256 + 50_000
    assert encoding.n_vocab == 256 + 50_000 + 1 == 50_257


def test_merge_pair_without_overlaps() -> None:
    assert merge_pair(("a", "a", "a"), ("a", "a")) == ("aa", "a")


def test_merge_pair_every_occurrence() -> None:
    assert merge_pair(("e", "a", "t", "e", "a", "t"), ("e", "a")) == ("ea", "t", "ea", "t")


def test_seats_encodes_as_seat_s() -> None:
    assert encode_bpe("seats", SIX_MERGES) == ["seat", "s"]


def leftmost_first(word: str, merges: list[tuple[str, str]]) -> list[str]:
    """The classic bug: join the leftmost pair that has any rank, not the lowest rank."""
    ranked = set(merges)
    symbols = list(word)
    while True:
        for i, pair in enumerate(zip(symbols, symbols[1:])):
            if pair in ranked:
                symbols[i : i + 2] = [pair[0] + pair[1]]
                break
        else:
            return symbols


def test_steat_encodes_by_rank_not_leftmost_first() -> None:
    assert encode_bpe("steat", SIX_MERGES) == ["s", "t", "eat"]
    assert leftmost_first("steat", SIX_MERGES) == ["s", "tea", "t"]


def test_unseen_z_stays_alone() -> None:
    assert encode_bpe("z", SIX_MERGES) == ["z"]
    assert encode_bpe("seatz", SIX_MERGES) == ["seat", "z"]


def test_empty_word_gives_no_tokens() -> None:
    assert encode_bpe("", SIX_MERGES) == []


@pytest.mark.parametrize("train", [train_bpe, train_bpe_fast])
def test_ab_bcd_learns_ab_bc_bcd(train) -> None:
    assert train({"ab": 10, "bcd": 6}, 3) == [("a", "b"), ("b", "c"), ("bc", "d")]


def test_abcd_encodes_greedily_as_three_tokens() -> None:
    # Not the shortest split (a + bcd): (a, b) ranks first and spends the b before (b, c).
    assert encode_bpe("abcd", [("a", "b"), ("b", "c"), ("bc", "d")]) == ["ab", "c", "d"]


def test_training_stops_when_every_word_is_one_symbol() -> None:
    # Six merges turn the corpus into one symbol per word except "set"; asking for 50
    # merges returns only those that exist, and a pair seen once still merges.
    merges = train_bpe(CORPUS, 50)
    assert merges == train_bpe_fast(CORPUS, 50)
    assert corpus_tokens(merges) == sum(CORPUS.values())
    assert train_bpe({"ab": 1}, 5) == [("a", "b")]
