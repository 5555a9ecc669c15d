"""Name the mistake behind a wrong answer: the catalogue of known mistakes and the diagnosis.

Each mistake is recognised either by a wrong variant of our own (``variants``) that returns
exactly what the student's function returned on the failing input, or by a test on the
outcome itself (wrong types, a changed argument, a loop over all words). When several fit,
the one that explains the most failing cases wins.

But: student code is never run here, only plain-data outcomes compared; the message a
student reads is written by ``messages``.

>>> from autograder.hidden_tests.run import run_case
>>> from autograder.hidden_tests.variants import encode_leftmost
>>> args = ("steat", [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")])
>>> diagnose("encode_bpe", args, run_case("encode_bpe", encode_leftmost, args)).name
'leftmost pair instead of lowest rank'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from autograder.hidden_tests.compare import reference, where_problem
from autograder.hidden_tests.plain import Unplain, same, to_plain
from autograder.hidden_tests.run import run_case
from autograder.hidden_tests.variants import (
    FIRST_LEFT_ENCODERS,
    STRING_MERGES,
    counts_once_per_word,
    counts_unweighted,
    counts_without_overlaps,
    encode_leftmost,
    first_appearance,
    largest_pair,
    make_rank_encoder,
    make_replaying_encoder,
    make_trainer,
    make_updater,
    merge_by_padded_replace,
    merge_overlapping,
    merge_right_to_left,
    smallest_concatenation,
)


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its name, advice in a sentence or two, and how to recognise it."""

    name: str
    advice: str
    variants: tuple[Callable, ...] = ()
    # test(name, args, expected, got) -> True when the outcome itself shows the mistake.
    test: Callable[[str, tuple, Any, Any], bool] | None = field(default=None)


# ---- tests on the outcome itself -------------------------------------------------------------


def _loose(value: Any) -> Any:
    """Plain data with its container types forgotten: tuples and lists alike, 1 == True."""
    cls = type(value)
    if cls is tuple or cls is list:
        return ("sequence", tuple(_loose(item) for item in value))
    if cls is set or cls is frozenset:
        return ("set", frozenset(_loose(item) for item in value))
    if cls is dict:
        return ("dict", frozenset((_loose(k), _loose(v)) for k, v in value.items()))
    return value


def _holds_unplain(value: Any) -> bool:
    if type(value) is Unplain:
        return True
    if type(value) in (tuple, list, set, frozenset):
        return any(_holds_unplain(item) for item in value)
    if type(value) is dict:
        return any(_holds_unplain(k) or _holds_unplain(v) for k, v in value.items())
    return False


def wrong_types(name: str, args: tuple, expected: Any, got: Any) -> bool:
    if got.error is not None:
        return False
    if _holds_unplain(got.value):
        return True
    if name == "merge_and_update":
        problem = where_problem(got.after, expected.after) or ""
        return (
            (_loose(got.value) == _loose(expected.value) and not same(expected.value, got.value))
            or (
                not same(expected.after[0], got.after[0])
                and _loose(expected.after[0]) == _loose(got.after[0])
            )
            or "should be a set" in problem
        )
    return _loose(got.value) == _loose(expected.value) and not same(expected.value, got.value)


def changed_input(name: str, args: tuple, expected: Any, got: Any) -> bool:
    original = to_plain(args)
    if name == "merge_and_update":  # words, stats and where are meant to change; counts not
        return not same(original[1], got.after[1]) or not same(original[4], got.after[4])
    return not same(original, got.after)


def looped_over_words(name: str, args: tuple, expected: Any, got: Any) -> bool:
    return got.error is not None and got.error.startswith("WordsLoopError")


# ---- the catalogue of named mistakes -------------------------------------------------------

RIGHT_TO_LEFT = "right-to-left merges"
OVERLAPPING = "overlapping merges"
STRING_REPLACE = "string replacement across symbol boundaries"
WRONG_TYPES = "wrong return types"
CHANGED_INPUT = "changing the caller's input"
UNWEIGHTED = "unweighted counts"
ONCE_PER_WORD = "a pair counted once per word"
PADDED_REPLACE = "string replacement missing back-to-back pairs"

ADVICE = {
    RIGHT_TO_LEFT: "Occurrences of the pair must be joined scanning from the left: "
    "a a a with (a, a) gives aa a, not a aa.",
    OVERLAPPING: "After joining a pair, move past both of its symbols; the right half is "
    "used up and cannot start another occurrence.",
    STRING_REPLACE: "Replacing text in the joined word also matches letters that belong to "
    "different symbols (ab c contains 'b c'). Compare whole symbols, two at a time.",
    WRONG_TYPES: "The values are right but a type is not: return exactly what the exercise "
    "asks for (a dict of tuple pairs to ints, a tuple, a list of tuples, a list of str, "
    "lists of symbols), built from plain Python types.",
    CHANGED_INPUT: "Your function changed an argument it was given. Work on a copy, or "
    "build new objects, and leave the caller's data as it was.",
    UNWEIGHTED: "Each occurrence of a pair counts as many times as its word occurs: add "
    "the word's count, not 1.",
    ONCE_PER_WORD: "A pair that occurs twice in one word counts twice (times the word's "
    "count); count every position, not each distinct pair once.",
    PADDED_REPLACE: "Replacing ' a b ' in the space-padded word uses up the space that the "
    "next occurrence starts with, so a b a b with (a, b) gives ab a b instead of ab ab; and "
    "a symbol that is itself a space (as in GPT-style chunks) vanishes when the string is split. "
    "Walk the symbols with an index and compare whole symbols, two at a time.",
}


def _mistake(name: str, *variants: Callable, test: Callable | None = None) -> Mistake:
    return Mistake(name, ADVICE[name], tuple(variants), test)


MISTAKES: dict[str, list[Mistake]] = {
    "pair_counts": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _mistake(WRONG_TYPES, test=wrong_types),
        _mistake(UNWEIGHTED, counts_unweighted),
        _mistake(ONCE_PER_WORD, counts_once_per_word),
        Mistake(
            "overlapping pairs not counted",
            "Count every adjacent position: a a a holds the pair (a, a) twice.",
            (counts_without_overlaps,),
        ),
    ],
    "merge_pair": [
        _mistake(WRONG_TYPES, test=wrong_types),
        _mistake(RIGHT_TO_LEFT, merge_right_to_left),
        _mistake(OVERLAPPING, merge_overlapping),
        _mistake(STRING_REPLACE, *STRING_MERGES),
        _mistake(PADDED_REPLACE, merge_by_padded_replace),
    ],
    "train_bpe": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _mistake(WRONG_TYPES, test=wrong_types),
        Mistake(
            "one merge too few",
            "Run the loop num_merges times (while pairs remain), not num_merges - 1.",
            (make_trainer(fewer=1),),
        ),
        Mistake(
            "stopping when counts fall to 1",
            "Keep merging while any word has two symbols, even when the best pair occurs "
            "only once; stop only after num_merges merges or when no pair is left.",
            (make_trainer(stop_below=2),),
        ),
        Mistake(
            "ties broken by the largest pair",
            "Among pairs with the highest count, take the smallest pair in tuple order: "
            "min over (-count, pair), not max over (count, pair).",
            (make_trainer(choose=largest_pair),),
        ),
        Mistake(
            "ties broken by the concatenated string",
            "Compare tied pairs as tuples (left symbol first, then right), not by the "
            "string they make: ('e', 't') beats ('eat', 's') although 'eats' < 'et'.",
            (make_trainer(choose=smallest_concatenation),),
        ),
        Mistake(
            "ties broken by first appearance",
            "max() keeps the first best pair it meets, so ties go to whichever pair was "
            "counted first. Break ties explicitly by the smallest pair.",
            (make_trainer(choose=first_appearance),),
        ),
        _mistake(UNWEIGHTED, make_trainer(count=counts_unweighted)),
        _mistake(ONCE_PER_WORD, make_trainer(count=counts_once_per_word)),
        _mistake(RIGHT_TO_LEFT, make_trainer(merge=merge_right_to_left)),
        _mistake(OVERLAPPING, make_trainer(merge=merge_overlapping)),
        _mistake(STRING_REPLACE, *(make_trainer(merge=m) for m in STRING_MERGES)),
        _mistake(PADDED_REPLACE, make_trainer(merge=merge_by_padded_replace)),
    ],
    "encode_bpe": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _mistake(WRONG_TYPES, test=wrong_types),
        Mistake(
            "leftmost pair instead of lowest rank",
            "At each step apply the merge with the lowest rank present anywhere in the "
            "word, not the first mergeable pair from the left (try 'steat').",
            (encode_leftmost,),
        ),
        Mistake(
            "joining at the first copy of the left symbol",
            "symbols.index(left) finds the first copy of the pair's left half, which may "
            "not be followed by its right half (in t e t e a the pair (e, a) is at the "
            "end). Remember the position where you found the pair and join there.",
            FIRST_LEFT_ENCODERS,
        ),
        _mistake(
            RIGHT_TO_LEFT,
            make_replaying_encoder(merge_right_to_left),
            make_rank_encoder(merge_right_to_left),
        ),
        _mistake(
            OVERLAPPING,
            make_replaying_encoder(merge_overlapping),
            make_rank_encoder(merge_overlapping),
        ),
        _mistake(
            STRING_REPLACE,
            *(make_replaying_encoder(m) for m in STRING_MERGES),
            *(make_rank_encoder(m) for m in STRING_MERGES),
        ),
        _mistake(
            PADDED_REPLACE,
            make_replaying_encoder(merge_by_padded_replace),
            make_rank_encoder(merge_by_padded_replace),
        ),
    ],
    "merge_and_update": [
        Mistake(
            "iterating over all words",
            "Only the words listed in where[pair] can hold the pair; visit those and "
            "never loop over the whole words list.",
            test=looped_over_words,
        ),
        _mistake(CHANGED_INPUT, test=changed_input),
        _mistake(WRONG_TYPES, test=wrong_types),
        Mistake(
            "zero entries left in stats",
            "When a pair's count drops to 0, delete it from stats: stats must equal the "
            "true pair counts, with no zero entries.",
            (make_updater(keep_zeros=True),),
        ),
        Mistake(
            "where not updated",
            "Every new pair a merge creates must be added to where, with the index of "
            "the word it appears in.",
            (make_updater(update_where=False),),
        ),
        Mistake(
            "indices not in increasing order",
            "A set does not keep its numbers sorted: list({10, 3}) is [10, 3]. Visit "
            "sorted(where[pair]) so that the indices you return are in increasing order.",
            (make_updater(in_order=False),),
        ),
        Mistake(
            "old neighbour pairs not subtracted",
            "Joining a b in x a b y also ends the pairs (x, a) and (b, y): subtract the "
            "word's count from each, not only from (a, b).",
            (make_updater(subtract_neighbours=False),),
        ),
        Mistake(
            "new neighbour pairs not added",
            "Joining a b in x a b y makes the pairs (x, ab) and (ab, y): add the word's "
            "count to each in stats.",
            (make_updater(add_neighbours=False),),
        ),
        Mistake(
            "stale indices reported as changed",
            "where[pair] may list words that no longer hold the pair. Return only the "
            "indices of words your merge actually changed.",
            (make_updater(report_stale=True),),
        ),
        _mistake(UNWEIGHTED, make_updater(weighted=False)),
        _mistake(RIGHT_TO_LEFT, make_updater(merge=merge_right_to_left)),
        _mistake(OVERLAPPING, make_updater(merge=merge_overlapping)),
    ],
}


def mistake_names() -> dict[str, list[str]]:
    """The names of the mistakes the diagnosis recognises, per exercise."""
    return {name: [m.name for m in found] for name, found in MISTAKES.items()}


# ---- matching outcomes -----------------------------------------------------------------------


def behaves_alike(name: str, expected: Any, a: Any, b: Any) -> bool:
    """True when two outcomes show the same behaviour (the same error type, or the same
    results); for merge_and_update, ``where`` counts only as right or wrong."""
    if a.error is not None or b.error is not None:
        return (
            a.error is not None
            and b.error is not None
            and a.error.split(":")[0] == b.error.split(":")[0]
        )
    if name == "merge_and_update":
        return (
            same(a.value, b.value)
            and same(a.after[:3], b.after[:3])
            and (where_problem(a.after, expected.after) is None)
            == (where_problem(b.after, expected.after) is None)
        )
    return same(a.value, b.value) and same(a.after, b.after)


def _fits(mistake: Mistake, name: str, args: tuple, expected: Any, got: Any) -> bool:
    if mistake.test is not None and mistake.test(name, args, expected, got):
        return True
    return any(
        behaves_alike(name, expected, run_case(name, variant, args), got)
        for variant in mistake.variants
    )


def diagnose_all(name: str, failures: Sequence[tuple]) -> list[Mistake | None]:
    """For each ``(args, expected, got)`` failure, the known mistake that best explains it:
    of the mistakes that fit it, the one that fits the most failures overall."""
    known = MISTAKES.get(name, [])
    fits = [
        [_fits(mistake, name, args, expected, got) for mistake in known]
        for args, expected, got in failures
    ]
    totals = [sum(row[k] for row in fits) for k in range(len(known))]
    named: list[Mistake | None] = []
    for row in fits:
        candidates = [k for k in range(len(known)) if row[k]]
        # max keeps the first of equals: the catalogue lists the more specific mistakes first
        named.append(known[max(candidates, key=totals.__getitem__)] if candidates else None)
    return named


def diagnose(name: str, args: tuple, got: Any, expected: Any = None) -> Mistake | None:
    """The known mistake that explains ``got`` on ``args``, or None. ``expected`` (the
    reference's outcome on ``args``) is computed when not given."""
    if expected is None:
        expected = run_case(name, reference(name), args)
    return diagnose_all(name, [(args, expected, got)])[0]
