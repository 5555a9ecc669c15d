"""A real Dask cluster on this machine: ``dask scheduler`` and ``dask worker`` as programs.

:func:`dask_cluster` starts a scheduler on 127.0.0.1 (a free port, found through its
scheduler file) and workers of one thread each, every program in its own process group with
its configuration, scratch space and log in a given folder, and stops them all by process
group when the block ends. Tests and ``bench/bench_class.py`` grade through it.

But: it does not wait for the workers to join (a client's ``wait_for_workers`` does) and
grades nothing itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).parent / "dask"


@dataclass
class Cluster:
    """The running programs: the scheduler's address and process, then the workers'."""

    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)


def _env(state: Path) -> dict[str, str]:
    """This repository importable (the grading code), Dask's files in ``state``."""
    return dict(
        os.environ,
        PYTHONPATH=str(REPO),
        DASK_CONFIG=str(state / "config"),
        DASK_TEMPORARY_DIRECTORY=str(state / "scratch"),
    )


def _start(command: list[str], state: Path, log: str) -> subprocess.Popen:
    with open(state / log, "w") as out:
        return subprocess.Popen(
            command,
            cwd=state,
            env=_env(state),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stopped with its nanny's children
        )


def stop(process: subprocess.Popen) -> None:
    """Stop a program started here and everything in its process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=10)
            break
        except subprocess.TimeoutExpired:
            continue
    process.wait()


@contextmanager
def dask_cluster(state: Path, workers: int = 2, seconds: float = 60.0) -> Iterator[Cluster]:
    """A scheduler and ``workers`` worker programs (one thread each) on 127.0.0.1."""
    for folder in ("config", "scratch"):
        (state / folder).mkdir(parents=True, exist_ok=True)
    address_file = state / "scheduler.json"
    address_file.unlink(missing_ok=True)
    scheduler = [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0"]
    scheduler += ["--no-dashboard", "--scheduler-file", str(address_file)]
    cluster = Cluster("", _start(scheduler, state, "scheduler.log"))
    try:
        deadline = time.monotonic() + seconds
        while not address_file.exists():
            if time.monotonic() > deadline or cluster.scheduler.poll() is not None:
                log = (state / "scheduler.log").read_text()
                raise RuntimeError(f"the Dask scheduler did not start:\n{log[-2000:]}")
            time.sleep(0.1)
        cluster.address = json.loads(address_file.read_text())["address"]
        for k in range(workers):
            worker = [str(DASK), "worker", cluster.address, "--name", f"worker-{k}"]
            worker += ["--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"]
            cluster.workers.append(_start(worker, state, f"worker-{k}.log"))
        yield cluster
    finally:
        for process in [*reversed(cluster.workers), cluster.scheduler]:
            stop(process)
