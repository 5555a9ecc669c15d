"""Write CSV files a spreadsheet can open safely, and replace an output file only when whole.

A spreadsheet runs a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a formula, and a
tab or a carriage return in front of one hides it (OWASP, "CSV Injection"). ``neutral``
prefixes such a text cell with ``'``, which spreadsheets show as text, and keeps numbers as
they are; ``writer`` applies it to every cell but the identifier columns an LMS matches on,
which are written verbatim and must be safe already (``check_identifier``). ``replacing``
writes a file beside its target and moves it into place at the end, so a run that fails
leaves the earlier file as it was.

>>> [neutral(cell) for cell in ("=1+1", "-2+3", "@SUM(A1)", "-2", "3.5", "ada", 7)]
["'=1+1", "'-2+3", "'@SUM(A1)", '-2', '3.5', 'ada', '7']

But: it neutralizes, it does not remove: the text stays readable after the ``'``. It knows
nothing of which columns are identifiers; each writer says so.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from autograder.roster import FORMULA_START

# A plain number, as a spreadsheet reads it: it is shown as a number and runs nothing.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def is_formula(text: str) -> bool:
    """True when a spreadsheet could take ``text`` for a formula (a number is not one).

    >>> is_formula("+CMD|'-C calc'!A0"), is_formula("\\t=1"), is_formula("+3"), is_formula("a=1")
    (True, True, False, False)
    """
    return text.startswith(FORMULA_START) and _NUMBER.fullmatch(text) is None


def neutral(cell: Any) -> str:
    """The cell as text, with ``'`` in front when it could be taken for a formula."""
    text = "" if cell is None else str(cell)
    return "'" + text if is_formula(text) else text


class UnsafeIdentifier(SystemExit):
    """An identifier an LMS matches on begins with a formula character; nothing is written."""


def check_identifier(value: str, where: str) -> str:
    """``value`` unchanged, or ``UnsafeIdentifier`` naming ``where`` (a file and its row).

    An LMS matches students on these cells, so they cannot be neutralized: a ``'`` in front
    would make them match nobody."""
    if is_formula(value):
        raise UnsafeIdentifier(
            f"{where}: the identifier {value[:80]!r} begins with {value[0]!r}, which a "
            "spreadsheet runs as a formula; correct it there (nothing was written)"
        )
    return value


class SafeWriter:
    """``csv.writer`` whose rows are neutralized but for the ``verbatim`` column indices."""

    def __init__(self, handle: IO[str], verbatim: Iterable[int] = (), **options: Any) -> None:
        self._writer = csv.writer(handle, **options)
        self._verbatim = frozenset(verbatim)

    def writerow(self, row: Sequence[Any]) -> None:
        cells = [
            ("" if cell is None else str(cell)) if i in self._verbatim else neutral(cell)
            for i, cell in enumerate(row)
        ]
        self._writer.writerow(cells)

    def writerows(self, rows: Iterable[Sequence[Any]]) -> None:
        for row in rows:
            self.writerow(row)


writer = SafeWriter  # spelled as the ``csv`` module's own factory


@contextlib.contextmanager
def replacing(target: Path, mode: int | None = None) -> Iterator[IO[str]]:
    """A text handle to a temporary file beside ``target``, moved over ``target`` when the
    block ends without an error and removed when it raises: readers never see half a file,
    a failed run leaves the earlier one, and a link at ``target`` is replaced, not followed.
    ``mode`` (e.g. 0o600) is the new file's, else the old file's or the umask's."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            yield handle
        if mode is None and target.exists() and not target.is_symlink():
            mode = target.stat().st_mode & 0o777
        elif mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def write_csv(
    path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]], mode: int | None = None
) -> None:
    """Write ``header`` and ``rows`` to ``path`` safely (see ``writer`` and ``replacing``)."""
    with replacing(path, mode) as handle:
        out = writer(handle)
        out.writerow(header)
        out.writerows(rows)
