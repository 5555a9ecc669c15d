"""Demonstrations behind the lessons' claims: each function runs one and returns what it found.

Ties left to a set's order, trained in fresh interpreters under two hash seeds
(:func:`set_order_runs`), the leftmost-pair encoding bug (:func:`leftmost_encode`), token ids
of a character-level vocabulary and of a byte-level one (:func:`character_ids`,
:func:`byte_level_ids`), raw text against pre-tokenized text (:func:`raw_and_pretokenized`),
Hugging Face's trainer
against ours on files (:func:`hf_against_ours`), the fast path for chunks that are whole
tokens (:func:`fast_path`), the two encoders of lesson 2's proof on many words
(:func:`proof_run`), the tokens encoding leaves out (:func:`rarely_emitted`), and PyTorch,
hidden on request (:func:`torch_hidden`). The lessons print what these return.

But: the only trainer and encoder of its own here are two deliberate mistakes, shown so the
lessons can run them (ties left to a set's order, the leftmost pair first); the real training
and encoding is ``bpe_course.engine``'s, and the timings are the reader's machine's, never a
promise.

>>> table = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat"), ("e", "t"), ("eat", "s")]
>>> leftmost_encode("steat", table), Encoder(table).encode_chunk("steat")
(['s', 'tea', 't'], ['s', 't', 'eat'])
>>> character_ids("zest", table, "aest")
[('z', None), ('e', 1), ('s', 2), ('t', 3)]
>>> byte_level_ids("z!", table)
[(b'z', 122), (b'!', 33)]
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

import inspect
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from bpe_course.engine import ChunkTable, Encoder, Pair, Trainer
from bpe_course.pretokenize import GPT2_PATTERN, chunk_counts, pretokenize

# A lesson cell (and the tests) hide an installed PyTorch by setting this to 1.
HIDE_TORCH = "BPE_COURSE_HIDE_TORCH"


def train_by_set_order(word_counts: Mapping[str, int], num_merges: int = 1000) -> list[Pair]:
    """Train as lesson 1 warns not to: a tie goes to whichever top pair a ``set`` yields first.

    A set of strings is ordered by their hashes, which Python salts afresh in each process
    (``PYTHONHASHSEED``), so the same corpus can give another table in the next run. It needs
    nothing but builtins, because :func:`set_order_runs` runs its source in fresh interpreters.

    >>> train_by_set_order({"tea": 6, "eat": 5}, 1)  # no tie: the same in every process
    [('e', 'a')]
    """
    words = {tuple(word): count for word, count in word_counts.items()}
    merges: list[tuple[str, str]] = []
    while len(merges) < num_merges:
        counts: dict[tuple[str, str], int] = {}
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        top = max(counts.values())
        best = next(pair for pair in set(counts) if counts[pair] == top)  # the bug
        merges.append(best)
        joined = {}
        for symbols, count in words.items():
            out, i = [], 0
            while i < len(symbols):
                if symbols[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            joined[tuple(out)] = count
        words = joined
    return merges


@dataclass
class SetOrderRuns:
    """Tables learned in fresh interpreters, two hash seeds, ties by set order and by our rule."""

    seeds: tuple[int, int]
    set_order: tuple[list[Pair], list[Pair]]
    course_rule: tuple[list[Pair], list[Pair]]


_SET_ORDER_SCRIPT = """from __future__ import annotations
import json, sys
{source}
from bpe_course.engine import learn_merges
corpus = json.loads(sys.stdin.read())
print(json.dumps([train_by_set_order(corpus), learn_merges(corpus)]))
"""


def _train_in_fresh_python(word_counts: Mapping[str, int], seed: int) -> list[list[Pair]]:
    # A new interpreter is the only way to get a new hash salt; -E or -I would drop the seed.
    script = _SET_ORDER_SCRIPT.format(source=inspect.getsource(train_by_set_order))
    package_parent = str(Path(__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(dict(word_counts)),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return [[(left, right) for left, right in table] for table in json.loads(done.stdout)]


def set_order_runs(
    word_counts: Mapping[str, int], first_seed: int = 0, tries: int = 20
) -> SetOrderRuns:
    """Train under ``PYTHONHASHSEED=first_seed``, then the next seeds until set order differs.

    "Differs" means a different vocabulary, not just the same tokens learned in another order.

    Each run is a fresh interpreter that learns two tables, one with ties left to set order
    (:func:`train_by_set_order`) and one with the course's rule (``learn_merges``). Which
    seeds differ is fixed for a given Python, so the result is the same on every run. Raises
    ``RuntimeError`` when none of ``tries`` later seeds differs (a corpus without ties).
    """
    first_set, first_rule = _train_in_fresh_python(word_counts, first_seed)
    for seed in range(first_seed + 1, first_seed + 1 + tries):
        other_set, other_rule = _train_in_fresh_python(word_counts, seed)
        if _tokens(other_set) != _tokens(first_set):
            return SetOrderRuns(
                (first_seed, seed), (first_set, other_set), (first_rule, other_rule)
            )
    raise RuntimeError(f"set order gave one table for {tries + 1} seeds: does the corpus tie?")


def _tokens(merges: Sequence[Pair]) -> set[str]:
    return {left + right for left, right in merges}


def leftmost_encode(word: str, merges: Sequence[Pair]) -> list[str]:
    """Encode with the common bug: join the leftmost neighbours the table knows, whatever rank.

    Lesson 2 runs it beside ``Encoder`` on "steat" (see the module's example).
    """
    known = set(merges)
    symbols = list(word)
    while True:
        at = next((i for i, pair in enumerate(zip(symbols, symbols[1:])) if pair in known), None)
        if at is None:
            return symbols
        symbols[at : at + 2] = [symbols[at] + symbols[at + 1]]


def character_ids(
    text: str, merges: Sequence[Pair], alphabet: Iterable[str]
) -> list[tuple[str, int | None]]:
    """Each token of ``text`` with its id in a character-level vocabulary, or None if it has none.

    The vocabulary is the sorted ``alphabet`` followed by one token per merge, as in lesson 2;
    a character outside the alphabet is still a symbol of the encoding, but has no id.
    """
    vocabulary = list(dict.fromkeys(sorted(alphabet) + [left + right for left, right in merges]))
    token_id = {token: i for i, token in enumerate(vocabulary)}
    return [(token, token_id.get(token)) for token in Encoder(merges).encode(text)]


def byte_level_ids(text: str, merges: Sequence[Pair]) -> list[tuple[bytes, int]]:
    """Each token of ``text`` in the byte-level version of the same table (tiktoken), with its id.

    Ids 0 to 255 are the single bytes, so every input has ids, whatever its characters.
    """
    from bpe_course.real_tokenizers import tiktoken_encoding

    encoding = tiktoken_encoding(merges)
    tokens = encoding.encode_ordinary(text)
    return [(encoding.decode_single_token_bytes(token), token) for token in tokens]


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
