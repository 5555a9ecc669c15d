"""The public engine (``bpe_course``) against the reference (``solutions``).

The notebooks show students ``Trainer``, ``Encoder``, ``ChunkTable`` and the compression
curve, and grade them on ``train_bpe`` and ``encode_bpe``; the two must never disagree.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    COURSE_TEXT,
    ChunkTable,
    Encoder,
    Trainer,
    chunk_counts,
    compression_curve,
    learn_merges,
    pretokenize,
    split_train_heldout,
)
from bpe_course.compression import bytes_per_token
from solutions import encode_bpe, pair_counts, train_bpe

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)

words_st = st.text(alphabet="abc ", max_size=8) | st.text(alphabet="a", min_size=1, max_size=6)
corpora = st.dictionaries(words_st, st.integers(1, 4), max_size=8)


@pytest.fixture(scope="module")
def course_split() -> tuple[str, str]:
    return split_train_heldout(COURSE_TEXT)


@pytest.fixture(scope="module")
def course_merges(course_split) -> list[tuple[str, str]]:
    return train_bpe(chunk_counts(course_split[0]), 150)


@SETTINGS
@given(corpora, st.integers(0, 20))
def test_trainer_learns_what_train_bpe_learns(corpus, num_merges) -> None:
    assert learn_merges(corpus, num_merges) == train_bpe(corpus, num_merges)


@SETTINGS
@given(corpora, st.integers(0, 20))
def test_trainer_counts_and_candidates_are_true_counts(corpus, num_merges) -> None:
    trainer = Trainer(corpus)
    for _ in range(num_merges):
        words = {tuple(symbols): count for symbols, count in zip(trainer.symbols, trainer.counts)}
        truth = pair_counts(words)
        assert trainer.pair_counts == truth
        expected = sorted(truth.items(), key=lambda item: (-item[1], item[0]))[:3]
        assert trainer.candidates(3) == expected
        merge = trainer.step()
        if merge is None:
            assert not truth
            break
        assert merge.count == truth[merge.pair]
        assert trainer.total_tokens == sum(
            len(s) * n for s, n in zip(trainer.symbols, trainer.counts)
        )


def fast_trainer_start(module, train, corpus) -> tuple | None:
    """The words, counts, pair counts and pair->word index a fast trainer of ``solutions``
    starts from: what it hands to ``merge_and_update`` for its first merge (None when it
    finds nothing to merge)."""
    real, seen = module.merge_and_update, []

    def spy(words, counts, stats, where, pair, changes=None):
        if not seen:
            seen.append(copy.deepcopy((words, counts, stats, where)))
        return real(words, counts, stats, where, pair, changes)

    with mock.patch.object(module, "merge_and_update", spy):
        train(corpus, 1)
    return seen[0] if seen else None


def words_of(index: dict, words: list) -> dict:
    """An index with each word id replaced by its word (each trainer numbers words its own
    way: a ChunkTable leaves the empty word out)."""
    return {pair: {"".join(words[i]) for i in ids} for pair, ids in index.items()}


@SETTINGS
@given(corpora)
def test_every_trainer_starts_from_the_same_pair_counts_and_index(corpus) -> None:
    from solutions import fast, hf_ties

    truth_counts = pair_counts({tuple(word): count for word, count in corpus.items()})
    truth_index: dict = {}
    for word in corpus:
        for pair in zip(word, word[1:]):
            truth_index.setdefault(pair, set()).add(word)

    table, trainer = ChunkTable(corpus), Trainer(corpus)
    assert table._starting_pair_counts == trainer.pair_counts == truth_counts
    assert table.index == trainer.index
    assert words_of(trainer.index, trainer.symbols) == truth_index
    for module, train in ((fast, fast.train_bpe_fast), (hf_ties, hf_ties.train_bpe_hf_ties)):
        start = fast_trainer_start(module, train, corpus)
        if start is None:
            assert truth_counts == {}, f"{module.__name__} merged nothing"
            continue
        words, counts, stats, where = start
        assert dict(zip(map("".join, words), counts)) == corpus, module.__name__
        assert stats == truth_counts, module.__name__
        assert words_of(where, words) == truth_index, module.__name__


@SETTINGS
@given(corpora, st.integers(0, 20), st.integers(0, 20))
def test_replaying_known_merges_reaches_the_trainers_state(corpus, replayed, stepped) -> None:
    trainer, replayer = Trainer(corpus), Trainer(corpus)
    for pair in learn_merges(corpus, replayed):
        replayer.replay(pair)
        trainer.step()
    for _ in range(stepped):  # the search still works after a replay
        assert replayer.step() == trainer.step()
    assert replayer.merges == trainer.merges
    assert replayer.pair_counts == trainer.pair_counts
    assert replayer.symbols == trainer.symbols
    assert replayer.total_tokens == trainer.total_tokens
    assert replayer.candidates(4) == trainer.candidates(4)


def test_replaying_a_pair_that_is_not_there_is_named() -> None:
    with pytest.raises(ValueError, match=r"\('c', 'd'\) does not occur"):
        Trainer({"ab": 2}).replay(("c", "d"))


def test_trainer_learns_what_train_bpe_learns_on_course_text(course_split, course_merges) -> None:
    assert learn_merges(chunk_counts(course_split[0]), 150) == course_merges


@SETTINGS
@given(corpora, st.integers(0, 20), st.text(alphabet="abcz ", max_size=10))
def test_encoder_encodes_as_encode_bpe(corpus, num_merges, word) -> None:
    merges = train_bpe(corpus, num_merges)
    assert Encoder(merges).encode_chunk(word) == encode_bpe(word, merges)


def master_encode_bpe():
    """The master notebook's own answer to Exercise 4, run from its solution cell."""
    path = Path(__file__).resolve().parent.parent / "source/bpe/02_encoding_by_rank.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    (cell,) = [
        c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "encode_bpe"
    ]
    source = "".join(cell["source"])
    begin, end = source.index("### BEGIN SOLUTION"), source.index("### END SOLUTION")
    assert source[begin:end].count("\n") > 2, (
        "the solution cell has no solution between its markers"
    )
    namespace: dict = {}
    exec(compile(source, "<02_encoding_by_rank.ipynb: encode_bpe>", "exec"), namespace)
    return namespace["encode_bpe"]


MASTER_ENCODE_BPE = master_encode_bpe()

# Hand-made tables: pieces that training could never pair up, pairs whose token another pair
# also spells, and the same pair listed more than once, anywhere in the table.
# Single characters are drawn often so that most merges can apply to the word.
pieces = st.sampled_from("abc") | st.text(alphabet="abc", min_size=1, max_size=3)
plain_tables = st.lists(st.tuples(pieces, pieces), max_size=10)
tables_with_repeats = st.lists(st.tuples(pieces, pieces), min_size=1, max_size=5).flatmap(
    lambda pairs: st.lists(st.sampled_from(pairs), max_size=12)
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(plain_tables | tables_with_repeats, st.text(alphabet="abcz", max_size=10))
def test_reference_master_and_encoder_agree_on_any_table(merges, word) -> None:
    expected = encode_bpe(word, merges)
    assert MASTER_ENCODE_BPE(word, list(merges)) == expected
    assert Encoder(merges).encode_chunk(word) == expected


@pytest.mark.parametrize(
    ("word", "merges", "tokens"),
    [
        # One join at a time: after "ab" the pair (ab, a) outranks the second (a, b).
        ("abab", [("ab", "a"), ("a", "b")], ["aba", "b"]),
        # A repeated pair must not hide the pairs listed after it.
        ("cd", [("a", "b"), ("a", "b"), ("c", "d")], ["cd"]),
        ("abcd", [("a", "b"), ("a", "b"), ("c", "d"), ("ab", "cd")], ["abcd"]),
    ],
)
def test_hand_made_tables_the_review_found(word, merges, tokens) -> None:
    assert encode_bpe(word, merges) == tokens
    assert MASTER_ENCODE_BPE(word, merges) == tokens
    assert Encoder(merges).encode_chunk(word) == tokens


def test_encoder_matches_encode_bpe_on_held_out_course_text(course_split, course_merges) -> None:
    encoder = Encoder(course_merges)
    for chunk in pretokenize(course_split[1]):
        assert encoder.encode_chunk(chunk) == encode_bpe(chunk, course_merges)


def test_encoder_cache_returns_fresh_lists(course_merges) -> None:
    encoder = Encoder(course_merges)
    first = encoder.encode_chunk(" the")
    first.append("junk")
    assert encoder.encode_chunk(" the") == encode_bpe(" the", course_merges)


def test_encode_joins_back_to_the_text(course_split, course_merges) -> None:
    assert "".join(Encoder(course_merges).encode(course_split[1])) == course_split[1]


def test_chunk_table_replay_equals_encoding(course_split, course_merges) -> None:
    heldout = chunk_counts(course_split[1])
    table = ChunkTable(heldout)
    for pair in course_merges:
        table.apply(pair)
    encoder = Encoder(course_merges)
    for chunk in heldout:
        assert table.segmentation(chunk) == encoder.encode_chunk(chunk)
    assert table.total_tokens == len(encoder.encode(course_split[1]))


@pytest.fixture(scope="module")
def curve(course_split):
    return compression_curve(*course_split, num_merges=120, progress=False)


def test_curve_merges_are_the_trainer_merges(curve, course_merges) -> None:
    assert curve.merges == course_merges[:120]
    assert len(curve.train_rho) == len(curve.heldout_rho) == 121


@pytest.mark.parametrize("k", [0, 1, 7, 40, 120])
def test_curve_rho_equals_rho_measured_with_the_encoder(curve, course_split, k) -> None:
    train, heldout = course_split
    assert curve.heldout_rho[k] == pytest.approx(bytes_per_token(heldout, curve.merges[:k]))
    assert curve.train_rho[k] == pytest.approx(bytes_per_token(train, curve.merges[:k]))


texts = st.text(alphabet="ab c\n", min_size=1, max_size=40).filter(str.strip)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(texts, texts | st.text(alphabet="abz ", min_size=1, max_size=20))
def test_curve_heldout_replay_equals_encoding_on_random_texts(train, heldout) -> None:
    curve = compression_curve(train, heldout, progress=False)
    tokens = ["".join(pair) for pair in curve.merges]
    assert len(set(tokens)) == len(tokens), "training made one token twice: replay may differ"
    assert curve.heldout_rho[-1] == pytest.approx(bytes_per_token(heldout, curve.merges))
    last = len(curve.merges)
    for k in sorted({0, min(1, last), last // 2, last}):
        assert curve.heldout_rho[k] == pytest.approx(bytes_per_token(heldout, curve.merges[:k]))
        assert curve.train_rho[k] == pytest.approx(bytes_per_token(train, curve.merges[:k]))


def test_replay_differs_from_encoding_when_the_precondition_fails() -> None:
    # The docstring's example: a merge listed before the token it needs exists.
    table = ChunkTable({"abc": 1})
    merges = [("a", "bc"), ("b", "c")]
    for pair in merges:
        table.apply(pair)
    assert table.segmentation("abc") == ["a", "bc"]
    assert Encoder(merges).encode_chunk("abc") == encode_bpe("abc", merges) == ["abc"]


def test_curve_overfits(curve) -> None:
    # Training compression only rises; by the end it is above held-out compression.
    assert curve.train_rho == sorted(curve.train_rho)
    assert curve.train_rho[-1] > curve.heldout_rho[-1] > curve.heldout_rho[0]


def test_curve_to_the_end_makes_every_training_chunk_one_token(course_split) -> None:
    train, heldout = course_split
    full = compression_curve(train, heldout, progress=False)
    chunks = chunk_counts(train)
    assert full.train_rho[-1] == pytest.approx(len(train.encode()) / sum(chunks.values()))


def test_curve_names_an_empty_text() -> None:
    with pytest.raises(ValueError, match="heldout_text"):
        compression_curve("some text", "", progress=False)
