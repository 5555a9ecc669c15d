"""The grading service grades each submission as it arrives, and survives being killed.

A scratch course with the course's exchange (``.exchange``, as ``nbgrader_config.py`` sets
it); entries are filed in inbound as the course's submit leaves them (a whole folder renamed
in, ``timestamp.txt`` in it, no part writable by others). Three students submit lesson 1, and
an entry is filed in a name that is no student's. The README's ``make grading-service`` runs
as written; once a first grading is merged, two students submit again (right, this time), and
the service is killed (SIGKILL, with its Dask cluster) while it grades one of those, then
started again with the README's ``IDLE_EXIT`` line, and its Dask workers are killed while
it grades again. Then every student's newest entry has been
graded exactly once, each older one graded at most once or superseded, the made-up one
refused with its reason; every student's grade is what ``make autograde`` gives for the same
submission in a second copy of the course, and the class summary was written. Two more
students' answers fault their own grading, one hanging in a loop and one ending its kernel,
and the gradebook is held busy by another writer (as the Formgrader saving a hand grade
holds it) while gradings finish: each costs time, and nobody else's grade. The course
sets ``GradingService.feedback = "at once"``: each newest entry's feedback was released
through the exchange. The README's
``make grading-status`` prints the counts and the refusal.

SIGTERM mid-grade stops the service and its cluster, the entry queued again, and the next
start grades it once.

But: no hub and no Unix accounts (the owner checks of the collect rules are
``test_exchange_collect``'s).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from autograder.grading.service import STATE_FOLDER, entry_parts
from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT
from tests.support import doc_text
from tests.support.service_store import kill_workers, scores, store_rows, wait_for_rows
from tests.test_exchange_collect import COURSE_ID
from tests.test_regrade import _make

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

LESSON = "01_bpe_by_hand.ipynb"
GUIDE = "docs/guides/instructors.md"
RIGHT = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
FIRST = {**RIGHT, "merge_pair": WRONG["merge_pair"]["right-to-left merges"]}
# Answers that fault their own grading: a loop the cell timeout ends, a kernel that exits.
# The loop runs in the answer's own cell, so one cell timeout (not one per test) is spent.
HANGS = {**RIGHT, "pair_counts": "while True:\n    pass\n"}
EXITS = {**RIGHT, "pair_counts": "import os\nos._exit(3)\n"}
BUSY_SECONDS = 5  # the gradebook held by another writer while a grading waits to merge
# The README's lines (the instructors' guide shows the same), run as written.
SERVE, STATUS = doc_text.commands("README.md", "**Grading during the term.**")
RESTART = doc_text.inline("README.md", "make grading-service IDLE_EXIT=")


def file_entry(root: Path, student: str, answers: dict[str, str], when: datetime.datetime) -> str:
    """An entry of ``student``'s lesson 1 with ``answers``, dated ``when``, renamed whole into
    the course's inbound as the course's submit does; returns its name."""
    drafts = root.parent / "drafts"
    if not (drafts / "release").exists():
        shutil.copytree(root / "release", drafts / "release")
    written = write_submission(drafts, student, answers, [LESSON])
    stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    (written / "timestamp.txt").write_text(stamp)
    (written / "submission_secret.txt").write_text(f"{student}-{when:%f}")  # as submit writes
    for path in [written, *written.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True, exist_ok=True)
    name = f"{student}+bpe+{stamp}+{when.microsecond:06x}"
    written.rename(inbound / name)
    shutil.rmtree(drafts / "submitted")
    return name


def start_service(root: Path, line: str) -> subprocess.Popen[str]:
    """The make line, in the scratch course with this clone's venv and grading code."""
    grading = f"PYTHONPATH={ROOT} {ROOT / '.venv' / 'bin' / 'python'}"
    make = ["make", "-s", "-C", str(root), f"VENV={ROOT / '.venv'}", f"GRADING={grading}"]
    return subprocess.Popen(
        [*make, "JOBS=2", *line.split()[1:]],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its Dask processes in its group, stopped by it below
    )


def stop_group(process: subprocess.Popen[str]) -> str:
    """Kill the process and every process of its group (its Dask cluster); its output."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    out, _ = process.communicate(timeout=60)
    return out


def wait_for_state(root: Path, service: subprocess.Popen[str], where: str, seconds: float) -> None:
    """Return once the service's store holds an entry ``where`` (SQL) says."""

    def alive() -> str:
        return "" if service.poll() is None else stop_group(service)

    wait_for_rows(root, where, seconds, alive)


def test_killed_mid_rush_and_restarted_every_newest_entry_is_graded_once(
    tmp_path: Path,
) -> None:
    root = make_scratch_course(tmp_path / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)  # copy2: the venv's stamp stays newer
    with (root / "nbgrader_config.py").open("a") as settings:
        settings.write('\nc.GradingService.feedback = "at once"\n')
    # Entries dated in the past hour: the collect refuses one dated later than its clock.
    start = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(hours=1)
    minute = datetime.timedelta(minutes=1)
    first = {s: file_entry(root, s, FIRST, start + i * minute) for i, s in enumerate("ab")}
    newest = {"c": file_entry(root, "c", RIGHT, start + 2 * minute)}
    forged = file_entry(root, "not a student", RIGHT, start + 3 * minute)
    faulty = {
        s: file_entry(root, s, answers, start + 4 * minute)
        for s, answers in (("h", HANGS), ("x", EXITS))
    }

    assert doc_text.commands(GUIDE, "**Grading as submissions arrive.**") == [SERVE, STATUS]
    service = start_service(root, SERVE)
    try:
        wait_for_state(root, service, "gradings > 0", 180)
        hold_busy(root, BUSY_SECONDS)  # the next grading to finish waits to merge
        later = {
            s: file_entry(root, s, RIGHT, start + (5 + i) * minute) for i, s in enumerate("ab")
        }
        newest |= later
        names = ", ".join(f"'{name}'" for name in later.values())
        wait_for_state(root, service, f"state = 'grading' AND name IN ({names})", 120)
    finally:
        before = stop_group(service)  # killed while it grades a second entry
    restarted = time.time()
    service = start_service(root, RESTART)
    try:  # graded again by the new service (the killed one left its entry 'grading')
        wait_for_state(root, service, f"state = 'grading' AND changed > {restarted}", 180)
        assert kill_workers(service.pid) >= 1  # mid-grade: their nannies start new ones
        said, _ = service.communicate(timeout=600)
    finally:
        stop_group(service)
    assert service.returncode == 0, before + said

    rows = store_rows(root)
    for name in newest.values():
        assert rows[name][0] == "graded" and rows[name][2] == 1, (name, rows, said)
        assert rows[name][3] == "released", (name, rows, said)
    pages = list((root / ".exchange" / COURSE_ID / "feedback").iterdir())
    assert len(pages) >= len(newest), (pages, said)
    for name in first.values():  # graded before the second came, or superseded
        assert rows[name][0] in ("graded", "superseded"), (name, rows)
        assert rows[name][2] <= 1, (name, rows)
    assert rows[forged][0] == "refused" and "not a safe student id" in rows[forged][1], rows
    assert {entry_parts(n)[0] for n in rows} == {"a", "b", "c", "h", "x", "not a student"}
    for name in faulty.values():  # each graded once, or handed to a person with why
        assert rows[name][0] in ("graded", "needs a person") and rows[name][2] == 1, (name, rows)
    assert max(merge_seconds(root).values()) >= BUSY_SECONDS, merge_seconds(root)

    # The same submission through make autograde, in a copy of the course: every newest entry
    # holds the same answers, so each must be graded as this one is.
    twin = make_scratch_course(tmp_path / "twin")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, twin / name)
    shutil.copytree(root / "submitted" / "c" / "bpe", twin / "submitted" / "c" / "bpe")
    _make(twin, "autograde")
    served, alone = scores(root), scores(twin)
    assert served["c"] == alone["c"], (served, alone)
    assert {served[s][0] for s in newest} == {alone["c"][0]}, (served, alone)
    assert served["h"][0] < alone["c"][0], (served, alone)  # the loop's tests fail, in time

    assert (root / "artifacts" / "grading" / "summary.csv").is_file()  # the queue emptied
    status = _make(root, *STATUS.split()[1:]).stdout
    graded = sum(row[0] == "graded" for row in rows.values())
    assert f"{graded} graded" in status and "1 refused" in status, status
    assert "nothing waits" in status, status
    assert "not a student" in status, status


def hold_busy(root: Path, seconds: float) -> None:
    """Hold the gradebook's write lock, as a writer beside the service does (the Formgrader
    saving a hand grade, if slowly), until a grading has finished and waits to be merged,
    then ``seconds`` longer; then let go. A grading counts as waiting once it has stayed done
    and unmerged for two looks: its ``done`` is when it ended in the worker, which may be
    before the lock was taken, and a merge under way when it was is over in milliseconds."""
    queue = root / STATE_FOLDER / "queue.db"
    with contextlib.closing(sqlite3.connect(root / "gradebook.db", timeout=30)) as db:
        db.execute("BEGIN EXCLUSIVE")
        deadline, seen = time.monotonic() + 300, set()
        while time.monotonic() < deadline:
            with contextlib.closing(sqlite3.connect(f"file:{queue}?mode=ro", uri=True)) as store:
                waiting = store.execute(
                    "SELECT name FROM timing WHERE done IS NOT NULL "
                    "AND (merged IS NULL OR merged < done)"
                ).fetchall()
            if seen & set(waiting):
                break
            seen = set(waiting)
            time.sleep(0.2)
        time.sleep(seconds)
        db.rollback()


def merge_seconds(root: Path) -> dict[str, float]:
    """How long each entry's merge into the gradebook took, from the service's timing table."""
    queue = root / STATE_FOLDER / "queue.db"
    with contextlib.closing(sqlite3.connect(f"file:{queue}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT name, merge_seconds FROM timing WHERE merge_seconds IS NOT NULL")
        return dict(rows.fetchall())


def group_members(group: int) -> list[int]:
    """The ids of the live processes of the process group ``group`` (an ended one that its
    parent has not yet reaped runs nothing)."""
    found = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ProcessLookupError):
            if proc.name.isdigit() and os.getpgid(int(proc.name)) == group:
                state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
                if state != "Z":
                    found.append(int(proc.name))
    return found


def wait_for_group_to_end(group: int, seconds: float) -> dict[int, bytes]:
    """Each process still in ``group`` after ``seconds`` (none, at once, once all ended),
    with its command line."""
    deadline = time.monotonic() + seconds
    while group_members(group) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = {}
    for pid in group_members(group):
        with contextlib.suppress(OSError):
            left[pid] = Path(f"/proc/{pid}/cmdline").read_bytes()[:200]
    return left


def serve_process(group: int) -> int:
    """The ``autograder serve`` process of the process group ``group`` (make's)."""
    for pid in group_members(group):
        with contextlib.suppress(OSError):
            if b"autograder\0serve\0" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
    raise AssertionError(f"no autograder serve in the process group {group}")


def test_sigterm_mid_grade_requeues_the_entry_and_stops_every_worker(tmp_path: Path) -> None:
    """JupyterHub stops its service with a signal (SIGTERM after Ctrl-C's): mid-grade, the
    service stops with its Dask cluster, the store holds the entry queued again, not
    'grading', and the next start grades it once."""
    root = make_scratch_course(tmp_path / "course")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)
    start = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(hours=1)
    entry = file_entry(root, "a", RIGHT, start)
    service = start_service(root, SERVE)
    try:
        wait_for_state(root, service, "state = 'grading'", 180)
        os.kill(serve_process(service.pid), signal.SIGTERM)
        said, _ = service.communicate(timeout=120)
        left = wait_for_group_to_end(service.pid, 20)  # no Dask worker or nanny left
    finally:
        stop_group(service)
    assert left == {}, (left, said)
    assert service.returncode == 0, said
    assert "stopped; make grading-service resumes the queue" in said, said
    state, reason, gradings, _ = store_rows(root)[entry]
    assert (state, gradings) == ("queued", 0), (state, reason, said)
    assert "the service was stopped" in reason

    service = start_service(root, RESTART)
    try:
        again, _ = service.communicate(timeout=600)
    finally:
        stop_group(service)
    assert service.returncode == 0, again
    assert store_rows(root)[entry][0::2] == ("graded", 1), (store_rows(root), again)
