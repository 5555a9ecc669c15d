"""The grading service's queue: which entry of inbound it grades, without grading any.

A course folder holding only ``nbgrader_config.py`` and its exchange; entries filed in inbound
as the course's submit leaves them. The service's own steps (``scan``, then ``take`` for each
student, as ``step`` runs them) must queue each student's newest entry by the course's collect
rules, supersede a queued older one, refuse a made-up name and an entry dated ahead of the
clock without touching anyone's queue, refuse an account's entries past the bound, and take
nothing before an entry has settled. A restart puts an entry left grading back in the queue
unless the gradebook already holds its copy (then it counts as graded, once). With
nbgrader's ``before_duedate``, the newest entry on time is the one queued.
Started before the release, the service waits for inbound; it never generates the
assignment, and entries wait until the instructor has.
``grading-status`` reads it all. The class summary is written in a thread, one at a time,
the last ask kept, a failure said. A grading done while another writer holds the gradebook
past the merge's wait is merged at a later look, its student's next entry waiting behind it.

But: nothing is graded (``test_grading_service`` grades, is killed and restarts).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from nbgrader.api import Gradebook, InvalidEntry
from traitlets.config import Config

from autograder.course import course_config, read_only_db_url
from autograder.grading import grade_class, grade_one, gradebook_rows
from autograder.grading import service as grading_service
from autograder.grading.gradebook_rows import StudentResult, student_rows
from autograder.grading.on_dask import gradebook_ready_for_readers
from autograder.grading.options import GradingOptions
from autograder.grading.service import (
    GRADING,
    PERSON,
    QUEUED,
    REFUSED,
    STATE_FOLDER,
    SUPERSEDED,
    Service,
    Store,
    state_folder,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.nbgrader  # nbgrader's collect, in this process

COURSE_ID = "bpe-from-scratch"
NOW = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gradebook made once: nbgrader makes a new one by running alembic (seconds)."""
    path = tmp_path_factory.mktemp("gradebook") / "gradebook.db"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    make = (
        f"from nbgrader.api import Gradebook; Gradebook('sqlite:///{path}', {COURSE_ID!r}).close()"
    )
    subprocess.run([sys.executable, "-c", make], env=env, check=True)
    return path


@pytest.fixture
def root(tmp_path: Path, empty_gradebook: Path) -> Path:
    """A course folder with the course's settings, an empty gradebook and an exchange."""
    root = tmp_path / "course"
    (root / ".exchange" / COURSE_ID / "inbound").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copy(empty_gradebook, root / "gradebook.db")
    return root


def file_entry(
    root: Path, student: str, minutes_ago: float, text: str = "{}", secret: str = ""
) -> str:
    """An entry dated ``minutes_ago``, renamed whole into inbound; returns its name. With a
    ``secret``, its ``submission_secret.txt`` (as nbgrader's submit writes one)."""
    when = NOW - datetime.timedelta(minutes=minutes_ago)
    stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    draft = root.parent / "draft"
    draft.mkdir(mode=0o755)
    (draft / "01_bpe_by_hand.ipynb").write_text(text)
    (draft / "timestamp.txt").write_text(stamp)
    if secret:
        (draft / "submission_secret.txt").write_text(secret)
    name = f"{student}+bpe+{stamp}+{abs(hash(text)) % 4096:03x}"
    draft.rename(root / ".exchange" / COURSE_ID / "inbound" / name)
    return name


def service(root: Path, before_duedate: bool = False, **settings: float) -> Service:
    """The service's steps on ``root``, taking entries at once, with ``settings``."""
    config = course_config(root)
    config.merge(Config({"GradingService": {"settle_seconds": 0, **settings}}))
    config.merge(Config({"ExchangeCollect": {"before_duedate": before_duedate}}))
    store = Store(state_folder(root, root / ".exchange") / "queue.db")
    return Service(GradingOptions(course_root=root), store, config)


def look(run: Service) -> dict[str, tuple[str, str]]:
    """One look at inbound, as ``step`` takes it (nothing is graded); each entry's state."""
    run.scan()
    for student in sorted({e.student for e in run.store.entries("waiting")}):
        run.take_or_hold(student)
    return {e.name: (e.state, e.reason) for e in run.store.entries()}


def test_the_newest_entry_is_queued_an_older_queued_one_superseded_a_forged_one_refused(
    root: Path,
) -> None:
    run = service(root)
    older = file_entry(root, "ada", 30, '{"v": 1}')
    states = look(run)
    assert states[older] == (QUEUED, ""), states
    assert (root / "submitted" / "ada" / "bpe").is_dir()

    newer = file_entry(root, "ada", 10, '{"v": 2}')
    made_up = file_entry(root, "not-a-student!", 5)
    ahead = file_entry(root, "ada", -60, '{"v": 3}')  # dated an hour ahead of the clock
    states = look(run)
    assert states[newer] == (QUEUED, ""), states
    assert states[older][0] == SUPERSEDED and newer in states[older][1], states
    assert states[made_up][0] == REFUSED and "not a safe student id" in states[made_up][1]
    assert states[ahead][0] == REFUSED and "later than the collect's clock" in states[ahead][1]
    copy = root / "submitted" / "ada" / "bpe" / "01_bpe_by_hand.ipynb"
    assert copy.read_text() == '{"v": 2}'

    # A student backdates an entry: the collect keeps the newer copy, nothing is queued.
    backdated = file_entry(root, "ada", 20, '{"v": 4}')
    states = look(run)
    assert states[backdated][0] == SUPERSEDED and states[newer] == (QUEUED, ""), states
    assert [e.name for e in run.store.entries(QUEUED)] == [newer]

    # Where the seconds go, as the rush bench reads them: each queued entry's collect timed.
    timings = run.store.timings()
    assert timings[newer]["queued"] >= timings[older]["queued"] > 0, timings
    assert 0 < timings[newer]["collect_seconds"] < 60, timings
    assert backdated not in timings and made_up not in timings, timings
    with pytest.raises(ValueError, match="no such milestone"):
        run.store.mark(newer, "queued; DROP TABLE entry")

    folder = root / STATE_FOLDER
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert not folder.resolve().is_relative_to((root / ".exchange").resolve())


def test_an_entry_whose_timestamp_file_differs_from_its_name_is_queued_dated_by_its_name(
    root: Path,
) -> None:
    """A student's entry whose timestamp.txt says a second after its name: the service once
    took its copy for another entry's and never graded it (keeping an earlier, backdated
    grading). The copy is dated by the name, and the entry is queued."""
    run = service(root)
    first = file_entry(root, "eve", 30, '{"v": 1}')
    look(run)
    second = file_entry(root, "eve", 10, '{"v": 2}')
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    named = second.split("+")[2]
    later = datetime.datetime.strptime(named, "%Y-%m-%d %H:%M:%S.%f UTC") + datetime.timedelta(
        seconds=1
    )
    (inbound / second / "timestamp.txt").write_text(f"{later:%Y-%m-%d %H:%M:%S.%f} UTC")
    states = look(run)
    assert states[second] == (QUEUED, ""), states
    assert states[first][0] == SUPERSEDED, states
    copy = root / "submitted" / "eve" / "bpe"
    assert (copy / "timestamp.txt").read_text() == named
    assert (copy / "01_bpe_by_hand.ipynb").read_text() == '{"v": 2}'


def test_an_entry_is_taken_once_settled_and_a_flood_is_refused(root: Path) -> None:
    run = service(root, settle_seconds=3600, max_entries_per_account=2)
    first = file_entry(root, "bo", 9, '{"v": 1}')
    assert look(run) == {}  # its timestamp.txt is younger than settle_seconds
    run.settings.settle_seconds = 0
    names = [first] + [file_entry(root, "bo", 9 - i, f'{{"v": {i}}}') for i in (2, 3, 4)]
    states = look(run)
    assert [states[n][0] for n in names[:2]] == [SUPERSEDED, QUEUED], states
    for name in names[2:]:
        assert states[name][0] == REFUSED and "more than 2 entries" in states[name][1], states
    # The refused entries are newer, yet never collected.
    copy = root / "submitted" / "bo" / "bpe" / "01_bpe_by_hand.ipynb"
    assert copy.read_text() == '{"v": 2}'


def test_a_name_that_is_no_text_is_left_alone_and_a_flood_in_many_names_is_bounded(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry name of bytes no encoding reads (SQLite cannot store it) once stopped the
    service at every start; and an account's entries in names of its choice were bounded per
    name, so made-up names flooded the store without end."""
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    odd = os.fsencode(inbound) + b"/x\xff+bpe+2026-01-01 00:00:00.000000 UTC+abc"
    os.mkdir(odd)
    with open(odd + b"/timestamp.txt", "w") as stamp:
        stamp.write("2026-01-01 00:00:00.000000 UTC")
    run = service(root, max_entries_per_account=2)
    assert look(run) == {}
    assert look(run) == {}
    assert capsys.readouterr().out.count("an entry whose name is not text") == 1

    stranger = 54329  # another account than the service's, as a student's is on a hub
    names = [file_entry(root, f"zz{i}", 9 - i) for i in range(4)]
    for name in names:
        for path in (inbound / name, inbound / name / "timestamp.txt"):
            os.lchown(path, stranger, stranger)
    states = look(run)
    refused = [n for n in names if "entries of this account in any name" in states[n][1]]
    assert refused == names[2:], states


def test_a_restart_queues_again_an_entry_left_grading(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = service(root)
    name = file_entry(root, "cy", 5)
    look(run)
    copy_stamp = run.store.entries(QUEUED)[0].copy_stamp
    run.store.set(name, GRADING, copy_stamp=copy_stamp)  # as a killed service leaves it
    run.store.close()

    again = service(root)
    again.resume()  # the gradebook holds no copy of it: graded again, not skipped
    assert [(e.name, e.state, e.gradings) for e in again.store.entries()] == [(name, QUEUED, 0)]
    # Stopped again after its merge, before its state was written: not graded a second time.
    again.store.set(name, GRADING, copy_stamp=copy_stamp)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        gradebook.add_assignment("bpe")
        gradebook.add_student("cy")
        when = datetime.datetime.fromisoformat(copy_stamp)
        gradebook.add_submission("bpe", "cy", timestamp=when)
    again.resume()
    assert [(e.state, e.gradings) for e in again.store.entries()] == [("graded", 1)]
    again.store.set(name, QUEUED)  # for the status line below
    again.store.close()

    capsys.readouterr()
    assert grading_service.status(root) == 0
    said = capsys.readouterr().out
    assert said.startswith("grading service: 0 waiting, 1 queued, 0 grading"), said
    assert "oldest wait" in said, said


def test_the_status_says_when_there_is_no_queue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grading_service.status(tmp_path) == 0
    assert "no queue yet (make grading-service starts one)" in capsys.readouterr().out


def test_started_before_the_release_the_service_waits_for_inbound_saying_so_once(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hub's service starts before the release; exiting, it would be restarted at once by
    JupyterHub, again and again. It waits, says why once, and starts when inbound appears."""
    monkeypatch.setattr(grading_service, "INBOUND_LOOK_SECONDS", 0.05)
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    inbound.rmdir()
    assert grading_service.serve(GradingOptions(course_root=root), idle_exit=1) == 0
    said = capsys.readouterr().out
    assert said.count(f"no inbound folder {inbound} yet: waiting") == 1, said
    assert "nothing to grade for 1 s: stopping" in said, said
    assert not (root / STATE_FOLDER).exists()  # nothing started, nothing recorded

    release = threading.Timer(0.3, inbound.mkdir)
    release.start()
    try:
        assert grading_service.wait_for_inbound(inbound, give_up=30)
    finally:
        release.join()
    said = capsys.readouterr().out
    assert said.count("waiting for the assignment's release") == 1, said
    assert said.endswith(f"{inbound} is there: grading starts\n"), said


def test_with_before_duedate_the_newest_entry_on_time_is_the_one_queued(root: Path) -> None:
    due = NOW - datetime.timedelta(minutes=20)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        gradebook.update_or_create_assignment("bpe", duedate=due)
    run = service(root, before_duedate=True)
    on_time = file_entry(root, "di", 30, '{"v": 1}')
    late = file_entry(root, "di", 10, '{"v": 2}')
    states = look(run)
    assert states[on_time] == (QUEUED, "") and states[late][0] == SUPERSEDED, states
    copy = root / "submitted" / "di" / "bpe" / "01_bpe_by_hand.ipynb"
    assert copy.read_text() == '{"v": 1}'


def test_the_summary_is_written_aside_once_at_a_time_and_the_last_ask_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The class summary takes seconds (its figures): written in a thread, it delays no merge;
    asked again while one is written, it is written once more after, never twice at once."""
    release, calls, running = threading.Event(), [], []

    def slow_report(course_root: Path, quiet: bool = False) -> list:
        running.append(1)
        assert len(running) == 1, "two summaries at once"
        calls.append(course_root)
        if len(calls) == 1:
            release.wait(30)
        running.pop()
        if len(calls) >= 3:
            raise OSError("disk full")
        return []

    monkeypatch.setattr(grading_service.summary, "report", slow_report)
    writer = grading_service.SummaryWriter(tmp_path)
    writer.ask()
    writer.ask()  # while the first is written: kept for after it
    writer.ask()
    writer.follow_up()
    assert len(calls) == 1 and writer.again
    release.set()
    writer.thread.join(30)
    writer.follow_up()  # the one asked meanwhile, once
    writer.close()
    assert calls == [tmp_path, tmp_path]
    writer.ask()  # a failing summary is tried again, then said, and stops nothing
    writer.close()
    assert len(calls) == 5
    assert "the class summary was not written: OSError('disk full')" in capsys.readouterr().err


def test_no_entry_of_a_student_can_stop_the_service(root: Path) -> None:
    """A newer entry whose name is no text was chosen by the collect and then stopped the
    service at every start; so did a refusal naming a file whose name is no text. Each is now
    left alone or refused, and any other failure holds that student's entries for a person."""
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    ada = file_entry(root, "ada", 9)
    later = (NOW - datetime.timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    odd = os.fsencode(inbound) + f"/ada+bpe+{later}+ab".encode() + b"\xff"
    os.mkdir(odd)
    with open(odd + b"/timestamp.txt", "w") as stamp:
        stamp.write(later)
    bob = file_entry(root, "nobody", 8)  # an account of every machine: its owner is checked
    unnamed = os.fsencode(inbound / bob) + b"/\xff"
    with open(unnamed, "w") as file:
        file.write("{}")
    os.chmod(unnamed, 0o666)
    stranger = pwd.getpwnam("nobody").pw_uid
    for path in (os.fsencode(inbound / bob), os.fsencode(inbound / bob / "timestamp.txt")):
        os.lchown(path, stranger, stranger)
    os.lchown(os.fsencode(inbound / bob / "01_bpe_by_hand.ipynb"), stranger, stranger)
    os.lchown(unnamed, stranger, stranger)
    states = look(service(root))
    assert states[ada][0] == QUEUED, states
    assert states[bob][0] == REFUSED and "\\udcff" in states[bob][1], states

    cyd = file_entry(root, "cyd", 7)
    run = service(root)

    def broken(student: str) -> None:
        raise OSError(f"no {student}")

    run.take = broken  # type: ignore[method-assign]
    run.scan()
    run.take_or_hold("cyd")
    held = {e.name: (e.state, e.reason) for e in run.store.entries(student="cyd")}
    assert held[cyd][0] == PERSON and "OSError: no cyd" in held[cyd][1], held


def test_a_grading_the_gradebook_is_too_busy_to_take_is_merged_at_a_later_look(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Formgrader saving a hand grade slowly once stopped the service: its merge waited
    60 s, then sqlite3's 'database is locked' ended the whole service (and a collect that
    met it sent the entry to a person). Now the result is kept and merged at a later look
    (one try a look), the collect is tried again, and the student's newer entry waits
    behind the first, so the older grading can never be merged over the newer."""
    monkeypatch.setattr(gradebook_rows, "MERGE_WAIT_SECONDS", 0.2)
    formgrader = sqlite3.connect(root / "gradebook.db")
    graded: list[str] = []
    rows = student_rows(root / "gradebook.db", "bpe", "cy")  # none yet: merged all the same

    def grade_task(options: GradingOptions, student: str, template: Path) -> StudentResult:
        if not graded:  # the Formgrader begins a long save while the first grading runs
            formgrader.execute("BEGIN EXCLUSIVE")
        graded.append(student)
        return StudentResult(student, graded=True, jailed=True, seconds=1.0, rows=rows)

    monkeypatch.setattr(grading_service, "grade_task", grade_task)
    run = service(root)
    first = file_entry(root, "cy", 5)
    run.step(None, tmp_path)
    newer = file_entry(root, "cy", 1, text='{"newer": 1}')
    run.step(None, tmp_path)  # the merge is tried again; cy's newer entry is not taken
    states = {e.name: (e.state, e.gradings) for e in run.store.entries()}
    assert states == {first: (GRADING, 0), newer: ("waiting", 0)}, states
    assert capsys.readouterr().out.count("cy's grading waits to be merged: another writer") == 2
    dee = file_entry(root, "dee", 3, text='{"dee": 1}')
    look(run)  # dee's collect meets the lock: dee's entry waits, for nobody in person
    assert "dee's entries wait: another writer" in capsys.readouterr().err
    assert {e.name: e.state for e in run.store.entries(student="dee")} == {dee: "waiting"}
    formgrader.rollback()
    formgrader.close()

    run.step(None, tmp_path)
    states = {e.name: (e.state, e.gradings) for e in run.store.entries()}
    assert states == {first: ("graded", 1), newer: ("graded", 1), dee: ("graded", 1)}, states
    assert graded == ["cy", "cy", "dee"], graded
    queue = state_folder(root, root / ".exchange") / "queue.db"
    with contextlib.closing(sqlite3.connect(queue)) as db:
        timing = {n: row for n, *row in db.execute("SELECT name, started, merged FROM timing")}
        (waited,) = db.execute("SELECT merge_seconds FROM timing WHERE name = ?", (first,))
    assert timing[first][1] <= timing[newer][0], timing  # merged before the newer one began
    assert waited[0] >= 0.4, waited  # both refused tries count in its merge's time

    # Held again: the first collect of a look to meet the lock ends the look's collects.
    later = [file_entry(root, s, 1, text=f'{{"{s}": 1}}') for s in ("eve", "fay")]
    with contextlib.closing(sqlite3.connect(root / "gradebook.db")) as formgrader:
        formgrader.execute("BEGIN EXCLUSIVE")
        run.step(None, tmp_path)
        formgrader.rollback()
    said = capsys.readouterr().err
    assert "eve's entries wait" in said and "fay's" not in said, said
    run.step(None, tmp_path)
    assert {e.name: e.state for e in run.store.entries() if e.name in later} == dict.fromkeys(
        later, "graded"
    )


@pytest.mark.slow  # runs nbgrader's generate_assignment
def test_the_service_never_generates_the_assignment_and_waits_for_the_instructor(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hub's service starts with the hub, before the instructor generates and releases the
    assignment. It ran generate_assignment --force as it started, which rewrote release/ while
    the instructor's release_assignment copied it: students fetched the assignment without its
    last notebook (CI33). Now it never generates the assignment: an entry filed (by hand)
    before that waits, said once, and the first grading after the instructor's
    generate_assignment grades into a gradebook holding every notebook; release/ is left as
    the instructor made it."""
    shutil.copytree(ROOT / "source", root / "source")
    # The sandbox's probe is test_verify_sandbox's; here only what starting does to the course.
    monkeypatch.setattr(grade_class, "ready_to_grade", lambda options, process: None)
    monkeypatch.setattr(grading_service, "READY_LOOK_SECONDS", 0.0)
    options = GradingOptions(course_root=root, in_process=True, unconfined=True, progress=False)
    masters = sorted(p.stem for p in (root / "source" / "bpe").glob("*.ipynb"))
    held: list[list[str]] = []

    def grade_task(options: GradingOptions, student: str, template: Path) -> StudentResult:
        held.append(grade_class.notebooks_missing(root, template))
        return StudentResult(student, graded=True, jailed=True, seconds=1.0)

    monkeypatch.setattr(grading_service, "grade_task", grade_task)
    with contextlib.ExitStack() as stack:
        client, template = grade_class.start_grading(options, stack)
        assert client is None and not template.exists()
        run = service(root)
        early = file_entry(root, "cy", 5)
        for _ in range(2):
            run.step(None, template)
        assert held == [] and not template.exists() and not (root / "release").exists()
        assert grade_class.notebooks_missing(root, root / "gradebook.db") == masters
        assert {e.name: e.state for e in run.store.entries()} == {early: QUEUED}
        assert capsys.readouterr().out.count("run nbgrader generate_assignment bpe") == 1
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        instructor = [sys.executable, "-m", "nbgrader", "generate_assignment", "bpe"]
        subprocess.run([*instructor, "--log-level=WARN"], cwd=root, env=env, check=True)
        released = {p.name: p.stat().st_mtime_ns for p in (root / "release" / "bpe").iterdir()}
        assert len(released) == len(masters), released
        (root / "release" / "bpe" / f"{masters[-1]}.ipynb").rename(root / "last-page")
        run.step(None, template)  # as if generate_assignment were writing its last page
        assert held == [] and not template.exists()
        (root / "last-page").rename(root / "release" / "bpe" / f"{masters[-1]}.ipynb")
        run.step(None, template)
        assert "grading starts" in capsys.readouterr().out
    assert held == [[]]  # the gradebook it graded into held every notebook
    assert {e.name: e.state for e in run.store.entries()} == {early: "graded"}
    now = {p.name: p.stat().st_mtime_ns for p in (root / "release" / "bpe").iterdir()}
    assert now == released


def test_a_release_that_meets_the_gradebooks_lock_is_tried_at_the_next_look_a_few_times(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With feedback at once, nbgrader's generate_feedback reading a gradebook another writer
    holds failed for good ("not released"). It is now tried at the next look, three times at
    most: its words come from a program that reads the student's notebook."""
    locked = "nbgrader generate_feedback failed: (sqlite3.OperationalError) database is locked"
    answers = iter([locked, None, locked, locked, locked])
    monkeypatch.setattr(grading_service, "release_feedback", lambda root, student: next(answers))
    run = service(root, feedback="at once")
    names = [file_entry(root, student, 5, text=f'{{"{student}": 1}}') for student in ("cy", "di")]
    look(run)
    for name in names:
        run.store.set_feedback(name, grading_service.PENDING)

    def feedback() -> dict[str, str]:
        return dict(run.store.db.execute("SELECT name, feedback FROM entry").fetchall())

    run.release(names[0], "cy")
    assert feedback()[names[0]] == grading_service.PENDING
    assert "feedback of cy waits: another writer" in capsys.readouterr().err
    run.release(names[0], "cy")
    assert feedback()[names[0]] == "released"
    for _ in range(3):  # locked each time: the third try is the last
        run.release(names[1], "di")
    assert feedback()[names[1]] == f"not released: {locked}", feedback()


def test_the_service_reads_jupyters_settings_under_the_courses_and_vets_config_files(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nbgrader run in the course reads every Jupyter config folder's ``nbgrader_config.py``
    under the course's own (on a hub, ``OwnedCollect.require_account``); the grading code
    reads the same. A ``--config`` file another account can write is refused."""
    shared = tmp_path / "common"
    shared.mkdir()
    (shared / "nbgrader_config.py").write_text(
        "c = get_config()\nc.OwnedCollect.require_account = True\n"
        "c.CourseDirectory.course_id = 'not-this-one'\n"
    )
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(shared))
    config = course_config(root)
    assert config.OwnedCollect.require_account is True
    assert config.CourseDirectory.course_id == COURSE_ID  # the course's own file wins

    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    (open_folder / "nbgrader_config.py").write_text("c = get_config()\n")
    monkeypatch.delenv("JUPYTER_CONFIG_PATH")
    with pytest.raises(SystemExit, match="given by --config"):
        grading_service.serve(
            GradingOptions(course_root=root), also=[open_folder / "nbgrader_config.py"]
        )


def test_an_entry_dated_ahead_by_its_files_clock_still_settles(root: Path) -> None:
    """A student can set timestamp.txt's mtime a year ahead; settling by it, the entry was
    never taken, never counted against the bound, and listed again at every look."""
    name = file_entry(root, "ada", 9)
    stamp = root / ".exchange" / COURSE_ID / "inbound" / name / "timestamp.txt"
    ahead = stamp.stat().st_mtime + 365 * 24 * 3600
    os.utime(stamp, (ahead, ahead))
    time.sleep(1.1)  # older than settle_seconds by its ctime, which no account can set
    assert look(service(root, settle_seconds=1))[name][0] == QUEUED


def test_a_course_folder_named_with_a_hash_keeps_its_queue_and_gradebook_inside(
    tmp_path: Path, empty_gradebook: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite reads a ``file:`` URI's ``#`` as the start of a fragment: the service's queue
    and the gradebook the class check reads must still be the course's own files, not a file
    cut off at the ``#`` beside the course folder."""
    root = tmp_path / "CS 101 #2 50%"
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copy(empty_gradebook, root / "gradebook.db")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        gradebook.add_student("ada")
    assert grade_class._gradebook_ids(root) == ["ada"]
    store = Store(root / "queue.db")
    store.add("ada+bpe+2026-12-06 10:00:00.000000 UTC", "ada", os.geteuid(), QUEUED)
    store.close()
    reread = Store(root / "queue.db", read_only=True)
    assert [entry.student for entry in reread.entries(QUEUED)] == ["ada"]
    reread.close()
    # The feedback pages' gradebook (write_pages), through SQLAlchemy: read, never written.
    gradebook_ready_for_readers(root)
    with Gradebook(read_only_db_url(root / "gradebook.db")) as gradebook:
        assert [student.id for student in gradebook.students] == ["ada"]
        with pytest.raises(InvalidEntry, match="readonly"):
            gradebook.add_student("grace")
    assert [path.name for path in tmp_path.iterdir()] == [root.name]
    # ... and it is the address make feedback's pages are written with.
    addresses = []

    def recorded(**kwargs: Any) -> None:
        addresses.append(kwargs["config"].CourseDirectory.db_url)
        raise RuntimeError("recorded")

    monkeypatch.setattr(grade_one, "CourseDirectory", recorded)
    with pytest.raises(RuntimeError, match="recorded"):
        grade_one.write_pages(root, "ada")
    assert addresses == [read_only_db_url(root / "gradebook.db")]
