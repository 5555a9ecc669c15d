"""Vectorized pair counting for integer symbols (bytes or token ids), with numpy.

Each adjacent pair (a, b) of ids below ``vocab_size`` becomes one integer ``a * vocab_size + b``,
so counting every pair of a whole corpus is a single ``numpy.bincount``. Pairs that would
straddle two chunks are masked out, and each position is weighted by its chunk's count.
This does not train anything; it is the hot loop of training, shown on its own.

>>> counts = byte_pair_counts([b"aaa", b"ab"], [2, 5])
>>> counts[(ord("a"), ord("a"))], counts[(ord("a"), ord("b"))]
(4, 5)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def byte_pair_counts(
    chunks: Sequence[bytes | Sequence[int]],
    counts: Sequence[int] | None = None,
    vocab_size: int = 256,
) -> dict[tuple[int, int], int]:
    """Weighted counts of adjacent id pairs inside each chunk, never across two chunks."""
    if counts is None:
        counts = [1] * len(chunks)
    if len(counts) != len(chunks):
        raise ValueError(f"got {len(chunks)} chunks but {len(counts)} counts; give one per chunk")
    lengths = np.array([len(chunk) for chunk in chunks], dtype=np.int64)
    if lengths.sum() < 2:
        return {}
    ids = np.concatenate(
        [np.asarray(list(chunk), dtype=np.int64) for chunk in chunks if len(chunk)]
    )
    if ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(
            f"ids must lie in 0..{vocab_size - 1}; raise vocab_size to count larger ids"
        )
    weights = np.repeat(np.asarray(counts, dtype=np.int64), lengths)
    inside = np.ones(len(ids), dtype=bool)
    inside[np.cumsum(lengths[lengths > 0]) - 1] = False  # the last symbol of a chunk starts no pair
    keys = ids[:-1] * vocab_size + ids[1:]
    table = np.bincount(keys[inside[:-1]], weights=weights[:-1][inside[:-1]], minlength=0)
    found = np.flatnonzero(table)
    return {(int(k // vocab_size), int(k % vocab_size)): int(table[k]) for k in found}
