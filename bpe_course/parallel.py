"""Pre-tokenize and count a large text in worker processes, one piece at a time.

:func:`count_chunks_parallel` streams files with ``bpe_course.shards.read_pieces`` and hands
each piece to a pool of ``workers`` processes (the standard library's
``concurrent.futures.ProcessPoolExecutor``); each piece's ``Counter`` comes back and is added
to the total. The result is exactly ``chunk_counts`` of the whole text (the pieces are cut
where a chunk ends), while memory holds a few pieces, their counts and the total, whose size
is the number of distinct chunks, not the length of the text. With ``workers=1`` it counts
in this process, with no worker.

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

from bpe_course.pretokenize import pretokenize
from bpe_course.shards import PIECE_BYTES, read_pieces

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


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


def count_pieces(pieces: Iterable[str], workers: int | None = None) -> Counter[str]:
    """The chunk counts of all ``pieces`` together, counted in ``workers`` processes.

    Each piece must end where a chunk ends (``read_pieces`` cuts them so), otherwise the
    counts differ from those of the joined text.
    """
    workers = default_workers() if workers is None else workers
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a whole number of 1 or more, got {workers!r}")
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
        try:
            total.update(future.result())
        except BrokenProcessPool as error:
            raise RuntimeError("a counting worker died; out of memory?") from error
        except Exception as error:  # the worker's own error, re-raised here by the pool
            raise RuntimeError(
                f"a counting worker failed: {type(error).__name__}: {error}"
            ) from error


def count_chunks_parallel(
    paths: PathArg,
    workers: int | None = None,
    piece_bytes: int = PIECE_BYTES,
    progress: bool = True,
) -> Counter[str]:
    """How often each distinct chunk occurs in a file, a folder's ``.txt`` files or a list.

    ``workers`` defaults to one per core. Equal to ``chunk_counts(load_text(paths))``, without
    ever holding the whole text. Errors name the file that is missing, unreadable or not UTF-8.
    """
    return count_pieces(read_pieces(paths, piece_bytes, progress=progress), workers)
