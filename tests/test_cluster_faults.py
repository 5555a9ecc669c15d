"""Grading on a cluster that is not fit to grade: it stops loudly and the gradebook keeps
every earlier score.

One scratch course, its one student graded once in one process (the earlier scores). Then:

- a scheduler started as plain ``dask scheduler`` with the course's TLS but without the
  course on its path (the command the README once showed): ``grade_class`` exits non-zero
  naming the scheduler, and ``gradebook.db`` is byte for byte as before;
- workers from another environment (a venv that borrows the course's packages through a
  ``.pth`` file, a path the sandbox does not show): every worker fails its proof at setup, the
  run names that Python, grades nobody, and the gradebook is as before;
- a worker killed while it sets up: its nanny restarts it and the class is graded once;
- a second account of the machine (no home, no key) connects to the scheduler that
  ``make scheduler`` runs, with and without TLS: refused; it cannot read the course's key;
- the grading service grades an entry through a scheduler and a worker started as ``make
  scheduler`` and ``make worker`` start them (``dask_cluster``, in a copy of the course with
  its certificate) and, while it holds its client there and grades, strangers are refused by
  that same scheduler: Dask clients of this account with no certificate, one of their own or
  plain TCP, and the second account as above.
"""

from __future__ import annotations

import datetime
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autograder.grading.on_dask import security, tls_files
from course_fixtures.catalogue import CORRECT
from course_fixtures.dask_programs import dask_cluster, free_port, listening, stop
from tests.conftest import ROOT

pytestmark = pytest.mark.nbgrader

GRADING = [sys.executable, "-m", "autograder", "grade", "--lean", "--no-progress"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
NB1 = "01_bpe_by_hand.ipynb"
LESSON_1 = {n: next(iter(CORRECT[n].values())) for n in ("pair_counts", "merge_pair")}
OTHER_ACCOUNT = 54321  # owns nothing on this machine


def grade(course: Path, *options: str) -> subprocess.CompletedProcess:
    command = [*GRADING, "--root", str(course), *options]
    return subprocess.run(command, cwd=course, env=ENV, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course whose two students were graded once, in one process."""
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    root = make_scratch_course(tmp_path_factory.mktemp("faults") / "course")
    for student in ("ada", "bob"):
        write_submission(root, student, LESSON_1, [NB1])
    done = grade(root, "--in-process")
    assert done.returncode == 0, done.stdout + done.stderr
    tls_files(root)
    return root


@pytest.fixture
def earlier(course: Path) -> Iterator[bytes]:
    """The gradebook's bytes before the test; put back after it, for the next test."""
    saved = (course / "gradebook.db").read_bytes()
    yield saved
    (course / "gradebook.db").write_bytes(saved)


def start(command: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            cwd=log.parent,
        )  # fmt: skip


def wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while not listening(port):
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)


def workers(course: Path, address: str, log: Path, python: str = sys.executable):
    command = [python, "-m", "autograder", "worker", "--root", str(course)]
    return start([*command, address, "--nworkers", "1"], log, ENV)


def test_a_scheduler_without_the_course_stops_the_run_and_keeps_the_grades(
    course: Path, earlier: bytes, tmp_path: Path
) -> None:
    files, port = tls_files(course), free_port()
    raw = [str(Path(sys.executable).parent / "dask"), "scheduler", "--protocol", "tls"]
    raw += ["--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    raw += ["--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert)]
    raw += ["--tls-key", str(files.key)]
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    scheduler = start(raw, tmp_path / "scheduler.log", bare)
    running = [scheduler]
    try:
        wait_listening(port, scheduler, tmp_path / "scheduler.log")
        running.append(workers(course, f"tls://127.0.0.1:{port}", tmp_path / "workers.log"))
        done = grade(course, "--scheduler", f"tls://127.0.0.1:{port}")
    finally:
        for process in reversed(running):
            stop(process)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "the Dask scheduler cannot run the course's grading code" in said, said
    assert "make scheduler" in said and "Traceback" not in said, said
    assert (course / "gradebook.db").read_bytes() == earlier


def borrowing_venv(folder: Path) -> Path:
    """A venv of its own whose packages are the course venv's, through a .pth file: a
    grading kernel it starts in the sandbox finds none of them."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    lib = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = ROOT / ".venv" / "lib" / lib / "site-packages"
    (folder / "lib" / lib / "site-packages" / "borrowed.pth").write_text(f"{site}\n")
    return folder / "bin" / "python"


def test_workers_of_another_environment_are_turned_away_before_anyone(
    course: Path, earlier: bytes, tmp_path: Path
) -> None:
    python = borrowing_venv(tmp_path / "other-env")
    state = tmp_path / "cluster"
    with dask_cluster(state, course, workers=0) as cluster:
        cluster.workers.append(workers(course, cluster.address, tmp_path / "w.log", str(python)))
        done = grade(course, "--scheduler", cluster.address)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert f"cannot grade: a grading kernel started with {python} failed" in said, said
    assert "the sandbox shows only" in said and "nothing was graded" in said, said
    assert (course / "gradebook.db").read_bytes() == earlier


def test_in_process_grading_in_another_environment_is_turned_away_before_anyone(
    course: Path, earlier: bytes, tmp_path: Path
) -> None:
    """--in-process grading gives the proof every Dask worker gives at setup: run by that
    other environment's Python, it grades nobody and says why, as a worker would."""
    python = borrowing_venv(tmp_path / "other-env")
    results = course / "artifacts" / "grading" / "results.json"
    before = results.read_bytes()
    command = [str(python), *GRADING[1:], "--root", str(course), "--in-process"]
    done = subprocess.run(command, cwd=course, env=ENV, capture_output=True, text=True, timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert f"cannot grade: a grading kernel started with {python} failed" in said, said
    assert "the sandbox shows only" in said and "nothing was graded" in said, said
    assert "Traceback" not in said, said
    assert (course / "gradebook.db").read_bytes() == earlier
    assert results.read_bytes() == before  # nobody was graded, not even as failed


def test_a_worker_killed_while_it_sets_up_costs_nothing(
    course: Path, earlier: bytes, tmp_path: Path
) -> None:
    from distributed import Client

    with dask_cluster(tmp_path / "cluster", course, workers=2) as cluster:
        with Client(cluster.address, security=security(course), timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            pids = list(client.run(os.getpid).values())
        grading = subprocess.Popen(
            [*GRADING, "--root", str(course), "--scheduler", cluster.address],
            cwd=course, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        time.sleep(1.5)  # the command has started and is setting the workers up
        os.kill(pids[0], signal.SIGKILL)
        said, _ = grading.communicate(timeout=600)
    assert grading.returncode == 0, said
    assert "graded 2 submission(s)" in said and "2 graded" in said, said


def as_another_account(course: Path, port: int, scheduler: subprocess.Popen) -> list[str]:
    """What the account ``OTHER_ACCOUNT`` (no home, no key) gets from the scheduler that
    ``python -m autograder scheduler`` (``scheduler``, its process) runs on ``port``: the
    course's key, TLS without a certificate, plain TCP, Dask's pages, in ``PROBE``'s words."""
    import psutil

    dask_scheduler = psutil.Process(scheduler.pid).children()[0]
    ports = sorted({c.laddr.port for c in dask_scheduler.net_connections("tcp")} - {port})
    probe = PROBE.format(port=port, key=tls_files(course).key, http=ports)
    other = ["setpriv", f"--reuid={OTHER_ACCOUNT}", f"--regid={OTHER_ACCOUNT}"]
    done = subprocess.run(
        [*other, "--clear-groups", "/usr/bin/python3", "-I", "-c", probe],
        capture_output=True, text=True, timeout=60, cwd="/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


REFUSED_ALL = ["key:", "unreadable", "tls:", "refused", "tcp:", "refused", "http:", "nothing"]


def can_act_as_another_account() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def test_another_account_is_refused_by_the_scheduler_make_scheduler_starts(
    course: Path, tmp_path: Path
) -> None:
    if not can_act_as_another_account():
        pytest.skip("needs root and setpriv to act as another account")
    from distributed import Client

    port = free_port()
    command = [sys.executable, "-m", "autograder", "scheduler", "--root", str(course)]
    log = tmp_path / "scheduler.log"
    scheduler = start([*command, "--port", str(port)], log, ENV)
    try:
        wait_listening(port, scheduler, log)
        with Client(f"tls://127.0.0.1:{port}", security=security(course), timeout=30) as client:
            assert client.scheduler_info()["type"] == "Scheduler"  # the course's certificate
        said = as_another_account(course, port, scheduler)
    finally:
        stop(scheduler)
    assert said[:6] == REFUSED_ALL[:6], said
    assert said[6:] == REFUSED_ALL[6:], f"Dask's pages about the cluster: {said}"
    folder = tls_files(course).key.parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o600}


# As the other account, with the standard library only: read the key, then speak TLS without a
# certificate, then plain TCP, as a Dask client would; "refused" when nothing Dask-like came.
PROBE = """
import socket, ssl
try:
    open("{key}").read()
    print("key: readable")
except OSError:
    print("key: unreadable")
def talk(wrap):
    try:
        with socket.create_connection(("127.0.0.1", {port}), timeout=5) as raw:
            sock = wrap(raw)
            sock.sendall(b"\\x00" * 64)
            sock.settimeout(5)
            answer = sock.recv(64)  # a TLS alert (0x15) or nothing: the server said no
            return "connected" if answer and answer[:1] != b"\\x15" else "refused"
    except (OSError, ssl.SSLError):
        return "refused"
context = ssl.create_default_context()
context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
print("tls:", talk(lambda raw: context.wrap_socket(raw)))
print("tcp:", talk(lambda raw: raw))
import urllib.request
shown = []
for http in {http}:  # Dask's HTTP server: pages naming workers, tasks (students), logs
    for page in ("json/identity.json", "info/main/workers.html", "info/main/logs.html"):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{{http}}/{{page}}", timeout=5) as r:
                shown.append(page)
        except OSError:
            pass
print("http:", " ".join(shown) or "nothing")
"""


def scheduler_clients(address: str, course: Path) -> tuple[str, set[str]]:
    """The id of a client with the course's certificate (the control), and the ids of every
    other client the scheduler at ``address`` holds now."""
    from distributed import Client

    with Client(address, security=security(course), timeout=30, set_as_default=False) as ours:

        def held(dask_scheduler: Any) -> list[str]:  # Dask passes its scheduler by this name
            return list(dask_scheduler.clients)

        return ours.id, set(ours.run_on_scheduler(held)) - {ours.id, "fire-and-forget"}


def test_the_service_grades_through_the_tls_scheduler_that_turns_strangers_away(
    course: Path, tmp_path: Path
) -> None:
    """A cluster that lives for the term: the scheduler and a worker as ``make scheduler`` and
    ``make worker`` start them (``dask_cluster``), with the course's certificate, and the
    service (``make grading-service SCHEDULER=…``'s command) grading an entry through it.
    While the service holds its client on that scheduler and grades, strangers knock: as
    this account, a Dask client with no certificate, with a certificate of its own, and over
    plain TCP; as another account (root only), TLS, TCP, the key and Dask's pages. Each is
    refused; the entry is graded once and the service stops cleanly."""
    from tests.support.service_store import store_rows, wait_for_rows
    from tests.test_dask_grading import STRANGER
    from tests.test_grading_service import file_entry

    root = tmp_path / "course"
    shutil.copytree(course, root, symlinks=True)  # the instructor's certificate with it
    when = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(hours=1)
    entry = file_entry(root, "ada", LESSON_1, when)
    with dask_cluster(tmp_path / "cluster", root, workers=1) as cluster:
        serve = [sys.executable, "-m", "autograder", "serve", "--root", str(root), "--lean"]
        serve += ["--scheduler", cluster.address, "--idle-exit", "300"]
        service = start(serve, tmp_path / "service.log", ENV)
        try:

            def alive() -> str:
                if service.poll() is None:
                    return ""
                return f"the service ended: {(tmp_path / 'service.log').read_text()[-3000:]}"

            wait_for_rows(root, f"name = '{entry}' AND state = 'grading'", 300, alive)
            _, service_clients = scheduler_clients(cluster.address, root)
            assert service_clients, "the service holds no client on the scheduler"
            said = {}
            for how in ("plain", "no certificate", "its own certificate"):
                done = subprocess.run(
                    [sys.executable, "-c", STRANGER, cluster.address, how, str(tmp_path)],
                    cwd=ROOT, capture_output=True, text=True, timeout=120,
                )  # fmt: skip
                said[how] = (done.returncode, done.stdout.strip().splitlines()[-1:])
            port = int(cluster.address.rsplit(":", 1)[1])
            other = None  # without root, no second account to act as: this account's only
            if can_act_as_another_account():
                other = as_another_account(root, port, cluster.scheduler)
            # Still the scheduler the service grades through, the service's client on it.
            assert service_clients <= scheduler_clients(cluster.address, root)[1]
            wait_for_rows(root, f"name = '{entry}' AND state = 'graded'", 300, alive)
            service.send_signal(signal.SIGTERM)  # as JupyterHub stops it
            code = service.wait(timeout=120)
        finally:
            stop(service)
    log = (tmp_path / "service.log").read_text()
    for how, (code_of, last) in said.items():
        assert code_of == 3 and last and last[0].startswith("refused:"), (how, code_of, last)
    assert other in (None, REFUSED_ALL), other
    assert code == 0, log
    assert store_rows(root)[entry][:3:2] == ("graded", 1), (store_rows(root), log)
