"""The one walk of a student's folder: it opens nothing through a link and bounds what it reads.

``walk`` yields every entry below an open folder, a folder before its contents, by name. Each
name is described by ``lstat`` relative to its folder's descriptor, and a folder entered through
that descriptor with ``O_NOFOLLOW`` and described by ``fstat``, so a folder swapped for a link
after the listing is never entered. ``open_regular`` opens a listed file with ``O_NOFOLLOW |
O_NONBLOCK`` (a FIFO swapped in cannot block) and keeps it only when ``fstat`` finds the same
regular file the listing saw; ``open_below`` reaches ``submitted/<student>/<assignment>``
through no link. Every walk stops at ``MAX_ENTRIES`` files and folders, ``MAX_DEPTH`` deep
(``EntryBudget``), having read no further.

Collect (``owned_collect.copy_plain``), grading's look at ``submitted/``
(``grade_one.unsafe_entries``) and ``safe_copy``, the copy of a refused submission's named
regular files (each read by descriptor up to a size limit), all go through it; ``reason`` is
what the gradebook's comments then tell the person who grades it.

But: it decides nothing about a link or special file it meets: ``walk`` yields it and the
caller refuses it (collect refuses the entry, grading the submission). It checks no owner,
runs no student code and gives no score (``grade_one`` hands the copy to nbgrader with nothing
executed; ``gradebook_rows.flag_refused`` leaves every score to a person).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.problems import printable

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a fifo swapped in after the listing opens at once and is refused by its fstat.
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# The bounds of one submission, at collect and again at grading: the assignment is four
# notebooks at its top, so a student's extra files and folders fit many times over.
MAX_ENTRIES = 200  # files and folders, all told
MAX_DEPTH = 8  # folders inside folders


class UntrustedEntryError(Exception):
    """Why a student's folder, or a part of it, is not taken."""


class TooManyEntriesError(UntrustedEntryError):
    """A submission past ``MAX_ENTRIES`` or ``MAX_DEPTH``: the walk stopped there."""


class ChangedWhileWalkedError(UntrustedEntryError):
    """A listed name that no longer opens as what the listing saw (made a link since,
    removed, or not readable); ``path`` is where, relative to the walk's top."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path!r} cannot be opened as listed ({why})")
        self.path = path


class EntryBudget:
    """The files and folders one walk of a submission has listed, stopping it at the bounds.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for n in range(MAX_ENTRIES + 5):
    ...     open(os.path.join(folder, str(n)), "w").close()
    >>> EntryBudget().listing(folder, "", 0)
    Traceback (most recent call last):
    ...
    autograder.sandbox.safe_walk.TooManyEntriesError: too many files (more than 200)
    """

    def __init__(self) -> None:
        self.listed = 0

    def listing(self, folder: int | str, where: str, depth: int) -> list[os.DirEntry]:
        """The entries of ``folder`` (an open descriptor or a path) at ``depth`` below the
        submission, sorted by name; raises ``TooManyEntriesError`` as soon as the walk passes
        a bound, having read no further."""
        if depth > MAX_DEPTH:
            raise TooManyEntriesError(
                f"folders nested more than {MAX_DEPTH} deep ({printable(where)[:80]})"
            )
        entries = []
        with os.scandir(folder) as found:
            for entry in found:
                self.listed += 1
                if self.listed > MAX_ENTRIES:
                    raise TooManyEntriesError(f"too many files (more than {MAX_ENTRIES})")
                entries.append(entry)
        return sorted(entries, key=lambda entry: entry.name)


def kind(mode: int) -> str:
    """What a file that is neither a folder nor a regular file is.

    >>> kind(stat.S_IFLNK | 0o777), kind(stat.S_IFIFO | 0o644)
    ('symbolic link', 'fifo')
    """
    kinds = {
        stat.S_IFLNK: "symbolic link",
        stat.S_IFIFO: "fifo",
        stat.S_IFSOCK: "socket",
        stat.S_IFCHR: "character device",
        stat.S_IFBLK: "block device",
    }
    return kinds.get(stat.S_IFMT(mode), "special file")


@dataclass(frozen=True)
class Found:
    """One entry of a walk: ``path`` relative to the top, ``name`` in the open ``folder``,
    and ``info``: of the opened folder for a folder, of the name itself (``lstat``) else."""

    path: str
    name: str
    folder: int
    info: os.stat_result

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.info.st_mode)

    @property
    def is_regular(self) -> bool:
        return stat.S_ISREG(self.info.st_mode)


def walk(top: int) -> Iterator[Found]:
    """Every entry below the open folder ``top``, in the module docstring's order. Raises
    ``TooManyEntriesError`` past the bounds and ``ChangedWhileWalkedError`` for a name that
    changed since the listing; a folder's descriptor (its entries' ``folder``) stays open only
    while its entries are walked."""
    yield from _walk(top, "", 0, EntryBudget())


def _walk(fd: int, where: str, depth: int, budget: EntryBudget) -> Iterator[Found]:
    for entry in budget.listing(fd, where, depth):
        path = os.path.join(where, entry.name)
        try:
            info = os.stat(entry.name, dir_fd=fd, follow_symlinks=False)
        except OSError as error:
            raise ChangedWhileWalkedError(path, error.strerror or str(error)) from None
        if not stat.S_ISDIR(info.st_mode):
            yield Found(path, entry.name, fd, info)
            continue
        try:
            child = os.open(entry.name, FOLDER, dir_fd=fd)
        except OSError as error:  # ELOOP: it became a link since the listing
            raise ChangedWhileWalkedError(path, error.strerror or str(error)) from None
        try:
            yield Found(path, entry.name, fd, os.fstat(child))
            yield from _walk(child, path, depth + 1, budget)
        finally:
            os.close(child)


def open_regular(found: Found) -> int:
    """A descriptor of the regular file ``found`` names, opened through no link; raises
    ``ChangedWhileWalkedError`` when it is no longer the regular file the listing saw."""
    try:
        fd = os.open(found.name, FILE, dir_fd=found.folder)
    except OSError as error:
        raise ChangedWhileWalkedError(found.path, error.strerror or str(error)) from None
    opened = os.fstat(fd)
    same = (opened.st_dev, opened.st_ino) == (found.info.st_dev, found.info.st_ino)
    if stat.S_ISREG(opened.st_mode) and same:
        return fd
    os.close(fd)
    raise ChangedWhileWalkedError(found.path, f"now a {kind(opened.st_mode)}, or another file")


def open_below(root: str | os.PathLike[str], *parts: str) -> int:
    """A descriptor of the folder ``root/part/...``: ``root`` is the instructor's own and may
    be reached through a link; no part below it may be one. Raises ``OSError``."""
    fd = os.open(root, FOLDER & ~os.O_NOFOLLOW)
    for part in parts:
        try:
            below = os.open(part, FOLDER, dir_fd=fd)
        finally:
            os.close(fd)
        fd = below
    return fd


TIMESTAMP = "timestamp.txt"
MAX_TIMESTAMP_BYTES = 1024


def read_regular(folder: int, name: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``name`` in the open folder ``folder``, or None when it
    is anything else (a link, a FIFO, a folder), changed while opened, or over ``limit``."""
    try:  # as a walk would find it, without listing the folder
        found = Found(name, name, folder, os.stat(name, dir_fd=folder, follow_symlinks=False))
        if not found.is_regular or found.info.st_size > limit:
            return None
        fd = open_regular(found)
    except (OSError, UntrustedEntryError):
        return None
    try:
        data = bytearray()
        while len(data) <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - len(data)))
            if not chunk:
                return bytes(data)
            data += chunk
        return None  # grew past the limit while read
    except OSError:
        return None
    finally:
        os.close(fd)


def safe_copy(
    submitted: Path, student: str, assignment: str, limits: dict[str, int], target: Path
) -> list[str]:
    """Copy each file named in ``limits`` (name -> most bytes) that is a regular file of the
    submission into ``target`` (created); return the names copied."""
    try:
        folder = open_below(submitted, student, assignment)
    except OSError:
        return []
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    try:
        for name, limit in limits.items():
            data = read_regular(folder, name, limit)
            if data is not None:
                (target / name).write_bytes(data)
                copied.append(name)
    finally:
        os.close(folder)
    return copied


def shown(name: str) -> str:
    """A file name as the reason shows it: anything but letters, digits and ``._-/ `` as ``?``,
    so a name is never markup, a formula's start or a terminal's escape.

    >>> shown("<img src=x>.txt")
    '?img src?x?.txt'
    """
    return re.sub(r"[^A-Za-z0-9._/ -]", "?", name)[:80]


def reason(refused: list[str], kept: list[str], unreadable: list[str], crowded: str = "") -> str:
    """What a person reads on every answer cell of a refused submission: one holding the links
    or special files ``refused``, or, where ``crowded`` says why, too many files or folders.

    >>> reason(["notes.txt"], ["02.ipynb"], [])[:60]
    'Not graded automatically: this submission holds a link or sp'
    >>> reason([], [], [], "too many files (more than 200)")[:68]
    'Not graded automatically: too many files (more than 200); the grader'
    """
    names = ", ".join(shown(name) for name in refused[:20])
    more = f" and {len(refused) - 20} more" if len(refused) > 20 else ""
    text = (
        f"Not graded automatically: this submission holds a link or special file ({names}{more}),"
        " which the grader never opens, so no code of it ran and no score was given."
    )
    if crowded:
        text = (
            f"Not graded automatically: {crowded}; the grader opens at most {MAX_ENTRIES} files"
            f" and folders, nested at most {MAX_DEPTH} deep, so no code of it ran and no score"
            " was given."
        )
    if kept:
        text += f" The notebooks that were regular files are here ({', '.join(kept)}): grade them"
        text += " by hand."
    else:
        text += " No notebook of it was a regular file: there is nothing here to grade."
    if unreadable:
        text += f" Not readable as notebooks: {', '.join(shown(n) for n in unreadable)}."
    return text
