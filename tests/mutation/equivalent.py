"""The mutants of the reference that no hidden test can kill, each with why it is equivalent.

``make mutants`` fails when a mutant survives the hidden tests without being listed here, or
when a listed one is killed; ``tests/test_mutants.py`` checks in ``make test`` that every entry
still names the change mutmut makes today and still survives. "Equivalent" is judged against
the exercise as stated (five positional arguments for merge_and_update, so the reference's
extra ``changes`` argument is always None).

But: it lists only hidden-test survivors; mutants that survive the visible tests alone are
reported by ``make mutants`` and need no entry.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Equivalent:
    """A mutant no test can tell from the reference: the line it changes, and why."""

    before: str
    after: str
    why: str


EQUIVALENT: dict[str, Equivalent] = {
    "solutions.bpe.x_encode_bpe__mutmut_10": Equivalent(
        before="while len(symbols) > 1:",
        after="while len(symbols) >= 1:",
        why="one symbol has no adjacent pair, so the extra pass finds nothing and breaks at "
        "once; the empty word still skips the loop",
    ),
    "solutions.fast.x_merge_and_update__mutmut_6": Equivalent(
        before="delta: dict[Pair, int] = {} if changes is None else changes",
        after="delta: dict[Pair, int] = {} if (changes is None) or True else changes",
        why="changes is the fast trainer's sixth argument; the exercise passes five, so "
        "changes is always None and both lines give {}",
    ),
    "solutions.fast.x_merge_and_update__mutmut_54": Equivalent(
        before="new, sites = _join_in_word(old, pair) if lefts else (old, [])",
        after="new, sites = _join_in_word(old, pair) if (lefts) or True else (old, [])",
        why="with no left half in the word (lefts == 0) _join_in_word joins nothing and "
        "returns a copy of old and no sites, so the stale word is skipped either way",
    ),
}
