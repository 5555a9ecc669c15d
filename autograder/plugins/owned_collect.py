"""nbgrader's collect, taking from the exchange's inbound only what its own student put there.

On a hub every student may create entries in inbound (mode 2733), so an entry's name
(``student+assignment+time+random``) is a claim, not a proof. An entry is collected only if:

- its name reads and its time is no later than the collect's clock plus ``future_skew``;
- its student is a student of the class (``roster``: a safe id, in ``roster.csv`` where the
  course has one; on a hub, ``require_account``, an account of the machine);
- it is a folder, not a link, owned (by ``lstat``) by the Unix account its name names;
- its ``timestamp.txt``, if any, reads as a time (nbgrader stops every later collect on one
  that does not);
- everything in it is a folder or a regular file owned by that account: no symbolic link,
  fifo, socket or device, so nothing outside the entry is ever opened;
- where the owner is checked, nothing in it can be written by another account (no group or
  other write bit): in such an entry a classmate could have removed or renamed the student's
  files, which leaves no trace to check. The course's submit (``private_submit``) never
  leaves an entry so; nbgrader's own leaves it 0777;
- it holds at most ``MAX_ENTRIES`` files and folders, nested at most ``MAX_DEPTH`` deep
  (``safe_walk.EntryBudget``, which reads no further than the bound).

Nothing of the released solutions (``bpe-solutions``, ``autograder.release``) is ever
collected: nbgrader's Assignment List offers a Submit button for every fetched assignment,
solutions included, and such an entry is refused, so it never reaches ``submitted/``, an
autograde or the gradebook.

Each refused entry is one warning naming it and why, and any trouble with one entry
(permissions, a submission already in ``submitted/`` whose time does not read) refuses that
entry alone; the collect then fails naming them all. Of the entries kept, the choice is
nbgrader's (the newest, or the newest on time with ``--before-duedate``), so a forged entry
never hides its student's real one. The chosen entry is copied part by part, never following a
link, into a scratch folder of the collector's own; nbgrader's copy then takes it into
``submitted/`` with its ignore globs, size caps and group modes.

Every collect takes each student's newest entry: nbgrader's ``--update`` is on by default
(``update``), so a plain ``nbgrader collect bpe`` replaces a copy in ``submitted/`` with an
entry dated later, and leaves it for one dated the same or earlier. The copy is replaced only
once the new one has been copied and checked in full, and it is not deleted: it moves to
``submitted/<student>/.replaced/<assignment>/<its time>/``, which no step of nbgrader or of
the course grades (their patterns skip dot-folders). ``autograded/`` and the gradebook keep
the earlier grade until ``make autograde`` grades the newer copy (nbgrader regrades a
submission whose timestamp is later than its autograded copy's).

Used by every ``nbgrader collect`` of the course (and the Formgrader's Collect), from
``nbgrader_config.py``::

    c.ExchangeFactory.collect = "autograder.plugins.owned_collect.OwnedCollect"

It overrides two private hooks of nbgrader's ``ExchangeCollect`` (``_path_to_record``,
``_sort_by_timestamp``), so ``tests/test_upstream_copies.py`` holds it to the file it extends (its
``upstream-extends:`` comment).

An entry's time is the student's word, and it decides lateness and ``--before-duedate``'s
choice; the file system's change times are not (no account can set a ctime back). The copy
notes the newest ctime of what it read, each file's taken after reading it (``copy_entry``):
an entry dated on or before the due date that changed after the due date, and more than
``filed_slack`` seconds after its own date, was finished late, or copied since. The collect
says so and keeps it in ``artifacts/grading/filed-late.json`` before the copy lands, until that
student's next copy; the summary marks the student for a person (``summary.collect``). The copy
is dated by its entry's name, whatever its ``timestamp.txt`` said (the earlier of the two is the
one checked against its change times): it cannot be on time by having no time, nor claim one
it was not chosen by.

But: where a student id is no Unix account (a course on one machine, where the instructor owns
every entry) the owner cannot be checked; the roster still decides who is a student. A
backdated entry is flagged for a person, never re-dated or refused: restoring or copying inbound
after the due date changes every entry's ctime, and a late penalty must not follow from that.
It deletes nothing in inbound.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import pwd
import shutil
import stat
import tempfile
import time
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets import Bool, Integer

from autograder.course import FILED_LATE_RECORD, SOLUTIONS
from autograder.problems import printable
from autograder.roster import read_roster, why_not_a_student
from autograder.sandbox.safe_walk import (
    FILE,
    FOLDER,
    Found,
    UntrustedEntryError,
    kind,
    open_regular,
    walk,
)

NOT_FOR_SUBMISSION = (
    f"{SOLUTIONS} is the course's released solutions, for reading: nothing of it is collected "
    "or graded"
)
CHUNK = 1 << 20

# upstream-extends: nbgrader 0.9.6 nbgrader/exchange/default/collect.py sha256:54251d36403318323643787ed13e4be415bbd89c830f1bfa65409f56d1c98c87  # noqa: E501 (one line, read by a test)


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def copy_plain(entry: str, into: str | None, owner: int | None, max_bytes: int) -> int:
    """Copy the folder ``entry`` to ``into`` (with ``None``: only look) by ``safe_walk``; returns
    the bytes of its files. Raises ``UntrustedEntryError`` for a link or special file, a part not
    owned by ``owner`` (any owner when ``None``), more than ``max_bytes`` in all, and
    ``TooManyEntriesError`` past ``MAX_ENTRIES`` files and folders or ``MAX_DEPTH``."""
    return copy_entry(entry, into, owner, max_bytes)[0]


def copy_entry(
    entry: str, into: str | None, owner: int | None, max_bytes: int
) -> tuple[int, datetime.datetime]:
    """``copy_plain``, and the newest change time (ctime, UTC) of what it read, each file's
    taken once it was read: the last time the copy's content can have been written, which no
    account can set back. Folders get their modes and times once the walk has written all
    that is in them."""
    try:
        top = os.open(entry, FOLDER)
    except OSError as error:
        raise UntrustedEntryError(f"it is not a plain folder ({error.strerror})") from None
    try:
        info = os.fstat(top)
        _check_owner(info, "", owner)
        changed = [info.st_ctime]
        folders = [] if into is None else [(into, info)]
        if into is not None:
            os.mkdir(into, 0o700)
        used = 0
        for found in walk(top):
            target = None if into is None else os.path.join(into, found.path)
            if found.is_dir:
                _check_owner(found.info, found.path, owner)
                changed.append(found.info.st_ctime)
                if target is not None:
                    os.mkdir(target, 0o700)
                    folders.append((target, found.info))
            elif found.is_regular:
                used += _copy_file(found, target, owner, max_bytes - used, changed)
            else:
                raise UntrustedEntryError(
                    f"{found.path!r} is a {kind(found.info.st_mode)}, which collect neither "
                    "follows nor copies"
                )
        for folder, seen in folders:
            os.chmod(folder, (seen.st_mode & 0o755) | 0o700)  # never writable by others
            os.utime(folder, ns=(seen.st_atime_ns, seen.st_mtime_ns))
        changed.append(os.fstat(top).st_ctime)  # a name added or removed while walked
    finally:
        os.close(top)
    return used, datetime.datetime.fromtimestamp(max(changed), datetime.UTC).replace(tzinfo=None)


def _check_owner(info: os.stat_result, where: str, owner: int | None) -> None:
    """The part ``where`` is the student's (``owner``) and no other account can write it."""
    if owner is None:
        return
    # repr: a name is the student's bytes, which need not be text (or printable) at all.
    part = repr(where) if where else "the entry"
    if info.st_uid != owner:
        owned = account_name(info.st_uid)
        raise UntrustedEntryError(f"{part} is owned by {owned}, not by the student")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UntrustedEntryError(
            f"{part} can be written by other accounts (mode "
            f"{stat.S_IMODE(info.st_mode):04o}), so a classmate may have removed or renamed its "
            "files; the student submits again with the course's Submit (or nbgrader submit "
            "with the course's settings), which keeps an entry private"
        )


def _copy_file(
    found: Found, into: str | None, owner: int | None, room: int, changed: list[float]
) -> int:
    too_big = f"{found.path!r} takes it past the size cap (CourseDirectory.max_dir_size)"
    source = open_regular(found)
    try:
        info = os.fstat(source)
        _check_owner(info, found.path, owner)
        if info.st_size > room:
            raise UntrustedEntryError(too_big)
        if into is None:
            changed.append(info.st_ctime)
            return info.st_size
        copied = 0
        with open(into, "xb") as out:
            while chunk := os.read(source, CHUNK):
                copied += len(chunk)
                if copied > room:  # it grew while being read
                    raise UntrustedEntryError(too_big)
                out.write(chunk)
        os.chmod(into, (info.st_mode & 0o644) | 0o600)
        os.utime(into, ns=(info.st_atime_ns, info.st_mtime_ns))
        changed.append(os.fstat(source).st_ctime)  # written while it was read: seen here
        return copied
    finally:
        os.close(source)


def _timestamp_of(entry: str) -> datetime.datetime | None:
    """The time in the entry's ``timestamp.txt`` (None without one); a time that does not
    read refuses the entry, since nbgrader stops every later collect on it."""
    # Through the entry's own descriptor: in inbound (no sticky bit) its maker may swap the
    # entry for a link to a folder only the instructor can read.
    folder = os.open(entry, FOLDER)
    try:
        descriptor = os.open("timestamp.txt", FILE, dir_fd=folder)
    except FileNotFoundError:
        return None
    finally:
        os.close(folder)
    with os.fdopen(descriptor) as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise UntrustedEntryError("its timestamp.txt is not a plain file")
        text = file.read(200).strip()
    try:
        return parse_utc(text) if text else None
    except (ValueError, OverflowError, TypeError):
        raise UntrustedEntryError(
            f"its timestamp.txt reads {printable(text)[:40]!r}, not a time"
        ) from None


def _set_aside(dest: str, existing: datetime.datetime | None) -> str:
    """Move the submission at ``dest`` (``submitted/<student>/<assignment>``) to
    ``submitted/<student>/.replaced/<assignment>/<its time>``; returns where it went.

    >>> import tempfile
    >>> student = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(student, "bpe"))
    >>> when = datetime.datetime(2026, 12, 3, 9, 5, 1, 250)
    >>> os.path.relpath(_set_aside(os.path.join(student, "bpe"), when), student)
    '.replaced/bpe/2026-12-03T09-05-01.000250Z'
    >>> os.makedirs(os.path.join(student, "bpe"))
    >>> os.path.relpath(_set_aside(os.path.join(student, "bpe"), when), student).startswith(
    ...     ".replaced/bpe/2026-12-03T09-05-01.000250Z-")
    True
    """
    student, assignment = os.path.split(dest)
    folder = os.path.join(student, ".replaced", assignment)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    label = f"{existing:%Y-%m-%dT%H-%M-%S.%f}Z" if existing else "undated"
    aside = os.path.join(folder, label)
    if os.path.lexists(aside):  # set aside twice with the same time: a name of its own
        aside = tempfile.mkdtemp(prefix=f"{label}-", dir=folder)
        os.rmdir(aside)
    os.rename(dest, aside)
    return aside


def record_filed_late(course_root: Path, student: str, why: str | None) -> str | None:
    """Set (``why``) or clear (None) ``student``'s doubt in ``FILED_LATE_RECORD``, under a lock,
    replaced whole: collects that overlap (the service's, the Formgrader's) lose none. A record
    that does not read is set aside, not lost: returns what to tell the instructor then."""
    path = course_root / FILED_LATE_RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    said = None
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            known = json.loads(path.read_text()) if path.exists() else {}
            if not isinstance(known, dict):
                raise ValueError("not a mapping")
        except ValueError:
            aside = path.with_name(f"{path.name}.unreadable-{time.time_ns()}")
            os.replace(path, aside)
            said = f"{path} did not read: set aside as {aside.name}; its doubts need a person"
            known = {}
        known.pop(student, None)
        if why:
            known[student] = why
        handle, fresh = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(handle, "w") as out:
            json.dump(dict(sorted(known.items())), out, indent=1)
        os.replace(fresh, path)
    return said


class OwnedCollect(ExchangeCollect):
    """``nbgrader collect`` that skips inbound entries their named student did not make."""

    future_skew = Integer(
        300,
        help="Seconds an entry's time may run ahead of the collect's clock (clocks of the "
        "machines that submit and collect); a later entry is refused.",
    ).tag(config=True)
    filed_slack = Integer(
        60,
        help="Seconds an entry may go on changing after its own time (a slow submit) before a "
        "change after the due date marks an entry dated on time for a person.",
    ).tag(config=True)
    update = Bool(
        True,
        help="Replace a student's copy in submitted/ with a newer entry (nbgrader's --update, "
        "on in the course); the replaced copy is kept in submitted/<student>/.replaced/.",
    ).tag(config=True)
    require_account = Bool(
        False,
        help="Collect only entries named for a Unix account of this machine (a hub, where "
        "every student has one); other names are refused rather than taken on trust.",
    ).tag(config=True)

    def init_src(self) -> None:
        self.refused: list[tuple[str, str]] = []
        self.roster = read_roster(Path(self.coursedir.root))
        self.latest = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        self.latest += datetime.timedelta(seconds=self.future_skew)
        # nbgrader's init_src (its checks, the due date, each student's newest entry) over the
        # records of _path_to_record, which refuses an untrusted entry before the choice. Fail
        # closed: a record it did not check (were nbgrader to stop asking it) is dropped.
        super().init_src()
        self.src_records: list[dict] = [r for r in self.src_records if r.get("trusted")]

    def _path_to_record(self, path: str) -> dict:
        """The entry's record; a refused entry's has no student, so nbgrader's choice puts it
        in a group of its own, which ``init_src`` drops."""
        try:
            if self.coursedir.assignment_id == SOLUTIONS:
                raise UntrustedEntryError(NOT_FOR_SUBMISSION)
            return self._trusted_record(path)
        except Exception as why:  # noqa: BLE001 - one entry never stops the class
            self._refuse(os.path.basename(path), why)
            return {"username": None, "filename": path, "timestamp": datetime.datetime.min}

    def _sort_by_timestamp(self, records: list[dict]) -> list[dict]:
        # Newest first and, of entries of the same time, the first by name: the same choice
        # whatever order the file system lists inbound in.
        by_name = sorted(records, key=lambda record: record["filename"])
        return sorted(by_name, key=lambda record: record["timestamp"], reverse=True)

    def _refuse(self, entry: str, why: BaseException) -> None:
        text = str(why)
        if not isinstance(why, UntrustedEntryError):
            text = f"it could not be read or copied ({type(why).__name__}: {why})"
        self.log.warning("Not collecting %r: %s", printable(entry)[:120], text)
        self.refused.append((entry, text))

    def copy_files(self) -> None:
        """Each chosen entry on its own; then the collect fails naming the refused."""
        if not self.src_records:
            self.log.warning("No submissions of %r to collect", self.coursedir.assignment_id)
        for record in self.src_records:
            try:
                self._collect(record)
            except Exception as why:  # noqa: BLE001 - one entry never stops the class
                self._refuse(record["filename"], why)
        if self.refused:
            names = ", ".join(printable(name)[:80] for name, _ in sorted(self.refused)[:20])
            self.fail(
                f"collected the others, refused {len(self.refused)} entr"
                f"{'y' if len(self.refused) == 1 else 'ies'} of inbound (see the warnings "
                f"above for why): {names}"
            )

    def _collect(self, record: dict) -> None:
        """nbgrader's choice of whether to copy; the copy checked in full before it replaces."""
        student = record["username"]
        source = os.path.join(self.inbound_path, record["filename"])
        dest = self.coursedir.format_path(
            self.coursedir.submitted_directory, student, self.coursedir.assignment_id
        )
        existing = None
        if os.path.isdir(dest):
            try:
                existing = _timestamp_of(dest)
            except UntrustedEntryError as why:  # poisoned before this check: refuse, say why
                raise UntrustedEntryError(
                    f"the submission already in {dest} is unreadable ({why}); look at it, then "
                    "move that folder aside and collect again"
                ) from None
            newer = existing is None or record["timestamp"] > existing
            if not (self.update and newer) and not (
                self.before_duedate and existing != record["timestamp"]
            ):
                self._say_kept(record, existing, newer)
                return
        owner = self._account(student)
        if owner is None and self.check_owner:
            self.log.warning("%s: no account of that name, so its owner is not checked", student)
        with tempfile.TemporaryDirectory(prefix="bpe-collect-") as scratch:
            plain = os.path.join(scratch, "entry")
            changed = copy_entry(source, plain, owner, self._max_bytes())[1]
            dated = _timestamp_of(plain)
            # The earliest time the copy claims, read from the copy: not from an earlier look.
            self._note_filed_late(
                student, min(dated or record["timestamp"], record["timestamp"]), changed
            )
            # The copy is dated by its entry's name, which nbgrader chose it by and which later
            # collects and the grading service compare. A timestamp.txt of another time (none,
            # or one the student wrote) would make a copy claim a time it was never chosen for:
            # on time whenever it came, or taken by the service for some other entry's copy
            # and never graded.
            stamp = Path(plain, "timestamp.txt")
            stamp.unlink(missing_ok=True)  # the student's file may not be writable
            stamp.write_text(f"{record['timestamp']:%Y-%m-%d %H:%M:%S.%f} UTC")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            # Copied beside the earlier submission, then swapped in: a copy that fails half-way
            # (a full disk) leaves the earlier one as it was.
            fresh = tempfile.mkdtemp(prefix=".collecting-", dir=os.path.dirname(dest))
            os.rmdir(fresh)
            try:
                super().do_copy(plain, fresh)
            except BaseException:
                shutil.rmtree(fresh, ignore_errors=True)  # a half copy helps no one
                raise
            if os.path.isdir(dest):
                aside = _set_aside(dest, existing)
                try:
                    os.rename(fresh, dest)
                except BaseException:
                    os.rename(aside, dest)  # the earlier copy back where it was
                    raise
                self.log.info(
                    "Updating submission: %s: the entry of %s UTC replaces the copy of %s, "
                    "kept in %s; make autograde grades the newer one",
                    student,
                    record["timestamp"],
                    f"{existing} UTC" if existing else "no time",
                    os.path.relpath(aside, self.coursedir.root),
                )
            else:
                self.log.info("Collecting submission: %s", student)
                os.rename(fresh, dest)

    def _note_filed_late(
        self, student: str, dated: datetime.datetime, changed: datetime.datetime
    ) -> None:
        """Keep in ``FILED_LATE_RECORD`` why the copy about to replace ``student``'s may be later
        than its date says, or that it is not; before the copy lands, so no copy is ever in
        place with its doubt unsaid."""
        due, slack = self.duedate, datetime.timedelta(seconds=self.filed_slack)
        why = None
        if due is not None and dated <= due and changed > max(due, dated + slack):
            why = (
                f"its entry is dated {dated:%Y-%m-%d %H:%M:%S} UTC, on time, but was changed at "
                f"{changed:%Y-%m-%d %H:%M:%S} UTC, after the due date: backdated, or inbound "
                "was copied since; check it by hand"
            )
            self.log.warning("%s: %s", student, why)
        said = record_filed_late(Path(self.coursedir.root), student, why)
        if said:
            self.log.warning(said)

    def _say_kept(self, record: dict, existing: datetime.datetime | None, newer: bool) -> None:
        if newer:  # update switched off in the configuration
            self.log.info(
                "Not replacing the submission of %s: update is off (nbgrader collect --update "
                "takes the entry of %s UTC)",
                record["username"],
                record["timestamp"],
            )
        else:
            self.log.info(
                "submitted/ already holds the newest submission of %s (of %s UTC); its newest "
                "entry in inbound, of %s UTC, is no newer, so nothing is replaced",
                record["username"],
                existing,
                record["timestamp"],
            )

    def _trusted_record(self, path: str) -> dict:
        name = os.path.basename(path)
        parts = name.rsplit("+", 3)
        if len(parts) < 3:
            raise UntrustedEntryError("its name is not student+assignment+time")
        try:
            stamp = parse_utc(parts[2])
        except (ValueError, OverflowError, TypeError):
            raise UntrustedEntryError(f"its time {parts[2]!r} does not read") from None
        # Refused, not clamped: clamped to now it would still outrank every honest entry made
        # before the collect, and its timestamp.txt would still say the future.
        if stamp > self.latest:
            raise UntrustedEntryError(
                f"it is dated {stamp} UTC, later than the collect's clock allows"
            )
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            raise UntrustedEntryError(f"it is a {kind(info.st_mode)}, not a folder")
        why = why_not_a_student(parts[0], self.roster)
        if why:
            raise UntrustedEntryError(f"{why}, so it is no student of the class")
        owner = self._account(parts[0])
        if owner is None and self.require_account:
            raise UntrustedEntryError(
                f"no account of this machine is named {parts[0]!r}: every student of this "
                "hub has one, so it was made up"
            )
        if owner is not None and info.st_uid != owner:
            raise UntrustedEntryError(
                f"it is named for student {parts[0]!r} but owned by account "
                f"{account_name(info.st_uid)!r} (filed in another student's name?)"
            )
        copy_plain(path, None, owner, self._max_bytes())
        _timestamp_of(path)
        return {"username": parts[0], "filename": name, "timestamp": stamp, "trusted": True}

    def _account(self, student: str) -> int | None:
        """The uid of the account named like the student, or None where the owner cannot
        be checked (no such account, or ``check_owner`` switched off)."""
        if not self.check_owner:
            return None
        try:
            return pwd.getpwnam(student).pw_uid
        except KeyError:
            return None

    def _max_bytes(self) -> int:
        return 1000 * self.coursedir.max_dir_size  # nbgrader counts it in kilobytes
