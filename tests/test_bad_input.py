"""A caller's mistake is named at the call: which argument, what was wrong, what to pass.

Each error must come from the argument checks, not from somewhere deep in a loop, so the
traceback a learner sees ends where the mistake is explained.
"""

from __future__ import annotations

import pytest

from bpe_course import learn_merges
from bpe_course.real_tokenizers import hf_tokenizer, hf_tokens, hf_train, tiktoken_encoding
from solutions import train_bpe, train_bpe_fast
from solutions.hf_ties import train_bpe_hf_ties

# Every trainer, with the name its count table goes by: all four run the same check.
TRAINERS = [
    pytest.param(train_bpe, "word_counts", id="train_bpe"),
    pytest.param(train_bpe_fast, "word_counts", id="train_bpe_fast"),
    pytest.param(train_bpe_hf_ties, "word_counts", id="train_bpe_hf_ties"),
    pytest.param(learn_merges, "chunk_counts", id="learn_merges"),
    pytest.param(hf_train, "chunk_counts", id="hf_train"),
]


def raised_at_the_check(excinfo: pytest.ExceptionInfo) -> bool:
    return excinfo.traceback[-1].path.name == "validate.py"


@pytest.mark.parametrize(("train", "name"), TRAINERS)
def test_negative_num_merges_is_named(train, name) -> None:
    with pytest.raises(ValueError, match="num_merges") as excinfo:
        train({"ab": 1}, -1)
    assert "-1" in str(excinfo.value)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
@pytest.mark.parametrize("num_merges", [2.0, "3", None, True])
def test_non_integer_num_merges_is_named(train, name, num_merges) -> None:
    if train is learn_merges and num_merges is None:
        assert learn_merges({"ab": 1}, None) == [("a", "b")]  # None means "until the end"
        return
    with pytest.raises(TypeError, match="num_merges") as excinfo:
        train({"ab": 1}, num_merges)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
@pytest.mark.parametrize("count", [1.5, "2", None, True])
def test_non_integer_count_names_the_word(train, name, count) -> None:
    with pytest.raises(TypeError, match=rf"{name}\['ab'\]") as excinfo:
        train({"cd": 1, "ab": count}, 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
@pytest.mark.parametrize("count", [0, -3])
def test_count_below_one_names_the_word(train, name, count) -> None:
    with pytest.raises(ValueError, match=rf"{name}\['ab'\]") as excinfo:
        train({"ab": count}, 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
def test_non_str_key_is_named(train, name) -> None:
    with pytest.raises(TypeError, match=rf"{name} has a key \('a', 'b'\)") as excinfo:
        train({("a", "b"): 3}, 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
def test_not_a_mapping_is_named(train, name) -> None:
    with pytest.raises(TypeError, match=f"{name} must map") as excinfo:
        train(["ab", "cd"], 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize(("train", "name"), TRAINERS)
def test_bad_input_leaves_the_argument_alone(train, name) -> None:
    corpus = {"ab": 2, "cd": "x"}
    with pytest.raises(TypeError):
        train(corpus, 1)
    assert corpus == {"ab": 2, "cd": "x"}


def test_hf_tokenizer_names_a_merge_outside_the_alphabet() -> None:
    with pytest.raises(ValueError, match=r"merge 1 .*'c' is not in the alphabet"):
        hf_tokenizer([("a", "b"), ("ab", "c")], alphabet="ab")


def test_hf_tokens_names_characters_outside_the_alphabet() -> None:
    tokenizer = hf_tokenizer([("a", "b")], alphabet="ab ")
    assert hf_tokens(tokenizer, "ab ba") == ["ab", " ", "b", "a"]
    with pytest.raises(ValueError, match=r"\['z'\]"):
        hf_tokens(tokenizer, "abz")


def test_tiktoken_refuses_a_table_it_could_not_build_from_bytes() -> None:
    # "é" is two bytes in UTF-8, and no merge joins them, so tiktoken could never make "éa".
    with pytest.raises(ValueError, match=r"merge 0 .*left half is 2 bytes"):
        tiktoken_encoding([("é", "a")])


def test_tiktoken_refuses_a_merge_that_is_not_a_pair() -> None:
    with pytest.raises(TypeError, match="merge 1 is"):
        tiktoken_encoding([("a", "b"), ("abc",)])
