"""Grading a class on a real Dask cluster, and the class's mistakes at a glance.

The scheduler and two workers are started by the guide's own commands (``make scheduler``,
``make worker SCHEDULER=…``, copied from its "More than one machine"), run as written in a copy
of the course folder, talking TLS with the course's certificate on 127.0.0.1; the fixture's
teardown stops them as a ``kill`` of each would, then by process group. The class is the
catalogue class of ``course_fixtures.catalogue``, its first ``ROWS`` rows of known-wrong
answers (``wrong-<j>`` makes the j-th catalogued mistake of every exercise), ``wrong-0``
twice, a student whose ``merge_pair`` fails in no catalogued way and an untouched stub of
notebook 1. (That every catalogued mistake is named when graded under the term's secret,
tests/test_nbgrader_pipeline.py checks on the pipeline class, which has them all.)

The guide's ``make autograde SCHEDULER=…`` grades it while the test kills one worker process
as soon as it is running a student's task. Every student must then have exactly one set of
grades, each cell scored as bare nbgrader scored the same answers under the same term secret
(``graded_course``, tests/support/pipeline_class.py, whose ``wrong-<j>`` and ``stub`` hand
in the same notebooks); and ``mistakes.csv`` must count each catalogued mistake as often as
it was submitted. Then the guide's ``make feedback SCHEDULER=…`` gives every graded student a
page per graded notebook, on the same workers.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.dask_programs import Cluster, listening, stop
from tests.conftest import ROOT
from tests.support import doc_text
from tests.support.course_copy import course_copy
from tests.support.pipeline_class import GradedCourse

pytestmark = pytest.mark.nbgrader

NB1 = "01_bpe_by_hand.ipynb"
ODD_MERGE = "def merge_pair(symbols, pair):\n    return tuple(reversed(symbols))\n"
# Two rows: two mistakes of each exercise, each in every notebook. Every further row costs
# up to four notebooks graded and fed back, and checks no other step of the cluster.
ROWS = 2
GRADING = [sys.executable, "-m", "autograder", "grade", "--lean", "--no-progress"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # the grading code, from this repository


def _exercise_notebooks(release: Path) -> dict[str, str]:
    import nbformat

    from course_fixtures.synthetic import answer_cells

    return {
        name: path.name
        for path in sorted(release.glob("*.ipynb"))
        for name in answer_cells(nbformat.read(path, as_version=4))
    }


def write_catalogue_class(root: Path) -> dict[str, dict[str, str]]:
    """The catalogue class; returns each student's wrong answers, {exercise: mistake}."""
    from course_fixtures.synthetic import write_submission

    where = _exercise_notebooks(root / "release" / "bpe")
    correct = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    made: dict[str, dict[str, str]] = {}
    for j in range(ROWS):
        # Every exercise has at least ROWS mistakes: each answer is wrong, in every notebook.
        wrong = {name: list(found)[j] for name, found in WRONG.items()}
        answers = {name: WRONG[name][mistake] for name, mistake in wrong.items()}
        books = sorted({where[name] for name in wrong})
        for student in [f"wrong-{j}", *(["wrong-0-again"] if j == 0 else [])]:
            write_submission(root, student, answers, books)
            made[student] = wrong
    odd = {n: correct[n] for n in ("pair_counts", "merge_pair")} | {"merge_pair": ODD_MERGE}
    write_submission(root, "odd", odd, [NB1])
    made["odd"] = {}
    write_submission(root, "stub", {}, [NB1])
    made["stub"] = {}
    return made


CLUSTER_COMMANDS = doc_text.commands("docs/guides/grading.md", "**More than one machine.**")


def _readme_environment() -> dict[str, str]:
    """What a new instructor's shell has: no PYTHONPATH; the scheduler on this machine."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return dict(env, SCHEDULER_HOST="127.0.0.1")


def _run_in_background(command: str, course: Path, log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(
            ["bash", "-c", command], cwd=course, env=_readme_environment(),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


@pytest.fixture(scope="module")
def courses(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The catalogue class, in a copy of the course folder where the guide's commands run."""
    on_dask = course_copy(tmp_path_factory.mktemp("classes") / "on_dask")
    return on_dask, write_catalogue_class(on_dask)


@pytest.fixture(scope="module")
def cluster(courses: tuple, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The grading guide's scheduler and workers, started as it shows them, in the course copy."""
    on_dask = courses[0]
    scheduler, worker = CLUSTER_COMMANDS[:2]
    if listening(8786):
        pytest.fail("port 8786, which the grading guide's `make scheduler` uses, is taken here")
    logs = tmp_path_factory.mktemp("dask")
    running = Cluster("tls://127.0.0.1:8786", _run_in_background(scheduler, on_dask, logs / "s"))
    try:
        _wait_for(lambda: listening(8786) or running.scheduler.poll() is not None, "make scheduler")
        assert running.scheduler.poll() is None, (logs / "s").read_text()[-2000:]
        running.workers.append(_run_in_background(worker, on_dask, logs / "w"))
        yield running
    finally:
        _stop_programs([*running.workers, running.scheduler])


def _stop_programs(programs: list[subprocess.Popen]) -> None:
    """Stop each guide command's program as a ``kill`` of it would: SIGTERM to the course's
    ``python -m autograder`` process alone, which hands it to Dask's program, whose nannies
    close their workers at once. (A signal to the whole group also reaches each worker
    process mid-close, and its nanny waits 8 s before killing it.) Whatever is still running
    after 10 s is stopped by process group."""
    import psutil

    for program in programs:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(program.pid).children(recursive=True):
                if child.cmdline()[1:3] == ["-m", "autograder"]:
                    child.terminate()
    for program in programs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            program.wait(timeout=10)
        stop(program)  # its whole group, should anything of it be left


def _wait_for(check: Callable[[], Any], what: str, seconds: float = 60.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited {seconds:g} s for {what}")


def _running_student(client: Any) -> tuple[str, str] | None:
    """(worker address, key) of a grading task some worker is running now, else None."""

    def executing(dask_worker: Any) -> list[str]:
        return [str(ts.key) for ts in dask_worker.state.executing]

    for address, keys in client.run(executing).items():
        for key in keys:
            if key.startswith("grade-"):
                return address, key
    return None


def _kill_a_busy_worker(address: str, grading: subprocess.Popen, course: Path) -> str:
    """Wait until a worker runs a student's task, SIGKILL that worker process; its key."""
    from distributed import Client

    from autograder.grading.on_dask import security

    with Client(address, timeout=10, set_as_default=False, security=security(course)) as client:
        client.wait_for_workers(2, timeout=60)

        def busy_while_grading() -> tuple[str, str] | None:
            assert grading.poll() is None, "grading ended before a worker ran a student"
            return _running_student(client)

        busy = _wait_for(busy_while_grading, "a worker running a student's task", seconds=120)
        worker, key = busy
        pid = client.run(os.getpid, workers=[worker])[worker]
        os.kill(pid, signal.SIGKILL)
        assert grading.poll() is None, "grading ended before the worker was killed"
        return key


@pytest.fixture(scope="module")
def graded(courses: tuple, cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    on_dask, made = courses
    log_path = tmp_path_factory.mktemp("grading") / "grading.log"
    with open(log_path, "w") as log:
        grading = subprocess.Popen(
            ["bash", "-c", CLUSTER_COMMANDS[2]],  # make autograde SCHEDULER=…, as written
            cwd=on_dask,
            env=_readme_environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            killed = _kill_a_busy_worker(cluster.address, grading, on_dask)
            code = grading.wait(timeout=600)
        except AssertionError as failure:
            raise AssertionError(f"{failure}\n{log_path.read_text()[-3000:]}") from None
        finally:
            if grading.poll() is None:
                stop(grading)
    output = log_path.read_text()
    assert code == 0, output
    return on_dask, made, killed, output


def _cell_scores(root: Path) -> dict[str, dict[tuple[str, str], float | None]]:
    """Each student's automatic score of each (notebook, test cell) in the gradebook."""
    scores: dict[str, dict[tuple[str, str], float | None]] = {}
    with sqlite3.connect(root / "gradebook.db") as db:
        for student, notebook, cell, score in db.execute(
            "SELECT sa.student_id, n.name, c.name, g.auto_score FROM grade g"
            " JOIN base_cell c ON g.cell_id = c.id JOIN notebook n ON c.notebook_id = n.id"
            " JOIN submitted_notebook sn ON g.notebook_id = sn.id"
            " JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
        ):
            cells = scores.setdefault(student, {})
            assert (notebook, cell) not in cells, f"{student} has two grades of {cell}"
            cells[notebook, cell] = score
    return scores


def _as_nbgrader_scored(pipeline: GradedCourse, student: str, cells: dict) -> dict:
    """``cells``' scores as the pipeline class's student of the same answers got them."""
    same = {"wrong-0-again": "wrong-0"}.get(student, student)
    return {cell: pipeline.cell_scores[same][cell[1]] for cell in cells}


def test_a_killed_worker_costs_nothing(graded: tuple, graded_course: GradedCourse) -> None:
    on_dask, made, killed, output = graded
    student = killed.removeprefix("grade-").rsplit("-", 1)[0]
    assert student in made
    cluster = _cell_scores(on_dask)
    with sqlite3.connect(on_dask / "gradebook.db") as db:
        submissions = dict(
            db.execute("SELECT student_id, COUNT(*) FROM submitted_assignment GROUP BY student_id")
        )
    assert submissions == dict.fromkeys(made, 1), "every student graded exactly once"
    assert set(cluster) == set(made)
    for name, cells in cluster.items():
        if name == "odd":  # no one in the pipeline class answered so
            continue
        expected = _as_nbgrader_scored(graded_course, name, cells)
        assert cells == expected, f"{name}: the cluster scores differ from nbgrader's ({killed})"
    odd = {
        exercise: sum(v or 0 for (_, cell), v in cluster["odd"].items() if f"_{exercise}_" in cell)
        for exercise in ("pair_counts", "merge_pair")
    }
    points = graded_course.exercise_points
    assert odd["pair_counts"] == points["pair_counts"] and odd["merge_pair"] < points["merge_pair"]
    assert f"graded {len(made)} submission(s)" in output and "on the Dask cluster at" in output
    results = json.loads((on_dask / "artifacts" / "grading" / "results.json").read_text())
    assert all(r["graded"] and r["jailed"] for r in results), results
    import bpe_course

    assert {r["course_version"] for r in results} == {bpe_course.__version__}


def test_feedback_on_the_grading_cluster_gives_every_student_their_pages(graded: tuple) -> None:
    on_dask, made, _, _ = graded
    done = subprocess.run(
        ["bash", "-c", CLUSTER_COMMANDS[3]],  # make feedback SCHEDULER=…, as written
        cwd=on_dask,
        env=_readme_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"feedback for {len(made)} of {len(made)} student(s)" in done.stdout, done.stdout
    assert "on the Dask cluster at tls://127.0.0.1:8786" in done.stdout, done.stdout
    for student in made:
        graded_books = (on_dask / "autograded" / student / "bpe").glob("*.ipynb")
        pages = (on_dask / "feedback" / student / "bpe").glob("*.html")
        assert {p.stem for p in pages} == {p.stem for p in graded_books}, student


@pytest.mark.parametrize("protocol", ["tls", "tcp"])
def test_an_unreachable_or_plain_scheduler_is_one_line_and_writes_nothing(
    tmp_path: Path, protocol: str
) -> None:
    """A scheduler nothing answers at, and one without TLS (which would run whatever any
    account sends it): one line each, and nothing written."""
    import socket

    (tmp_path / "submitted" / "ada" / "bpe").mkdir(parents=True)
    (tmp_path / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    (tmp_path / ".dask-tls").mkdir(mode=0o700)  # the certificate, made as make scheduler would
    from autograder.grading.on_dask import tls_files

    tls_files(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with socket.socket() as taken:  # a port nothing listens on: bound, never listening
        taken.bind(("127.0.0.1", 0))
        address = f"{protocol}://127.0.0.1:{taken.getsockname()[1]}"
        start = time.monotonic()
        done = subprocess.run(
            [*GRADING, "--root", str(tmp_path), "--scheduler", address],
            cwd=tmp_path,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
        seconds = time.monotonic() - start
    lines = (done.stdout + done.stderr).splitlines()
    said = [line for line in lines if line.strip() and not line.startswith("check: ")]
    assert done.returncode != 0
    expected = "cannot reach" if protocol == "tls" else "without TLS it runs whatever"
    assert len(said) == 1 and address in said[0] and expected in said[0], said
    # on_dask gives up after its CONNECT_SECONDS (5 s); Dask's own default would take 30 s.
    # The rest is start-up and room for a loaded machine.
    assert seconds < 30, f"took {seconds:.0f} s to give up"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_mistakes_count_each_catalogued_mistake_as_submitted(graded: tuple) -> None:
    on_dask, made, _, output = graded
    expected: dict[tuple[str, str], set[str]] = {}
    for student, wrong in made.items():
        for exercise, mistake in wrong.items():
            expected.setdefault((exercise, mistake), set()).add(student)
    with open(on_dask / "artifacts" / "grading" / "mistakes.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    named = {
        (r["exercise"], r["mistake"]): set(r["students"].split())
        for r in rows
        if r["kind"] == "named"
    }
    assert named == expected
    for row in rows:
        assert int(row["count"]) == len(row["students"].split())
    unnamed = {(r["exercise"], r["kind"]): set(r["students"].split()) for r in rows}
    assert "odd" in unnamed["merge_pair", "unexplained"]
    assert unnamed["pair_counts", "not written"] >= {"stub"}
    figure = on_dask / "artifacts" / "grading" / "mistakes.png"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "mistakes" in output and "ties broken by the largest pair" in output


# Another account's client, in a process of its own: it prints "connected" only if the
# scheduler took it, else the error that stopped it (exit 3).
STRANGER = r"""
import asyncio, ssl, sys
from distributed import Client
from distributed.comm import connect
from distributed.security import Security

address, how, folder = sys.argv[1:]

async def without_a_certificate():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # trusts any server and shows no certificate itself
    comm = await connect(address, timeout=10, ssl_context=context)
    await comm.write({"op": "identity"})
    await comm.read()  # only a client the scheduler accepted gets an answer

try:
    if how == "plain":
        Client(address.replace("tls://", "tcp://"), timeout=10).close()
    elif how == "no certificate":
        asyncio.run(without_a_certificate())
    else:
        files = {name: f"{folder}/{name}.pem" for name in ("ca", "cert", "key")}
        security = (
            Security.temporary() if how == "its own certificate" else Security(
                tls_ca_file=files["ca"], tls_client_cert=files["cert"],
                tls_client_key=files["key"], require_encryption=True,
            )
        )
        Client(address, timeout=10, security=security).close()
except Exception as error:
    print("refused:", type(error).__name__, error)
    sys.exit(3)
print("connected")
"""


def test_the_local_cluster_lets_no_one_else_connect(tmp_path: Path) -> None:
    """127.0.0.1 is open to every account (every student, on a hub), and a Dask client runs
    any code on the scheduler and workers: a client without this run's certificate, or with
    a certificate of its own, is refused; one given this run's certificate (the control)
    connects. Each is a process of its own, as another account's would be."""
    from autograder.grading.on_dask import open_cluster
    from autograder.grading.options import GradingOptions

    # Its feedback workers: the same local cluster and certificate, without the grading
    # workers' proof that they can start a kernel, which this test does not need.
    with open_cluster(GradingOptions(ROOT), feedback=True) as client:
        address = client.scheduler.address
        assert address.startswith("tls://")
        ours = client.security
        for name, pem in (("ca", ours.tls_ca_file), ("cert", ours.tls_client_cert),
                          ("key", ours.tls_client_key)):  # fmt: skip
            (tmp_path / f"{name}.pem").write_text(pem)
        said = {}
        for how in ("plain", "no certificate", "its own certificate", "this run's certificate"):
            done = subprocess.run(
                [sys.executable, "-c", STRANGER, address, how, str(tmp_path)],
                cwd=ROOT, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            said[how] = (done.returncode, done.stdout.strip().splitlines()[-1:])
    assert said.pop("this run's certificate") == (0, ["connected"])
    for how, (code, last) in said.items():
        assert code == 3 and last and last[0].startswith("refused:"), (how, code, last)
        assert "Error" in last[0].split()[1], (how, last)  # Dask's or ssl's, not ours
