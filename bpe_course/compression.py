"""Compression, in bytes per token, and how it moves as a merge table grows.

ρ (rho) is the number of UTF-8 bytes of a text divided by the number of tokens it encodes
to: higher means each token carries more text. The curve function trains on one text and
measures ρ on it and on held-out text after every merge, the picture of a tokenizer that
overfits its training data. :func:`follow_merges` is that loop, for any trainer and table
(``bpe_course.large`` runs it on the array engine).

But: plotting lives in ``bpe_course.plots``, and training on files in ``bpe_course.large``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bpe_course.engine import ChunkTable, Encoder, Pair, Trainer
from bpe_course.pretokenize import chunk_counts
from bpe_course.progress import finish_at_count, progress_bar


def bytes_per_token(text: str, merges: Sequence[Pair]) -> float:
    """ρ of ``text`` encoded with ``merges``: UTF-8 bytes divided by tokens."""
    tokens = Encoder(merges).encode(text)
    if not tokens:
        raise ValueError("the text is empty, so it has no tokens to measure; pass some text")
    return len(text.encode("utf-8")) / len(tokens)


@dataclass
class CompressionCurve:
    """ρ after 0, 1, 2, … merges: ``train_rho[k]`` and ``heldout_rho[k]`` after ``k`` merges."""

    merges: list[Pair] = field(default_factory=list)
    train_rho: list[float] = field(default_factory=list)
    heldout_rho: list[float] = field(default_factory=list)

    @property
    def num_merges(self) -> int:
        return len(self.merges)


def compression_curve(
    train_text: str,
    heldout_text: str,
    num_merges: int | None = None,
    progress: bool = True,
) -> CompressionCurve:
    """Train on ``train_text`` and record ρ on both texts after every merge.

    ``num_merges=None`` goes on until every training chunk is a single token. The held-out
    side replays each merge as it is learned, touching only the chunks the merge changes.
    That encodes it exactly as ``Encoder`` would because the merges come from training: each
    joins tokens made before it and makes a token no other merge makes (the precondition in
    :class:`bpe_course.engine.ChunkTable`; tests/test_engine.py checks it on random texts).
    """
    for name, text in (("train_text", train_text), ("heldout_text", heldout_text)):
        if not isinstance(text, str) or not text:
            raise ValueError(f"{name} must be a non-empty str")
    trainer = Trainer(chunk_counts(train_text))
    heldout = ChunkTable(chunk_counts(heldout_text))
    # Each merge shortens at least one distinct chunk, so this bounds the merges to come.
    bound = sum(len(symbols) - 1 for symbols in trainer.symbols)

    def next_merge() -> Pair | None:
        merge = trainer.step()
        return None if merge is None else merge.pair

    sides = (trainer, len(train_text.encode("utf-8"))), (heldout, len(heldout_text.encode("utf-8")))
    return follow_merges(next_merge, *sides, bound=bound, num_merges=num_merges, progress=progress)


class Tokens(Protocol):
    """A text's table of chunks, as long in tokens as ``total_tokens`` says."""

    total_tokens: int


class Replay(Tokens, Protocol):
    """A table that can replay a merge learned elsewhere."""

    def apply(self, pair: Pair) -> object: ...


def follow_merges(
    next_merge: Callable[[], Pair | None],
    train: tuple[Tokens, int],
    heldout: tuple[Replay, int],
    bound: int,
    num_merges: int | None,
    progress: bool = True,
) -> CompressionCurve:
    """ρ on both texts at the start and after each merge ``next_merge`` learns, replayed on
    the held-out table, until it returns ``None`` or ``num_merges`` are done.

    ``train`` and ``heldout`` are each a table and the UTF-8 bytes of its text; ``next_merge``
    changes the training table. ``bound`` is at least the number of merges to come (the
    progress bar's length; the bar ends full at what was done).
    """
    (train_table, train_bytes), (heldout_table, heldout_bytes) = train, heldout
    curve = CompressionCurve()

    def record() -> None:
        curve.train_rho.append(train_bytes / train_table.total_tokens)
        curve.heldout_rho.append(heldout_bytes / heldout_table.total_tokens)

    total = bound if num_merges is None else min(num_merges, bound)
    record()
    with progress_bar(total, "merges", "merge", enabled=progress) as bar:
        while num_merges is None or curve.num_merges < num_merges:
            pair = next_merge()
            if pair is None:
                break
            heldout_table.apply(pair)
            curve.merges.append(pair)
            record()
            bar.update()
        finish_at_count(bar)  # the bound is loose: end the bar full, at what was done
    return curve
