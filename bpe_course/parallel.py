"""Pre-tokenize and count a large text in worker processes that read it themselves.

:func:`count_chunks_parallel` cuts the files into shards of a few megabytes where a chunk
ends (``bpe_course.shards.plan_shards``) and starts ``workers`` processes (the standard
library's ``concurrent.futures.ProcessPoolExecutor``). Each worker takes the next shard not
yet taken, reads it from the files itself, and adds its chunks to a ``Counter`` of its own;
only when no shard is left does it send that table back, once, to be added to the others.
The text itself never crosses between processes, and the counts cross once per worker
rather than once per piece: this process only waits and moves the progress bar. The result
is exactly ``chunk_counts`` of the whole text, while memory holds, per worker, a piece and
a table whose size is the number of distinct chunks it met, not the length of the text.
:func:`count_segments` does the same for several texts given as byte ranges of files (the
training and the held-out part of the overfitting curve), one after the other in one pool.
:func:`count_pieces` counts pieces handed to it (a text read some other way) in workers, a
piece per task. With ``workers=1`` both count in this process, with no worker.

But: it only counts. Training on the counts is ``bpe_course.arrays.learn_merges_arrays``, and
``bpe_course.large.train_on_files`` does both.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
>>> _ = path.write_text("the cat and the hat", encoding="utf-8")
>>> count_chunks_parallel(path, workers=2, piece_bytes=4, progress=False)[" the"]
1
"""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bpe_course.pretokenize import pretokenize
from bpe_course.progress import progress_bar
from bpe_course.shards import (
    Segment,
    plan_segment_shards,
    plan_shards,
    read_pieces,
    read_segments,
    segment_bytes,
    text_files,
    total_bytes,
)

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
SHARD_BYTES = 8 << 20  # a worker takes this much at a time: the last shard keeps one core busy
# Counting reads pieces this small: a piece's list of chunk strings then stays in the
# processor's cache until it is counted. On the scale bench's text, about 7% less CPU
# than pieces of 64 KB and 12% less than 1 MB (same counts: pieces end where chunks end).
COUNT_PIECE_BYTES = 1 << 14
Counted = TypeVar("Counted")  # what a worker sends back: a table, or a table per text


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _count(piece: str) -> Counter[str]:
    return Counter(pretokenize(piece))


def _context() -> multiprocessing.context.BaseContext:
    # fork starts a worker in milliseconds and needs nothing importable by name, which keeps
    # a notebook cell quick; where there is no fork (Windows, macOS's default) spawn works too.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _checked(workers: int | None) -> int:
    workers = default_workers() if workers is None else workers
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a whole number of 1 or more, got {workers!r}")
    return workers


def count_pieces(pieces: Iterable[str], workers: int | None = None) -> Counter[str]:
    """The chunk counts of all ``pieces`` together, counted in ``workers`` processes.

    Each piece must end where a chunk ends (``read_pieces`` cuts them so), otherwise the
    counts differ from those of the joined text.
    """
    workers = _checked(workers)
    total: Counter[str] = Counter()
    if workers == 1:
        for piece in pieces:
            total.update(pretokenize(piece))
        return total
    with ProcessPoolExecutor(workers, mp_context=_context()) as pool:
        waiting: set[Future[Counter[str]]] = set()
        try:
            for piece in pieces:
                # Two pieces per worker keep every worker busy and bound memory; the pool's
                # own map would read every piece of the text before the first is counted.
                if len(waiting) >= 2 * workers:
                    done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                    _add(total, done)
                waiting.add(pool.submit(_count, piece))
            _add(total, wait(waiting).done)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return total


def _add(total: Counter[str], done: Iterable[Future[Counter[str]]]) -> None:
    for future in done:
        counts: Counter[str] = _result(future)
        total.update(counts)


def _result(future: Future[Counted]) -> Counted:
    """A worker's counts, or its failure as one plain error."""
    try:
        return future.result()
    except BrokenProcessPool as error:
        raise RuntimeError(
            "a counting worker died, most likely out of memory; try workers=1, or a part "
            "of the text"
        ) from error
    except (OSError, ValueError):
        raise  # a file missing, unreadable or not UTF-8: the message names it
    except Exception as error:  # the worker's own error, re-raised here by the pool
        raise RuntimeError(f"a counting worker failed: {type(error).__name__}: {error}") from error


def count_chunks_parallel(
    paths: PathArg,
    workers: int | None = None,
    piece_bytes: int = COUNT_PIECE_BYTES,
    progress: bool = True,
    shard_bytes: int = SHARD_BYTES,
) -> Counter[str]:
    """How often each distinct chunk occurs in a file, a folder's ``.txt`` files or a list.

    ``workers`` defaults to one per core; each reads shards of about ``shard_bytes`` from
    the files, ``piece_bytes`` at a time. Equal to ``chunk_counts(load_text(paths))``,
    without ever holding the whole text. Errors name the file that is missing, unreadable
    or not UTF-8.
    """
    workers = _checked(workers)
    if workers == 1:
        return count_pieces(read_pieces(paths, piece_bytes, progress=progress), 1)
    files = text_files(paths)
    planned = [plan_shards(files, shard_bytes)]
    return _count_in_workers(planned, total_bytes(files), workers, piece_bytes, progress)[0]


def count_segments(
    parts: Sequence[Sequence[Segment]],
    workers: int | None = None,
    piece_bytes: int = COUNT_PIECE_BYTES,
    progress: bool = True,
    shard_bytes: int = SHARD_BYTES,
) -> list[Counter[str]]:
    """The chunk counts of each of several texts, each given as segments of files (byte
    ranges read with a newline between them; ``bpe_course.shards.split_segments`` makes
    the two parts of the overfitting curve). One pool of workers counts the texts one
    after the other; this process reads none of them."""
    workers = _checked(workers)
    planned = [plan_segment_shards(part, shard_bytes) if part else [] for part in parts]
    size = sum(segment_bytes(part) for part in parts if part)
    if workers == 1 or not any(planned):
        totals: list[Counter[str]] = [Counter() for _ in parts]
        with progress_bar(size, "reading", "B", enabled=progress, unit_scale=True) as bar:
            for total, shards in zip(totals, planned):
                for shard in shards:
                    for piece in read_segments(shard, piece_bytes, block_bytes=piece_bytes):
                        total.update(pretokenize(piece))
                    bar.update(segment_bytes(shard))
        return totals
    return _count_in_workers(planned, size, workers, piece_bytes, progress)


def _count_in_workers(
    planned: list[list[list[Segment]]], size: int, workers: int, piece_bytes: int, progress: bool
) -> list[Counter[str]]:
    """The chunk counts of each text cut into shards (``planned``, ``size`` bytes in all),
    one text after the other, by ``workers`` processes that each take the next shard no
    one has taken and send back one table per text.

    The workers are started once, before this process holds any table, so none begins
    with a copy of one; and a worker sends a text's table back before it counts the next,
    so it holds one table at a time, not one per text.
    """
    workers = min(workers, max(len(shards) for shards in planned))  # none left idle
    taken = _context().Value("q", 0)  # shards of this text handed out so far
    done = _context().Value("q", 0)  # bytes counted so far, for the progress bar
    totals: list[Counter[str]] = []
    with (
        progress_bar(size, "reading", "B", enabled=progress, unit_scale=True) as bar,
        ProcessPoolExecutor(
            workers,
            mp_context=_context(),
            initializer=_share,
            initargs=(taken, done),
        ) as pool,
    ):
        tables: list[Counter[str]] = []
        for shards in planned:
            if tables:  # the last text's, added while the workers wait (and emptied)
                totals.append(_added(tables))
            taken.value = 0  # no worker is counting between two texts
            waiting = {pool.submit(_count_shards, shards, piece_bytes) for _ in range(workers)}
            try:
                while waiting:
                    finished, waiting = wait(waiting, timeout=0.2, return_when=FIRST_COMPLETED)
                    tables += [_result(future) for future in finished]
                    bar.update(done.value - bar.n)
            except BaseException:
                taken.value = len(shards)  # the other workers stop after their current shard
                pool.shutdown(cancel_futures=True)
                raise
    # The last text's tables are added once the workers have exited: this is when this
    # process holds the most, and the workers' memory is then free.
    totals.append(_added(tables))
    return totals


def _added(tables: list[Counter[str]]) -> Counter[str]:
    """The sum of ``tables``, which it empties."""
    tables.sort(key=len)
    total = tables.pop()  # the largest, so the others are added to it one entry at a time
    while tables:  # each freed as soon as it is added
        total.update(tables.pop())
    return total


# Set in each worker by _share: the two counters all workers and this process see.
_taken: Any = None
_done: Any = None


def _share(taken: Any, done: Any) -> None:
    global _taken, _done
    _taken, _done = taken, done


def _count_shards(shards: list[list[Segment]], piece_bytes: int) -> Counter[str]:
    """Count shard after shard, whichever no worker has taken yet, until none is left; the
    counts of all of them, sent back once."""
    total: Counter[str] = Counter()
    while True:
        with _taken.get_lock():
            number = _taken.value
            _taken.value = number + 1
        if number >= len(shards):
            return total
        for piece in read_segments(shards[number], piece_bytes, block_bytes=piece_bytes):
            total.update(pretokenize(piece))
        with _done.get_lock():
            _done.value += segment_bytes(shards[number])
