"""Name the mistake behind a wrong answer, and write the failure message a student reads.

Each known mistake is either a small wrong implementation of our own (a *variant*), or a
test on the outcome itself (the wrong type, a changed argument, a loop over all words). To
diagnose a failing case we run the variants on the same input and see whether one of them
returns exactly what the student's function returned. When several mistakes fit, the one
that explains the most failing cases wins. Student code is never run here: only plain-data
outcomes are compared.

Known mistakes, per exercise (``MISTAKES[name]``):

- pair_counts: unweighted counts; a pair counted once per word; overlapping pairs not
  counted; wrong return types; changing the caller's input.
- merge_pair: right-to-left merges; overlapping merges; string replacement across symbol
  boundaries; wrong return types.
- train_bpe: ties broken by the largest pair / by the concatenated string / by first
  appearance; unweighted counts; a pair counted once per word; stopping when counts fall
  to 1; one merge too few; right-to-left or overlapping merges; string replacement across
  symbol boundaries; wrong return types; changing the caller's input.
- encode_bpe: leftmost pair instead of lowest rank; right-to-left or overlapping merges;
  string replacement across symbol boundaries; wrong return types; changing the caller's
  input.
- merge_and_update: iterating over all words; zero entries left in stats; where not
  updated; stale indices reported as changed; right-to-left or overlapping merges;
  unweighted counts; wrong return types; changing the caller's input.

>>> from autograder.checks import run_case
>>> args = ("steat", [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat")])
>>> got = run_case("encode_bpe", encode_leftmost, args)
>>> got.value
['s', 'tea', 't']
>>> diagnose("encode_bpe", args, got).name
'leftmost pair instead of lowest rank'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from autograder.plain import Unplain, same, to_plain
from solutions import merge_pair, pair_counts

Pair = tuple[str, str]
REPR_LIMIT = 400


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its name, advice in a sentence or two, and how to recognise it."""

    name: str
    advice: str
    variants: tuple[Callable, ...] = ()
    # test(name, args, expected, got) -> True when the outcome itself shows the mistake.
    test: Callable[[str, tuple, Any, Any], bool] | None = field(default=None)


# ---- wrong ways to merge a pair (shared by merge_pair, train_bpe, encode_bpe) -------------


def merge_right_to_left(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Scans from the right end, so ``a a a`` becomes ``a aa``."""
    left, right = pair
    out: list[str] = []
    i = len(symbols) - 1
    while i >= 0:
        if i >= 1 and symbols[i - 1] == left and symbols[i] == right:
            out.append(left + right)
            i -= 2
        else:
            out.append(symbols[i])
            i -= 1
    return tuple(reversed(out))


def merge_overlapping(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Forgets to skip the right half after a merge, so it is used again."""
    left, right = pair
    out: list[str] = []
    for i, symbol in enumerate(symbols):
        if i + 1 < len(symbols) and symbol == left and symbols[i + 1] == right:
            out.append(left + right)
        else:
            out.append(symbol)
    return tuple(out)


def merge_by_string_split(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Replaces text in the space-joined word, which also matches across symbols."""
    text = " ".join(symbols).replace(" ".join(pair), "".join(pair))
    return tuple(text.split(" "))


def merge_by_string_words(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """The same text replacement, split on any run of whitespace."""
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split())


STRING_MERGES = (merge_by_string_split, merge_by_string_words)


# ---- wrong ways to count pairs ---------------------------------------------------------------


def counts_unweighted(words: dict) -> dict:
    counts: dict = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def counts_once_per_word(words: dict) -> dict:
    counts: dict = {}
    for symbols, count in words.items():
        for pair in dict.fromkeys(zip(symbols, symbols[1:])):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_without_overlaps(words: dict) -> dict:
    counts: dict = {}
    for symbols, count in words.items():
        i = 0
        while i + 1 < len(symbols):
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
            # skip the next position when it would reuse this pair's right half for the same pair
            nxt = (symbols[i + 1], symbols[i + 2]) if i + 2 < len(symbols) else None
            i += 2 if nxt == pair else 1
    return counts


# ---- a trainer with one thing changed at a time --------------------------------------------


def lowest_pair(counts: dict) -> Pair:
    return min(counts, key=lambda pair: (-counts[pair], pair))


def largest_pair(counts: dict) -> Pair:
    return max(counts, key=lambda pair: (counts[pair], pair))


def smallest_concatenation(counts: dict) -> Pair:
    return min(counts, key=lambda pair: (-counts[pair], pair[0] + pair[1]))


def first_appearance(counts: dict) -> Pair:
    return max(counts, key=counts.__getitem__)


def make_trainer(
    count: Callable = pair_counts,
    choose: Callable = lowest_pair,
    merge: Callable = merge_pair,
    stop_below: int = 1,
    fewer: int = 0,
) -> Callable:
    """A naive trainer with one part swapped for a wrong one."""

    def train(word_counts: dict, num_merges: int) -> list[Pair]:
        words = {tuple(word): n for word, n in word_counts.items()}
        merges: list[Pair] = []
        for _ in range(max(num_merges - fewer, 0)):
            counts = count(words)
            if not counts:
                break
            best = choose(counts)
            if counts[best] < stop_below:
                break
            merges.append(best)
            words = {merge(symbols, best): n for symbols, n in words.items()}
        return merges

    return train


# ---- wrong encoders --------------------------------------------------------------------------


def encode_leftmost(word: str, merges: Sequence[Pair]) -> list[str]:
    """Merges the first pair (from the left) that is in the table, whatever its rank."""
    known = set(map(tuple, merges))
    symbols = list(word)
    merged = True
    while merged:
        merged = False
        for i in range(len(symbols) - 1):
            if (symbols[i], symbols[i + 1]) in known:
                symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                merged = True
                break
    return symbols


def make_replaying_encoder(merge: Callable) -> Callable:
    """Replays the table in order with a wrong ``merge``."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        symbols = tuple(word)
        for pair in merges:
            symbols = merge(symbols, tuple(pair))
        return list(symbols)

    return encode


def make_rank_encoder(merge: Callable) -> Callable:
    """The lowest-rank loop with a wrong ``merge`` (stops if a merge changes nothing)."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        ranks: dict = {}
        for rank, pair in enumerate(merges):
            ranks.setdefault(tuple(pair), rank)
        symbols = tuple(word)
        for _ in range(4 * len(word) + 4):  # a wrong merge may never shrink the word
            present = [p for p in zip(symbols, symbols[1:]) if p in ranks]
            if not present:
                break
            symbols = merge(symbols, min(present, key=ranks.__getitem__))
        return list(symbols)

    return encode


# ---- wrong incremental updates ---------------------------------------------------------------


def make_updater(
    merge: Callable = merge_pair,
    keep_zeros: bool = False,
    update_where: bool = True,
    report_stale: bool = False,
    weighted: bool = True,
) -> Callable:
    """merge_and_update with one part left out or done wrong."""

    def update(
        words: list[list[str]],
        counts: list[int],
        stats: dict[Pair, int],
        where: dict[Pair, set[int]],
        pair: Pair,
    ) -> list[int]:
        changed = []
        for i in sorted(where.get(pair, ()) if not update_where else where.pop(pair, ())):
            old = list(words[i])
            new = list(merge(old, pair))
            if new == old:
                if report_stale:
                    changed.append(i)
                continue
            weight = counts[i] if weighted else 1
            for gone in zip(old, old[1:]):
                stats[gone] = stats.get(gone, 0) - weight
            for born in zip(new, new[1:]):
                stats[born] = stats.get(born, 0) + weight
                if update_where:
                    where.setdefault(born, set()).add(i)
            words[i] = new
            changed.append(i)
        if not keep_zeros:
            for p in [p for p, n in stats.items() if n == 0]:
                del stats[p]
        return changed

    return update


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
        from autograder.checks import where_problem

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
        from autograder.checks import where_problem

        return (
            same(a.value, b.value)
            and same(a.after[:3], b.after[:3])
            and (where_problem(a.after, expected.after) is None)
            == (where_problem(b.after, expected.after) is None)
        )
    return same(a.value, b.value) and same(a.after, b.after)


def _fits(mistake: Mistake, name: str, args: tuple, expected: Any, got: Any) -> bool:
    from autograder.checks import run_case

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
    from autograder.checks import reference, run_case

    if expected is None:
        expected = run_case(name, reference(name), args)
    return diagnose_all(name, [(args, expected, got)])[0]


# ---- messages ---------------------------------------------------------------------------------


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 5] + " ...)"


def _result_lines(name: str, args: tuple, expected: Any, got: Any) -> list[str]:
    if got.error is not None:
        return [f"expected: {_show(expected.value)}", f"got:      an error, {got.error}"]
    lines = []
    if not same(expected.value, got.value):
        lines += [f"expected: {_show(expected.value)}", f"got:      {_show(got.value)}"]
    if name == "merge_and_update":
        from autograder.checks import where_problem

        for k, label in ((0, "words"), (1, "counts"), (2, "stats")):
            if not same(expected.after[k], got.after[k]):
                lines += [
                    f"{label} afterwards should be: {_show(expected.after[k])}",
                    f"{label} afterwards is:        {_show(got.after[k])}",
                ]
        problem = where_problem(got.after, expected.after)
        if problem:
            lines.append(f"where afterwards: {problem}")
    else:
        original = to_plain(args)
        for k, (before, after) in enumerate(zip(original, got.after)):
            if not same(before, after):
                lines += [
                    f"argument {k + 1} was changed from: {_show(before)}",
                    f"                             to: {_show(after)}",
                ]
    if not lines:
        lines.append("(the answer differs from the expected one only in its types)")
    return lines


def describe_failures(name: str, failures: Sequence[tuple], total: int) -> list[str]:
    """One message per failure, in the given order (the judge puts the smallest first).

    The first line of the first message says it all in brief (how many inputs fail and the
    likely mistake), for summaries that show one line per test.
    """
    from autograder.checks import call_text

    if failures and len(failures) == total and all(_unwritten(got) for *_, got in failures):
        return [
            f"{name} is not written yet: it raises NotImplementedError on every test input. "
            "Replace the stub in its answer cell with your code."
        ]
    named = diagnose_all(name, failures)
    same_error = _same_error_everywhere(failures, total)
    if same_error is not None and named[0] is None:
        return [f"{name} raised {same_error} on every input; {_error_advice(same_error)}"]
    messages = []
    for index, ((args, expected, got), mistake) in enumerate(zip(failures, named)):
        if index == 0:
            brief = f" (likely mistake: {mistake.name})" if mistake is not None else ""
            head = (
                f"{name} is wrong on {len(failures)} of {total} test inputs{brief}. The smallest:"
            )
        else:
            head = f"{name} is also wrong on:"
        lines = [head, "    " + _show_call(call_text, name, args)]
        lines += _result_lines(name, args, expected, got)
        if mistake is not None:
            lines.append(f"Likely mistake: {mistake.name}. {mistake.advice}")
        messages.append("\n".join(lines))
    return messages


# What to do when every input raises the same error, by the error's type.
ERROR_ADVICE = {
    "NameError": "a name your answer uses is not defined when the answer runs alone. Define "
    "it (or import it) in the answer cell, or in a cell of your own before the tests, and "
    "check the spelling of the function's name.",
    "SyntaxError": "the answer cell is not valid Python; fix the line the error points to.",
    "IndentationError": "the answer cell is not valid Python; fix the indentation of the "
    "line the error points to.",
    "ImportError": "import only the standard library (and bpe_course where a lesson says so).",
    "ModuleNotFoundError": "import only the standard library (and bpe_course where a lesson "
    "says so).",
    "EngineRefusedError": "only code you wrote yourself earns marks.",
}
GENERIC_ADVICE = (
    "run it on the lesson's examples in your notebook and read the traceback to find the line."
)


def _error_type(got: Any) -> str | None:
    return None if got.error is None else got.error.split(":")[0]


def _same_error_everywhere(failures: Sequence[tuple], total: int) -> str | None:
    """The error text of the smallest failing input when every input raised the same type
    of error, else None."""
    if not failures or len(failures) != total:
        return None
    kinds = {_error_type(got) for *_, got in failures}
    if len(kinds) != 1 or None in kinds:
        return None
    return failures[0][2].error


def _error_advice(error: str) -> str:
    kind = error.split(":")[0]
    return ERROR_ADVICE.get(kind, GENERIC_ADVICE)


def _unwritten(got: Any) -> bool:
    return got.error is not None and got.error.split(":")[0] == "NotImplementedError"


def _show_call(call_text: Callable, name: str, args: tuple) -> str:
    text = call_text(name, args)
    return text if len(text) <= 2 * REPR_LIMIT else text[: 2 * REPR_LIMIT - 5] + " ...)"
