"""Refuse to grade where a process of the instructor would import or run another account's file.

Every folder on ``sys.path`` and ``PATH``, and every folder Jupyter, matplotlib and Dask read
configuration or kernels from, must be the instructor's own (or root's) and writable by no one
else, all the way from ``/``; a folder that does not exist must not lie under one that another
account can write, since that account could make it first. A folder of another account that
is writable by all only through its sticky bit (``/tmp``) is a fine parent of a folder that
exists and is trusted, and no parent of one that does not.

>>> why_untrusted("/usr/lib") is None
True
>>> print(why_untrusted("/tmp/surely-not-made-yet"))
'/tmp/surely-not-made-yet' does not exist, and another account can write '/tmp', so it could make it

It imports only the standard library, so a command can run it before it imports anything
the check guards (``grade_class`` does, first thing).

But: it only looks; the caller refuses. It trusts root and the account that runs it, and
cannot see who else is in a group, so a group-writable folder counts as another account's.
"""

from __future__ import annotations

import os
import pwd
import site
import stat
import sys
from pathlib import Path

# Environment variables whose folders Jupyter, matplotlib and Dask read settings or code from.
SEARCHED = (
    "PATH",
    "PYTHONPATH",
    "JUPYTER_PATH",
    "JUPYTER_CONFIG_PATH",
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
    "MPLCONFIGDIR",
    "DASK_CONFIG",
)


class UntrustedPathError(SystemExit):
    """A folder a grading process reads code or settings from is open to another account."""


def _trusted_owner(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _open_to_others(info: os.stat_result) -> bool:
    return not _trusted_owner(info.st_uid) or bool(info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _describe(path: Path, info: os.stat_result) -> str:
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = f"uid {info.st_uid}"
    return f"{str(path)!r} (owner {owner}, mode {stat.S_IMODE(info.st_mode):o})"


def why_untrusted(entry: str) -> str | None:
    """Why another account could change what ``entry`` holds, or None when none can."""
    path = Path(os.path.abspath(entry or os.curdir))
    for candidate in dict.fromkeys([path, Path(os.path.realpath(path))]):
        why = _why_chain(candidate)
        if why:
            return why
    return None


def _why_chain(path: Path) -> str | None:
    """Walk from ``/`` to ``path`` without following links; links are checked as their
    resolved path by the caller."""
    parts = [Path(*path.parts[: n + 1]) for n in range(len(path.parts))]
    for depth, folder in enumerate(parts):
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            parent = parts[depth - 1]
            if _open_to_others(os.lstat(parent)):
                return (
                    f"{str(path)!r} does not exist, and another account can write "
                    f"{str(parent)!r}, so it could make it"
                )
            return None
        except OSError as error:
            return f"{str(folder)!r} cannot be examined ({error.strerror})"
        if stat.S_ISLNK(info.st_mode):
            if not _trusted_owner(info.st_uid):  # in a sticky folder its owner may re-point it
                return f"{_describe(folder, info)} is a link another account owns"
            continue  # the target is checked apart
        if not _open_to_others(info):
            continue
        where = _describe(folder, info)
        if depth == len(parts) - 1:
            return f"{where} can be written by another account"
        if not (info.st_mode & stat.S_ISVTX and _trusted_owner(info.st_uid)):  # sticky: fine
            return f"{str(path)!r} lies in {where}, which can be written by another account"
    return None


def _dask_paths() -> list[str]:
    """Where Dask reads its settings (as ``dask.config`` finds them), without importing it:
    this module must run before anything it guards is imported."""
    prefixes = [sys.prefix, *getattr(site, "PREFIXES", [])]
    return [
        os.environ.get("DASK_ROOT_CONFIG", "/etc/dask"),
        *(os.path.join(prefix, "etc", "dask") for prefix in prefixes),
        os.path.join(os.path.expanduser("~"), ".config", "dask"),
    ]


def _jupyter_paths() -> list[str]:
    """Where Jupyter reads settings and kernel specs by default (beside the variables)."""
    home = os.path.expanduser("~")
    found = [os.path.join(home, ".jupyter"), os.path.join(home, ".local", "share", "jupyter")]
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        found += [os.path.join(prefix, "etc", "jupyter"), os.path.join(prefix, "share", "jupyter")]
    return [*found, "/etc/jupyter"]


def untrusted_entries() -> list[str]:
    """One line for each folder this process imports from or reads settings and kernels from
    that another account can change, saying where it was found."""
    found = [(entry, "sys.path") for entry in sys.path]
    for name in SEARCHED:
        found += [(entry, name) for entry in os.environ.get(name, "").split(os.pathsep) if entry]
    found += [(entry, "Dask's configuration paths") for entry in _dask_paths()]
    found += [(entry, "Jupyter's configuration paths") for entry in _jupyter_paths()]
    untrusted = ((why_untrusted(entry), where) for entry, where in dict.fromkeys(found))
    return [f"{why} (on {where})" for why, where in untrusted if why]


def refusal(process: str, lines: list[str]) -> str:
    """The message that stops grading, naming the folders and what to do."""
    shown = "\n  ".join(lines[:8])
    return (
        f"refusing to grade: {process} would import or run files another account can write:\n"
        f"  {shown}\n"
        "Remove those folders or make them yours alone (chmod go-w), or drop them from the "
        "variable named; nothing was graded."
    )


def refuse_untrusted(process: str = "this process") -> None:
    """Stop with :func:`refusal` when any searched folder is open to another account."""
    lines = untrusted_entries()
    if lines:
        raise UntrustedPathError(refusal(process, lines))
