"""Grading on submit: a service that grades each submission as it arrives in the exchange.

``serve`` (``make grading-service``) polls the exchange's inbound every
``GradingService.poll_seconds``, and wakes at once when a grading ends, to merge it. An entry
counts once its ``timestamp.txt`` has been there ``settle_seconds``. Each new entry is then
taken through the course's own collect rules (``OwnedCollect``, for its student alone), and
the student's newest accepted entry is graded on a warm Dask cluster by the same task as
``make autograde`` (``grade_task``) and merged into ``gradebook.db`` by this process, the
gradebook's one writer (hand grades are kept). Where each entry stands (``STATES``) and when
each step happened (``MILESTONES``, which ``bench/bench_service.py`` reads) are kept in SQLite
(``Store``) in ``artifacts/grading/service/``, a folder of mode 0700 outside the exchange, so
that a restarted service resumes (``Service.resume``): nothing is merged twice and nothing is
skipped. Whenever the queue empties, the class summary is written as ``make autograde``
writes it, in a thread of its own (``SummaryWriter``).
Started before the assignment's release, it waits for inbound to exist, saying so once; it
never generates the assignment, and entries wait until the instructor's generate_assignment
has finished (``Service.assignment_ready``).
SIGTERM (JupyterHub stopping it) or Ctrl-C stops it between two steps, never inside a merge:
what has finished is merged, each grading under way is queued again, the store says so.
``status`` (``make grading-status``) prints one line from the store, and each failure; the
Formgrader's submissions list shows the same ``progress``, read as the instructor.

>>> entry_parts("ada+bpe+2026-12-05 03:00:00.000001 UTC+a1b2")
('ada', 'bpe', '2026-12-05 03:00:00.000001 UTC')
>>> entry_parts("../x") is None
True

But: an entry is collected only while no grading of its student runs, so a newer entry waits
for a running one to finish rather than cancelling it (a queued one it does cancel). A forged
entry refused by the collect rules cancels nothing. More than ``max_entries_per_account``
entries from one account (counted as ``Store.count`` says) are refused and never collected;
a name that is not text is left alone. Students see nothing of a grading until the
instructor releases feedback, unless ``GradingService.feedback`` is ``'at once'``: then each
graded entry's feedback is generated and released through the exchange, one a look at
inbound (``Service.release``), and a service stopped before releasing it releases it when
started again. Then, too, at most ``GradingService.gradings_per_hour`` gradings of one
student start within an hour by this process's clock (the store's start times, never a
file's): a later entry is ``held``, its student told so by a page under that submission's
feedback keys (``write_notice``), and queued at the first look at inbound after the hour
allows it; a newer entry supersedes a held one, and a restart keeps it held. It opens no
port; on a hub, JupyterHub runs it as a managed service (``hub/grading_service.py``) and
does not look at it otherwise.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import html
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from distributed import Client, Future
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import notebook_hash, parse_utc
from traitlets import Enum, Float, Instance, Integer
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import (
    ASSIGNMENT,
    CODE_ROOT,
    RECORDS,
    class_db_path,
    course_config,
    sqlite_uri,
)
from autograder.grading.grade_class import (
    merge_result,
    notebooks_missing,
    save_grading_results,
    start_grading,
)
from autograder.grading.grade_one import put_alembic_on_path
from autograder.grading.gradebook_rows import StudentResult, make_template
from autograder.grading.on_dask import grade_task, result_of
from autograder.grading.options import GradingOptions
from autograder.plugins.owned_collect import OwnedCollect
from autograder.problems import how_late, printable
from autograder.reports import summary
from autograder.reports.safe_csv import replacing
from autograder.roster import read_roster, why_not_a_student
from autograder.sandbox.trusted_paths import (
    UntrustedPathError,
    refusal,
    refuse_untrusted,
    why_untrusted,
)

STATE_FOLDER = RECORDS / "service"  # relative to the course root; mode 0700
WAITING, QUEUED, GRADING, GRADED = "waiting", "queued", "grading", "graded"
REFUSED, SUPERSEDED, PERSON = "refused", "superseded", "needs a person"
# Accepted and collected, but its student's gradings of the last hour are as many as
# GradingService.gradings_per_hour allows: queued once the hour allows it.
HELD = "held"
# Seconds between two looks for an inbound not yet made: the release comes once a term, so a
# second's delay costs nothing, and a stat a second costs nothing either.
INBOUND_LOOK_SECONDS = 1.0
STATES = (WAITING, QUEUED, GRADING, GRADED, REFUSED, SUPERSEDED, PERSON, HELD)
# Not yet graded, and not held by the hourly limit (held entries wait by design: they are
# counted, but neither make the oldest wait nor keep the class summary from being written).
IN_FLIGHT = (WAITING, QUEUED, GRADING)
STARTED = (GRADING, GRADED, PERSON)  # an entry in these states had its grading started
FAILED = (REFUSED, PERSON)  # listed with their reasons by make grading-status and the Formgrader
NO_QUEUE = "grading service: no queue yet (make grading-service starts one)"
BY_INSTRUCTOR, AT_ONCE = "when released", "at once"  # GradingService.feedback
PENDING = "pending"  # an entry's feedback, to be released at once
RELEASE_TRIES = 3  # looks a release may meet another writer's lock on the gradebook
READY_LOOK_SECONDS = 5.0  # while entries wait for the assignment: how often to look
# When each step of an entry's way happened (seconds since the epoch; ``seen`` and the merge's
# ``changed`` are the entry's own): what the service adds to a grading, measured.
MILESTONES = ("queued", "started", "done", "merged")


class GradingService(Configurable):
    """How the grading service watches inbound, set in ``nbgrader_config.py``."""

    poll_seconds = Float(
        0.25,
        help="seconds between two looks at the exchange's inbound for new entries (a grading "
        "that ends is merged at once, not at the next look)",
    ).tag(config=True)
    settle_seconds = Float(
        0.5,
        help="seconds an entry's timestamp.txt must have existed (or been changed last) before "
        "the entry is taken: the course's submit renames a whole entry into inbound, but "
        "nbgrader's own writes timestamp.txt, then sets modes, in place",
    ).tag(config=True)
    feedback = Enum(
        (BY_INSTRUCTOR, AT_ONCE),
        BY_INSTRUCTOR,
        help="what students see of a grading: 'when released' (nothing until the instructor "
        "runs make feedback and releases it, or uses the Formgrader), or 'at once' (each "
        "graded submission's feedback generated and released through the exchange)",
    ).tag(config=True)
    gradings_per_hour = Integer(
        4,
        min=0,
        help="with feedback 'at once': gradings of one student that may start within an "
        "hour (0: no limit); a later entry is held, its student told so on a feedback page, "
        "and graded when the hour allows. With 'when released' it does not apply: students "
        "see nothing of a grading before the release, so grading each entry teaches them "
        "nothing (max_entries_per_account bounds the work)",
    ).tag(config=True)
    max_entries_per_account = Integer(
        30,
        help="entries one account may file in one student's name (another account than the "
        "service's: in any name); later ones are refused, never collected or graded",
    ).tag(config=True)


def entry_parts(name: str) -> tuple[str, str, str] | None:
    """An inbound entry's (student, assignment, time text), or None for a name that is no
    entry (a submit's own scratch folder starts with a dot)."""
    parts = name.rsplit("+", 3)
    if name.startswith(".") or len(parts) < 3:
        return None
    return parts[0], parts[1], parts[2]


@dataclass(frozen=True)
class Entry:
    """One inbound entry as the store holds it."""

    name: str
    student: str
    account: int  # the uid that owns the entry
    state: str
    reason: str
    seen: float  # when the service first found it whole (seconds since the epoch)
    copy_stamp: str  # the submitted copy's time once queued, ISO format
    gradings: int  # how often its grading was merged into the gradebook


class Store:
    """Where each entry stands, in SQLite; this service is its one writer."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        uri = sqlite_uri(path, read_only)
        self.db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
        if not read_only:
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS entry (name TEXT PRIMARY KEY, student TEXT NOT "
                "NULL, account INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL, "
                "seen REAL NOT NULL, copy_stamp TEXT NOT NULL DEFAULT '', gradings INTEGER "
                "NOT NULL DEFAULT 0, changed REAL NOT NULL, feedback TEXT NOT NULL DEFAULT '')"
            )
            # A flood of entries must not make each look at inbound slower than the last.
            self.db.execute("CREATE INDEX IF NOT EXISTS by_account ON entry (account, student)")
            self.db.execute("CREATE INDEX IF NOT EXISTS by_state ON entry (state, student)")
            # Its own table, so that a store of an earlier service is read as it is.
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS timing (name TEXT PRIMARY KEY, queued REAL, "
                "started REAL, done REAL, merged REAL, collect_seconds REAL, "
                "worker_seconds REAL, merge_seconds REAL)"
            )
            # The pages that told a held entry's student it waits (their keys in the
            # exchange's feedback folder), to be rewritten should it never be graded.
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS notice (name TEXT NOT NULL, key TEXT NOT NULL, "
                "PRIMARY KEY (name, key))"
            )

    def close(self) -> None:
        self.db.close()

    def add(self, name: str, student: str, account: int, state: str, reason: str = "") -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO entry (name, student, account, state, reason, seen, changed) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, student, account, state, printable(reason), now, now),
        )

    def set(self, name: str, state: str, reason: str = "", copy_stamp: str | None = None) -> None:
        self.db.execute(
            "UPDATE entry SET state = ?, reason = ?, changed = ?, "
            "copy_stamp = COALESCE(?, copy_stamp) WHERE name = ?",
            (state, printable(reason), time.time(), copy_stamp, name),
        )

    def graded(self, name: str, state: str, reason: str) -> None:
        """The entry's grading was merged (or, ``PERSON``, stopped): counted once."""
        self.db.execute(
            "UPDATE entry SET state = ?, reason = ?, changed = ?, gradings = gradings + ? "
            "WHERE name = ?",
            (state, printable(reason), time.time(), int(state == GRADED), name),
        )

    def mark(self, name: str, milestone: str, when: float | None = None, **seconds: float) -> None:
        """Note when (default: now) ``name`` reached ``milestone`` (one of ``MILESTONES``), and
        how long the named parts took (``collect``, ``worker``, ``merge``); the latest grading
        counts."""
        if milestone not in MILESTONES or not set(seconds) <= {"collect", "worker", "merge"}:
            raise ValueError(f"no such milestone or part: {milestone}, {sorted(seconds)}")
        columns = [milestone, *(f"{part}_seconds" for part in seconds)]
        values = [time.time() if when is None else when, *seconds.values()]
        self.db.execute("INSERT OR IGNORE INTO timing (name) VALUES (?)", (name,))
        assignments = ", ".join(f"{column} = ?" for column in columns)
        self.db.execute(f"UPDATE timing SET {assignments} WHERE name = ?", (*values, name))

    def timings(self) -> dict[str, dict[str, float | None]]:
        """Each entry's milestones and parts' seconds, as ``mark`` noted them."""
        cursor = self.db.execute("SELECT * FROM timing")
        columns = [d[0] for d in cursor.description]
        return {row[0]: dict(zip(columns[1:], row[1:], strict=True)) for row in cursor}

    def set_feedback(self, name: str, feedback: str) -> None:
        """The entry's feedback: ``PENDING``, released, or why it could not be."""
        self.db.execute("UPDATE entry SET feedback = ? WHERE name = ?", (feedback, name))

    def feedback_pending(self) -> list[tuple[str, str]]:
        """(entry, student) of each entry whose feedback waits to be released, oldest first."""
        query = "SELECT name, student FROM entry WHERE feedback = ? ORDER BY changed, name"
        return [(name, student) for name, student in self.db.execute(query, (PENDING,))]

    def starts(self, student: str, since: float) -> list[float]:
        """When each grading of ``student`` started after ``since`` (the service's clock);
        an entry's grading started again after a stop counts once, its last start."""
        query = (
            "SELECT timing.started FROM timing JOIN entry ON entry.name = timing.name "
            "WHERE entry.student = ? AND timing.started > ? AND entry.state IN (?, ?, ?)"
        )
        return [row[0] for row in self.db.execute(query, (student, since, *STARTED))]

    def add_notices(self, name: str, keys: list[str]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO notice (name, key) VALUES (?, ?)", [(name, k) for k in keys]
        )

    def notices(self, name: str) -> list[str]:
        """The keys of the pages that told ``name``'s student it was held."""
        query = "SELECT key FROM notice WHERE name = ? ORDER BY key"
        return [row[0] for row in self.db.execute(query, (name,))]

    def known(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM entry WHERE name = ?", (name,)).fetchone() is not None

    def count(self, account: int, student: str) -> int:
        """Entries ``account`` filed, as ``max_entries_per_account`` bounds them: the service's
        own in ``student``'s name; another's in any name, since it files in its own name alone
        (the collect refuses the rest)."""
        query = "SELECT COUNT(*) FROM entry WHERE account = ?"
        values: list[int | str] = [account]
        if account == os.geteuid():
            query, values = query + " AND student = ?", [*values, student]
        return int(self.db.execute(query, values).fetchone()[0])

    def entries(self, *states: str, student: str | None = None) -> list[Entry]:
        """Entries in any of ``states`` (all, with none), oldest first, then by name."""
        query = (
            "SELECT name, student, account, state, reason, seen, copy_stamp, gradings FROM entry"
            " WHERE 1"
        )
        values = list(states)
        if states:
            query += f" AND state IN ({', '.join('?' * len(states))})"
        if student is not None:
            query += " AND student = ?"
            values.append(student)
        return [Entry(*row) for row in self.db.execute(query + " ORDER BY seen, name", values)]

    def left_out(self, student: str) -> frozenset[str]:
        """The student's entries refused before any collect (past the bound)."""
        rows = self.db.execute(
            "SELECT name FROM entry WHERE student = ? AND state = ? AND copy_stamp = 'bound'",
            (student, REFUSED),
        )
        return frozenset(row[0] for row in rows)


def state_folder(course_root: Path, exchange_root: Path) -> Path:
    """The service's folder, mode 0700, made on first use; never inside the exchange, whose
    inbound every student may write to."""
    folder = course_root / STATE_FOLDER
    if folder.resolve().is_relative_to(exchange_root.resolve()):
        raise SystemExit(
            f"the grading service keeps its queue in {folder}, which is inside the exchange "
            f"({exchange_root}) where students write: set Exchange.root outside the course's "
            "artifacts/ folder in nbgrader_config.py"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise SystemExit(f"{folder} is not a folder of this account: move it aside and start again")
    folder.chmod(0o700)
    return folder


@contextlib.contextmanager
def only_service(folder: Path) -> Iterator[None]:
    """Hold the service's lock: two services on one course would grade entries twice."""
    descriptor = os.open(folder / "lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(
                f"another grading service runs on this course (it holds {folder / 'lock'}); "
                "stop it first"
            ) from None
        yield
    finally:
        os.close(descriptor)


def inbound_of(config: Config) -> tuple[Path, Path]:
    """The exchange's root and the course's inbound, as ``nbgrader_config.py`` sets them."""
    coursedir = CourseDirectory(config=config)
    root = Path(ExchangeCollect(coursedir=coursedir, config=config).root)
    return root, root / coursedir.course_id / "inbound"


class ServiceCollect(OwnedCollect):
    """The course's collect, leaving out the entries the service refused before it (past the
    per-account bound), as the course's collect leaves out a refused one."""

    left_out = Instance(frozenset, args=())  # entry names

    def _path_to_record(self, path: str) -> dict[str, object]:
        name = os.path.basename(path)
        if name in self.left_out or not _is_text(name):
            return {"username": None, "filename": name, "timestamp": datetime.datetime.min}
        return super()._path_to_record(path)


@dataclass(frozen=True)
class Collected:
    """What collecting one student's entries did: the entry chosen (None: none), the copy's
    time in ``submitted/`` (None: no copy), and each refused entry with why."""

    chosen: str | None
    copy_stamp: datetime.datetime | None
    refused: dict[str, str]


def _is_text(name: str) -> bool:
    """False for a name holding bytes no encoding reads: the scan leaves such an entry alone
    (SQLite stores text only), so the collect must not choose it either."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def collect_student(config: Config, student: str, left_out: frozenset[str]) -> Collected:
    """Run the course's collect (``OwnedCollect``) for ``student``'s entries alone."""
    coursedir = CourseDirectory(config=config, assignment_id=ASSIGNMENT, student_id=student)
    collector = ServiceCollect(
        left_out=left_out,
        coursedir=coursedir,
        authenticator=Authenticator(config=config),
        config=config,
    )
    with contextlib.suppress(ExchangeError):  # it fails naming the refused: kept below
        collector.start()
    chosen = next((r["filename"] for r in getattr(collector, "src_records", [])), None)
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, ASSIGNMENT))
    try:
        copy_stamp = parse_utc((submitted / "timestamp.txt").read_text()[:200].strip())
    except (OSError, ValueError, OverflowError, TypeError):  # no copy, or none readable
        copy_stamp = None
    return Collected(chosen, copy_stamp, dict(getattr(collector, "refused", [])))


def gradebook_time(course_root: Path, student: str) -> datetime.datetime | None:
    """The time of the student's submission that the class gradebook holds (None: none)."""
    path = class_db_path(course_root)
    if not path.exists():
        return None
    with Gradebook(f"sqlite:///{path}") as gradebook:
        try:
            return gradebook.find_submission(ASSIGNMENT, student).timestamp
        except MissingEntry:
            return None


BUSY_GRADEBOOK = "another writer (the Formgrader?) holds the gradebook; tried at the next look"
LOCKED = "database is locked"  # SQLite's words when another writer held it past the wait


def gradebook_busy(error: BaseException) -> bool:
    """Whether ``error`` is SQLite's word that another writer held the gradebook too long: a
    wait, not a fault of the entry or the grading."""
    cause = getattr(error, "orig", error)  # SQLAlchemy's error wraps sqlite3's
    return isinstance(cause, sqlite3.OperationalError) and str(cause) == LOCKED


class Service:
    """One run of the grading service: its store, its settings and what is being graded."""

    def __init__(self, options: GradingOptions, store: Store, config: Config) -> None:
        self.options = options
        self.root = options.course_root
        self.store = store
        self.config = config
        self.settings = GradingService(config=config)
        self.inbound = inbound_of(config)[1]
        self.roster = read_roster(self.root)
        self.running: dict[Future[StudentResult], str] = {}  # grading task -> entry name
        self.unreadable: set[str] = set()  # entry names said to be no text, said once
        self.said_unready = False  # that entries wait for the assignment to be generated
        self.next_ready_look = 0.0  # when to look again whether it is (time.monotonic)
        self.finished_at: dict[Future[StudentResult], float] = {}  # grading -> when it ended
        # Gradings done but not yet merged: another writer held the gradebook too long.
        self.unmerged: dict[str, StudentResult] = {}  # entry name -> its result
        self.merge_began: dict[str, float] = {}  # entry name -> its first try's perf_counter
        self.gradebook_held = False  # a merge or collect met the lock this look: none waits again
        self.release_tries: dict[str, int] = {}  # entry name -> releases that met the lock
        self.wake = threading.Event()  # set when a grading ends
        self.stopping = threading.Event()  # set by SIGTERM or a first Ctrl-C
        # The hourly limit's clock: this process's, never a file's time a student could set.
        self.clock = time.time

    def ask_to_stop(self, signum: int, frame: object) -> None:
        """SIGTERM (JupyterHub stopping its service) or a first Ctrl-C: stop after the merge
        under way, never in the middle of one; a second Ctrl-C stops at once."""
        # Not wake.set(): the main thread may hold the Event's lock when the signal lands,
        # and the handler would wait for it forever; the loop sees stopping within a poll.
        self.stopping.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def requeue_running(self) -> None:
        """At a stop: each grading under way is queued again, for the next start."""
        for future, name in list(self.running.items()):
            future.cancel()
            self.store.set(name, QUEUED, "queued again: the service was stopped")
        self.running.clear()
        for name in self.unmerged:
            self.store.set(name, QUEUED, "queued again: the gradebook was busy at the stop")
        self.unmerged.clear()
        self.merge_began.clear()

    def resume(self) -> None:
        """After a stop: an entry left grading is graded if the gradebook holds its copy
        (merged just before the stop), else queued again."""
        for entry in self.store.entries(GRADING):
            held = gradebook_time(self.root, entry.student)
            if held is not None and held.isoformat() == entry.copy_stamp:
                self.store.graded(entry.name, GRADED, "merged before the service stopped")
            else:
                self.store.set(entry.name, QUEUED, "queued again: the service had stopped")

    def scan(self) -> None:
        """Record each new whole entry of the assignment in inbound (``WAITING``), or refuse
        it when its account has filed too many in that student's name."""
        try:
            names = sorted(entry.name for entry in os.scandir(self.inbound))
        except OSError as error:
            raise SystemExit(
                f"cannot read the exchange's inbound {self.inbound}: {error}"
            ) from None
        now = time.time()
        for name in names:
            parts = entry_parts(name)
            if parts is None or parts[1] != ASSIGNMENT or name in self.unreadable:
                continue
            if not _is_text(name):  # no student's id, and SQLite cannot store it: said once
                self.unreadable.add(name)
                print(f"left alone: an entry whose name is not text ({printable(name)[:120]})")
                continue
            if self.store.known(name):
                continue
            try:
                info = os.lstat(self.inbound / name)
                stamp = os.lstat(self.inbound / name / "timestamp.txt")
            except OSError:  # not whole yet (or gone): looked at again next time
                continue
            # ctime alone: a write moves it too, and no account can set it (a student can set
            # an mtime in the future, which would never settle and be listed every look).
            if now - stamp.st_ctime < self.settings.settle_seconds:
                continue
            student, bound = parts[0], self.settings.max_entries_per_account
            if self.store.count(info.st_uid, student) >= bound:
                whose = f"in {student!r}'s name" if info.st_uid == os.geteuid() else "in any name"
                why = (
                    f"more than {bound} entries of this account {whose}: not "
                    "collected or graded (GradingService.max_entries_per_account)"
                )
                self.store.add(name, student, info.st_uid, REFUSED, why)
                self.store.set(name, REFUSED, why, copy_stamp="bound")
                print(f"refused {printable(name)[:120]}: {why}", flush=True)
            else:
                self.store.add(name, student, info.st_uid, WAITING)

    def busy(self) -> set[str]:
        """Students whose grading runs now, or waits to be merged."""
        return {self.student_of(name) for name in [*self.running.values(), *self.unmerged]}

    def student_of(self, name: str) -> str:
        parts = entry_parts(name)
        return parts[0] if parts else name

    def take(self, student: str) -> None:
        """Collect ``student``'s waiting entries by the course's rules; queue the one the
        collect chose, superseding the student's queued older one."""
        waiting = self.store.entries(WAITING, student=student)
        why = why_not_a_student(student, self.roster)
        if why:
            for entry in waiting:
                self.store.set(entry.name, REFUSED, f"{why}, so it is no student of the class")
            return
        began = time.perf_counter()
        collected = collect_student(self.config, student, self.store.left_out(student))
        collect_seconds = time.perf_counter() - began
        for entry in waiting:
            if entry.name in collected.refused:
                self.store.set(entry.name, REFUSED, collected.refused[entry.name])
                print(f"refused {printable(entry.name)[:120]}: {collected.refused[entry.name]}")
        chosen = collected.chosen
        if chosen is None or collected.copy_stamp is None or chosen in collected.refused:
            self._supersede(student, waiting, "the collect kept none of the student's entries")
            return
        name_time = entry_parts(chosen)
        if name_time is None or parse_utc(name_time[2]) != collected.copy_stamp:
            # submitted/ holds a newer copy than the collect's choice: nothing new to grade.
            self._supersede(student, waiting, "submitted/ already holds a newer entry")
            return
        if not self.store.known(chosen):  # an entry taken before it looked whole to the scan
            try:
                account = os.lstat(self.inbound / chosen).st_uid
            except OSError:  # removed since the collect copied it: taken at the next look
                return
            self.store.add(chosen, student, account, WAITING)
        chosen_entry = next(e for e in self.store.entries(student=student) if e.name == chosen)
        # submitted/ holds it now: graded, even if refused before (dated ahead of the clock then).
        if chosen_entry.state in (WAITING, SUPERSEDED, REFUSED):
            for older in self.store.entries(QUEUED, HELD, student=student):
                self.store.set(older.name, SUPERSEDED, f"a newer entry came: {chosen}")
                # One held before (freed this very look, maybe) has a page: it is told.
                self.tell(older, superseded_lines(older, collected.copy_stamp))
            stamp = collected.copy_stamp.isoformat()
            self.store.set(chosen, QUEUED, "", copy_stamp=stamp)
            self.store.mark(chosen, "queued", collect=collect_seconds)
            print(f"queued {student} ({printable(chosen)[:120]})", flush=True)
        self._supersede(student, waiting, f"not the student's entry the collect chose ({chosen})")

    def take_or_hold(self, student: str) -> None:
        """``take``; if it fails, the student's waiting entries wait for a person instead, so
        that no entry can stop the service (and every restart of it) for the class."""
        try:
            self.take(student)
        except Exception as error:  # noqa: BLE001 - one student's entry, never the class
            if gradebook_busy(error):  # not the entry's fault: taken at the next look
                self.gradebook_held = True
                print(f"{student}'s entries wait: {BUSY_GRADEBOOK}", file=sys.stderr, flush=True)
                return
            why = f"collecting it failed ({type(error).__name__}: {error}); see the log"
            for entry in self.store.entries(WAITING, student=student):
                self.store.set(entry.name, PERSON, why[:500])
            print(f"{student}'s entries wait for a person: {printable(why)[:300]}", flush=True)

    def _supersede(self, student: str, waiting: list[Entry], why: str) -> None:
        left = {e.name for e in self.store.entries(WAITING, student=student)}
        for entry in waiting:
            if entry.name in left:
                self.store.set(entry.name, SUPERSEDED, why)

    def grade(self, client: Client | None, template: Path) -> None:
        """Start the grading of each queued entry whose student is not being graded."""
        busy = self.busy()
        for entry in self.store.entries(QUEUED):
            if self.stopping.is_set():
                return
            if entry.student in busy or self.hold(entry):
                continue
            if not self.assignment_ready(template):
                return
            busy.add(entry.student)
            self.store.set(entry.name, GRADING, "", copy_stamp=entry.copy_stamp)
            self.store.mark(entry.name, "started", self.clock())
            if client is None:  # in this process: the result comes at once
                result = grade_task(self.options, entry.student, template)
                self.store.mark(entry.name, "done", worker=result.seconds)
                self.unmerged[entry.name] = result
                self.merge_finished()
                continue
            key = f"serve-{entry.student}-{uuid.uuid4().hex[:8]}"
            future = client.submit(grade_task, self.options, entry.student, template, key=key)
            future.add_done_callback(self._finished)
            self.running[future] = entry.name

    def assignment_ready(self, template: Path) -> bool:
        """Whether gradings may start: ``template`` is made, once the instructor's
        generate_assignment has finished (the gradebook holds every notebook of the assignment
        and release/ every page, which it writes after that notebook's cells). The service
        never generates the assignment itself: on a hub it starts before the instructor does,
        and its generate_assignment would rewrite release/ while the instructor releases it
        (an entry filed by hand before the release would set it off). Until then entries
        wait, said once, and the gradebook is looked at every ``READY_LOOK_SECONDS``."""
        if template.exists():
            return True
        if time.monotonic() < self.next_ready_look:
            return False
        self.next_ready_look = time.monotonic() + READY_LOOK_SECONDS
        class_db = class_db_path(self.root)
        masters = sorted(p.stem for p in (self.root / "source" / ASSIGNMENT).glob("*.ipynb"))
        released = self.root / "release" / ASSIGNMENT
        missing = notebooks_missing(self.root, class_db) or [
            name for name in masters if not (released / f"{name}.ipynb").is_file()
        ]
        if missing:
            if not self.said_unready:
                print(
                    f"entries wait: assignment {ASSIGNMENT!r} is not generated yet (no "
                    f"{', '.join(missing)}); run nbgrader generate_assignment {ASSIGNMENT} "
                    "(the hub guide's first step), and grading starts",
                    flush=True,
                )
                self.said_unready = True
            return False
        make_template(class_db, template)
        if self.said_unready:
            print(f"assignment {ASSIGNMENT!r} is generated: grading starts", flush=True)
        return True

    def held_until(self, student: str) -> float | None:
        """When ``student``'s next grading may start (None: now): when the oldest of their
        last ``gradings_per_hour`` starts within the hour is an hour old; only with feedback
        at once, where each grading shows its student some of the hidden cases."""
        per_hour = self.settings.gradings_per_hour
        if self.settings.feedback != AT_ONCE or per_hour <= 0:
            return None
        now = self.clock()
        recent = sorted(s for s in self.store.starts(student, now - HOUR) if now - s < HOUR)
        return None if len(recent) < per_hour else recent[-per_hour] + HOUR

    def hold(self, entry: Entry) -> bool:
        """Hold a queued entry whose student has had the hour's gradings, and tell the student
        (a page their Fetch Feedback shows); False, and nothing done, when it may start."""
        until = self.held_until(entry.student)
        if until is None:
            return False
        per_hour = self.settings.gradings_per_hour
        why = (
            f"{per_hour} gradings of {entry.student} started within the hour "
            f"(GradingService.gradings_per_hour): held until {clock_text(until)}"
        )
        coursedir = CourseDirectory(config=self.config)
        copy = Path(coursedir.format_path(coursedir.submitted_directory, entry.student, ASSIGNMENT))
        try:  # before the entry is held, so a stop between the two cannot leave it untold
            keys = notice_keys(copy)
        except (OSError, ValueError) as error:  # ValueError: a secret no encoding writes
            keys = []
            print(f"no notice for {entry.student}: {printable(str(error))}", file=sys.stderr)
        self.store.set(entry.name, HELD, why)
        if not keys:
            print(f"{entry.student} is not told: no secret or notebook in {copy}", flush=True)
        self.store.add_notices(entry.name, keys)
        used = self.store.count(entry.account, entry.student)  # as the scan counts them
        left = max(0, self.settings.max_entries_per_account - used)
        self.tell(entry, held_lines(entry, per_hour, until, left))
        print(f"held {entry.student} ({printable(entry.name)[:120]}): {why}", flush=True)
        return True

    def release_held(self) -> None:
        """Queue each held entry whose student's hour now allows a grading: each look at
        inbound asks the store, so a held entry starts within a look of its time."""
        for entry in self.store.entries(HELD):
            if self.held_until(entry.student) is None:
                self.store.set(entry.name, QUEUED, "")
                print(f"queued {entry.student}: the hour allows it now", flush=True)

    def tell(self, entry: Entry, lines: list[str]) -> None:
        """Write the page each notice key of ``entry`` names; a failure is said, not fatal."""
        keys = self.store.notices(entry.name)
        if not keys:
            return
        page = notice_page(lines[0], lines[1:])
        try:
            write_notice(self.inbound.parent / "feedback", keys, page)
        except OSError as error:
            print(f"notice to {entry.student} not written: {error}", file=sys.stderr, flush=True)

    def _finished(self, future: Future[StudentResult]) -> None:
        """In the client's thread: note when a grading ended, and wake the service to merge it
        at once rather than at its next look at inbound."""
        self.finished_at.setdefault(future, time.time())
        self.wake.set()

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` for the next look at inbound, or less: until a grading ends."""
        self.wake.wait(seconds)
        self.wake.clear()  # one set after this is seen by the next pause: a step too many

    def collect_results(self) -> None:
        """Merge every finished grading into the gradebook."""
        for future in [f for f in self.running if f.done()]:
            name = self.running.pop(future)
            result = result_of(future, self.student_of(name))
            future.release()
            when = self.finished_at.pop(future, None)
            self.store.mark(name, "done", when, worker=result.seconds)
            self.unmerged[name] = result
        self.merge_finished()

    def merge_finished(self) -> None:
        """Merge each finished grading, oldest first; one the gradebook is too busy to take
        waits for the next look (its student's next entry waits with it). Once a merge has
        met the lock, none is tried again in the same look: each try waits a minute."""
        for name, result in list(self.unmerged.items()):
            if self.gradebook_held or not self.finish(name, result):
                return
            del self.unmerged[name]

    def finish(self, name: str, result: StudentResult) -> bool:
        """Merge one grading (this process is the gradebook's one writer) and record it; False,
        and nothing changed, when another writer held the gradebook past the merge's wait."""
        self.merge_began.setdefault(name, time.perf_counter())  # its failed waits count too
        try:
            merged = merge_result(self.root, result)
        except sqlite3.OperationalError as error:
            if not gradebook_busy(error):
                raise
            self.gradebook_held = True
            print(f"{result.student}'s grading waits to be merged: {BUSY_GRADEBOOK}", flush=True)
            return False
        save_grading_results(self.root, [merged])
        self.store.mark(name, "merged", merge=time.perf_counter() - self.merge_began.pop(name))
        entry = next(e for e in self.store.entries(GRADING) if e.name == name)
        waited = time.time() - entry.seen
        if result.stopped:
            why = printable("; ".join(p.detail for p in result.problems))[:300]
            self.store.graded(name, PERSON, why)
            print(f"not graded {result.student}: {why}", file=sys.stderr, flush=True)
            self.tell(entry, person_lines(entry))
        else:
            self.store.graded(name, GRADED, "")
            if self.settings.feedback == AT_ONCE:
                self.store.set_feedback(name, PENDING)
            print(
                f"graded {result.student} in {result.seconds:.1f} s, {waited:.1f} s after its "
                "entry was found",
                flush=True,
            )
        return True

    def idle(self) -> bool:
        """Nothing waits, is queued or grading, and no feedback waits to be released (held
        entries may still wait for their hour: ``done``)."""
        return not (self.running or self.store.entries(*IN_FLIGHT) or self.store.feedback_pending())

    def done(self) -> bool:
        """Idle, and no entry held for its hour either: nothing left to do at all."""
        return self.idle() and not self.store.entries(HELD)

    def step(self, client: Client | None, template: Path) -> None:
        """One look at inbound: record, then for each student collect, grade; merge."""
        self.gradebook_held = False  # what met the gradebook's lock last look is tried again
        self.scan()
        self.collect_results()
        self.release_held()
        busy = self.busy()
        waiting = {e.student for e in self.store.entries(WAITING)}
        for student in sorted(waiting - busy):
            if self.stopping.is_set():
                return
            if self.gradebook_held:  # each collect would wait for it as long: next look
                break
            if student in self.busy():  # its queued entry started with an earlier student's
                continue
            self.take_or_hold(student)
            # Started before the next student's collect, and merged as they end: in a rush,
            # the first grading need not wait for the whole look's collects.
            self.grade(client, template)
            self.collect_results()
        self.grade(client, template)
        self.collect_results()
        pending = self.store.feedback_pending()
        if pending:  # one a look, so that merges never wait long behind feedback
            self.release(*pending[0])

    def release(self, name: str, student: str) -> None:
        """Generate the student's feedback and release it through the exchange
        (``GradingService.feedback = 'at once'``). One that met another writer's lock on the
        gradebook is tried at the next look, at most ``RELEASE_TRIES`` times in all (its words
        come from a program that reads the student's notebook, and it holds up the releases
        behind it); any other failure is recorded, never retried."""
        why = release_feedback(self.root, student)
        tries = self.release_tries.pop(name, 0) + 1
        if why and LOCKED in why and tries < RELEASE_TRIES:
            self.release_tries[name] = tries
            print(f"feedback of {student} waits: {BUSY_GRADEBOOK}", file=sys.stderr, flush=True)
            return
        self.store.set_feedback(name, f"not released: {why}" if why else "released")
        if why:
            print(f"feedback of {student} not released: {why}", file=sys.stderr, flush=True)


def submitted_text(copy_stamp: str) -> str:
    """A submission's time (its copy's, ISO format) as its student reads it."""
    try:
        return datetime.datetime.fromisoformat(copy_stamp).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return "(time unknown)"


def held_lines(entry: Entry, per_hour: int, until: float, left: int) -> list[str]:
    """The title and lines of the page telling a student their submission is held, and how
    many more submissions the course takes from them (``left``)."""
    return [
        "Your submission waits to be graded",
        f"Your submission of {ASSIGNMENT} made at {submitted_text(entry.copy_stamp)} has been "
        f"received. {per_hour} of your submissions have already been graded in the last hour, "
        f"the most this course grades for one student in an hour.",
        f"It will be graded after {clock_text(until)}. Its feedback then replaces this page: "
        "fetch feedback again after that time.",
        "If you submit again before then, only your newest submission is graded. Each "
        f"submission counts: the course takes {left} more from you this term, and none after.",
    ]


def superseded_lines(entry: Entry, newer: datetime.datetime) -> list[str]:
    """The page telling a student their held submission gave way to a newer one."""
    when = submitted_text(newer.isoformat())
    return [
        "This submission will not be graded",
        f"Your submission of {ASSIGNMENT} made at {submitted_text(entry.copy_stamp)} was "
        f"waiting to be graded. You have submitted a newer one since (made at {when}), which "
        "is graded in its place: fetch feedback again once it is graded.",
    ]


def person_lines(entry: Entry) -> list[str]:
    """The page telling a student whose held submission a person must grade."""
    return [
        "Your submission needs a person",
        f"Your submission of {ASSIGNMENT} made at {submitted_text(entry.copy_stamp)} could "
        "not be graded automatically. Your instructor will look at it and release its "
        "feedback.",
    ]


# How often one student is graded when feedback goes out at once, and the page that tells a
# student whose submission waits for the hour (``GradingService.gradings_per_hour``).
HOUR = 3600.0
# A submission's notebooks looked at for keys: the course's assignment has a handful, and a
# copy holding more (the collect caps files, not notebooks) gets pages for its first ones.
MAX_NOTEBOOKS = 20
FEEDBACK_FOLDER_MODE = 0o711
NOTICE_MODE = 0o644  # as nbgrader's release_feedback leaves a page: its student fetches it


def clock_text(when: float) -> str:
    """A time of the service's clock as a student reads it, in UTC.

    >>> clock_text(0.0)
    '1970-01-01 00:00:00 UTC'
    """
    moment = datetime.datetime.fromtimestamp(when, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def notice_keys(copy: Path) -> list[str]:
    """The names (without ``.html``) under which ``nbgrader fetch_feedback`` looks for the
    feedback of the submission in ``copy`` (a collected copy in ``submitted/``, which the
    collect rules keep free of links and bounded in size); none without a secret."""
    # A name no encoding writes has no key nbgrader could ever fetch: it gets no page.
    found = (p for p in copy.glob("*.ipynb") if _is_text(p.stem) and p.is_file())
    notebooks = sorted(found)[:MAX_NOTEBOOKS]
    secret_file = copy / "submission_secret.txt"
    # Read whole, as nbgrader's release_feedback reads it, so that the keys are the same.
    secret = secret_file.read_text(errors="replace") if secret_file.is_file() else ""
    return [notebook_hash(secret=secret, notebook_id=p.stem) for p in notebooks] if secret else []


def notice_page(title: str, lines: list[str]) -> str:
    """A page of plain text: every line escaped, no script, no link, no style from outside."""
    body = "\n".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n"
        f"<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body>\n</html>\n"
    )


def write_notice(feedback_folder: Path, keys: list[str], page: str) -> None:
    """Write ``page`` as ``<key>.html`` for each key, each replaced whole (a student fetching
    meanwhile reads the old page or the new, never half of one), as nbgrader releases."""
    if not os.path.lexists(feedback_folder):
        # As nbgrader's release_feedback makes it: students may open a page whose name they
        # know, never list the folder (the umask would leave it listable: chmod after).
        feedback_folder.mkdir(mode=FEEDBACK_FOLDER_MODE)
        os.chmod(feedback_folder, FEEDBACK_FOLDER_MODE)
    if not stat.S_ISDIR(os.lstat(feedback_folder).st_mode):
        raise OSError(f"{feedback_folder} is not a folder: no notice written")
    for key in keys:
        with replacing(feedback_folder / f"{key}.html", NOTICE_MODE) as file:
            file.write(page)


def release_feedback(course_root: Path, student: str) -> str | None:
    """nbgrader's generate_feedback then release_feedback for ``student`` alone, as their own
    programs with the course's settings (as ``make feedback`` runs them); None, or why not."""
    tools = str(Path(sys.executable).parent)  # nbgrader runs `alembic` from PATH
    env = dict(os.environ, PYTHONPATH=str(CODE_ROOT))
    env["PATH"] = os.pathsep.join([tools, env["PATH"]]) if env.get("PATH") else tools
    for step in ("generate_feedback", "release_feedback"):
        command = [sys.executable, "-m", "nbgrader", step, ASSIGNMENT, f"--student={student}"]
        command += ["--force", "--log-level=WARN"] if step == "generate_feedback" else []
        done = subprocess.run(
            command,
            cwd=course_root,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",  # a student's file name in nbgrader's output need not be text
            timeout=600,
        )
        if done.returncode:
            said = " ".join((done.stdout + done.stderr).split())[-300:]
            return f"nbgrader {step} failed: {said}"
    return None


class SummaryWriter:
    """Writes the class summary (``make autograde``'s) in a thread of its own, so that the
    second or two its tables and figures take never delays a merge or a look at inbound;
    one at a time, and once more after it when asked again meanwhile."""

    def __init__(self, course_root: Path) -> None:
        self.root = course_root
        self.thread: threading.Thread | None = None
        self.again = False

    def ask(self) -> None:
        """Write the summary now, or (one is being written) once that one is done."""
        if self.thread is not None and self.thread.is_alive():
            self.again = True
            return
        self.again = False
        self.thread = threading.Thread(target=self._write, name="summary")
        self.thread.start()

    def follow_up(self) -> None:
        """Start the summary asked for while the last one was being written, once it is done."""
        if self.again:  # ask() keeps it asked while that one is still being written
            self.ask()

    def close(self) -> None:
        """Wait for the summary being written, and write the one still asked for."""
        if self.thread is not None:
            self.thread.join()
        if self.again:
            self.again = False
            self._write()

    def _write(self) -> None:
        for attempt in range(3):
            try:
                summary.report(self.root, quiet=True)
                return
            except Exception as error:  # a summary that fails stops no grading; said, not hidden
                # It may have read a record while a merge rewrote it: read again a moment later.
                failure = error
                time.sleep(0.5 * (attempt + 1))
        print(f"the class summary was not written: {failure!r}", file=sys.stderr, flush=True)


def serve(
    options: GradingOptions, idle_exit: int | None = None, also: list[Path] | None = None
) -> int:
    """Grade each entry as it arrives until stopped (Ctrl-C), or ``idle_exit`` seconds with
    nothing to grade; ``also``: settings files read under the course's (``service_config``)."""
    root = options.course_root.resolve()
    options = replace(options, course_root=root, progress=False)
    refuse_untrusted("the grading service")
    # A settings file is run as Python: another account's hand in it would be theirs in ours.
    open_to_others = [
        f"{why} (given by --config)" for why in map(why_untrusted, map(str, also or [])) if why
    ]
    if open_to_others:
        raise UntrustedPathError(refusal("the grading service", open_to_others))
    put_alembic_on_path()  # the collect makes a gradebook where there is none
    config = service_config(root, also or [])
    exchange_root, inbound = inbound_of(config)
    if not wait_for_inbound(inbound, idle_exit):
        return 0
    folder = state_folder(root, exchange_root)
    (root / "submitted").mkdir(exist_ok=True)  # where the workers are checked to see it
    with only_service(folder), contextlib.ExitStack() as stack:
        store = Store(folder / "queue.db")
        stack.callback(store.close)
        service = Service(options, store, config)
        service.resume()
        client, template = start_grading(options, stack)
        for signum in (signal.SIGINT, signal.SIGTERM):
            stack.callback(signal.signal, signum, signal.signal(signum, service.ask_to_stop))
        print(f"grading each submission in {inbound} as it arrives; Ctrl-C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: resumed next time
            return _watch(service, client, template, idle_exit)
        print("stopped; make grading-service resumes the queue", flush=True)
        return 0


def service_config(root: Path, also: list[Path]) -> Config:
    """The course's ``nbgrader_config.py`` over each file of ``also`` in turn: on a hub, the
    settings every account's nbgrader reads (``OwnedCollect.require_account`` among them),
    which the instructor's own nbgrader reads under the course's too (its config path)."""
    config = Config()
    for path in also:
        config.merge(PyFileConfigLoader(path.name, path=str(path.parent)).load_config())
    config.merge(course_config(root))
    return config


def wait_for_inbound(inbound: Path, give_up: int | None = None) -> bool:
    """Wait until ``inbound`` exists, looking every ``INBOUND_LOOK_SECONDS``; True once it
    does, False after ``give_up`` seconds without it or on Ctrl-C. A service started before
    the release (a hub's, which JupyterHub would restart at once were it to exit) waits."""
    if inbound.is_dir():
        return True
    print(
        f"no inbound folder {inbound} yet: waiting for the assignment's release (nbgrader "
        "release_assignment bpe; if it is released into another exchange, set Exchange.root "
        f"in nbgrader_config.py), looking every {INBOUND_LOOK_SECONDS:g} s",
        flush=True,
    )
    started = time.monotonic()
    try:
        while not inbound.is_dir():
            left = None if give_up is None else give_up - (time.monotonic() - started)
            if left is not None and left <= 0:
                print(f"nothing to grade for {give_up} s: stopping", flush=True)
                return False
            time.sleep(INBOUND_LOOK_SECONDS if left is None else min(INBOUND_LOOK_SECONDS, left))
    except KeyboardInterrupt:
        print("stopped before the assignment's release", flush=True)
        return False
    print(f"{inbound} is there: grading starts", flush=True)
    return True


def _watch(service: Service, client: Client | None, template: Path, idle_exit: int | None) -> int:
    """Look at inbound every ``poll_seconds`` until ``idle_exit`` seconds with nothing to do."""
    poll = service.settings.poll_seconds
    quiet_since, worked = time.monotonic(), False
    summaries = SummaryWriter(service.root)
    try:
        while not service.stopping.is_set():
            service.step(client, template)
            summaries.follow_up()
            if not service.idle():
                quiet_since, worked = time.monotonic(), True
            elif worked:  # the queue has just emptied (held entries aside: they wait an hour)
                summaries.ask()
                print(status_line(service.store), flush=True)
                worked = False
            if not service.done():
                quiet_since = time.monotonic()
            if idle_exit is not None and time.monotonic() - quiet_since >= idle_exit:
                print(f"nothing to grade for {idle_exit} s: stopping", flush=True)
                return 0
            service.pause(poll)
        service.collect_results()  # stopped: what has just finished is merged, the rest
        service.requeue_running()  # queued again
        print(
            f"stopped; make grading-service resumes the queue. {status_line(service.store)}",
            flush=True,
        )
        return 0
    finally:
        summaries.close()  # Ctrl-C included: the last summary is whole


@dataclass(frozen=True)
class Progress:
    """Where the service's entries stand: what ``make grading-status`` prints and the
    Formgrader's submissions list shows (``autograder.formgrader.GradingProgressAPI``)."""

    counts: dict[str, int]  # every state of ``STATES``, then any other the store holds
    oldest_wait: float | None  # seconds the oldest entry not yet done has waited; None: none
    failures: list[Entry]  # refused or needing a person, oldest first
    held: list[Entry]  # past the hourly limit, each with its reason (held until when)

    def wait_words(self) -> str:
        if self.oldest_wait is None:
            return "nothing waits"
        return f"oldest wait {how_late(self.oldest_wait)}"

    def line(self) -> str:
        """The counts and the oldest wait in one line."""
        shown = ", ".join(f"{count} {state}" for state, count in self.counts.items())
        return f"grading service: {shown}; {self.wait_words()}"


def progress(store: Store) -> Progress:
    """The store's counts by state, its oldest wait and its failures, read once."""
    entries = store.entries()
    unknown = sorted({e.state for e in entries} - set(STATES))  # a later service's states
    counts = {state: sum(e.state == state for e in entries) for state in (*STATES, *unknown)}
    waiting = [e.seen for e in entries if e.state in IN_FLIGHT]
    oldest = max(0.0, time.time() - min(waiting)) if waiting else None
    failures = [e for e in entries if e.state in FAILED]
    return Progress(counts, oldest, failures, [e for e in entries if e.state == HELD])


def status_line(store: Store) -> str:
    return progress(store).line()


def queue_path(course_root: Path) -> Path:
    return course_root / STATE_FOLDER / "queue.db"


def read_progress(course_root: Path) -> Progress | None:
    """The progress of the course's service, from its store opened read-only; None when no
    service has made one."""
    path = queue_path(course_root)
    if not path.exists():
        return None
    with contextlib.closing(Store(path, read_only=True)) as store:
        return progress(store)


def status(course_root: Path) -> int:
    """Print the status line, each entry that failed or was refused, with why, and each one
    held by the hourly limit, with until when."""
    try:
        found = read_progress(course_root)
    except (sqlite3.Error, OSError) as error:
        print(
            f"grading service: its queue {queue_path(course_root)} cannot be read "
            f"({printable(str(error))}). Grades already merged are in the gradebook; the "
            "service resumes this queue once the file is readable again (check the disk, or "
            "restore the file from a backup)",
            file=sys.stderr,
        )
        return 1
    if found is None:
        print(NO_QUEUE)
        return 0
    print(found.line())
    for entry in (*found.failures, *found.held):
        print(f"  {entry.state}: {printable(entry.name)[:120]}: {printable(entry.reason)}")
    return 0
