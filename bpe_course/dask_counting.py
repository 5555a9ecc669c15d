"""Count the chunks of a large text on a Dask cluster: one shard of the files per task.

:func:`count_on_dask` cuts the files into shards of a few tens of megabytes where a chunk
ends (``bpe_course.shards.plan_shards``), sends each worker the names and byte ranges of a
shard, never its text, and adds up the ``Counter`` each task returns as the tasks finish.
The total is exactly ``chunk_counts`` of the whole text, so training on it learns the same
merges as one machine. A progress bar counts the bytes of the shards counted so far.

The cluster is the caller's: a ``distributed.Client`` they made, for a ``LocalCluster`` or
their own scheduler (:func:`dask_client` makes one, as ``make train SCHEDULER=…`` does). Dask
is imported only here, and this module only when a client or a scheduler is given.

But: every worker must read the files at the same paths (one machine, or a shared folder),
and have this package installed; the course's grading cluster, with its certificate and
limits, is not meant for it. It counts; training is ``bpe_course.large``'s.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
from collections import Counter
from collections.abc import Iterator
from typing import Any

import dask
from distributed import Client, LocalCluster, as_completed

from bpe_course.parallel import COUNT_PIECE_BYTES, PathArg
from bpe_course.pretokenize import pretokenize
from bpe_course.progress import progress_bar
from bpe_course.shards import Segment, plan_shards, read_segments, text_files, total_bytes

# Dask serves pages about the cluster over HTTP, dashboard or not; a local cluster for one
# learner's training needs none of them.
_NO_PAGES: dict[str, list[str]] = {
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}
SHARD_BYTES = 32 << 20  # per task: small enough to spread, large enough to pay for a task


def count_shard(segments: list[Segment]) -> Counter[str]:
    """The chunk counts of one shard, read by the worker itself from the files."""
    total: Counter[str] = Counter()
    # Read and pre-tokenized as the processes of bpe_course.parallel do: small pieces.
    for piece in read_segments(segments, COUNT_PIECE_BYTES, block_bytes=COUNT_PIECE_BYTES):
        total.update(pretokenize(piece))
    return total


def count_on_dask(
    paths: PathArg, client: Any, progress: bool = True, shard_bytes: int = SHARD_BYTES
) -> Counter[str]:
    """``chunk_counts`` of the text of ``paths``, counted by the workers of ``client``.

    Errors a worker meets (a file not UTF-8, one it cannot read) come back naming the file.
    """
    files = text_files(paths)
    shards = plan_shards(files, shard_bytes)
    sizes = [sum(end - start for _, start, end in shard) + len(shard) - 1 for shard in shards]
    # pure=False: the same file counted twice (a retry) must not be taken from a cache.
    futures = client.map(count_shard, shards, pure=False)
    size_of = {future.key: size for future, size in zip(futures, sizes)}
    total: Counter[str] = Counter()
    with progress_bar(total_bytes(files), "reading", "B", enabled=progress, unit_scale=True) as bar:
        try:
            for future in as_completed(futures):
                total.update(future.result())
                bar.update(size_of[future.key])
                future.release()  # its counts are added: the worker may forget them
        except BaseException:
            client.cancel(futures)
            raise
    return total


@contextlib.contextmanager
def dask_client(scheduler: str, workers: int | None) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or with ``local`` of a cluster of
    ``workers`` processes (2 by default) made on this machine, its folders in a temporary
    one; closed, with the cluster, on leaving."""
    if scheduler != "local":
        with Client(scheduler, timeout="10s") as client:
            yield client
        return
    with (
        tempfile.TemporaryDirectory(prefix="bpe-train-dask-") as folder,
        dask.config.set({"temporary-directory": folder, **_NO_PAGES}),
        LocalCluster(
            n_workers=workers or 2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",  # this machine only
            # ...yet every account of a shared machine (a hub's students) can reach
            # 127.0.0.1, and a Dask client runs any code on the workers: TLS with
            # credentials made for this cluster alone lets only this process in.
            security=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
            local_directory=folder,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client
