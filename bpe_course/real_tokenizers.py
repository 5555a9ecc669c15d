"""Our merge tables inside the real libraries: tiktoken and Hugging Face ``tokenizers``.

Lesson 4 checks the course's BPE against production code. This file turns a merge table
(the list of ``(left, right)`` pairs a trainer returns) into a ``tiktoken.Encoding`` and into
a ``tokenizers.Tokenizer``, both built locally from our own ranks, and runs Hugging Face's Rust
trainer on exactly the chunks our trainers see. It never downloads anything: in particular it
never calls ``tiktoken.get_encoding``, which fetches OpenAI's tables from the internet. It does
not train or encode by itself; ``bpe_course.engine`` does that.

>>> merges = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")]
>>> enc = tiktoken_encoding(merges)
>>> [enc.decode([token]) for token in enc.encode_ordinary("seats")]
['seat', 's']
>>> tok = hf_tokenizer(merges, alphabet="aest")
>>> tok.encode("seats").tokens
['seat', 's']
>>> hf_train({"ab": 10, "bcd": 6}, 3)
[('a', 'b'), ('b', 'c'), ('bc', 'd')]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import tiktoken
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.validate import check_training_args

Pair = tuple[str, str]

# Hugging Face keeps 10,000 chunks in its per-model cache by default; a megabyte of English
# has more distinct chunks than that, and a cache miss only costs time, never correctness.
HF_CACHE_CAPACITY = 1_000_000


def _as_bytes(symbol: str | bytes, rank: int, side: str) -> bytes:
    if isinstance(symbol, bytes):
        return symbol
    if isinstance(symbol, str):
        return symbol.encode("utf-8")
    raise TypeError(
        f"merge {rank} has a {side} half {symbol!r} of type {type(symbol).__name__}; "
        "each half must be a str (or bytes)"
    )


def _check_pair(merge: object, rank: int) -> tuple[Any, Any]:  # each half checked by its user
    if not isinstance(merge, Sequence) or isinstance(merge, str | bytes) or len(merge) != 2:
        raise TypeError(f"merge {rank} is {merge!r}; each merge must be a (left, right) pair")
    return merge[0], merge[1]


def tiktoken_ranks(merges: Iterable[Sequence[str | bytes]]) -> dict[bytes, int]:
    """tiktoken's ``mergeable_ranks`` for a merge table: every byte, then each merge's result.

    The 256 single bytes get ranks 0 to 255 in byte order; merge ``r`` then gets the next free
    rank for the bytes of ``left + right``. A merge whose result already has a rank (two pairs
    that spell the same token) is skipped, because tiktoken refuses duplicate ranks. Each half
    must already be a ranked token, otherwise tiktoken could never build it from bytes; that
    happens when a table was trained on characters of non-ASCII text.
    """
    ranks = {bytes([byte]): byte for byte in range(256)}
    for rank, merge in enumerate(merges):
        left, right = _check_pair(merge, rank)
        halves = (_as_bytes(left, rank, "left"), _as_bytes(right, rank, "right"))
        for side, half in zip(("left", "right"), halves):
            if half not in ranks:
                raise ValueError(
                    f"merge {rank} {merge!r}: its {side} half is {len(half)} bytes that no "
                    "earlier merge builds; tiktoken works on bytes, so train the table on "
                    "bytes or on ASCII text"
                )
        ranks.setdefault(halves[0] + halves[1], len(ranks))
    return ranks


def tiktoken_encoding(
    merges: Iterable[Sequence[str | bytes]], name: str = "bpe-course"
) -> tiktoken.Encoding:
    """A ``tiktoken.Encoding`` that splits text with GPT-2's pattern and merges by our ranks.

    It has no special tokens. Built entirely in memory, so it works offline. tiktoken ranks
    tokens, not pairs: it joins any two neighbours whose bytes together have a rank, even
    when that is not the pair the table joins. On tables our trainers learn from the course
    texts this gives exactly the tokens of ``bpe_course.Encoder`` (the parity tests check
    it); a hand-made table such as ``(a, b), (b, c), (a, bc)`` does not: tiktoken makes
    ``abc`` one token, while the merge table gives ``ab`` + ``c``.
    """
    return tiktoken.Encoding(
        name=name,
        pat_str=GPT2_PATTERN,
        mergeable_ranks=tiktoken_ranks(merges),
        special_tokens={},
    )


def hf_vocab(merges: Iterable[Sequence[str]], alphabet: Iterable[str]) -> dict[str, int]:
    """Ids for Hugging Face's BPE model: the alphabet in code-point order, then each new token.

    Raises ValueError naming the first merge whose half is neither in the alphabet nor made
    by an earlier merge, and TypeError for an alphabet entry that is not one character.
    """
    vocab: dict[str, int] = {}
    for char in sorted(set(alphabet)):
        if not isinstance(char, str) or len(char) != 1:
            raise TypeError(f"alphabet must hold single characters, got {char!r}")
        vocab[char] = len(vocab)
    for rank, merge in enumerate(merges):
        left, right = _check_pair(merge, rank)
        for side, half in (("left", left), ("right", right)):
            if not isinstance(half, str):
                raise TypeError(f"merge {rank} has a {side} half {half!r} that is not a str")
            if half not in vocab:
                raise ValueError(
                    f"merge {rank} {merge!r}: its {side} half {half!r} is not in the alphabet "
                    "and no earlier merge makes it; pass the alphabet the table was trained on"
                )
        vocab.setdefault(left + right, len(vocab))
    return vocab


def hf_tokenizer(merges: Sequence[Sequence[str]], alphabet: Iterable[str]) -> Tokenizer:
    """A Hugging Face ``Tokenizer`` that encodes exactly as ``bpe_course.Encoder`` does.

    It pre-tokenizes with the same GPT-2 pattern, merges by our ranks, and decodes by plain
    concatenation. Hugging Face silently drops characters missing from its vocabulary, so use
    :func:`hf_tokens` when the text may hold characters outside ``alphabet``.
    """
    merges = list(merges)
    vocab = hf_vocab(merges, alphabet)
    model = models.BPE(
        vocab, [(left, right) for left, right in merges], cache_capacity=HF_CACHE_CAPACITY
    )
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    return tokenizer


def hf_tokens(tokenizer: Tokenizer, text: str) -> list[str]:
    """The tokens of ``text``, or ValueError naming a character the vocabulary lacks."""
    tokens = tokenizer.encode(text).tokens
    if "".join(tokens) != text:
        vocab = tokenizer.get_vocab()
        missing = sorted({char for char in text if char not in vocab})
        raise ValueError(
            f"the text holds characters outside the tokenizer's alphabet: {missing!r}; "
            "Hugging Face would drop them, so train on text that contains them"
        )
    return tokens


def _repeated_chunks(chunk_counts: Mapping[str, int], batch: int = 4096) -> Iterator[list[str]]:
    # With no pre-tokenizer each string fed is one "word" to Hugging Face, so repeating every
    # chunk `count` times hands its trainer exactly our weighted chunk table.
    pending: list[str] = []
    for chunk, count in chunk_counts.items():
        pending.extend([chunk] * count)
        if len(pending) >= batch:
            yield pending
            pending = []
    if pending:
        yield pending


def hf_train(chunk_counts: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Hugging Face's ``BpeTrainer`` on our chunk counts; its first ``num_merges`` merges.

    Its rules match ours except for ties: it prefers the pair with the smaller token ids
    (characters numbered in code-point order, merged tokens in order of creation), so its
    list equals ``train_bpe``'s up to the first tie that the two rules settle differently.
    """
    check_training_args(chunk_counts, num_merges, counts_name="chunk_counts")
    chunks = {chunk: count for chunk, count in chunk_counts.items() if chunk}
    alphabet = {char for chunk in chunks for char in chunk}
    tokenizer = Tokenizer(models.BPE())
    trainer = trainers.BpeTrainer(
        vocab_size=len(alphabet) + num_merges,
        min_frequency=0,
        special_tokens=[],
        show_progress=False,
    )
    tokenizer.train_from_iterator(_repeated_chunks(chunks), trainer=trainer)
    learned = json.loads(tokenizer.to_str())["model"]["merges"]
    # Two pairs spelling the same token add one vocabulary entry, so Hugging Face may learn
    # more than `num_merges` merges before the vocabulary is full.
    return [(left, right) for left, right in learned[:num_merges]]
