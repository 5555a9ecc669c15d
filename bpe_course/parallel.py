"""Pre-tokenize and count a large text in worker processes, one piece at a time.

:func:`count_chunks_parallel` streams files with ``bpe_course.shards.read_pieces``, hands each
piece to one of ``workers`` processes through a short queue, and lets every worker keep its
own running ``Counter``; at the end the workers' counters are added up. The result is exactly
``chunk_counts`` of the whole text (the pieces are cut where a chunk ends), while memory
holds a few pieces and one counter per worker, whose size is the number of distinct chunks,
not the length of the text. With ``workers=1`` it counts in this process, with no worker.

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
import queue
from collections import Counter
from collections.abc import Iterable, Sequence

from bpe_course.pretokenize import pretokenize
from bpe_course.shards import PIECE_BYTES, read_pieces

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker(pieces: multiprocessing.Queue, results: multiprocessing.Queue) -> None:
    counts: Counter[str] = Counter()
    try:
        while (piece := pieces.get()) is not None:
            counts.update(pretokenize(piece))
    except BaseException as error:  # tell the parent instead of leaving it waiting
        results.put(("error", f"{type(error).__name__}: {error}"))
        return
    results.put(("counts", counts))


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
    if workers == 1:
        counts: Counter[str] = Counter()
        for piece in pieces:
            counts.update(pretokenize(piece))
        return counts
    context = _context()
    # Two pieces waiting per worker keep every worker busy while bounding memory.
    todo: multiprocessing.Queue = context.Queue(maxsize=2 * workers)
    done: multiprocessing.Queue = context.Queue()
    processes = [context.Process(target=_worker, args=(todo, done)) for _ in range(workers)]
    for process in processes:
        process.start()
    try:
        for piece in pieces:
            _put(todo, piece, processes)
        for _ in processes:
            _put(todo, None, processes)
        total: Counter[str] = Counter()
        for _ in processes:
            kind, value = _get(done, processes)
            if kind == "error":
                raise RuntimeError(f"a counting worker failed: {value}")
            if not total:
                total = value
            else:
                total.update(value)
        return total
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join()


def _put(todo: multiprocessing.Queue, item: str | None, processes: list) -> None:
    while True:
        try:
            todo.put(item, timeout=1)
            return
        except queue.Full:
            _check_alive(processes)


def _get(done: multiprocessing.Queue, processes: list) -> tuple[str, object]:
    while True:
        try:
            return done.get(timeout=1)
        except queue.Empty:
            _check_alive(processes)


def _check_alive(processes: list) -> None:
    dead = [p.exitcode for p in processes if not p.is_alive() and p.exitcode != 0]
    if dead:
        raise RuntimeError(f"a counting worker died (exit code {dead[0]}); out of memory?")


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
