"""The readable part of a refused submission (a link, a special file, too many files), copied.

``safe_copy`` copies the named files of ``submitted/<student>/<assignment>`` that are regular
files into a scratch folder without following any link, through ``autograder.shared.safe_walk``:
each folder is opened relative to the one above it with ``O_NOFOLLOW``, and each file only
after ``lstat`` says it is regular, with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO swapped in cannot
block), checked again with ``fstat`` (same file, still regular) and read by descriptor up to
a size limit.
``reason`` is what the gradebook's comments tell the person who grades it.

But: it runs no student code, gives no score and writes no gradebook (``grade_one`` hands
the copy to nbgrader with nothing executed; ``gradebook_rows.flag_refused`` leaves every score
to a person).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from autograder.shared.safe_walk import (
    MAX_DEPTH,
    MAX_ENTRIES,
    UntrustedEntryError,
    entry_of,
    open_below,
    open_regular,
)

TIMESTAMP = "timestamp.txt"
MAX_TIMESTAMP_BYTES = 1024


def read_regular(folder: int, name: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``name`` in the open folder ``folder``, or None when it
    is anything else (a link, a FIFO, a folder), changed while opened, or over ``limit``."""
    try:
        found = entry_of(folder, name)
        if not found.is_regular or found.info.st_size > limit:
            return None
        fd = open_regular(found)
    except (OSError, UntrustedEntryError):
        return None
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
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
