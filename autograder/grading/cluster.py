"""Start a Dask scheduler and workers for grading this course, guarded by the course's own TLS.

``python -m autograder scheduler`` (``make scheduler``) and ``python -m autograder worker
tls://HOST:8786`` (``make worker``) run Dask's own ``dask scheduler`` and ``dask worker``
with this Python, the course on their path, a temporary directory of their own (mode 0700:
Dask would otherwise use ``/tmp/dask-scratch-space``, which any account can make first and
fill with modules), and TLS with the certificate in ``<course>/.dask-tls/`` (made on first
use, readable by the instructor alone), so a client without it is refused. ``make autograde
SCHEDULER=tls://HOST:8786`` connects with the same certificate (``security``).

But: it starts no grading; ``grade_class`` does, and checks what each process imports. The
certificate guards the connection, not the machines: anyone who can read ``.dask-tls/`` (root,
the instructor) can use the cluster.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.course import CODE_ROOT
from autograder.sandbox.trusted_paths import refuse_untrusted

if TYPE_CHECKING:  # imported where used: the commands check their paths before Dask loads
    from distributed.security import Security

# Dask serves pages about the cluster (workers, task keys naming students, logs) over plain
# HTTP to anyone who reaches the port, dashboard or not: no routes at all.
HTTP_OFF: dict[str, list[str]] = {
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}
TLS_FOLDER = ".dask-tls"  # under the course root; in .gitignore and the sandbox never shows it
DEFAULT_PORT = 8786


@dataclass(frozen=True)
class TlsFiles:
    """The course's certificate authority, certificate and key, as PEM files."""

    ca: Path
    cert: Path
    key: Path


def tls_files(course_root: Path) -> TlsFiles:
    """The course's TLS files, made on first use: one self-signed certificate (Dask's own
    ``Security.temporary``) that is the authority, the scheduler's, the workers' and the
    client's, in a folder of mode 0700."""
    folder = course_root / TLS_FOLDER
    files = TlsFiles(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    if all(path.exists() for path in (files.ca, files.cert, files.key)):
        return files
    from distributed.security import Security

    made = Security.temporary()
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    for path, text in (
        (files.key, made.tls_client_key),
        (files.cert, made.tls_client_cert),
        (files.ca, made.tls_ca_file),
    ):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(text)
    return files


def security(course_root: Path) -> Security:
    """What a client of the course's cluster presents: the course's certificate."""
    from distributed.security import Security

    files = tls_files(course_root)
    return Security(
        tls_ca_file=str(files.ca),
        tls_client_cert=str(files.cert),
        tls_client_key=str(files.key),
        require_encryption=True,
    )


def _tls_options(files: TlsFiles) -> list[str]:
    return ["--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert)] + [
        "--tls-key",
        str(files.key),
    ]


def scheduler_command(course_root: Path, port: int, host: str | None) -> list[str]:
    """``dask scheduler`` on TLS, no dashboard (it would be open to every account)."""
    command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls"]
    command += ["--port", str(port), "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    command += _tls_options(tls_files(course_root))
    return command + (["--host", host] if host else [])


def worker_command(course_root: Path, address: str, workers: int, scratch: Path) -> list[str]:
    """``dask worker`` processes of one thread each (a student's kernels are set up through
    the process's environment), scratch files in a folder of their own."""
    command = [sys.executable, "-m", "distributed.cli.dask_worker", address]
    command += ["--nthreads", "1", "--nworkers", str(workers), "--no-dashboard"]
    command += ["--local-directory", str(scratch), *_tls_options(tls_files(course_root))]
    return command


def environment(scratch: Path) -> dict[str, str]:
    """The course's grading code on the path, and Dask's temporary directory private."""
    env = dict(os.environ, PYTHONPATH=str(CODE_ROOT), DASK_TEMPORARY_DIRECTORY=str(scratch))
    env.update(DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES="[]")
    env.update(DASK_DISTRIBUTED__WORKER__HTTP__ROUTES="[]")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run_scheduler(course_root: Path, port: int = DEFAULT_PORT, host: str | None = None) -> int:
    """Run Dask's scheduler for the course until it stops; its exit status."""
    return _run("scheduler", lambda scratch: scheduler_command(course_root, port, host))


def run_workers(course_root: Path, address: str, workers: int) -> int:
    """Run ``workers`` grading workers for the scheduler at ``address`` (tls://) until they
    stop; their exit status."""
    return _run("worker", lambda scratch: worker_command(course_root, address, workers, scratch))


def _run(role: str, command: Callable[[Path], list[str]]) -> int:
    refuse_untrusted(f"the Dask {role}")  # before Dask, which it would start, is imported
    scratch = Path(tempfile.mkdtemp(prefix=f"bpe-dask-{role}-"))  # mode 0700, a new name
    print(f"starting the Dask {role} for grading; Ctrl-C stops it", flush=True)
    process = subprocess.Popen(command(scratch), env=environment(scratch))
    try:
        return _wait(process)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for Dask's program, handing it the signals that would stop this one (Ctrl-C
    reaches both; a ``kill`` of this process alone would otherwise leave it running)."""

    def hand_on(number: int, frame: object) -> None:
        process.send_signal(number)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, hand_on)
    return process.wait()
