"""A caller's mistake is named at the call: which argument, what was wrong, what to pass.

Each error must come from the argument checks, not from somewhere deep in a loop, so the
traceback a learner sees ends where the mistake is explained.
"""

from __future__ import annotations

import pytest

from bpe_course import learn_merges
from bpe_course.real_tokenizers import hf_tokenizer, hf_tokens, hf_train, tiktoken_encoding
from solutions import train_bpe, train_bpe_fast

TRAINERS = [train_bpe, train_bpe_fast]


def raised_at_the_check(excinfo: pytest.ExceptionInfo) -> bool:
    return excinfo.traceback[-1].path.name == "validate.py"


@pytest.mark.parametrize("train", TRAINERS)
def test_negative_num_merges_is_named(train) -> None:
    with pytest.raises(ValueError, match="num_merges") as excinfo:
        train({"ab": 1}, -1)
    assert "-1" in str(excinfo.value)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize("train", TRAINERS)
@pytest.mark.parametrize("num_merges", [2.0, "3", None, True])
def test_non_integer_num_merges_is_named(train, num_merges) -> None:
    with pytest.raises(TypeError, match="num_merges") as excinfo:
        train({"ab": 1}, num_merges)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize("train", TRAINERS)
@pytest.mark.parametrize("count", [1.5, "2", None, True])
def test_non_integer_count_names_the_word(train, count) -> None:
    with pytest.raises(TypeError, match=r"word_counts\['ab'\]") as excinfo:
        train({"cd": 1, "ab": count}, 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize("train", TRAINERS)
@pytest.mark.parametrize("count", [0, -3])
def test_count_below_one_names_the_word(train, count) -> None:
    with pytest.raises(ValueError, match=r"word_counts\['ab'\]"):
        train({"ab": count}, 2)


@pytest.mark.parametrize("train", TRAINERS)
def test_non_str_key_is_named(train) -> None:
    with pytest.raises(TypeError, match=r"word_counts has a key \('a', 'b'\)") as excinfo:
        train({("a", "b"): 3}, 2)
    assert raised_at_the_check(excinfo)


@pytest.mark.parametrize("train", TRAINERS)
def test_not_a_mapping_is_named(train) -> None:
    with pytest.raises(TypeError, match="word_counts must map"):
        train(["ab", "cd"], 2)


@pytest.mark.parametrize("train", TRAINERS)
def test_bad_input_leaves_the_argument_alone(train) -> None:
    corpus = {"ab": 2, "cd": "x"}
    with pytest.raises(TypeError):
        train(corpus, 1)
    assert corpus == {"ab": 2, "cd": "x"}


def test_learn_merges_names_num_merges() -> None:
    with pytest.raises(ValueError, match="num_merges"):
        learn_merges({"ab": 1}, -2)


def test_hf_train_names_its_arguments() -> None:
    with pytest.raises(ValueError, match="num_merges"):
        hf_train({"ab": 1}, -1)
    with pytest.raises(ValueError, match=r"chunk_counts\['ab'\]"):
        hf_train({"ab": 0}, 1)
    with pytest.raises(TypeError, match="not a str"):
        hf_train({b"ab": 1}, 1)


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
