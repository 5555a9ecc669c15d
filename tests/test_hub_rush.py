"""A deadline rush on a real hub, graded by the hub's grading service as the entries arrive.

One hub, started by the hub guide's own ``make hub`` (the grading service on, as JupyterHub's
managed service run as the instructor), with eight students' Unix accounts of a prefix of this
run's (``bperush<pid>-``), its folder under ``/tmp``. The instructor generates and releases
``bpe`` in ``~/course`` from the command line, as the guide says; every student fetches it and
submits from the command line as their own account, four at a time: three with every answer
right, two with ``pair_counts`` wrong, and the two who submit twice in each direction
(mistake, then right; right, then a ``merge_pair`` mistake), so the newest, not the best,
counts. One student files two forged entries: one in a classmate's name, dated after the
classmate's own, and one in the name of a student on the roster who has no account (which the
hub's settings, given to the service, make a made-up name). While the service grades, one of
its Dask workers is killed (SIGKILL); once the second submissions are being graded, the
service itself is killed with its cluster, and JupyterHub starts it again (its log says so).
Then: every entry in inbound has its row in the service's store (none lost); each student's
newest entry was graded exactly once, every older one at most once or superseded; both forged
entries were refused with their reasons and the classmate's grade is from their own entry; the
grades agree with ``make autograde`` on a copy of the course given one student of each kind;
the guide's ``make grading-status``, as the instructor in ``~/course``, counts the refusals;
Ctrl-C stops the hub, which stops the service cleanly (its last words in the hub's log), and
nothing of the class is left running.

But: no browser (``tests/test_hub.py`` plays the class in Chromium, with the service off),
and the feedback is left for the instructor to release (the course's default). Accounts,
folders and processes are removed at the end, even after a failure; skipped without root.
"""

from __future__ import annotations

import datetime
import os
import platform
import pwd
import re
import secrets
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder.grading.service import entry_parts
from course_fixtures.catalogue import WRONG
from course_fixtures.scratch_course import make_scratch_course
from hub import accounts
from hub.preflight import why_not
from tests.support import doc_text
from tests.support.service_store import (
    cell_scores,
    kill_workers,
    scores,
    store_rows,
    wait_for_rows,
)
from tests.test_hub import (
    HUB_GUIDE,
    HUB_VENV,
    RIGHT,
    WITH_MISTAKE,
    Hub,
    free_port,
    running_hub,
    stop_hub,
    submit_from_a_terminal,
)
from tests.test_regrade import _make

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow, pytest.mark.timeout(1500)]

ROOT = Path(__file__).resolve().parent.parent
# Accounts of this run alone (not test_hub's bpehub…): a killed run's are removed by the next.
PREFIX = f"bperush{os.getpid()}-"
STUDENTS = 8  # each one more costs about 10 CPU seconds of the suite
PAIR_COUNTS_WRONG = dict(RIGHT, pair_counts=WRONG["pair_counts"]["unweighted counts"])
# Each student's submissions, in order, by the student's number.
PLAN = {
    **{k: [RIGHT] for k in (3, 4, 5)},
    1: [WITH_MISTAKE, RIGHT],
    2: [RIGHT, WITH_MISTAKE],
    **{k: [PAIR_COUNTS_WRONG] for k in (6, 7, 8)},
}
FORGER, VICTIM = 8, 5
# One student of each kind of newest submission, graded again by make autograde in a copy.
KIND_OF = {k: (1 if answers[-1] is RIGHT else 2 if answers[-1] is WITH_MISTAKE else 6)
           for k, answers in PLAN.items()}  # fmt: skip


def remove_left_over_runs() -> None:
    """The accounts of earlier runs of this module that were killed (their pid is gone)."""
    for entry in accounts.accounts_with_prefix("bperush"):
        found = re.fullmatch(r"bperush(\d+)-.*", entry.pw_name)
        if found and not Path(f"/proc/{found.group(1)}").exists():
            accounts.remove_accounts(f"bperush{found.group(1)}-")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    reason = why_not(platform.system(), os.geteuid(), shutil.which("useradd") is not None)
    if reason:
        pytest.skip(f"the hub tests make Unix accounts: {reason.splitlines()[0]}")
    remove_left_over_runs()
    root = Path(tempfile.mkdtemp(prefix="bpe-hub-rush-", dir="/tmp"))
    output = tmp_path_factory.mktemp("hub") / "run_hub.out"  # it prints passwords: root only
    port = free_port()
    # The guide's own command, the grading service on, with this run's class and folder.
    line = doc_text.command(HUB_GUIDE, "make hub")
    assert line == "make hub", line
    command = [
        *line.split(), f"STUDENTS={STUDENTS}", f"HUB_PREFIX={PREFIX}", f"HUB_ROOT={root}",
        "HUB_HOMES_INSIDE=1", f"HUB_PORT={port}", f"HUB_VENV={HUB_VENV}",
    ]  # fmt: skip
    with running_hub(command, output, root, PREFIX, port) as hub:
        yield hub


def service_pids(hub: Hub) -> list[int]:
    """The grading service's processes (``autograder serve``), run as the instructor."""
    uid = pwd.getpwnam(hub.instructor).pw_uid
    found = []
    for proc in Path("/proc").iterdir():
        try:
            mine = proc.name.isdigit() and proc.stat().st_uid == uid
            if mine and b"autograder\0serve\0" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:  # it ended while we looked
            continue
    return found


def the_service(hub: Hub, seconds: float, not_this: int | None = None) -> int:
    """The service's process id (other than ``not_this``), once JupyterHub has started it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pids = [pid for pid in service_pids(hub) if pid != not_this]
        if len(pids) == 1:
            return pids[0]
        time.sleep(0.5)
    log = (hub.root / "state" / "jupyterhub.log").read_text()[-3000:]
    raise AssertionError(f"no grading service (other than {not_this}) in {seconds} s:\n{log}")


def service_alive(hub: Hub) -> str:
    """'' while the service runs; else the end of the hub's log."""
    if service_pids(hub):
        return ""
    log = (hub.root / "state" / "jupyterhub.log").read_text()
    return f"the grading service stopped:\n{log[-3000:]}"


def entries_of(hub: Hub, student: str) -> list[str]:
    """The student's entries in inbound, oldest first (their names hold their times)."""
    inbound = hub.exchange_course / "inbound"
    return sorted(
        (p.name for p in inbound.glob(f"{student}+bpe+*")), key=lambda n: entry_parts(n)[2]
    )


def submit_each(hub: Hub, plan: dict[str, dict[str, str]]) -> dict[str, str]:
    """Every student of ``plan`` submits their answers from the command line, four at once;
    the name of each one's new entry."""
    before = {student: set(entries_of(hub, student)) for student in plan}
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda item: submit_from_a_terminal(hub, *item), plan.items()))
    made = {}
    for student in plan:
        [made[student]] = set(entries_of(hub, student)) - before[student]
    return made


FORGE = """\
import pathlib, shutil, sys
inbound, name, stamp = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
entry = inbound / name
shutil.copytree(pathlib.Path.home() / "bpe", entry)
(entry / "timestamp.txt").write_text(stamp)
"""


def forge(hub: Hub, forger: str, named: str) -> str:
    """An entry the forger writes by hand into inbound in another's name, dated now."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    name = f"{named}+bpe+{stamp}+{secrets.token_hex(16)}"
    inbound = str(hub.exchange_course / "inbound")
    hub.must_run_as(forger, [str(HUB_VENV / "bin" / "python"), "-c", FORGE, inbound, name, stamp])
    return name


def test_a_deadline_rush_is_graded_once_each_by_the_hubs_service(hub: Hub, tmp_path: Path) -> None:
    course, teacher = hub.course, hub.instructor
    student = {k: hub.students[k - 1] for k in PLAN}
    first = the_service(hub, 60)  # JupyterHub started it with the hub

    def alive() -> str:
        return service_alive(hub)

    assert "the grading service:     on" in hub.output.read_text().lower(), hub.output.read_text()
    # A student of the roster who has no account yet: only the hub's settings make the name
    # made up (the roster alone accepts it).
    ghost = f"{PREFIX}student{STUDENTS + 1}"
    with (course / "roster.csv").open("a") as roster:
        roster.write(f"{ghost},Late,Enrolled\n")
    for step in ("generate_assignment", "release_assignment"):
        hub.must_run_as(teacher, ["nbgrader", step, "bpe"], cwd=course)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda s: hub.must_run_as(s, ["nbgrader", "fetch_assignment", "bpe"]),
                      student.values()))  # fmt: skip

    newest = submit_each(hub, {student[k]: answers[0] for k, answers in PLAN.items()})
    forged = forge(hub, student[FORGER], student[VICTIM])
    made_up = forge(hub, student[FORGER], ghost)
    wait_for_rows(course, "state = 'grading'", 300, alive)
    assert kill_workers(first) >= 1  # mid-grade: their nannies start new ones
    again = {student[k]: answers[1] for k, answers in PLAN.items() if len(answers) > 1}
    second = submit_each(hub, again)
    newest |= second
    names = ", ".join(f"'{name}'" for name in second.values())
    wait_for_rows(course, f"state = 'grading' AND name IN ({names})", 300, alive)
    os.killpg(first, signal.SIGKILL)  # the service, with its Dask cluster, mid-grade
    restarted = the_service(hub, 120, not_this=first)  # JupyterHub polls it every 30 s
    log = (hub.root / "state" / "jupyterhub.log").read_text()
    assert "Service grading exited with status -9" in log, log[-3000:]

    wanted = ", ".join(f"'{name}'" for name in newest.values())
    everything_graded = (
        f"(SELECT COUNT(*) FROM entry WHERE state = 'graded' AND name IN ({wanted})) = "
        f"{len(newest)} AND (SELECT COUNT(*) FROM entry WHERE state IN "
        "('waiting', 'queued', 'grading')) = 0"
    )
    wait_for_rows(course, everything_graded, 600, alive)
    assert service_pids(hub) == [restarted]

    rows = store_rows(course)
    inbound = {path.name for path in (hub.exchange_course / "inbound").iterdir()}
    assert set(rows) == inbound, set(rows) ^ inbound  # no entry lost, none made up
    for name in newest.values():
        assert rows[name][0] == "graded" and rows[name][2] == 1, (name, rows[name])
    for name in inbound - set(newest.values()) - {forged, made_up}:  # the first of two
        assert rows[name][0] in ("graded", "superseded") and rows[name][2] <= 1, rows[name]
    assert rows[forged][0] == "refused", rows[forged]
    assert f"owned by account {student[FORGER]!r}" in rows[forged][1], rows[forged]
    assert rows[made_up][0] == "refused", rows[made_up]
    assert "no account of this machine" in rows[made_up][1], rows[made_up]
    # The classmate's copy is their own newest entry, not the later forged one.
    victim_copy = course / "submitted" / student[VICTIM] / "bpe" / "timestamp.txt"
    assert victim_copy.read_text() == entry_parts(newest[student[VICTIM]])[2]

    # One student of each kind through make autograde, in a copy of the course with the hub's
    # term secret (the same hidden cases).
    twin = make_scratch_course(tmp_path / "twin")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, twin / name)  # copy2: the venv's stamp stays newer
    shutil.copyfile(course / ".grading-secret", twin / ".grading-secret")
    kinds = sorted(set(KIND_OF.values()))
    for k in kinds:
        shutil.copytree(
            course / "submitted" / student[k] / "bpe", twin / "submitted" / student[k] / "bpe"
        )
    _make(twin, "autograde")
    served, alone = scores(course), scores(twin)
    for k in kinds:  # the same score and submission time
        assert served[student[k]] == alone[student[k]], (k, served, alone)
    assert ghost not in served, served
    served_cells, alone_cells = cell_scores(course), cell_scores(twin)
    right, mistake, other = (alone_cells[student[k]] for k in kinds)
    assert right != mistake and mistake != other and other != right, alone_cells  # told apart
    for k in PLAN:  # each cell as make autograde grades the same kind of submission
        assert served_cells[student[k]] == alone_cells[student[KIND_OF[k]]], (k, served_cells)

    status = doc_text.inline(HUB_GUIDE, "make grading-status")
    said = hub.must_run_as(teacher, status.split(), cwd=course).stdout
    assert "2 refused" in said and "nothing waits" in said, said
    assert "owned by account" in said and "no account of this machine" in said, said

    stop_hub(hub.process)  # Ctrl-C: JupyterHub stops the service with the servers
    assert "stopped: no server, kernel or proxy" in hub.output.read_text(), hub.output.read_text()
    assert service_pids(hub) == []
    log = (hub.root / "state" / "jupyterhub.log").read_text()  # stopped between two steps
    # Only the clean stop says the queue's state after it; a second Ctrl-C's stop does not.
    assert "resumes the queue. grading service:" in log, log[-3000:]
