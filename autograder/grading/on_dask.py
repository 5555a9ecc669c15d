"""Grade a class on Dask distributed: one task per student, results handed back as they arrive.

``open_cluster(None, jobs)`` starts a local cluster of ``jobs`` worker processes (one thread
each) on 127.0.0.1, talking TLS with a certificate made for the run, so no one else can
connect; ``open_cluster("tcp://host:8786", ...)`` joins an existing one, or stops within
seconds with one line naming the address when it cannot. ``grade_on_cluster`` submits
``grade_submission`` for every student and calls back in this process for each result, so the
caller stays the gradebook's one writer. ``GradingWorker`` sets every worker process up once
(memory limit, environment, nbgrader imported), a worker the nanny restarts too.

But: it writes no gradebook and judges nothing. A task whose worker dies is run again by
Dask's scheduler elsewhere (up to its ``allowed-failures``; then the student is reported as
failed). Workers of an existing cluster must see the course folder at the same path and
import this repository (``PYTHONPATH``); with more than one thread they grade one student at
a time anyway, since a student's kernels are set up through the process's environment.

>>> failed("ada", "the grading worker died")["problems"][0]["detail"]
'the grading worker died'
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dask
from distributed import Client, LocalCluster, WorkerPlugin, as_completed
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.scheduler import KilledWorker
from distributed.security import Security

from autograder.course import ASSIGNMENT
from autograder.grading.grade_one import DEFAULT_MEMORY_GB, grade_submission, prepare_worker
from autograder.isolation import bwrap

CONNECT_SECONDS = 5  # an unreachable scheduler is reported after this long
WORKERS_SECONDS = 30  # a reachable scheduler must have a worker by then
_ONE_STUDENT = threading.Lock()  # the kernels' sandbox and home live in os.environ
# A grading task is one long call; sampling its stack every 10 ms and the GIL every 1 ms
# only takes time from it.
_QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
}


class GradingWorker(WorkerPlugin):
    """Once per worker process: the memory limit kernels inherit, their environment, quiet
    logs and, on a local cluster, the kernels' chatter sent to ``log_path``."""

    name = "bpe-grading-worker"

    def __init__(self, memory_gb: float = DEFAULT_MEMORY_GB, log_path: str | None = None):
        self.memory_gb = memory_gb
        self.log_path = log_path

    def setup(self, worker: Any) -> None:
        prepare_worker(self.memory_gb)
        warnings.filterwarnings("ignore")  # nbgrader's SQLAlchemy warnings, once per student
        if self.log_path:
            log = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(log, 2)
            os.close(log)


def grade_task(
    course_root: str,
    student: str,
    template_db: str,
    timeout: int | None,
    lean: bool,
    unconfined: bool,
) -> dict[str, Any]:
    """One student, graded in a worker: ``grade_submission`` with the run's sandbox choice."""
    with _ONE_STUDENT:
        if unconfined:
            os.environ[bwrap.UNCONFINED] = "1"
        else:
            os.environ.pop(bwrap.UNCONFINED, None)
        return grade_submission(course_root, student, template_db, ASSIGNMENT, timeout, lean)


def failed(student: str, why: str) -> dict[str, Any]:
    """The result of a student whose grading never came back."""
    problem = {"kind": "grading_error", "notebook": "", "detail": why}
    return {"student": student, "graded": False, "seconds": 0.0, "problems": [problem], "rows": {}}


def _unreachable(address: str, why: str) -> SystemExit:
    return SystemExit(
        f"cannot reach the Dask scheduler at {address} ({why}); start it (`dask scheduler`, "
        "then `dask worker ADDRESS --nthreads 1` where the course folder is), or leave "
        "SCHEDULER unset to grade on this machine. Nothing was graded."
    )


def _join(address: str) -> Client:
    try:
        parse_host_port(parse_address(address)[1])
    except ValueError:
        raise _unreachable(address, "not an address like tcp://host:8786") from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        why = " ".join(str(error).split()) or type(error).__name__
        raise _unreachable(address, why[:160]) from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_SECONDS)
    except (OSError, TimeoutError):
        client.close()
        raise _unreachable(address, f"no worker joined it in {WORKERS_SECONDS} s") from None
    return client


@contextlib.contextmanager
def open_cluster(
    scheduler: str | None,
    jobs: int,
    memory_gb: float = DEFAULT_MEMORY_GB,
    log_path: Path | None = None,
) -> Iterator[Client]:
    """A client of the cluster that grades: the scheduler at ``scheduler``, or a local
    cluster of ``jobs`` worker processes (closed on exit), its workers set up for grading.
    ``log_path`` takes the local workers' stderr (kernels' chatter); an existing cluster's
    workers keep their own."""
    cluster = None
    if scheduler:
        client = _join(scheduler)
    else:
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
        # 127.0.0.1 is open to every account of the machine (every student, on a hub), and
        # Dask runs whatever code a connected client sends: only holders of this run's own
        # certificate may connect.
        with dask.config.set(_QUIET_WORKERS):  # the nannies hand it to their workers
            cluster = LocalCluster(
                n_workers=max(1, jobs),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
                security=Security.temporary(),
            )
        client = Client(cluster, set_as_default=False)
    try:
        local_log = str(log_path) if log_path and cluster is not None else None
        client.register_plugin(GradingWorker(memory_gb, local_log))
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def blind_workers(client: Client, course_root: Path) -> list[str]:
    """The workers that do not see ``course_root/submitted`` at the same path."""
    seen = client.run(os.path.isdir, str(course_root / "submitted"))
    return sorted(address for address, ok in seen.items() if not ok)


def grade_on_cluster(
    client: Client,
    course_root: Path,
    students: list[str],
    template: Path,
    on_result: Callable[[dict[str, Any]], None],
    timeout: int | None = None,
    lean: bool = False,
    unconfined: bool = False,
) -> None:
    """Grade each student as one task; ``on_result`` runs here, once per student, in the
    order results arrive. A task whose worker died is retried by the scheduler; one that
    killed its workers too often, or raised, comes back as a failed result."""
    run = uuid.uuid4().hex[:8]  # keys unique on a cluster that other runs share
    futures = {
        client.submit(
            grade_task,
            str(course_root),
            student,
            str(template),
            timeout,
            lean,
            unconfined,
            key=f"grade-{student}-{run}",
        ): student
        for student in students
    }
    try:
        for future in as_completed(futures, loop=client.loop):
            student = futures[future]
            try:
                result = future.result()
            except KilledWorker:
                result = failed(student, "its grading worker died every time it was tried")
            except Exception as error:  # a bug in grading: report it, grade the rest
                result = failed(student, f"{type(error).__name__}: {error}"[:200])
            future.release()
            on_result(result)
    finally:
        client.cancel(list(futures))
