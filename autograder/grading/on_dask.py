"""Grade a class on Dask distributed, one task per student, every process proved first.

``open_cluster`` starts a local cluster of one-thread worker processes on 127.0.0.1, on TLS
with a certificate made for the run and a scratch folder of its own, or joins the one that
``make scheduler`` and ``make worker`` started (``run_scheduler``, ``run_workers``: Dask's own
programs with the course's certificate in ``<course>/.dask-tls/``). Before anyone is graded, no
process may import from a folder another account can write, and each worker must start a
grading kernel (``why_cannot_grade``). ``grade_on_cluster`` submits each student with the run's
configuration as data of the task, and calls back here with each result, so the caller stays
the gradebook's one writer. ``feedback`` (``make feedback``) writes every graded student's
feedback pages the same way, one ``feedback_task`` each (its workers proved only to import
nothing from a folder another account can write, since feedback runs no student code), or
here with ``--in-process``. Grading's own code (nbgrader, nbclient) is imported by the
function that first needs it, so the feedback command's own process never loads it.

>>> failed("ada", "the grading worker died").problems
(Problem(kind='not_graded', notebook='', detail='the grading worker died'),)

But: it writes no grade and judges nothing (feedback's one write is the row nbgrader's
readers need), and a page is nbgrader's ``GenerateFeedback`` output, byte for byte. A task
whose worker dies is run again (up to Dask's ``allowed-failures``; then the student is not
graded). Workers must see the course folder at the same path. The certificate guards the
connection, not the machines: whoever reads ``.dask-tls/`` (root, the instructor) can use the
cluster.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import dask
from distributed import Client, Future, LocalCluster, WorkerPlugin, as_completed
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.scheduler import KilledWorker
from distributed.security import Security
from traitlets.config import Config

from autograder.course import (
    ASSIGNMENT,
    CODE_ROOT,
    RECORDS,
    class_db_path,
    course_config,
    sqlite_uri,
)
from autograder.grading.options import GradingOptions
from autograder.problems import NOT_GRADED_KIND, Problem, printable
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import KERNEL_PROCESSES, give_kernels, jail_kernels, student_home
from autograder.sandbox.trusted_paths import refusal, refuse_untrusted, untrusted_entries

if TYPE_CHECKING:
    from autograder.grading.gradebook_rows import StudentResult

DEFAULT_PORT = 8786


class TlsFiles(NamedTuple):
    """The course's certificate authority, certificate and key, as PEM files."""

    ca: Path
    cert: Path
    key: Path


def tls_files(course_root: Path) -> TlsFiles:
    """The course's TLS files, made on first use: one self-signed certificate (Dask's own
    ``Security.temporary``) that is the authority, the scheduler's, the workers' and the
    client's, in a folder of mode 0700."""
    folder = course_root / ".dask-tls"  # in .gitignore; the sandbox never shows it
    files = TlsFiles(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    if all(path.exists() for path in files):
        return files
    made = Security.temporary()
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    for path, text in zip(files, (made.tls_ca_file, made.tls_client_cert, made.tls_client_key)):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(text)
    return files


def security(course_root: Path) -> Security:
    """What a client of the course's cluster presents: the course's certificate."""
    ca, cert, key = map(str, tls_files(course_root))
    return Security(
        tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True
    )


def _tls_options(files: TlsFiles) -> list[str]:
    ca, cert, key = map(str, files)
    return ["--tls-ca-file", ca, "--tls-cert", cert, "--tls-key", key]


def scheduler_command(course_root: Path, port: int, host: str | None) -> list[str]:
    """``dask scheduler`` on TLS, no dashboard (it would be open to every account)."""
    command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls"]
    command += ["--port", str(port), "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    command += _tls_options(tls_files(course_root))
    return command + (["--host", host] if host else [])


def worker_command(course_root: Path, address: str, workers: int, scratch: Path) -> list[str]:
    """``dask worker`` processes of one thread each (a student's kernels are set up through
    the process's environment), with their own scratch folder."""
    command = [sys.executable, "-m", "distributed.cli.dask_worker", address]
    command += ["--nthreads", "1", "--nworkers", str(workers), "--no-dashboard"]
    command += ["--local-directory", str(scratch), *_tls_options(tls_files(course_root))]
    return command


def run_scheduler(course_root: Path, port: int = DEFAULT_PORT, host: str | None = None) -> int:
    """Run Dask's scheduler for the course until it stops."""
    return _run("scheduler", lambda scratch: scheduler_command(course_root, port, host))


def run_workers(course_root: Path, address: str, workers: int) -> int:
    """Run ``workers`` grading workers for the scheduler at ``address`` until they stop."""
    return _run("worker", lambda scratch: worker_command(course_root, address, workers, scratch))


def _run(role: str, command: Callable[[Path], list[str]]) -> int:
    refuse_untrusted(f"the Dask {role}")  # before Dask, which it would start, is imported
    scratch, lock = dask_scratch(role)
    print(f"starting the Dask {role} for grading; Ctrl-C stops it", flush=True)
    # The course's grading code on the path, Dask's temporary folder private, no HTTP routes.
    env = dict(os.environ, PYTHONPATH=str(CODE_ROOT), DASK_TEMPORARY_DIRECTORY=str(scratch))
    env.update(DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES="[]")
    env.update(DASK_DISTRIBUTED__WORKER__HTTP__ROUTES="[]")
    env.setdefault("MPLBACKEND", "Agg")
    # Dask's program holds the folder's lock too: a kill of this process alone leaves it in use.
    process = subprocess.Popen(command(scratch), env=env, pass_fds=(lock,))
    try:
        return _wait(process)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        os.close(lock)


_SCRATCH_PREFIX = "bpe-dask-"  # then the role, a random part and the maker's pid, last
_IN_USE = ".in-use"  # locked (flock) by the maker, and by the Dask program it starts


def dask_scratch(role: str) -> tuple[Path, int]:
    """A new folder for Dask's files (mode 0700, a name nobody could take) and a descriptor
    holding its lock, once this account's folders left by a killed maker are removed (a
    grading service stopped with SIGKILL cannot remove its own): those whose maker's process
    is gone and whose lock nobody holds, not even a Dask program the maker started."""
    for left in Path(tempfile.gettempdir()).glob(f"{_SCRATCH_PREFIX}*-*"):
        with contextlib.suppress(OSError):
            mine = left.lstat().st_uid == os.geteuid() and left.is_dir() and not left.is_symlink()
            # Anyone may name a file in /tmp: its name is read only once it is known ours.
            if mine and bwrap.maker_gone(left.name) and _unlocked(left / _IN_USE):
                shutil.rmtree(left, ignore_errors=True)  # no lock file: not ours to judge
    folder = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{role}-", suffix=f"-{os.getpid()}"))
    lock = os.open(folder / _IN_USE, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return folder, lock


def _unlocked(lock_file: Path) -> bool:
    """True when the lock file exists and nobody holds its lock."""
    lock = os.open(lock_file, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(lock)
    return True


def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for Dask's program, handing it the signals that would stop this one (Ctrl-C
    reaches both; a ``kill`` of this process alone would otherwise leave it running)."""
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda number, frame: process.send_signal(number))
    return process.wait()


PROBE = "import bpe_course, sys\nprint(sys.executable, bpe_course.__file__)"
PROBE_SECONDS = 60


def why_cannot_grade(course_root: Path, process: str, settings: Config | None = None) -> str | None:
    """Why this process cannot grade (one paragraph), or None when it can, with the
    sandbox ``settings`` of the run (``GradingSandbox``, nbgrader_config.py's with the flags
    over them; by default its own defaults)."""
    import nbformat
    from nbclient import NotebookClient

    from autograder.plugins.guarded_execute import SandboxKernelManager

    lines = untrusted_entries()
    if lines:
        return refusal(process, lines)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    with student_home("probe") as home, bwrap.process_cap("probe", KERNEL_PROCESSES) as cap:
        config = Config(settings or {})
        give_kernels(config, home)
        jailed = jail_kernels(course_root, "probe", ASSIGNMENT, config, home, cap)
        client = NotebookClient(
            notebook,
            timeout=PROBE_SECONDS,
            startup_timeout=PROBE_SECONDS,
            kernel_name=config.Execute.kernel_name if jailed else "python3",
            kernel_manager_class=SandboxKernelManager,
            resources={"metadata": {"path": str(home.home)}},
            config=config,
            allow_errors=True,
        )
        try:
            client.execute()
        except Exception as error:  # the kernel did not start or answer
            if client.km is None:  # nbclient cleaned up but left its exit hook, which fails
                atexit.unregister(client._cleanup_kernel)  # as the command ends, after this
            return _cannot(process, f"{type(error).__name__}: {error}", jailed)
    errors = [o for o in notebook.cells[0].get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        return _cannot(process, f"{errors[0]['ename']}: {errors[0]['evalue']}", jailed)
    return None


def _cannot(process: str, what: str, jailed: bool) -> str:
    shown = ", ".join(str(p) for p in bwrap.python_and_library())
    where = f"the sandbox shows only {shown}" if jailed else "it ran unconfined"
    return (
        f"{process} cannot grade: a grading kernel started with {sys.executable} failed "
        f"({' '.join(what.split())[:300]}); {where}. Start the worker with the course's own "
        "Python (`make worker`, or the `.venv/bin/dask` of the course folder) on a machine "
        "where that Python and the course folder are at the same paths as here; nothing was "
        "graded by it."
    )


CONNECT_SECONDS = 5  # an unreachable scheduler is reported after this long
WORKERS_SECONDS = 30  # a reachable scheduler must have a worker by then
# Dask serves pages about the cluster (workers, task keys naming students, logs) over plain
# HTTP to anyone who reaches the port, dashboard or not: no routes at all. A grading task is
# one long call: sampling its stack every 10 ms and the GIL every 1 ms only takes time from it.
_QUIET_WORKERS = {
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
}


class WorkerCannotGradeError(RuntimeError):
    """This worker failed its setup's proof that it can grade; the message says why."""


# Why this worker process cannot run a plugin's tasks, by the plugin's name, once set up.
_PROBLEMS: dict[str, str | None] = {}


def ready_to_grade(options: GradingOptions, process: str) -> str | None:
    """Set this process up to grade (``prepare_worker``), then prove that it can, with the
    sandbox ``options`` ask for: None, or why it cannot (``why_cannot_grade``)."""
    from autograder.grading.grade_one import command_config, prepare_worker

    settings = course_config(options.course_root)
    settings.merge(command_config(options))
    prepare_worker(bwrap.GradingSandbox(config=settings).grader_memory_gb)
    return why_cannot_grade(options.course_root, process, settings)


@dataclass
class GradingWorker(WorkerPlugin):
    """Once per worker process: ``_quiet``, then ``ready_to_grade``, whose failure every later
    task of this worker reports."""

    options: GradingOptions
    log_path: str | None = None
    name = "bpe-grading-worker"

    def setup(self, worker: Any) -> None:
        _quiet(self.log_path)
        _PROBLEMS[self.name] = ready_to_grade(self.options, f"the Dask worker {worker.address}")


def _quiet(log_path: str | None) -> None:
    """A worker process's set-up: no warnings (nbgrader's SQLAlchemy ones, once per student)
    and, on a local cluster, its stderr (kernels' and nbconvert's chatter) in ``log_path``,
    off the command's terminal."""
    warnings.filterwarnings("ignore")
    if log_path:
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 2)
        os.close(log)


def setup_problem(plugin: str) -> str | None:
    """Why this worker cannot run ``plugin``'s tasks, or None; the client runs it on each."""
    return _PROBLEMS.get(plugin)


@dataclass
class FeedbackWorker(WorkerPlugin):
    """Once per worker process: ``_quiet``, and whether it imports from a folder another
    account can write (a grading worker's own proof, ``GradingWorker``, stays as it was)."""

    log_path: str | None = None
    name = "bpe-feedback-worker"

    def setup(self, worker: Any) -> None:
        _quiet(self.log_path)
        logging.getLogger().setLevel(logging.CRITICAL)
        lines = untrusted_entries()
        why = refusal(f"the Dask worker {worker.address}", lines) if lines else None
        _PROBLEMS[self.name] = why


def feedback_task(course_root: Path, student: str) -> str | None:
    """``write_pages`` in a worker: None, or why the student has no feedback."""
    from autograder.grading.grade_one import write_pages

    if why := _PROBLEMS.get(FeedbackWorker.name):
        raise WorkerCannotGradeError(why)
    return write_pages(course_root, student)


def grade_task(options: GradingOptions, student: str, template_db: Path) -> StudentResult:
    """``grade_submission`` in a worker, unless the worker could not prove it can grade."""
    from autograder.grading.grade_one import grade_submission

    if why := _PROBLEMS.get(GradingWorker.name):
        raise WorkerCannotGradeError(why)
    return grade_submission(options, student, template_db)


def failed(student: str, why: str, log: str = "") -> StudentResult:
    """The result of a student whose grading never came back, for a reason that is not the
    student's: nothing of it reaches the gradebook."""
    from autograder.grading.gradebook_rows import StudentResult

    problem = Problem(NOT_GRADED_KIND, "", why)
    return StudentResult(student, False, False, 0.0, (problem,), log=log or why)


def _unreachable(address: str, why: str) -> SystemExit:
    return SystemExit(
        f"cannot reach the Dask scheduler at {address} ({why}); start it (`dask scheduler`, "
        "then `dask worker ADDRESS --nthreads 1` where the course folder is), or leave "
        "SCHEDULER unset to grade on this machine. Nothing was graded."
    )


def _join(address: str, course_root: Path) -> Client:
    try:
        protocol, location = parse_address(address)
        parse_host_port(location)
    except ValueError:
        raise _unreachable(address, "not an address like tls://host:8786") from None
    if protocol != "tls":
        raise SystemExit(
            f"refusing the Dask scheduler at {address}: without TLS it runs whatever any "
            "account that reaches it sends, as you. Start it with `make scheduler` and its "
            "workers with `make worker SCHEDULER=tls://HOST:8786`, then give that address. "
            "Nothing was graded."
        )
    try:
        client = Client(
            address, timeout=CONNECT_SECONDS, set_as_default=False, security=security(course_root)
        )
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
    options: GradingOptions, log_path: Path | None = None, feedback: bool = False
) -> Iterator[Client]:
    """A client of the cluster that grades: the scheduler at ``options.scheduler``, or a
    local cluster of ``options.jobs`` worker processes (closed on exit), its workers set up
    for grading (with ``feedback``, for writing feedback) and each process checked
    (``refuse_unready``). ``log_path`` takes the local workers' stderr (kernels' chatter);
    an existing cluster's workers keep their own."""
    with contextlib.ExitStack() as stack:
        if options.scheduler:
            client = _join(options.scheduler, options.course_root)
        else:
            client = _local_client(stack, options.jobs, log_path)
        stack.callback(client.close)
        local_log = str(log_path) if log_path and not options.scheduler else None
        plugin = FeedbackWorker(local_log) if feedback else GradingWorker(options, local_log)
        _register(client, plugin)
        refuse_unready(client, plugin.name)
        yield client


def _local_client(stack: contextlib.ExitStack, jobs: int, log_path: Path | None) -> Client:
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    # Dask's default scratch folder, /tmp/dask-scratch-space, is taken whoever made it, and
    # lands on the path of this process, the nannies and the workers: a folder of our own.
    folder, lock = dask_scratch("local")
    scratch = str(folder)
    stack.callback(os.close, lock)
    stack.callback(shutil.rmtree, scratch, ignore_errors=True)
    # 127.0.0.1 is open to every account of the machine (every student, on a hub), and
    # Dask runs whatever code a connected client sends: only holders of this run's own
    # certificate may connect.
    settings = {**_QUIET_WORKERS, "temporary-directory": scratch}
    with dask.config.set(settings):  # the nannies hand it to their workers
        cluster = LocalCluster(
            n_workers=max(1, jobs),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
            security=Security.temporary(),
            local_directory=scratch,
        )
    stack.callback(cluster.close)
    return Client(cluster, set_as_default=False)


def _register(client: Client, plugin: WorkerPlugin) -> None:
    """Set every worker up; a worker that dies while the plugin is handed out breaks the
    hand-out (its nanny restarts it, and a new worker gets the plugin when it joins), so the
    others are set up again, since a broken hand-out may have missed them."""
    for attempt in range(3):
        try:
            return client.register_plugin(plugin)
        except OSError:
            if attempt == 2:
                raise
            time.sleep(1)


def refuse_unready(client: Client, plugin: str) -> None:
    """Stop before anyone is graded when the scheduler, a nanny or a worker imports from a
    folder another account can write, or a worker failed the setup's proof of ``plugin``
    (``setup_problem``)."""
    try:
        lines = client.run_on_scheduler(untrusted_entries)
    except Exception as error:  # it cannot import the course's grading code
        raise SystemExit(
            "the Dask scheduler cannot run the course's grading code "
            f"({type(error).__name__}: {' '.join(str(error).split())[:200]}): start it with "
            "`make scheduler` in the course folder, which puts the course on its path. "
            "Nothing was graded."
        ) from None
    problems = [refusal("the Dask scheduler", lines)] if lines else []
    with contextlib.suppress(Exception):  # a cluster without nannies
        for address, lines in _answers(client, untrusted_entries, nanny=True).items():
            if isinstance(lines, str):  # it could not run the check at all
                problems.append(lines)
            elif lines:
                problems.append(refusal(f"the Dask nanny {address}", lines))
    problems += [why for why in _answers(client, partial(setup_problem, plugin)).values() if why]
    if problems:
        raise SystemExit("\n".join(dict.fromkeys(problems)))


def _answers(client: Client, function: Callable[[], Any], nanny: bool = False) -> dict[str, Any]:
    """Each process's answer, or for an error the problem it shows: the process cannot run
    the course's code. One that died meanwhile (its nanny restarts it, and the new one's setup
    is checked again by every task it runs) gives none."""
    answers = client.run(function, nanny=nanny, on_error="return")
    for address, answer in answers.items():
        if isinstance(answer, BaseException) and not isinstance(answer, OSError):
            why = " ".join(f"{type(answer).__name__}: {answer}".split())[:200]
            answers[address] = (
                f"the Dask process {address} cannot run the course's grading code ({why}): "
                "start it with `make worker` in the course folder. Nothing was graded."
            )
    return {k: v for k, v in answers.items() if not isinstance(v, OSError)}


def refuse_blind(client: Client, course_root: Path, folder: str, nothing_done: str) -> None:
    """Stop when a worker does not see ``course_root/folder`` at the same path."""
    seen = client.run(os.path.isdir, str(course_root / folder))
    blind = sorted(address for address, ok in seen.items() if not ok)
    if blind:
        raise SystemExit(
            f"{len(blind)} Dask worker(s) do not see {course_root / folder} "
            f"({', '.join(blind[:3])}): the course folder must be at the same path on "
            f"every worker's machine. {nothing_done}"
        )


def grade_on_cluster(
    client: Client,
    options: GradingOptions,
    students: list[str],
    template: Path,
    on_result: Callable[[StudentResult], None],
) -> None:
    """Grade each student as one task; ``on_result`` runs here, once per student, in the
    order results arrive. A task whose worker died is retried by the scheduler; one that
    killed its workers too often, or raised, comes back as a failed result."""
    run = uuid.uuid4().hex[:8]  # keys unique on a cluster that other runs share
    futures = {
        client.submit(grade_task, options, student, template, key=f"grade-{student}-{run}"): student
        for student in students
    }
    try:
        for future in as_completed(futures, loop=client.loop):
            result = result_of(future, futures[future])
            future.release()
            on_result(result)
    finally:
        client.cancel(list(futures))


def result_of(future: Future[StudentResult], student: str) -> StudentResult:
    """The finished grading task's result; a task that killed its workers too often, or
    raised, as a failed result that says why (nothing of it reaches the gradebook)."""
    try:
        return future.result()
    except KilledWorker:
        return failed(student, "its grading worker died every time it was tried")
    except WorkerCannotGradeError as error:
        return failed(student, str(error))
    except Exception as error:  # a bug in grading, a task no worker could read
        why = " ".join(f"{type(error).__name__}: {error}".split())[:300]
        trace = "".join(traceback.format_exception(error))
        return failed(student, why, f"{trace}{future.traceback() or ''}")


# What nbgrader's GetGrades opens the gradebook with (``Gradebook(db_url)``): its default
# course, which it adds, uncommitted, when the gradebook lacks it.
NBGRADER_DEFAULT_COURSE = "default_course"


def gradebook_ready_for_readers(course_root: Path) -> None:
    """Give the class gradebook the course row nbgrader's ``GetGrades`` looks for, when it
    lacks it (run once, by the one process that writes the gradebook, before any
    ``write_pages``): nbgrader's ``Gradebook`` adds that row whenever it opens a gradebook
    without it, which a read-only connection would refuse."""
    db_path = class_db_path(course_root)
    with sqlite3.connect(sqlite_uri(db_path, read_only=True), uri=True) as db:
        known = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'course'").fetchone()
        row = "SELECT 1 FROM course WHERE id = ?"
        if known and db.execute(row, (NBGRADER_DEFAULT_COURSE,)).fetchone():
            return
    from nbgrader.api import Gradebook  # only for a gradebook that lacks the row

    with Gradebook(f"sqlite:///{db_path}") as gradebook:  # adds the course row
        gradebook.db.commit()


def feedback(options: GradingOptions) -> int:
    """Write every graded student's feedback pages where ``options`` say (one task each on
    Dask, or here ``in_process``); print whose could not be written and why, then how long
    it took. The exit status: 1 if anyone has no pages."""
    start = time.perf_counter()
    course_root = options.course_root
    refuse_untrusted("the feedback process")
    # Whom nbgrader's generate_feedback gives pages: each autograded/<student>/<assignment>.
    autograded = course_root / "autograded"
    found = autograded.iterdir() if autograded.is_dir() else ()
    students = sorted(p.name for p in found if (p / ASSIGNMENT).is_dir())
    if not students:
        print(f"no feedback to write: no folder autograded/<student>/{ASSIGNMENT} in {course_root}")
        return 0
    if not class_db_path(course_root).is_file():
        raise SystemExit(
            f"no gradebook at {class_db_path(course_root)}: grade the class first "
            "(make autograde). No feedback was written."
        )
    gradebook_ready_for_readers(course_root)  # this process, the gradebook's one writer
    options = options.for_tasks(len(students))
    failed = _write_all(options, students)
    for student, why in sorted(failed.items()):
        print(f"no feedback for {printable(student)[:80]}: {printable(why)}", file=sys.stderr)
    seconds = time.perf_counter() - start
    print(
        f"feedback for {len(students) - len(failed)} of {len(students)} student(s) in "
        f"{seconds:.1f} s {options.where()} ({seconds / len(students):.2f} s a student)"
    )
    return 1 if failed else 0


def _write_all(options: GradingOptions, students: list[str]) -> dict[str, str]:
    """Each student's pages, with a progress bar: whose could not be written, and why. On
    Dask, one task each, the largest first (``largest_first``)."""
    from tqdm import tqdm

    course_root = options.course_root
    failed: dict[str, str] = {}
    bar = tqdm(total=len(students), unit="student", disable=not options.progress, file=sys.stderr)
    with bar, contextlib.ExitStack() as stack:

        def on_result(student: str, why: str | None) -> None:
            if why:
                failed[student] = why
            bar.update(1)

        if options.in_process:
            from autograder.grading.grade_one import write_pages

            for student in students:
                on_result(student, write_pages(course_root, student))
            return failed
        log_path = course_root / RECORDS / "workers.log"
        client = stack.enter_context(open_cluster(options, log_path, feedback=True))
        refuse_blind(client, course_root, "autograded", "No feedback was written.")
        run = uuid.uuid4().hex[:8]  # keys unique on a cluster that other runs share
        futures = {
            client.submit(feedback_task, course_root, s, key=f"feedback-{s}-{run}"): s
            for s in largest_first(course_root, students)
        }
        stack.callback(client.cancel, list(futures))
        for future in as_completed(futures, loop=client.loop):
            on_result(futures[future], _why_not(future))
            future.release()
    return failed


def largest_first(course_root: Path, students: list[str]) -> list[str]:
    """``students`` by the bytes of their autograded notebooks, most first (then by name):
    the order to hand their feedback out in. A page costs about as much as its notebook
    weighs, and the scheduler hands tasks out in the order given, so the last ones, which
    leave the other workers idle while they finish, are the smallest."""

    def weight(student: str) -> int:
        folder = course_root / "autograded" / student / ASSIGNMENT
        try:
            return sum(p.stat().st_size for p in folder.glob("*.ipynb") if p.is_file())
        except OSError:  # gone meanwhile: its task says why
            return 0

    return sorted(students, key=lambda student: (-weight(student), student))


def _why_not(future: Future[str | None]) -> str | None:
    """A feedback task's answer; a task that killed its workers too often, or raised, as
    the reason in one line."""
    try:
        return future.result()
    except KilledWorker:
        return "its worker died every time it was tried"
    except Exception as error:  # a worker that cannot write feedback, a bug
        return " ".join(f"{type(error).__name__}: {error}".split())[:300]
