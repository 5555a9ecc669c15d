"""The one argument check every trainer runs: a count table and a number of merges.

A caller's mistake is named at the call, with the argument, what came in and what to pass,
instead of surfacing as a traceback from deep inside a training loop. The reference
trainers in ``solutions``, ``learn_merges`` and ``hf_train`` all call it, so the same mistake
raises the same error everywhere: TypeError for a value of the wrong type (``True`` and
``2.0`` are not whole numbers here), ValueError for a whole number out of range. It checks
arguments only; it trains nothing and changes nothing.

>>> check_training_args({"ab": 2}, 3)
>>> check_training_args({"ab": 2}, None, allow_none=True)
>>> check_training_args({"ab": 0}, 3, counts_name="chunk_counts")
Traceback (most recent call last):
...
ValueError: chunk_counts['ab'] is 0; counts must be 1 or more
"""

from __future__ import annotations

from collections.abc import Mapping


def _is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_training_args(
    counts: object,
    num_merges: object,
    *,
    counts_name: str = "word_counts",
    allow_none: bool = False,
) -> None:
    """Raise TypeError or ValueError naming the bad argument and what it should be.

    ``counts`` must map each str to a whole number of 1 or more (the argument is called
    ``counts_name`` in messages); ``num_merges`` must be a whole number of 0 or more, or
    ``None`` when ``allow_none`` is true.
    """
    if not (num_merges is None and allow_none):
        if not _is_whole_number(num_merges):
            wanted = "a whole number or None" if allow_none else "a whole number"
            raise TypeError(
                f"num_merges must be {wanted}, got {num_merges!r} ({type(num_merges).__name__})"
            )
        if num_merges < 0:  # type: ignore[operator]
            raise ValueError(f"num_merges must be 0 or more, got {num_merges}")
    if not isinstance(counts, Mapping):
        raise TypeError(
            f"{counts_name} must map each word (a str) to its count, got {type(counts).__name__}"
        )
    for word, count in counts.items():
        if not isinstance(word, str):
            raise TypeError(f"{counts_name} has a key {word!r} that is not a str")
        if not _is_whole_number(count):
            raise TypeError(
                f"{counts_name}[{word!r}] must be a whole number, "
                f"got {count!r} ({type(count).__name__})"
            )
        if count < 1:
            raise ValueError(f"{counts_name}[{word!r}] is {count}; counts must be 1 or more")
