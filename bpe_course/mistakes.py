"""The known mistakes of the five exercises, and naming the one behind a wrong answer.

Each mistake has a name, advice, and a way to recognise it: wrong versions of our own
(``variants``, its reproduction), or a test on the outcome itself (wrong types, a changed
argument, a loop over all words, a token for the empty word, a shortest segmentation, ties
taken otherwise than by the rule). :func:`diagnose` names a mistake only when the evidence
singles it out:

1. an answer that changed an argument it was given is told so first, whatever else is wrong;
2. else the one mistake reproduced: one of its variants does exactly what the answer did on
   every case of the group, the passing ones too;
3. else, when nothing reproduces it, the one mistake whose test holds on every failing case;
4. when no mistake fits, or several do, nothing: the message describes the smallest failing
   input without a name.

The notebooks' visible tests and the hidden tests both name mistakes with it.

But: it runs only our own variants, never the answer; outcomes come to it as plain data.

>>> from bpe_course.outcomes import run
>>> from bpe_course.variants import encode_leftmost
>>> toy = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")]
>>> right = [("steat", toy, ["s", "t", "eat"]), ("seat", toy, ["seat"]),
...          ("ccb", [("cc", "b")], ["c", "c", "b"]),  # not a longest match: no merge makes cc
...          ("abc", [("a", "b"), ("b", "c")], ["ab", "c"])]  # not the merge learned last
>>> trials = [Trial((w, table), Outcome(want, None, (w, table)),
...                 run(encode_leftmost, (w, table)), w != "steat") for w, table, want in right]
>>> diagnose("encode_bpe", trials).name
'leftmost pair instead of lowest rank'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bpe_course.outcomes import Outcome, is_plain, run, same, where_problem
from bpe_course.variants import (
    FIRST_LEFT_ENCODERS,
    STRING_MERGES,
    counts_across_words,
    counts_assigned,
    counts_every_other_pair,
    counts_first_sighting_one,
    counts_of_characters,
    counts_once_per_word,
    counts_unweighted,
    counts_with_end_marker,
    counts_without_first_pair,
    counts_without_last_pair,
    counts_without_overlaps,
    counts_wrapping_around,
    encode_by_spelling,
    encode_known_characters_only,
    encode_leftmost,
    encode_longest_match,
    encode_one_pass,
    encode_smallest_pair,
    first_appearance,
    largest_pair,
    last_ranks,
    make_initial_pairs_encoder,
    make_neighbour_updater,
    make_rank_encoder,
    make_ranked_encoder,
    make_replaying_encoder,
    make_trainer,
    make_updater,
    merge_by_joined_text,
    merge_by_padded_replace,
    merge_dropping_last,
    merge_either_order,
    merge_first_only,
    merge_left_half_only,
    merge_left_half_twice,
    merge_marking_overlaps,
    merge_overlapping,
    merge_pair,
    merge_right_to_left,
    pair_counts,
    rarest_pair,
    smallest_concatenation,
    train_counting_once,
    train_forgetting_merges,
    update_shared_neighbour_twice,
)


@dataclass(frozen=True)
class Trial:
    """One case of a group: its arguments, the right outcome, the answer's outcome, and
    whether the answer passed it (computed once, by whoever judges right and wrong)."""

    args: tuple
    expected: Any
    got: Any
    passed: bool = False


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its name, advice in a sentence or two, and how to recognise it."""

    name: str
    advice: str
    variants: tuple[Callable, ...] = ()
    # test(name, args, expected, got) -> True when the outcome itself shows the mistake; it
    # must hold on every failing case, and ``somewhere`` (if given) on at least one.
    test: Callable[[str, tuple, Any, Any], bool] | None = field(default=None)
    somewhere: Callable[[str, tuple, Any, Any], bool] | None = field(default=None)


# ---- tests on the outcome itself -------------------------------------------------------------


def _loose(value: Any) -> Any:
    """Plain data with its container types forgotten: tuples and lists alike, 1 == True; an
    object that is not plain data equals only itself."""
    cls = type(value)
    if cls is tuple or cls is list:
        return ("sequence", tuple(_loose(item) for item in value))
    if cls is set or cls is frozenset:
        return ("set", frozenset(_loose(item) for item in value))
    if cls is dict:
        return ("dict", frozenset((_loose(k), _loose(v)) for k, v in value.items()))
    if not is_plain(value):
        return ("other", id(value))
    return value


def _as_table(value: Any) -> dict | None:
    """A sequence of (key, count) pairs read as the dict it lists, else None."""
    if type(value) not in (list, tuple) or not all(
        type(item) in (list, tuple) and len(item) == 2 for item in value
    ):
        return None
    try:
        return {tuple(k) if type(k) is list else k: n for k, n in value}
    except TypeError:
        return None


def wrong_types(name: str, args: tuple, expected: Any, got: Any) -> bool:
    if got.error is not None:
        return False
    if name == "pair_counts" and type(got.value) is not dict:  # Counter.most_common(), say
        table = _as_table(got.value)
        if table is not None and same(table, expected.value):
            return True
    if name == "pair_counts" and type(got.value) is dict and type(expected.value) is dict:
        spelled: dict = {}  # the pairs' joined text as keys: {"ea": 20} for {("e", "a"): 20}
        for pair, count in expected.value.items():
            spelled["".join(pair)] = spelled.get("".join(pair), 0) + count
        if got.value and all(type(k) is str for k in got.value) and same(got.value, spelled):
            return True
    if not is_plain(got.value):
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
    if name == "merge_and_update":  # words, stats and where are meant to change; counts not
        return not same(args[1], got.after[1]) or not same(args[4], got.after[4])
    return not same(tuple(args), tuple(got.after))


def stats_left_alone(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """The words were merged right, but the caller's ``stats`` is exactly as it was."""
    return (
        got.error is None
        and same(got.after[0], expected.after[0])
        and same(args[2], got.after[2])
        and not same(args[2], expected.after[2])
    )


def words_left_alone(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """The caller's ``words`` is as it was, where it should have changed, and stats is right."""
    return (
        got.error is None
        and same(args[0], got.after[0])
        and not same(args[0], expected.after[0])
        and same(got.after[2], expected.after[2])
    )


def absent_pair_raises(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """An error on a pair that ``where`` does not list at all."""
    return got.error is not None and tuple(args[4]) not in args[3]


def _is_empty(value: Any) -> bool:
    return type(value) in (dict, tuple, list, str) and len(value) == 0


def empty_input_fails(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """An error on an input whose first argument is empty (no words, no symbols, no word)."""
    return got.error is not None and _is_empty(args[0])


def past_the_end(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """An IndexError: the answer read a symbol past the end."""
    return got.error is not None and got.error.startswith("IndexError")


def nonempty_input(name: str, args: tuple, expected: Any, got: Any) -> bool:
    return not _is_empty(args[0])


def no_stop(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """An error where the words ran out of pairs before ``num_merges`` merges."""
    return got.error is not None and len(expected.value) < args[1]


def indices_out_of_order(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """The right indices in another order, with words and stats right."""
    value = got.value
    return (
        got.error is None
        and type(value) is list
        and all(type(i) is int for i in value)
        and sorted(value) == expected.value != value
        and same(got.after[:3], expected.after[:3])
    )


def ties_broken_otherwise(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """Replayed on the words, every merge of the answer was a most frequent pair, it stopped
    only when it should, and at least once it took another of the tied pairs than the
    smallest: what ``max`` over a set or a dict, or a sort by count alone, would do."""
    word_counts, num_merges = args
    merges = got.value
    if got.error is not None or type(merges) is not list or len(merges) > num_merges:
        return False
    words = {tuple(word): n for word, n in word_counts.items()}
    other = False
    for merge in merges:
        counts = pair_counts(words)
        # A merge must be two strings before it is looked up: a list inside is unhashable.
        if type(merge) is not tuple or len(merge) != 2 or not all(type(s) is str for s in merge):
            return False
        if merge not in counts:
            return False
        top = max(counts.values())
        if counts[merge] != top:
            return False
        other = other or merge != min(p for p, n in counts.items() if n == top)
        words = {merge_pair(symbols, merge): n for symbols, n in words.items()}
    return other and (len(merges) == num_merges or not pair_counts(words))


def looped_over_words(name: str, args: tuple, expected: Any, got: Any) -> bool:
    return got.error is not None and got.error.startswith("WordsLoopError")


def empty_word_token(name: str, args: tuple, expected: Any, got: Any) -> bool:
    return got.error is None and args[0] == "" and same([""], got.value)


def _fewest_tokens(word: str, tokens: set[str]) -> int:
    """The fewest known tokens that spell ``word`` (each character is one)."""
    best = [0] + [len(word) + 1] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(end):
            if word[start:end] in tokens or end - start == 1:
                best[end] = min(best[end], best[start] + 1)
    return best[len(word)]


def shortest_segmentation(name: str, args: tuple, expected: Any, got: Any) -> bool:
    """The answer spells the word in the fewest tokens the table can make."""
    word, merges = args
    value = got.value
    if got.error is not None or type(value) is not list or not all(type(t) is str for t in value):
        return False
    tokens = set(word) | {left + right for left, right in merges}
    return (
        "".join(value) == word
        and all(token in tokens for token in value)
        and len(value) == _fewest_tokens(word, tokens)
    )


def fewer_tokens(name: str, args: tuple, expected: Any, got: Any) -> bool:
    return got.error is None and type(got.value) is list and len(got.value) < len(expected.value)


# ---- the catalogue of named mistakes -------------------------------------------------------

RIGHT_TO_LEFT = "right-to-left merges"
OVERLAPPING = "overlapping merges"
STRING_REPLACE = "string replacement across symbol boundaries"
WRONG_TYPES = "wrong return types"
CHANGED_INPUT = "changing the caller's input"
UNWEIGHTED = "unweighted counts"
ONCE_PER_WORD = "a pair counted once per word"
PADDED_REPLACE = "string replacement missing back-to-back pairs"
FIRST_ONLY = "only the first occurrence joined"
DROPS_LAST = "the last symbol dropped"
CHARACTERS = "pairs of characters instead of symbols"
LAST_PAIR = "the last pair of each word not counted"
EMPTY_TOKEN = "a token for the empty word"
SHORTEST = "the shortest segmentation instead of merge order"
JOINED_TEXT = "symbols compared by their joined text"
SHARED_TWICE = "a pair between two joins updated twice"
FIRST_PAIR = "the first pair of each word not counted"
ASSIGNED = "a count set instead of added"
WRAPPED = "the last symbol paired with the first"
LEFT_ONLY_CHECKED = "the pair's second symbol never checked"
TIES_OTHERWISE = "ties not broken by the smallest pair"
COUNTED_ONCE = "pairs counted once, before any merge"
LONGEST = "the longest known token first instead of merge order"
ALL_AT_ONCE = "every occurrence of the pair joined in one step"
REPLAYED_ONCE = "the table replayed once, in order"
LATEST_FIRST = "the merge learned last applied first"
LATER_RANK = "a merge listed twice ranked by its later place"
RIGHT_NOT_MOVED = "the right-hand neighbour pairs not updated"
LEFT_NOT_MOVED = "the left-hand neighbour pairs not updated"
STATS_ALONE = "the caller's stats left as it was"
PAIR_ONCE = "the joined pair subtracted once per word"
LAST_PAIR_UNSEEN = "the last pair of the word never looked at"
ONE_PASS = "one pass gluing characters instead of merges by rank"
WORDS_ALONE = "the merged words not stored back"
ABSENT_PAIR = "a pair no word holds raising an error"
END_MARKER = "an end-of-word marker added"
ACROSS_WORDS = "pairs counted across word boundaries"
EITHER_ORDER = "the pair matched in either order"
EMPTY_FAILS = "an empty input raising an error"
ONE_TOO_MANY = "one merge too many"
NO_STOP = "no stop when no pair is left"
UNSEEN_DROPPED = "characters the table never saw dropped"
PAIR_KEPT = "the joined pair's own count not removed"
STALE_COUNT = "pairs counted on the words before the merges"
EVERY_OTHER = "every other pair counted"
FORGETS = "earlier merges forgotten each round"
INITIAL_ONLY = "only the pairs present at the start joined"
DISTINCT_MOVED = "each distinct pair of a word moved once"
WHERE_OVERWRITTEN = "where overwritten instead of added to"
FIRST_AS_ONE = "a pair's first occurrence counted as 1"
PAST_THE_END = "reading past the last symbol"
RAREST = "the rarest pair merged"
SMALLEST_PAIR = "the smallest pair joined instead of the lowest rank"
ONLY_PAIR = "only the joined pair's count changed"

ADVICE = {
    FIRST_PAIR: "A word of n symbols has n - 1 adjacent pairs, the first two symbols "
    "included: visit positions 0 to n - 2, starting at 0.",
    ASSIGNED: "counts[pair] = n throws away what earlier words added: add to the running "
    "total, counts[pair] = counts.get(pair, 0) + n.",
    WRAPPED: "Pairs are neighbours inside the word: the last symbol has no right neighbour, "
    "so stop at position n - 2 (no % len(word)).",
    LEFT_ONLY_CHECKED: "Check both symbols: symbols[i] against the pair's first half and "
    "symbols[i + 1] against its second; with (a, b), a c or a a must stay as they are.",
    TIES_OTHERWISE: "When several pairs share the highest count, the rule takes the smallest "
    "of them in tuple order. max() over a set or a dict, sorted(...)[-1] and most_common() "
    "pick by the order they meet the pairs in, and a set's order even changes from one run "
    "to the next: use min(counts, key=lambda p: (-counts[p], p)).",
    COUNTED_ONCE: "Count the pairs again after every merge: a merge makes new pairs (ea t "
    "after e a) and removes others, so the second best pair of the first count is often "
    "not the next merge.",
    LONGEST: "A token appears in a word only when the merges build it there: with the one "
    "merge (cc, b), ccb stays c c b, because no merge makes cc. Start from single "
    "characters and apply the lowest-ranked merge again and again; do not cut the longest "
    "vocabulary entry off the front.",
    ALL_AT_ONCE: "Join one occurrence (the leftmost) of the lowest-ranked pair, then look "
    "again: a join can make a pair of lower rank. abab with [(ab, a), (a, b)] is ab a b after "
    "one join, and then (ab, a), rank 0, comes before the second (a, b). On tables that "
    "training learns the two ways agree; the exercise's rule is one join at a time.",
    REPLAYED_ONCE: "After each join, look at the whole word again for the lowest rank: an "
    "earlier merge can apply once a later one has made its pair (aaa with [(aa, a), (a, a)] "
    "is aa a after (a, a), and then (aa, a) joins it). On tables that training learns the "
    "two ways agree.",
    LATEST_FIRST: "The lowest rank wins: a merge's rank is its index in the table, and the "
    "merges learned first apply first (min over the ranks, not max).",
    LATER_RANK: "A pair listed twice keeps its first rank: fill the ranks with setdefault, "
    "or skip pairs already seen; {pair: rank for rank, pair in enumerate(merges)} keeps "
    "the last.",
    RIGHT_NOT_MOVED: "Joining a b in x a b y changes two neighbour pairs: (x, a) becomes "
    "(x, ab), and (b, y) becomes (ab, y). Yours moved the left one only: subtract the "
    "word's count from (b, y) and add it to (ab, y) too.",
    LEFT_NOT_MOVED: "Joining a b in x a b y changes two neighbour pairs: (x, a) becomes "
    "(x, ab), and (b, y) becomes (ab, y). Yours moved the right one only: subtract the "
    "word's count from (x, a) and add it to (x, ab) too.",
    STATS_ALONE: "The words were merged but stats did not change: update the caller's dict in "
    "place as you join (stats[p] -= n, del stats[p] at 0, stats[q] = stats.get(q, 0) + n). "
    "A new dict (stats = ..., new = dict(stats)) never reaches the caller; copy it back with "
    "stats.clear() and stats.update(new) if you built one.",
    ONE_PASS: "Gluing each character onto the token before it, in one pass, never joins "
    "two longer tokens (ea + t) and ignores the ranks: apply the lowest-ranked merge present, "
    "one join at a time, and look at the whole word again after each.",
    WORDS_ALONE: "Write each merged word back into the list, words[i] = new: rebinding a "
    "local name (word = new) leaves the caller's words as they were.",
    END_MARKER: "The exercise's words carry no end-of-word marker: count only the pairs of "
    "the symbols given (a one-symbol word has none). GPT-style tokenizers keep spaces inside "
    "tokens instead of marking word ends.",
    ACROSS_WORDS: "Count inside each word only: its last symbol and the next word's first "
    "are not neighbours. Loop over the words, and multiply each word's pairs by its count.",
    EITHER_ORDER: "A pair is ordered: (a, b) means a followed by b. b a is not the pair "
    "(a, b); compare symbols[i] with its first half and symbols[i + 1] with its second.",
    EMPTY_FAILS: "An empty input is a valid input: no words, no symbols or an empty word "
    "has no pairs. Return the empty result ({}, (), [] as the exercise asks) before reading "
    "a first element.",
    ONE_TOO_MANY: "Learn num_merges merges, not num_merges + 1: loop while len(merges) < "
    "num_merges (for _ in range(num_merges)).",
    NO_STOP: "Stop when no pair is left (every word is one symbol) even if fewer than "
    "num_merges merges were learned: max() or min() of an empty table raises an error.",
    UNSEEN_DROPPED: "A character the merges never mention is still part of the word: start "
    "from every character of the word, and it stays a token of its own (zest keeps its z).",
    PAIR_KEPT: "The joined pair disappears from every word it was in: subtract the word's "
    "count from stats[pair] for each occurrence joined (and delete it at 0).",
    STALE_COUNT: "Count the pairs of the words as they are after the merges so far: store "
    "the merged words back (words = new_words) and pair whole symbols, not the letters "
    "of each word spelled out.",
    EVERY_OTHER: "Pairs overlap: a b c holds (a, b) and (b, c). Visit every position 0 to "
    "n - 2, stepping by 1, not 2.",
    FORGETS: "Each round starts from the words as all the earlier merges left them: keep the "
    "merged words from round to round instead of rebuilding them from the characters.",
    INITIAL_ONLY: "A join makes new pairs (e a becomes ea, then ea t can join): after each "
    "join, look again at the whole word for the lowest-ranked pair, until none is left.",
    DISTINCT_MOVED: "A word can hold a pair twice (a a a holds (a, a) twice): subtract and "
    "add per occurrence, zip(word, word[1:]) as it is, not a set of it.",
    WHERE_OVERWRITTEN: "where[p] lists every word that holds p: add the word's index to the "
    "set (where.setdefault(p, set()).add(i)); where[p] = {i} drops the others.",
    FIRST_AS_ONE: "The first time you meet a pair it already occurs count times: start it at "
    "the word's count (counts.get(pair, 0) + count), not at 1.",
    PAST_THE_END: "Check that a next symbol exists (i + 1 < len(symbols)) before reading "
    "symbols[i + 1]: the empty tuple, or a last symbol equal to the pair's left half, must "
    "not raise.",
    RAREST: "The most frequent pair wins: min over (-count, pair), with the minus sign, or "
    "max over the counts; min over (count, pair) takes the rarest.",
    SMALLEST_PAIR: "The lowest rank wins, not the smallest pair: look each present pair up "
    "in the ranks and take the minimum of the ranks (min(present, key=ranks.get)).",
    ONLY_PAIR: "Joining a b in x a b y also changes the neighbour pairs: (x, a) and (b, y) "
    "lose the word's count, and (x, ab) and (ab, y) gain it.",
    ABSENT_PAIR: "A pair may be missing from where when no word holds it (as (z, z)): read "
    "it with where.pop(pair, set()) or where.get(pair, ()), and return [] for it.",
    LAST_PAIR_UNSEEN: "Look at every adjacent pair when you choose the next join, the last two "
    "symbols included: positions 0 to len(symbols) - 2.",
    PAIR_ONCE: "A word can hold the pair more than once (a b a b): subtract the word's count "
    "from it for every occurrence you join.",
    JOINED_TEXT: "Compare the two symbols with the pair's two halves, one by one, not their "
    "joined text: ab c and a bc both read abc, but (ab, c) is not the pair (a, bc).",
    SHARED_TWICE: "When two joins sit side by side (a b a b with (a, b)), the pair between "
    "them, (b, a), is one pair: it is the right neighbour of the first join and the left "
    "neighbour of the second. Subtract it once, and add (ab, ab) once.",
    FIRST_ONLY: "Join every occurrence of the pair, not just the first: a b a b with (a, b) "
    "gives ab ab. Keep scanning after a join, from the symbol after the pair.",
    DROPS_LAST: "Keep every symbol: when the scan reaches the last symbol and it is not part "
    "of a join, it still belongs in the result (a b c with (a, b) gives ab c).",
    CHARACTERS: "Pair whole symbols, not the letters of the word spelled out: in t ea the "
    "pairs are (t, ea) only, not (t, e) and (e, a). Walk the tuple of symbols.",
    LAST_PAIR: "A word of n symbols has n - 1 adjacent pairs, the last two symbols included: "
    "visit positions 0 to n - 2.",
    EMPTY_TOKEN: "The empty word has no tokens: return [], not [''].",
    SHORTEST: "BPE does not look for the fewest tokens: it replays the merges, lowest rank "
    "first, and may end with more tokens than the shortest split (abcd with (a, b), (b, c), "
    "(bc, d) gives ab c d, not a bcd).",
    RIGHT_TO_LEFT: "Occurrences of the pair must be joined scanning from the left: "
    "a a a with (a, a) gives aa a, not a aa.",
    OVERLAPPING: "After joining a pair, move past both of its symbols; the right half is "
    "used up and cannot start another occurrence.",
    STRING_REPLACE: "Replacing text in the joined word also matches letters that belong to "
    "different symbols (ab c contains 'b c'). Compare whole symbols, two at a time.",
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


# What each exercise returns: the advice on wrong types names the one the student wrote.
RETURNS = {
    "pair_counts": "a dict from (left, right) tuples of str to int counts",
    "merge_pair": "a tuple of str",
    "train_bpe": "a list of (left, right) tuples of str",
    "encode_bpe": "a list of str",
    "merge_and_update": "a list of int (the indices of the words it changed), and leaves each "
    "word a list of str",
}


def _wrong_types(name: str) -> Mistake:
    advice = f"The values are right but a type is not: {name} returns {RETURNS[name]}."
    return Mistake(WRONG_TYPES, advice, test=wrong_types)


MISTAKES: dict[str, list[Mistake]] = {
    "pair_counts": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _wrong_types("pair_counts"),
        _mistake(UNWEIGHTED, counts_unweighted),
        _mistake(ONCE_PER_WORD, counts_once_per_word),
        Mistake(
            "overlapping pairs not counted",
            "Count every adjacent position: a a a holds the pair (a, a) twice.",
            (counts_without_overlaps,),
        ),
        _mistake(CHARACTERS, counts_of_characters),
        _mistake(LAST_PAIR, counts_without_last_pair),
        _mistake(FIRST_PAIR, counts_without_first_pair),
        _mistake(ASSIGNED, counts_assigned),
        _mistake(WRAPPED, counts_wrapping_around),
        _mistake(END_MARKER, counts_with_end_marker),
        _mistake(EVERY_OTHER, counts_every_other_pair),
        _mistake(FIRST_AS_ONE, counts_first_sighting_one),
        _mistake(ACROSS_WORDS, counts_across_words),
        _mistake(EMPTY_FAILS, test=empty_input_fails),
    ],
    "merge_pair": [
        _wrong_types("merge_pair"),
        _mistake(RIGHT_TO_LEFT, merge_right_to_left),
        _mistake(OVERLAPPING, merge_overlapping, merge_marking_overlaps),
        _mistake(STRING_REPLACE, *STRING_MERGES),
        _mistake(PADDED_REPLACE, merge_by_padded_replace),
        _mistake(FIRST_ONLY, merge_first_only),
        _mistake(DROPS_LAST, merge_dropping_last),
        _mistake(JOINED_TEXT, merge_by_joined_text),
        _mistake(LEFT_ONLY_CHECKED, merge_left_half_twice, merge_left_half_only),
        _mistake(EITHER_ORDER, merge_either_order),
        Mistake(PAST_THE_END, ADVICE[PAST_THE_END], test=past_the_end, somewhere=nonempty_input),
        _mistake(EMPTY_FAILS, test=empty_input_fails),
    ],
    "train_bpe": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _wrong_types("train_bpe"),
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
        _mistake(FIRST_ONLY, make_trainer(merge=merge_first_only)),
        _mistake(DROPS_LAST, make_trainer(merge=merge_dropping_last)),
        _mistake(STALE_COUNT, make_trainer(count=counts_of_characters)),
        _mistake(LAST_PAIR, make_trainer(count=counts_without_last_pair)),
        _mistake(COUNTED_ONCE, train_counting_once),
        _mistake(ONE_TOO_MANY, make_trainer(fewer=-1)),
        _mistake(FORGETS, train_forgetting_merges),
        _mistake(RAREST, make_trainer(choose=rarest_pair)),
        _mistake(NO_STOP, test=no_stop),
        _mistake(TIES_OTHERWISE, test=ties_broken_otherwise),
    ],
    "encode_bpe": [
        _mistake(CHANGED_INPUT, test=changed_input),
        _wrong_types("encode_bpe"),
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
        _mistake(FIRST_ONLY, make_replaying_encoder(merge_first_only)),
        _mistake(
            DROPS_LAST,
            make_replaying_encoder(merge_dropping_last),
            make_rank_encoder(merge_dropping_last),
        ),
        _mistake(EMPTY_TOKEN, test=empty_word_token),
        Mistake(SHORTEST, ADVICE[SHORTEST], test=shortest_segmentation, somewhere=fewer_tokens),
        _mistake(LONGEST, encode_longest_match),
        _mistake(ALL_AT_ONCE, make_rank_encoder(merge_pair)),
        _mistake(REPLAYED_ONCE, make_replaying_encoder(merge_pair)),
        _mistake(
            LATEST_FIRST,
            make_ranked_encoder(latest=True),
            make_ranked_encoder(latest=True, rightmost=True),
        ),
        _mistake(ONE_PASS, encode_one_pass),
        _mistake(SMALLEST_PAIR, encode_smallest_pair),
        _mistake(UNSEEN_DROPPED, encode_known_characters_only),
        _mistake(
            INITIAL_ONLY, make_initial_pairs_encoder(every=False), make_initial_pairs_encoder(True)
        ),
        _mistake(LATER_RANK, make_ranked_encoder(ranks_of=last_ranks)),
        _mistake(JOINED_TEXT, encode_by_spelling),
        _mistake(LAST_PAIR_UNSEEN, make_ranked_encoder(last=2)),
    ],
    "merge_and_update": [
        Mistake(
            "iterating over all words",
            "Only the words listed in where[pair] can hold the pair; visit those and "
            "never loop over the whole words list.",
            test=looped_over_words,
        ),
        Mistake(  # its own advice: this exercise is meant to change three of its arguments
            CHANGED_INPUT,
            "merge_and_update changes words, stats and where in place, but counts and pair "
            "are only read: leave them as they were (a copy of stats would not do either).",
            test=changed_input,
        ),
        _wrong_types("merge_and_update"),
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
            test=indices_out_of_order,
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
        _mistake(FIRST_ONLY, make_updater(merge=merge_first_only)),
        _mistake(
            SHARED_TWICE,
            update_shared_neighbour_twice,
            make_neighbour_updater(old_right=True),
            make_neighbour_updater(old_right=True, new_left_from="old"),
        ),
        _mistake(
            RIGHT_NOT_MOVED,
            make_neighbour_updater(right=False),
            make_neighbour_updater(right=False, left_from="new"),
        ),
        _mistake(LEFT_NOT_MOVED, make_neighbour_updater(left=False)),
        _mistake(STATS_ALONE, test=stats_left_alone),
        _mistake(WORDS_ALONE, test=words_left_alone),
        _mistake(ABSENT_PAIR, test=absent_pair_raises),
        _mistake(PAIR_ONCE, make_updater(pair_once=True)),
        _mistake(PAIR_KEPT, make_updater(subtract_pair=False)),
        _mistake(DISTINCT_MOVED, make_updater(distinct=True)),
        _mistake(WHERE_OVERWRITTEN, make_updater(overwrite_where=True)),
        _mistake(ONLY_PAIR, make_updater(subtract_neighbours=False, add_neighbours=False)),
    ],
}


def mistake_names() -> dict[str, list[str]]:
    """The names of the mistakes the diagnosis recognises, per exercise."""
    return {name: [m.name for m in found] for name, found in MISTAKES.items()}


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


def _variant_fits(name: str, variant: Callable, trials: Sequence[Trial]) -> bool:
    """True when ``variant`` does what the answer did on every trial, passing ones too."""
    return all(
        behaves_alike(name, t.expected, run_variant(name, variant, t.args), t.got) for t in trials
    )


def run_variant(name: str, variant: Callable, args: tuple) -> Outcome:
    """One of our variants on ``args``, recorded like an answer."""
    return run(variant, args)


def _test_fits(name: str, mistake: Mistake, failed: Sequence[Trial]) -> bool:
    """True when the mistake's test holds on every failed trial (and ``somewhere`` on one)."""
    if mistake.test is None or not all(
        mistake.test(name, t.args, t.expected, t.got) for t in failed
    ):
        return False
    check = mistake.somewhere
    return check is None or any(check(name, t.args, t.expected, t.got) for t in failed)


def _only(found: list[Mistake]) -> Mistake | None:
    names = {m.name for m in found}
    return found[0] if len(names) == 1 else None


def diagnose(name: str, trials: Sequence[Trial]) -> Mistake | None:
    """The one known mistake that the evidence of a group's trials singles out, or None
    (see the module's docstring for the rule)."""
    known = MISTAKES.get(name, [])
    failed = [t for t in trials if not t.passed]
    if not failed:
        return None
    for mistake in known:
        if mistake.name == CHANGED_INPUT and any(
            changed_input(name, t.args, t.expected, t.got) for t in failed
        ):
            return mistake
    ordered = [*failed, *(t for t in trials if t.passed)]  # a misfit shows on a failure first
    candidates = [m for m in known if m.name != CHANGED_INPUT]
    reproduced = [m for m in candidates if any(_variant_fits(name, v, ordered) for v in m.variants)]
    if reproduced:  # a variant that does exactly what the answer did is the best evidence
        return _only(reproduced)
    return _only([m for m in candidates if _test_fits(name, m, failed)])
