"""Demonstrations behind the lessons' claims: each function runs one and returns what it found.

Raw text against pre-tokenized text (:func:`raw_and_pretokenized`), Hugging Face's trainer
against ours on files (:func:`hf_against_ours`), the fast path for chunks that are whole
tokens (:func:`fast_path`), the two encoders of lesson 2's proof on many words
(:func:`proof_run`), the tokens encoding leaves out (:func:`rarely_emitted`), and PyTorch,
hidden on request (:func:`torch_hidden`). The lessons print what these return.

But: nothing here trains or encodes in a new way; ``bpe_course.engine`` does that, and the
timings are the reader's machine's, never a promise.

>>> crosses_boundary("e t"), crosses_boundary(" the")
(True, False)
>>> raw, pre = raw_and_pretokenized("the cat sat on the mat, the end", 3)
>>> raw, pre
(['at', 'e ', 'he '], ['at', 'he', 'the'])
>>> proof_run([("a", "a"), ("aa", "a")], ["aaaaa", "baaa", " aa"])
(3, [])
>>> rarely_emitted([("a", "b"), ("ab", "c")], "abc abc")
[(0, 'ab', 0)]
"""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from bpe_course.engine import ChunkTable, Encoder, Pair, Trainer
from bpe_course.pretokenize import GPT2_PATTERN, chunk_counts, pretokenize

# A lesson cell (and the tests) hide an installed PyTorch by setting this to 1.
HIDE_TORCH = "BPE_COURSE_HIDE_TORCH"


def crosses_boundary(token: str) -> bool:
    """True when the token holds whitespace right after a character that is not whitespace.

    GPT-style chunks start with their space, so such a token runs from the end of one word
    into the gap before the next: something pre-tokenized training can never make.
    """
    return re.search(r"\S\s", token) is not None


def raw_and_pretokenized(text: str, num_merges: int) -> tuple[list[str], list[str]]:
    """The tokens of the first merges learned on ``text`` as one raw string, and as chunks."""
    raw = Trainer({text: 1})
    pre = Trainer(chunk_counts(text))
    tokens: tuple[list[str], list[str]] = ([], [])
    for trainer, learned in zip((raw, pre), tokens):
        for _ in range(num_merges):
            merge = trainer.step()
            if merge is None:
                break
            learned.append(merge.pair[0] + merge.pair[1])
    return tokens


def machine() -> str:
    """One line naming the cores, Python and the libraries that a timing depends on."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libraries = ", ".join(f"{name} {version(name)}" for name in ("tokenizers", "numpy", "tiktoken"))
    return (
        f"{usable} usable cores (of {os.cpu_count()}), {platform.machine()}, "
        f"Python {sys.version.split()[0]}, {libraries}"
    )


@dataclass
class Race:
    """Hugging Face's trainer and ours on the same files, for the same number of merges."""

    megabytes: float
    distinct_chunks: int
    ours: list[Pair]
    theirs: list[Pair]
    ours_seconds: float
    theirs_seconds: float


def hf_against_ours(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    num_merges: int = 2000,
    workers: int | None = None,
    progress: bool | None = None,
) -> Race:
    """Train both on the text of ``paths`` (a file, a folder of ``.txt`` files or a list).

    Ours reads, counts and trains with ``bpe_course.large`` (counting in ``workers``
    processes); Hugging Face reads the same files in Rust and pre-tokenizes them with the
    same GPT-2 pattern. Each clock covers reading the text through the last merge.
    ``progress=None`` shows progress bars for more than 10 MB or 5,000 merges.
    """
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    from bpe_course.large import count_files, train_counts
    from bpe_course.shards import text_files

    files = text_files(paths)
    megabytes = sum(Path(file).stat().st_size for file in files) / 1e6
    if progress is None:
        progress = megabytes > 10 or num_merges > 5000
    start = time.perf_counter()
    counts = count_files(files, workers, progress)
    ours = train_counts(counts, num_merges, progress)
    ours_seconds = time.perf_counter() - start

    alphabet = {char for chunk in counts for char in chunk}
    start = time.perf_counter()
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated")
    trainer = trainers.BpeTrainer(
        vocab_size=len(alphabet) + num_merges,
        min_frequency=0,
        special_tokens=[],
        show_progress=progress,
    )
    tokenizer.train([str(file) for file in files], trainer=trainer)
    theirs_seconds = time.perf_counter() - start
    theirs = [(left, right) for left, right in _hf_merges(tokenizer)]
    return Race(megabytes, len(counts), ours, theirs, ours_seconds, theirs_seconds)


def _hf_merges(tokenizer: object) -> list[list[str]]:
    import json

    return json.loads(tokenizer.to_str())["model"]["merges"]  # type: ignore[attr-defined]


@dataclass
class FastPath:
    """How many chunks of a text are whole tokens, and encoding times with and without."""

    chunks: int
    whole: int
    whole_single_characters: int
    same_tokens: bool
    seconds: dict[str, float]


def _encode_all(
    chunks: Sequence[str],
    encoder: Encoder,
    vocab: set[str],
    cache: dict[str, tuple[str, ...]] | None,
) -> list[tuple[str, ...]]:
    # The merge loop per chunk; a chunk in vocab skips it, and a cache remembers each chunk.
    out = []
    for chunk in chunks:
        tokens = None if cache is None else cache.get(chunk)
        if tokens is None:
            in_vocab = chunk in vocab
            tokens = (chunk,) if in_vocab else tuple(encoder._merge_by_rank(list(chunk)))
            if cache is not None:
                cache[chunk] = tokens
        out.append(tokens)
    return out


def fast_path(merges: Sequence[Pair], text: str, repeats: int = 2) -> FastPath:
    """Count the chunks of ``text`` that are whole tokens; time encoding cold and warm.

    Cold has no cache of chunks, so every chunk goes through the merge loop unless the fast
    path (a chunk that is itself a token comes back as it is) catches it, as in tiktoken.
    Warm has a cache filled by an earlier pass. Each time is the best of ``repeats``.
    """
    chunks = pretokenize(text)
    vocab = {char for chunk in chunks for char in chunk} | {a + b for a, b in merges}
    encoder = Encoder(merges)
    whole = [chunk for chunk in chunks if chunk in vocab]
    seconds: dict[str, float] = {}
    results = {}
    for name, known in (("without", set()), ("with", vocab)):
        cache: dict[str, tuple[str, ...]] = {}
        _encode_all(chunks, encoder, known, cache)  # fill the warm cache
        for state, kept in (("cold", None), ("warm", cache)):
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                results[name, state] = _encode_all(chunks, encoder, known, kept)
                best = min(best, time.perf_counter() - start)
            seconds[f"{state}, {name} fast path"] = best
    return FastPath(
        chunks=len(chunks),
        whole=len(whole),
        whole_single_characters=sum(len(chunk) == 1 for chunk in whole),
        same_tokens=len({tuple(result) for result in results.values()}) == 1,
        seconds=seconds,
    )


def proof_run(merges: Sequence[Pair], words: Iterable[str]) -> tuple[int, list[str]]:
    """Encode each word by lowest rank and by replaying the table in order; count agreement.

    Returns how many words the two encoders split the same way, and the words they split
    differently (none, if lesson 2's proof holds for this table).
    """
    words = list(dict.fromkeys(word for word in words if word))
    replayed = ChunkTable(dict.fromkeys(words, 1))
    for pair in merges:  # merge 0 everywhere, then merge 1 everywhere, ...
        replayed.apply(pair)
    by_rank = Encoder(merges)
    differ = [
        word
        for word, symbols in zip(replayed.chunks, replayed.symbols)
        if by_rank.encode_chunk(word) != symbols
    ]
    return len(words) - len(differ), differ


def runs(letters: str = "aeiostn", longest: int = 12) -> list[str]:
    """Runs of one repeated letter, with and without a leading space: aa, aaa, ..., ␣aaaa.

    >>> runs("a", 3)
    ['aa', ' aa', 'aaa', ' aaa']
    """
    out = []
    for letter in letters:
        for n in range(2, longest + 1):
            out += [letter * n, " " + letter * n]
    return out


def rarely_emitted(
    merges: Sequence[Pair], text: str, at_most: int = 0
) -> list[tuple[int, str, int]]:
    """The tokens the table makes that encoding ``text`` emits at most ``at_most`` times.

    Each is ``(merge rank, token, times emitted)``, in the order the merges were learned.
    """
    emitted = Counter(Encoder(merges).encode(text))
    seen: set[str] = set()
    out = []
    for rank, (left, right) in enumerate(merges):
        token = left + right
        if token in seen:
            continue
        seen.add(token)
        if emitted[token] <= at_most:
            out.append((rank, token, emitted[token]))
    return out


def torch_hidden() -> bool:
    """True when ``BPE_COURSE_HIDE_TORCH=1`` asks a lesson to run as if PyTorch were missing.

    The lesson imports PyTorch itself (it is optional, so ``bpe_course`` never does); this
    lets the tests run the other branch of its cell on a machine that has PyTorch.
    """
    return os.environ.get(HIDE_TORCH) == "1"
