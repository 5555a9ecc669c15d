"""A real Dask cluster on this machine, started as the course starts one for grading.

:func:`dask_cluster` runs ``python -m autograder scheduler`` and ``... worker``
(what ``make scheduler`` and ``make worker`` run: TLS with the course's certificate, scratch
files in folders of their own) on 127.0.0.1 and a free port, each program in its own process
group with its log in a given folder, and stops them when the block ends: each program
first, as a kill of it would, then whatever is left of its process group. Tests and
``bench/bench_class.py`` grade through it; a client connects with
``autograder.grading.on_dask.security(course_root)``.

But: it does not wait for the workers to join (a client's ``wait_for_workers`` does) and
grades nothing itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AUTOGRADER = [sys.executable, "-m", "autograder"]


@dataclass
class Cluster:
    """The running programs: the scheduler's address and process, then the workers'."""

    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)


def _start(command: list[str], state: Path, log: str, env: dict[str, str]) -> subprocess.Popen:
    with open(state / log, "w") as out:
        return subprocess.Popen(
            command,
            cwd=state,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stopped with its nanny's children
        )


def stop(process: subprocess.Popen) -> None:
    """Stop a program started here and everything in its process group."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def dask_cluster(
    state: Path,
    course_root: Path,
    workers: int = 2,
    seconds: float = 60.0,
    env: dict[str, str] | None = None,
) -> Iterator[Cluster]:
    """A scheduler and ``workers`` worker programs (one thread each) on 127.0.0.1, with the
    TLS certificate of ``course_root``; ``env`` replaces the programs' environment."""
    state.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO)) if env is None else env
    port = free_port()
    root = ["--root", str(course_root)]
    scheduler = [*AUTOGRADER, "scheduler", *root, "--host", "127.0.0.1", "--port", str(port)]
    cluster = Cluster(f"tls://127.0.0.1:{port}", _start(scheduler, state, "scheduler.log", env))
    try:
        deadline = time.monotonic() + seconds
        while not listening(port):
            if time.monotonic() > deadline or cluster.scheduler.poll() is not None:
                log = (state / "scheduler.log").read_text()
                raise RuntimeError(f"the Dask scheduler did not start:\n{log[-2000:]}")
            time.sleep(0.1)
        for k in range(workers):
            worker = [*AUTOGRADER, "worker", *root, cluster.address, "--nworkers", "1"]
            cluster.workers.append(_start(worker, state, f"worker-{k}.log", env))
        yield cluster
    finally:
        programs = [*reversed(cluster.workers), cluster.scheduler]
        # First as a kill of each program would: it closes its own workers at once. A signal
        # to the whole group would also reach each worker mid-close, and its nanny would
        # wait 8 s before killing it.
        for process in programs:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for process in programs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            stop(process)  # whatever of its group is left
