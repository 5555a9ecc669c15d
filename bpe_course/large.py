"""Train on a large text, hundreds of megabytes, from disk: stream, count in parallel, train.

:func:`train_on_files` cuts a file, a folder of ``.txt`` files or a list of files into
shards (``bpe_course.shards``), which worker processes read and count, each adding up its
own table, then adds up the workers' tables (``bpe_course.parallel``) and learns merges
with the course's array engine
(``bpe_course.arrays``); given a Dask client, the cluster's workers count it instead
(``bpe_course.dask_counting``). :func:`file_curve` does the same for the overfitting curve:
its workers count the first part of the text and the rest, each as byte ranges of the files
they read themselves, and it trains on the first part and replays every merge on the rest.
Memory follows the number of distinct chunks, not the size of the text; progress bars count
the bytes read and the merges learned.

But: nothing here is new algorithm; each step lives in its own module, and the merges are
exactly ``learn_merges``'s on ``chunk_counts`` of the whole text.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any

from bpe_course.arrays import ArrayTrainer, Pair
from bpe_course.compression import CompressionCurve
from bpe_course.parallel import COUNT_PIECE_BYTES, PathArg, count_chunks_parallel, count_segments
from bpe_course.progress import finish_at_count, progress_bar
from bpe_course.shards import split_segments, text_files
from bpe_course.validate import check_training_args

DEFAULT_MERGES = 10_000  # a vocabulary of about ten thousand tokens past the characters


def count_files(
    paths: PathArg,
    workers: int | None = None,
    progress: bool = True,
    piece_bytes: int = COUNT_PIECE_BYTES,
    client: Any = None,
) -> Counter[str]:
    """``chunk_counts`` of the whole text of ``paths``, counted piece by piece in parallel:
    by ``workers`` processes here, or by the workers of a Dask ``client`` if one is given."""
    if client is not None:
        from bpe_course.dask_counting import count_on_dask  # Dask only when asked for

        return count_on_dask(paths, client, progress)
    return count_chunks_parallel(paths, workers, piece_bytes, progress)


def train_on_files(
    paths: PathArg,
    num_merges: int = DEFAULT_MERGES,
    workers: int | None = None,
    progress: bool = True,
    client: Any = None,
    min_count: int = 1,
) -> list[Pair]:
    """The first ``num_merges`` merges learned on a file, a folder of ``.txt`` files or a list.

    ``workers`` processes count the text (default: one per core), or, given a Dask
    ``client`` (``distributed.Client``, of a cluster of your own), its workers do, each
    reading a shard of the files; the merges are the same either way. ``min_count`` leaves
    out chunks seen fewer times than that before training, as real trainers offer: less
    memory, and the merges of the text without its rarest chunks, the same as without the
    floor until the first choice of a pair those chunks' counts would have tipped. Stops
    early once every distinct chunk is a single token. Errors name the file that is missing,
    unreadable or not UTF-8.
    """
    check_training_args({}, num_merges)
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
        raise ValueError(f"min_count must be a whole number of 1 or more, got {min_count!r}")
    counts = count_files(paths, workers, progress, client=client)
    if min_count > 1:
        for chunk in [chunk for chunk, n in counts.items() if n < min_count]:
            del counts[chunk]
    trainer = ArrayTrainer(counts, take=True)  # empties the table of strings as it reads it
    del counts
    return _train(trainer, num_merges, progress)


def train_counts(counts: Counter[str], num_merges: int, progress: bool = True) -> list[Pair]:
    """Learn up to ``num_merges`` merges on counted chunks, with a progress bar of merges."""
    return _train(ArrayTrainer(counts), num_merges, progress)


def _train(trainer: ArrayTrainer, num_merges: int, progress: bool) -> list[Pair]:
    with progress_bar(num_merges, "merges", "merge", enabled=progress) as bar:
        while len(trainer.merges) < num_merges and trainer.step() is not None:
            bar.update()
        finish_at_count(bar)  # fewer merges than asked when every chunk became one token
    return trainer.merges


def count_split(
    paths: PathArg,
    train_fraction: float = 2 / 3,
    workers: int | None = None,
    progress: bool = True,
) -> tuple[Counter[str], Counter[str]]:
    """Chunk counts of the training part and of the held-out rest, each counted in parallel.

    The cut falls at the first space at or after ``train_fraction`` of the bytes, and the
    held-out part starts with that space, as ``split_train_heldout`` cuts a str. The workers
    read both parts' byte ranges from the files themselves, as ``train_on_files``'s do.
    """
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must lie strictly between 0 and 1, got {train_fraction}")
    parts = split_segments(text_files(paths), train_fraction)
    # One pool for both parts: its workers start before any table is held here, so none
    # of them begins life with a copy of one.
    train_counts, heldout_counts = count_segments(parts, workers, progress=progress)
    return train_counts, heldout_counts


def curve_from_counts(
    train_counts: Counter[str],
    heldout_counts: Counter[str],
    num_merges: int | None = None,
    progress: bool = True,
    take: bool = False,
) -> CompressionCurve:
    """ρ on both parts after every merge learned on ``train_counts`` (``None``: to the end).

    Training runs first, to the end, and only then is the held-out table laid out and each
    merge replayed on it in order, which encodes it as ``Encoder`` would (the precondition
    in ``bpe_course.engine.ChunkTable``): the same numbers as side by side, with one table
    of arrays in memory at a time instead of two. ``take`` empties both tables as the
    arrays are laid out (``ArrayTrainer``'s ``take``), to spare memory.
    """
    train_bytes = sum(len(chunk.encode("utf-8")) * n for chunk, n in train_counts.items())
    heldout_bytes = sum(len(chunk.encode("utf-8")) * n for chunk, n in heldout_counts.items())
    distinct = len(train_counts)
    trainer = ArrayTrainer(train_counts, take=take)
    bound = int(trainer.weight.size - distinct)  # each merge removes a symbol
    total = bound if num_merges is None else min(num_merges, bound)
    train_rho = [train_bytes / trainer.total_tokens]
    with progress_bar(total, "merges", "merge", enabled=progress) as bar:
        while num_merges is None or len(trainer.merges) < num_merges:
            if trainer.step() is None:
                break
            train_rho.append(train_bytes / trainer.total_tokens)
            bar.update()
        finish_at_count(bar)  # the bound is loose: end the bar full, at what was done
    merges = trainer.merges
    del trainer  # its arrays go before the held-out table's are laid out
    heldout = ArrayTrainer(heldout_counts, take=take)
    heldout_rho = [heldout_bytes / heldout.total_tokens]
    with progress_bar(len(merges), "held-out", "merge", enabled=progress) as bar:
        for pair in merges:
            heldout.apply(pair)
            heldout_rho.append(heldout_bytes / heldout.total_tokens)
            bar.update()
    return CompressionCurve(merges, train_rho, heldout_rho)


def file_curve(
    paths: PathArg,
    train_fraction: float = 2 / 3,
    num_merges: int | None = DEFAULT_MERGES,
    workers: int | None = None,
    progress: bool = True,
) -> CompressionCurve:
    """The overfitting curve of a file, folder or list of files, read and counted in parallel."""
    train_counts, heldout_counts = count_split(paths, train_fraction, workers, progress)
    if not any(chunk.strip() for chunk in chain(train_counts, heldout_counts)):
        raise ValueError(f"overfitting_curve needs some text; {paths} holds none")
    if not heldout_counts or not train_counts:
        # The held-out part starts at a space: text written without spaces (Chinese, say)
        # has none after the cut however long it is.
        raise ValueError(
            f"nothing of {paths} is left to hold out: the held-out part starts at the first "
            f"space from {train_fraction:.0%} of the text on, and there is none there; give "
            "a longer text, or a smaller train_fraction"
        )
    return curve_from_counts(train_counts, heldout_counts, num_merges, progress, take=True)
