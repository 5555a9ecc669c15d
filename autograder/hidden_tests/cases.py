"""The inputs every exercise is graded on (worked examples, edge cases, random cases), and
what counts as right on them.

``cases(name, group)`` returns fresh argument tuples of plain data: ``"core"`` (the lesson's
examples and the edge case each known mistake trips on), ``"random"`` (small random inputs
from a fixed seed per exercise, the same under any ``PYTHONHASHSEED``) and ``"examples"``
(the visible cell's inputs: ``bpe_course.examples`` for four exercises, and for
merge_and_update its cell's stateful calls, rebuilt).

>>> cases("merge_pair", "core")[0]
(('a', 'a', 'a'), ('a', 'a'))
>>> len(cases("train_bpe", "random")) == len(cases("train_bpe", "random"))
True

Grading passes the term's secret, which draws both groups anew for that term, the same for
every student and at every regrade, so the same answer earns the same score whoever hands it
in. ``draw(name, fixed, seed)`` keeps each core case's purpose: its letters are renamed by a
map that keeps their alphabetical order (so every tie, overlap, absent pair and unseen
character stays what it was), its counts are multiplied by one factor (none where a count of
1 is the point), a corpus's words are shuffled, and merge_and_update's state is renamed and
re-indexed alike, keeping a ``where[pair]`` that a set iterates out of order so.

>>> draw("merge_pair", [(("a", "a", "a"), ("a", "a"))], "term-2026-autumn")
[(('h', 'h', 'h'), ('h', 'h'))]

Before anyone is graded, ``uncaught(secret)`` runs each wrong version of our own (the variants
of ``bpe_course.mistakes.MISTAKES``) on the core cases ``secret`` draws and lists each
(exercise, mistake) whose variant passes them all; ``why_unfair(secret)`` says so in words an
instructor can act on, or returns "". Every student of a term meets the same cases, so the core
group is where each known mistake must be caught, not the luck of a random draw.

>>> uncaught("term-2026-autumn")
[]

What counts as right: ``reference(name)`` is the reference implementation whose outcome a
case expects, and ``agrees`` compares plain-data outcomes exactly (types included), except that
merge_and_update's ``where`` only has to list every word that now holds each pair (stale
indices are allowed). ``trials_of`` pairs a group's outcomes with the reference's, as the
``Trial`` records from which ``bpe_course.feedback`` writes messages and
``bpe_course.mistakes`` names a mistake.

But: it never runs student code (outcomes, ``same`` and ``where_problem`` come from
``bpe_course.outcomes``, the outcome model the visible tests share); a drawn case keeps
spaces as they are, and the visible examples are never drawn; a mistake recognised by a test on
the outcome alone (wrong types, a changed argument, a loop over all words, a token for the
empty word, the shortest segmentation) has no wrong version to run and is checked by the tests
on the catalogue of answers, not here.
"""

from __future__ import annotations

import copy
import functools
import random
import string
from collections.abc import Callable, Sequence
from typing import Any

import solutions
from autograder.course import EXERCISES
from bpe_course.engine import index_pairs
from bpe_course.examples import EXAMPLES as VISIBLE
from bpe_course.examples import example_cases
from bpe_course.mistakes import MISTAKES, Trial
from bpe_course.outcomes import Outcome, run_case, same, where_problem
from solutions import merge_and_update, train_bpe

_POOL = string.ascii_lowercase  # the letters a drawn case is written in
_TRIES = 200  # permutations tried to keep a where[pair] out of order


def reference(name: str) -> Callable:
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; expected one of {', '.join(EXERCISES)}")
    return getattr(solutions, name)


def agrees(name: str, expected: Outcome, got: Outcome) -> bool:
    """True when ``got`` is a right answer, given the reference's ``expected`` outcome."""
    if got.error is not None:
        return False
    if name == "merge_and_update":
        return (
            same(expected.value, got.value)
            and same(expected.after[:3], got.after[:3])
            and where_problem(got.after, expected.after) is None
        )
    return same(expected.value, got.value) and same(expected.after, got.after)


def trials_of(
    name: str, all_args: Sequence[tuple], outcomes: Sequence[Any], expected: Sequence[Any]
) -> list[Trial]:
    return [
        Trial(tuple(args), want, got, agrees(name, want, got))
        for args, want, got in zip(all_args, expected, outcomes)
    ]


def _renaming(case: tuple, rng: random.Random) -> Callable[[str], str]:
    """An order-keeping map of the case's letters into ``_POOL``, as a function on strings."""
    found: set[str] = set()

    def note(text: str) -> str:
        found.update(text)
        return text

    _copied(case, note)
    old = sorted(found.intersection(_POOL))
    new = sorted(rng.sample(_POOL, len(old)))
    table = str.maketrans(dict(zip(old, new)))
    return lambda text: text.translate(table)


def _copied(value: Any, rename: Callable[[str], str] | None = None) -> Any:
    """``value`` with its mutable containers new (``deepcopy``'s work, for the types a case
    holds, in a fraction of its time) and, given ``rename``, every string renamed; numbers,
    the containers' types and, without ``rename``, strings and tuples of strings are kept."""
    kind = type(value)
    if rename is None and kind is tuple and all(type(item) is str for item in value):
        return value  # symbols or a pair: nothing in it can change
    if kind is str:
        return value if rename is None else rename(value)
    if kind is list or kind is tuple:
        return kind([_copied(item, rename) for item in value])
    if kind is dict:
        return {_copied(key, rename): _copied(item, rename) for key, item in value.items()}
    if kind is set:
        return set(value)  # of word indices
    return value


def _factor(counts: list[int], rng: random.Random, keep_ones: bool) -> int:
    if keep_ones and 1 in counts:  # a count of 1 is this case's point (the last merge, ...)
        return 1
    return rng.randint(2, 6) if keep_ones else rng.randint(1, 9)


def _corpus_case(case: tuple, rng: random.Random, keep_ones: bool) -> tuple:
    words, *rest = case
    factor = _factor(list(words.values()), rng, keep_ones)
    items = list(words.items())
    rng.shuffle(items)
    return ({word: count * factor for word, count in items}, *rest)


def _out_of_order(indices: set[int]) -> bool:
    return list(indices) != sorted(indices)


def _state_case(case: tuple, rng: random.Random) -> tuple:
    """merge_and_update's (words, counts, stats, where, pair), its words in another order and
    its counts scaled; a where[pair] that iterated out of order still does."""
    words, counts, stats, where, pair = case
    factor = _factor(counts, rng, keep_ones=True)
    keep_disorder = _out_of_order(where.get(pair, set()))
    order = list(range(len(words)))
    for _ in range(_TRIES):
        rng.shuffle(order)  # order[i]: where word i goes
        moved = {order[i] for i in where.get(pair, set())}
        if not keep_disorder or _out_of_order(moved):
            break
    else:
        order = list(range(len(words)))
    moved_from = sorted(range(len(words)), key=order.__getitem__)  # [j]: the word moved to j
    new_stats = {p: n * factor for p, n in stats.items()}
    new_where = {p: {order[i] for i in held} for p, held in where.items()}
    new_counts = [counts[i] * factor for i in moved_from]
    return ([words[i] for i in moved_from], new_counts, new_stats, new_where, pair)


def _drawn_case(name: str, case: tuple, rng: random.Random) -> tuple:
    if name == "pair_counts":
        case = _corpus_case(case, rng, keep_ones=False)
    elif name == "train_bpe":
        case = _corpus_case(case, rng, keep_ones=True)
    elif name == "merge_and_update":
        case = _state_case(case, rng)
    return _copied(case, _renaming(case, rng))


def draw(name: str, fixed: list[tuple], seed: str) -> list[tuple]:
    """The cases ``fixed`` of exercise ``name`` as ``seed`` draws them, one per fixed case."""
    # A str seed is hashed with SHA-512 by random: the same on every machine and hash seed.
    return [
        _drawn_case(name, case, random.Random(f"{seed}/{name}/core/{i}"))
        for i, case in enumerate(fixed)
    ]


GROUPS = ("core", "random")
EXAMPLES = "examples"  # the visible examples, where they cannot be read from the notebook

# The six-word corpus of lesson 1 and its first six merges (steps 1-6 of the hand computation).
TOY = {"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}
TOY_MERGES = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat"), ("e", "t"), ("eat", "s")]
# Lesson 2's example of BPE not finding the shortest encoding.
ABCD = {"ab": 10, "bcd": 6}
ABCD_MERGES = [("a", "b"), ("b", "c"), ("bc", "d")]
# Twelve words, so that where[pair] holds indices a Python set iterates out of order:
# (a, b) is in words {3, 10} and list({10, 3}) == [10, 3]; (c, d) in {1, 8}, list == [8, 1].
SPREAD = {
    "ef": 1, "cdx": 2, "gh": 1, "xab": 3, "ij": 1, "kl": 2,
    "mn": 1, "op": 1, "ycd": 4, "qr": 1, "aby": 5, "st": 1,
}  # fmt: skip
# The second corpus of lesson 4's visible examples.
SECOND_EXAMPLE = {
    "cd": 1, "aab": 3, "ef": 1, "ababab": 2, "gh": 1, "ij": 1,
    "kl": 1, "mn": 1, "op": 1, "qr": 1, "baba": 1,
}  # fmt: skip

Case = tuple


def _as_symbols(word_counts: dict[str, int]) -> dict[tuple[str, ...], int]:
    return {tuple(word): count for word, count in word_counts.items()}


# ---- pair_counts(words) -------------------------------------------------------------------


def _pair_counts_core() -> list[Case]:
    return [
        (_as_symbols(TOY),),
        ({("t", "e", "a"): 6},),
        ({("a", "a", "a"): 3},),  # overlapping positions both count
        ({("b", "a", "a", "a"): 3, ("a", "a", "a", "a"): 1},),
        ({("a", "b", "a", "b"): 3, ("c", "d"): 1},),  # one pair twice in a word
        ({("t", "ea"): 6, ("t", "ea", "s"): 2, ("ea", "t"): 5, ("s", "e", "t"): 3},),
        ({(" ", "t", "he"): 4, ("t", "he"): 1},),  # symbols with spaces and several letters
        (_as_symbols(ABCD),),
        ({("a",): 5, ("b", "c"): 1},),  # a one-symbol word has no pairs
        ({},),
    ]


def _pair_counts_random(rng: random.Random) -> list[Case]:
    out = []
    for _ in range(30):
        corpus = _random_corpus(rng)
        while all(len(word) < 2 for word in corpus):  # every case has a pair (core has none)
            corpus = _random_corpus(rng)
        words = [list(word) for word in corpus]
        if rng.random() < 0.5:  # symbols of several letters, as after a few merges
            merged, _, _, _ = _state_after(corpus, train_bpe(corpus, rng.randint(1, 4)))
            if any(len(symbols) > 1 for symbols in merged):  # a pair left to count
                words = merged
        out.append(({tuple(w): n for w, n in zip(words, corpus.values())},))
    return out


# ---- merge_pair(symbols, pair) ------------------------------------------------------------


def _merge_pair_core() -> list[Case]:
    return [
        (("a", "a", "a"), ("a", "a")),  # the lesson's example: left to right, no overlap
        (("t", "e", "a", "t", "e", "a"), ("t", "e")),  # the lesson's second example
        (("b", "a", "a", "a"), ("a", "a")),
        (("a", "a", "a", "a", "a"), ("a", "a")),
        (("a", "b", "a", "b", "a"), ("a", "b")),
        (("ab", "c"), ("b", "c")),  # "b c" only exists across a symbol boundary
        (("a", "bc"), ("a", "b")),
        (("ab", "c"), ("a", "bc")),  # ab c reads abc as a bc does, but holds no (a, bc)
        ((" ", "t", "h", "e"), (" ", "t")),  # a symbol that is a space
        (("s", "e", "a", "t", "s"), ("e", "a")),
        (("x", "y"), ("a", "b")),  # pair absent: same symbols back, still a tuple
        (("b", "a", "b"), ("a", "b")),  # b a is not the pair (a, b): order matters
        (("a",), ("a", "a")),
        ((), ("a", "b")),
    ]


def _merge_pair_random(rng: random.Random) -> list[Case]:
    out = []
    for _ in range(40):
        symbols = tuple(rng.choice("ab") for _ in range(rng.randint(0, 9)))
        if rng.random() < 0.3:  # multi-letter symbols, as after a few merges
            symbols = tuple(rng.choice(["a", "b", "ab", "ba"]) for _ in symbols)
        if len(symbols) > 1 and rng.random() < 0.6:  # a pair that occurs, often in runs
            i = rng.randrange(len(symbols) - 1)
            pair = (symbols[i], symbols[i + 1])
        else:
            pair = (rng.choice(["a", "b", "ab"]), rng.choice(["a", "b", "ba"]))
        out.append((symbols, pair))
    return out


# ---- train_bpe(word_counts, num_merges) ---------------------------------------------------


def _train_bpe_core() -> list[Case]:
    return [
        (dict(TOY), 4),  # steps 1-4 of the hand computation
        (dict(TOY), 6),  # steps 5 and 6 are both ties
        (dict(TOY), 50),  # more merges than the corpus allows: stop when every word is one symbol
        (dict(TOY), 0),
        (dict(ABCD), 3),
        ({"aaaa": 1}, 3),  # overlapping pairs; the last merge has count 1
        ({"aaa": 2, "b": 1}, 2),  # a a a joins as aa a, so the next merge is (aa, a)
        ({"cdcd": 1, "ab": 1}, 1),  # (c, d) occurs twice in one word
        ({"ab": 1, "cd": 5}, 1),  # weighting decides
        ({"ab": 5, "abc": 2, "bc": 3, "cd": 1}, 3),  # (b, c) must not join across ab|c
        ({"abcab": 2}, 2),  # both (a, b) join, far apart: then (ab, c), not (a, b) again
        ({"b": 2, "a": 3}, 2),  # nothing to merge
        # Six pairs tied at every step, met in no sorted order: the tie rule alone decides,
        # six times over, so a set's order or another rule cannot pass by luck.
        ({"gh": 1, "ab": 1, "kl": 1, "cd": 1, "ij": 1, "ef": 1}, 6),
        ({}, 2),
    ]


def _train_bpe_random(rng: random.Random) -> list[Case]:
    return [(_random_corpus(rng), rng.randint(1, 12)) for _ in range(30)]


# ---- encode_bpe(word, merges) -------------------------------------------------------------


def _encode_bpe_core() -> list[Case]:
    return [
        ("seats", list(TOY_MERGES)),  # the lesson's walk-through
        ("steat", list(TOY_MERGES)),  # rank order, not leftmost
        ("tetea", list(TOY_MERGES)),  # the first e is not the one followed by a
        ("abcd", list(ABCD_MERGES)),  # not the shortest encoding
        ("tease", list(TOY_MERGES)),
        ("east", list(TOY_MERGES)),
        ("zest", list(TOY_MERGES)),  # a character never seen in training
        ("aaa", [("a", "a"), ("aa", "aa")]),
        ("aaaaa", [("a", "a"), ("aa", "aa")]),
        ("abc", [("b", "c"), ("a", "b")]),
        (" the", [(" ", "t"), ("h", "e"), (" t", "he")]),  # spaces live inside tokens
        ("abab", [("ab", "a"), ("a", "b")]),  # one join per step, then look again
        ("abcab", [("a", "b")]),  # every occurrence, far apart too
        ("abcbc", [("a", "b"), ("b", "c")]),  # ab c holds no pair (b, c), ab c bc does
        ("aaa", [("aa", "a"), ("a", "a")]),  # after (a, a), look again: (aa, a) ranks first
        ("ccb", [("cc", "b")]),  # no merge makes cc, so none makes ccb: not longest match
        ("bcba", [("c", "b"), ("b", "a"), ("c", "b")]),  # a pair listed twice keeps rank 0
        ("abc", [("b", "c"), ("ab", "c")]),  # a bc reads abc but is not the pair (ab, c)
        ("tea", []),
        ("", list(TOY_MERGES)),
    ]


def _encode_bpe_random(rng: random.Random) -> list[Case]:
    out = []
    for _ in range(40):
        # Tables come from training, the only kind of table the encoder is promised.
        corpus = _random_corpus(rng)
        merges = train_bpe(corpus, rng.randint(0, 10))
        if rng.random() < 0.5:  # words the table was trained on, run together
            word = "".join(rng.choice(list(corpus)) for _ in range(rng.randint(1, 3)))
        else:
            word = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 9)))
        out.append((word, merges))
    return out


# ---- merge_and_update(words, counts, stats, where, pair) ----------------------------------


def _state_after(word_counts: dict[str, int], merges: list[tuple[str, str]]) -> tuple:
    """The trainer's state after ``merges``, applied the incremental way (so ``where`` may
    hold stale indices, exactly as in a real trainer)."""
    words = [list(word) for word in word_counts]
    counts = list(word_counts.values())
    stats, where = index_pairs(words, counts)
    for pair in merges:
        merge_and_update(words, counts, stats, where, pair)
    return words, counts, stats, where


def _update_case(word_counts: dict[str, int], merges: list, pair: tuple[str, str]) -> Case:
    return (*_state_after(word_counts, merges), pair)


def _merge_and_update_core() -> list[Case]:
    return [
        _update_case(TOY, [], ("e", "a")),  # step 1 of the hand computation
        _update_case(TOY, TOY_MERGES[:2], ("t", "ea")),  # step 3
        _update_case(TOY, TOY_MERGES[:4], ("e", "t")),  # step 5: where holds stale indices
        _update_case({"aaaa": 2, "aaa": 1}, [], ("a", "a")),  # overlapping occurrences
        _update_case({"abc": 3, "bcb": 1}, [], ("a", "b")),  # (b, c) drops, must not stay at 0
        _update_case({"abab": 1, "ba": 2}, [], ("a", "b")),  # (b, a) loses one of its three
        _update_case({"ab": 1, "cd": 1, "ef": 1, "gh": 1}, [], ("c", "d")),
        _update_case({"xab": 2, "ab": 1}, [("a", "b")], ("x", "ab")),
        _update_case({"abc": 1, "bc": 2}, [("a", "b")], ("b", "c")),  # where[pair] has a stale 0
        _update_case(TOY, [], ("z", "z")),  # no word holds the pair: where has no key for it
        _update_case({"ababab": 2, "bab": 1}, [], ("a", "b")),  # three joins side by side
        _update_case(SPREAD, [], ("a", "b")),  # where[pair] iterates as [10, 3]: sort it
        _update_case(SPREAD, [], ("c", "d")),  # where[pair] iterates as [8, 1]
    ]


def _merge_and_update_examples() -> list[Case]:
    """Lesson 4's visible examples cell: (e, a) on the six-word corpus; then (ea, t) after a
    stale index 0 is added to where[(ea, t)]; then (z, z), a pair no word holds; then (a, b)
    on a second corpus of eleven words (joins side by side, where[(a, b)] = {1, 3, 10})."""
    first = _update_case(TOY, [], ("e", "a"))
    words, counts, stats, where = _state_after(TOY, [("e", "a")])
    where.setdefault(("ea", "t"), set()).add(0)  # tea never holds (ea, t): a stale index
    second = (words, counts, stats, where, ("ea", "t"))
    words, counts, stats, where = (copy.deepcopy(part) for part in second[:4])
    merge_and_update(words, counts, stats, where, ("ea", "t"))
    third = (words, counts, stats, where, ("z", "z"))
    fourth = _update_case(SECOND_EXAMPLE, [], ("a", "b"))
    return [first, copy.deepcopy(second), third, fourth]


def _merge_and_update_random(rng: random.Random) -> list[Case]:
    out = []
    for _ in range(30):
        corpus = _random_corpus(rng, most_words=14)  # indices past 7 iterate out of order
        earlier = train_bpe(corpus, rng.randint(0, 4))
        _, _, stats, _ = _state_after(corpus, earlier)
        if not stats:
            continue
        pair = rng.choice(sorted(stats))
        out.append(_update_case(corpus, earlier, pair))
    return out


# ---- shared --------------------------------------------------------------------------------


def _random_corpus(rng: random.Random, most_words: int = 7) -> dict[str, int]:
    """A few distinct short words over a small alphabet, with counts from 1 to 9."""
    alphabet = rng.choice(["ab", "abc", "abcd"])
    corpus: dict[str, int] = {}
    for _ in range(rng.randint(1, most_words)):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7)))
        corpus[word] = rng.randint(1, 9)
    return corpus


_CORE: dict[str, Callable[[], list[Case]]] = {
    "pair_counts": _pair_counts_core,
    "merge_pair": _merge_pair_core,
    "train_bpe": _train_bpe_core,
    "encode_bpe": _encode_bpe_core,
    "merge_and_update": _merge_and_update_core,
}
_RANDOM: dict[str, Callable[[random.Random], list[Case]]] = {
    "pair_counts": _pair_counts_random,
    "merge_pair": _merge_pair_random,
    "train_bpe": _train_bpe_random,
    "encode_bpe": _encode_bpe_random,
    "merge_and_update": _merge_and_update_random,
}
_EXAMPLES: dict[str, Callable[[], list[Case]]] = {"merge_and_update": _merge_and_update_examples}
# One seed per exercise, so adding cases to one exercise leaves the others unchanged; a term's
# secret (course.term_secret) replaces it, so last term's cases buy nothing this term; never a
# student's id (the module says why).
_SEEDS = {name: 2024 + i for i, name in enumerate(EXERCISES)}


@functools.lru_cache(maxsize=64)  # groups kept: grading asks for a term's cases many times
def _drawn(name: str, group: str, secret: str | None) -> list[Case]:
    """A group drawn for ``secret``, drawn once per process (the callers get copies: the
    trainer's random cases take a few milliseconds to draw)."""
    if group == "core":
        return draw(name, _CORE[name](), str(secret))
    # A str seed is hashed with SHA-512 by random: the same on every machine and hash seed.
    seed = _SEEDS[name] if secret is None else f"{secret}/{name}"
    return _RANDOM[name](random.Random(seed))


def cases(name: str, group: str, secret: str | None = None) -> list[Case]:
    """The argument tuples exercise ``name`` is graded on in ``group``, drawn for the term
    ``secret`` as the module says; without it, the fixed cases, for the masters' own hidden
    cells and the tests."""
    if name not in _CORE:
        raise ValueError(f"unknown exercise {name!r}; expected one of {', '.join(EXERCISES)}")
    if group == "core" and secret is None:
        return _CORE[name]()
    if group in GROUPS:
        return _copied(_drawn(name, group, secret))
    if group == EXAMPLES:
        return example_cases(name) if name in VISIBLE else _EXAMPLES[name]()
    raise ValueError(f"unknown group {group!r}; expected 'core' or 'random'")


def uncaught(secret: str | None) -> list[tuple[str, str]]:
    found = []
    for name in EXERCISES:
        group = cases(name, "core", secret)
        expected = [run_case(name, reference(name), args) for args in group]
        for mistake in MISTAKES.get(name, []):
            if any(_passes(name, v, group, expected) for v in mistake.variants):
                found.append((name, mistake.name))
    return found


def _passes(name: str, answer: Callable, group: list[tuple], expected: list[Outcome]) -> bool:
    return all(agrees(name, want, run_case(name, answer, a)) for a, want in zip(group, expected))


def why_unfair(secret: str | None) -> str:
    missed = uncaught(secret)
    if not missed:
        return ""
    listed = "; ".join(f"{name}: {mistake!r}" for name, mistake in missed)
    return (
        f"refusing to grade: this term's core hidden cases do not catch {listed}. Such an "
        "answer would lose points only where the random cases happen to catch it. Add a core "
        "case it fails to autograder/hidden_tests/cases.py (or undo the change to the hidden "
        "cases), then grade again. Nothing was graded."
    )
