"""The visible examples of four exercises, with their answers, and the check the notebooks'
visible test cells run on them.

``EXAMPLES[name]`` lists ``(args, expected)``: the lessons' worked examples and a few inputs
with symbols longer than one character, so the classic mistakes fail where a student first
looks. :func:`check_examples` runs an answer on each, and raises ``AssertionError`` with the
message the hidden tests would give (``bpe_course.feedback``), mistake named the same way.
The hidden tests grade these same examples again outside the student's kernel.

But: merge_and_update's examples are stateful and stay in its notebook's test cell; and this
module holds answers to these inputs only, not the code that computes them.

>>> def merge_pair(symbols, pair):
...     return tuple(symbols)
>>> check_examples("merge_pair", merge_pair)
Traceback (most recent call last):
...
AssertionError: merge_pair is wrong on 6 of 11 examples. The smallest:
    merge_pair(('a', 'a', 'a'), ('a', 'a'))
expected: ('aa', 'a')
got:      ('a', 'a', 'a')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bpe_course.feedback import describe, not_written
from bpe_course.mistakes import Trial
from bpe_course.outcomes import Outcome, run, same

TOY = {"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}
TOY_SYMBOLS = {tuple(word): count for word, count in TOY.items()}
TOY_MERGES = [("e", "a"), ("ea", "t"), ("t", "ea"), ("s", "eat"), ("e", "t"), ("eat", "s")]

EXAMPLES: dict[str, list[tuple[tuple, Any]]] = {
    "pair_counts": [
        (
            (TOY_SYMBOLS,),
            {
                ("t", "e"): 8,
                ("e", "a"): 20,
                ("a", "s"): 2,
                ("a", "t"): 12,
                ("t", "s"): 3,
                ("s", "e"): 7,
                ("e", "t"): 3,
            },
        ),
        (({("a", "a", "a"): 2},), {("a", "a"): 4}),  # overlapping positions both count
        (
            ({("a", "b", "a", "b"): 3, ("c", "d"): 1},),
            {("a", "b"): 6, ("b", "a"): 3, ("c", "d"): 1},
        ),
        # After the merge (e, a): symbols of two letters, each a whole symbol.
        (
            ({("t", "ea"): 6, ("t", "ea", "s"): 2, ("ea", "t"): 5, ("s", "ea", "t"): 4},),
            {("t", "ea"): 8, ("ea", "s"): 2, ("ea", "t"): 9, ("s", "ea"): 4},
        ),
        (({(" ", "t", "he"): 3},), {(" ", "t"): 3, ("t", "he"): 3}),  # a symbol that is a space
        (({("x",): 5},), {}),
        (({},), {}),
    ],
    "merge_pair": [
        ((("a", "a", "a"), ("a", "a")), ("aa", "a")),
        ((("t", "e", "a", "t", "e", "a"), ("t", "e")), ("te", "a", "te", "a")),
        ((("t", "ea", "t"), ("ea", "t")), ("t", "eat")),
        ((("s", "e", "t"), ("e", "a")), ("s", "e", "t")),
        ((("ab", "c"), ("a", "bc")), ("ab", "c")),  # whole symbols only
        ((("xa", "b"), ("a", "b")), ("xa", "b")),
        ((("a", "b", "a", "b"), ("a", "b")), ("ab", "ab")),  # side by side, both join
        ((("ab", "ab", "c"), ("ab", "c")), ("ab", "abc")),
        (((" ", "t", "h"), (" ", "t")), (" t", "h")),  # a symbol that is a space
        (((), ("a", "b")), ()),
        ((("a",), ("a", "a")), ("a",)),
    ],
    "train_bpe": [
        ((dict(TOY), 4), TOY_MERGES[:4]),  # rounds 1-4 of lesson 1
        ((dict(TOY), 6), TOY_MERGES),  # rounds 5 and 6 are ties
        (({"ab": 10, "bcd": 6}, 3), [("a", "b"), ("b", "c"), ("bc", "d")]),
        (({"cdcd": 1, "ab": 1}, 1), [("c", "d")]),  # (c, d) stands twice in cdcd
        (({"aaa": 1}, 2), [("a", "a"), ("aa", "a")]),
        (({"ab": 5, "abc": 2, "bc": 3, "cd": 1}, 3), [("a", "b"), ("b", "c"), ("ab", "c")]),
        ((dict(TOY), 0), []),
        (({"ab": 1}, 5), [("a", "b")]),  # stop once every word is one symbol
        (({"abcab": 2}, 2), [("a", "b"), ("ab", "c")]),  # both (a, b) join, far apart
        (({"abab": 2}, 2), [("a", "b"), ("ab", "ab")]),  # and side by side
        # Six pairs tied at every step: only the smallest-pair rule gives this order.
        (
            ({"gh": 1, "ab": 1, "kl": 1, "cd": 1, "ij": 1, "ef": 1}, 6),
            [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("i", "j"), ("k", "l")],
        ),
    ],
    "encode_bpe": [
        (("seats", list(TOY_MERGES)), ["seat", "s"]),
        (("steat", list(TOY_MERGES)), ["s", "t", "eat"]),  # lowest rank, not leftmost
        (("tease", list(TOY_MERGES)), ["tea", "s", "e"]),
        (("tetea", list(TOY_MERGES)), ["t", "e", "tea"]),  # join where the pair was found
        (("zest", list(TOY_MERGES)), ["z", "e", "s", "t"]),
        (("abcd", [("a", "b"), ("b", "c"), ("bc", "d")]), ["ab", "c", "d"]),  # not shortest
        (("aaa", [("a", "a")]), ["aa", "a"]),
        (("abab", [("ab", "a"), ("a", "b")]), ["aba", "b"]),  # one join per step
        (("abab", [("a", "b")]), ["ab", "ab"]),  # occurrences side by side both join
        (("abcab", [("a", "b")]), ["ab", "c", "ab"]),  # and far apart
        (("abcbc", [("a", "b"), ("b", "c")]), ["ab", "c", "bc"]),  # ab c holds no (b, c)
        (("aaa", [("aa", "a"), ("a", "a")]), ["aaa"]),  # look again: (aa, a) after (a, a)
        (("ccb", [("cc", "b")]), ["c", "c", "b"]),  # no merge makes cc, so none makes ccb
        (("bcba", [("c", "b"), ("b", "a"), ("c", "b")]), ["b", "cb", "a"]),  # first rank kept
        (("abc", [("b", "c"), ("ab", "c")]), ["a", "bc"]),  # (a, bc) is not (ab, c)
        (("", list(TOY_MERGES)), []),
        (("tea", []), ["t", "e", "a"]),
    ],
}


def example_cases(name: str) -> list[tuple]:
    """The argument tuples of exercise ``name``'s visible examples (fresh copies)."""
    import copy

    return [copy.deepcopy(args) for args, _ in EXAMPLES[name]]


def check_examples(name: str, func: Callable) -> None:
    """Run ``func`` on exercise ``name``'s examples; raise AssertionError with the first
    failure's message (the smallest input first), NotImplementedError if ``func`` is still
    the stub, or print that every example passes."""
    if not callable(func):
        raise AssertionError(f"{name} should be a function, but it is a {type(func).__name__}")
    trials = []
    for args, value in EXAMPLES[name]:
        expected = Outcome(value, None, args)
        got = run(func, args)
        passed = got.error is None and same(value, got.value) and same(args, got.after)
        trials.append(Trial(args, expected, got, passed))
    messages = describe(name, trials, inputs="examples", order=lambda t: len(repr(t.args)))
    if messages and not_written(name, messages[0]):
        raise NotImplementedError(messages[0])  # the self-check then points at the stub
    if messages:
        raise AssertionError(messages[0])
    print(f"{name}: every example passes")
