"""Training cost counted, not timed: the simple loop and the incremental trainer, with meters.

:func:`naive_work` runs the simple loop of lessons 1 and 2 and :func:`incremental_work` the
course's ``Trainer``; each adds up the work it does (symbols read while counting pairs,
symbols read or written while rewriting, heap entries pushed or popped) and reports the
running total after every merge. :func:`fit_slope` fits the slope of that total against the
number of merges on a log-log scale, and :func:`plot_cost` draws both.

But: the counts are of elementary steps, not seconds; the merges learned are exactly those of
``learn_merges`` (the test suite checks it), and nothing here makes training faster.

>>> corpus = {"tea": 6, "teas": 2, "eat": 5, "eats": 3, "seat": 4, "set": 3}
>>> naive, merges = naive_work(corpus, 4)
>>> merges
[('e', 'a'), ('ea', 't'), ('t', 'ea'), ('s', 'eat')]
>>> naive
[58, 103, 140, 172]
>>> incremental_work(corpus, 4)[1] == merges
True
>>> round(fit_slope([1, 2, 4, 8], [3, 6, 12, 24]), 6)
1.0
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bpe_course.engine import Merge, Pair, Trainer, _join
from bpe_course.progress import progress_bar

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Okabe and Ito's palette, which stays distinct for the common kinds of colour blindness.
BLUE, ORANGE, VERMILLION, GREEN = "#0072B2", "#E69F00", "#D55E00", "#009E73"


def naive_work(
    chunk_counts: Mapping[str, int], num_merges: int, progress: bool = False
) -> tuple[list[int], list[Pair]]:
    """The simple loop's running work after each merge, and the merges it learned.

    One round reads every symbol of every distinct chunk to count its pairs, then reads and
    writes every symbol again to rewrite the chunks: about ``3 S`` for ``S`` symbols.
    """
    chunks = [(list(chunk), count) for chunk, count in chunk_counts.items() if chunk]
    work, total = 0, []
    merges: list[Pair] = []
    bar = progress_bar(num_merges, "simple loop", "merge", enabled=progress)
    while len(merges) < num_merges:
        counts: dict[Pair, int] = {}
        for symbols, count in chunks:
            work += len(symbols)
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        rewritten = []
        for symbols, count in chunks:
            after = _join(symbols, best)
            work += len(symbols) + len(after)
            rewritten.append((after, count))
        chunks = rewritten
        merges.append(best)
        total.append(work)
        bar.update()
    bar.close()
    return total, merges


class _MeteredTrainer(Trainer):
    """``Trainer`` with a meter: symbols of the chunks it visits, and heap entries moved."""

    def __init__(self, chunk_counts: Mapping[str, int]) -> None:
        super().__init__(chunk_counts)
        # Building the tables reads every symbol once; heapify touches every pair once.
        self.work = sum(len(symbols) for symbols in self.symbols) + len(self._heap)

    def apply(self, pair: Pair) -> list[tuple[int, list[str]]]:
        listed = self.index.get(pair, ())
        self.work += sum(len(self.symbols[i]) for i in listed)  # read each listed chunk
        changed = super().apply(pair)
        self.work += sum(len(self.symbols[i]) for i, _ in changed)  # write the new ones
        return changed

    def step(self) -> Merge | None:
        before = len(self._heap)
        merge = None
        while self._heap:  # the loop of Trainer.step, counting each entry popped
            negative, pair = heapq.heappop(self._heap)
            self.work += 1
            if self.pair_counts.get(pair) == -negative:
                popped = before - len(self._heap)
                merge = self._learn(pair)
                self.work += len(self._heap) - (before - popped)  # entries pushed
                break
        return merge


def incremental_work(
    chunk_counts: Mapping[str, int], num_merges: int, progress: bool = False
) -> tuple[list[int], list[Pair]]:
    """The incremental trainer's running work after each merge, and the merges it learned.

    The start reads every symbol once; a merge then reads and writes only the chunks the
    pair index lists, and moves a few heap entries.
    """
    trainer = _MeteredTrainer(chunk_counts)
    total = []
    bar = progress_bar(num_merges, "incremental", "merge", enabled=progress)
    while len(trainer.merges) < num_merges and trainer.step() is not None:
        total.append(trainer.work)
        bar.update()
    bar.close()
    return total, [merge.pair for merge in trainer.merges]


def fit_slope(merges: Sequence[int], work: Sequence[int]) -> float:
    """The least-squares slope of log(work) against log(merges): work grows as merges**slope."""
    return float(np.polyfit(np.log(merges), np.log(work), 1)[0])


def checkpoints(num_merges: int, first: int = 25) -> list[int]:
    """Merge counts that double from ``first`` up to ``num_merges`` (which is always last).

    >>> checkpoints(800)
    [25, 50, 100, 200, 400, 800]
    """
    points = [first * 2**k for k in range(int(math.log2(max(num_merges / first, 1))) + 1)]
    return [p for p in points if p < num_merges] + [num_merges]


def plot_cost(
    points: Sequence[int], naive: Sequence[int], incremental: Sequence[int]
) -> tuple[Figure, str]:
    """Both running totals on log-log axes, and a sentence that describes the figure."""
    # Imported here: pyplot takes about half a second, and grading's kernels and judge import
    # this module for lesson 4's imports without ever drawing.
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    a, b = fit_slope(points, naive), fit_slope(points, incremental)
    ax.loglog(points, naive, color=VERMILLION, linestyle="-", marker="o", label="simple loop")
    ax.loglog(points, incremental, color=BLUE, linestyle="--", marker="s", label="incremental")
    ax.set_xlabel("number of merges m")
    ax.set_ylabel("work counted (symbols and heap entries)")
    ax.set_title(f"Training work: slope {a:.2f} (simple loop) vs {b:.2f} (incremental)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left")
    fig.tight_layout()
    description = (
        f"Log-log plot of training work against merges from {points[0]:,} to {points[-1]:,}: "
        f"the simple loop (solid line, circles) rises from {naive[0]:,} to {naive[-1]:,} "
        f"steps with slope {a:.2f}, the incremental trainer (dashed line, squares) from "
        f"{incremental[0]:,} to {incremental[-1]:,} with slope {b:.2f}."
    )
    return fig, description
