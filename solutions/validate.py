"""Argument checks shared by the two reference trainers, so a caller's mistake is named
at the call instead of surfacing as a traceback from deep inside the loop."""

from __future__ import annotations

from collections.abc import Mapping


def check_training_args(word_counts: Mapping[str, int], num_merges: int) -> None:
    """Raise TypeError or ValueError naming the bad argument and what it should be."""
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(
            f"num_merges must be a whole number, got {num_merges!r} ({type(num_merges).__name__})"
        )
    if num_merges < 0:
        raise ValueError(f"num_merges must be 0 or more, got {num_merges}")
    if not isinstance(word_counts, Mapping):
        raise TypeError(
            f"word_counts must map each word (a str) to its count, got {type(word_counts).__name__}"
        )
    for word, count in word_counts.items():
        if not isinstance(word, str):
            raise TypeError(f"word_counts has a key {word!r} that is not a str")
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(
                f"word_counts[{word!r}] must be a whole number, "
                f"got {count!r} ({type(count).__name__})"
            )
        if count < 1:
            raise ValueError(f"word_counts[{word!r}] is {count}; counts must be 1 or more")
