"""How often one student is graded per hour when feedback goes out at once, and the page that
tells a student whose submission waits for the hour to allow it.

``next_start(starts, now, per_hour)`` says when a student whose gradings started at ``starts``
(seconds since the epoch, by the grading service's clock) may be graded again: None for at
once, else the moment the oldest of their last ``per_hour`` gradings leaves the hour.
``notice_keys`` names the pages nbgrader's ``fetch_feedback`` looks for under a submission:
``notebook_hash`` of its submission secret and each notebook's name, as nbgrader's
``release_feedback`` names them. ``write_notice`` writes one short page of plain, escaped
text under each key in the exchange's feedback folder, so the student's Fetch Feedback shows
it; the grading's own feedback, released later under the same keys, replaces it.

>>> next_start([0.0, 10.0], now=100.0, per_hour=3) is None
True
>>> next_start([0.0, 10.0, 20.0], now=100.0, per_hour=3)
3600.0
>>> next_start([0.0, 10.0, 20.0], now=3601.0, per_hour=3) is None
True

But: it keeps no state (the service's store holds the starts and the pages' keys) and
chooses no entry; a page says that the submission waits, until when and why, never a score or
a case. An entry without a ``submission_secret.txt`` (nbgrader's submit before 0.7) gets no
page, only its state in the store.
"""

from __future__ import annotations

import datetime
import html
import os
import stat
import tempfile
from pathlib import Path

from nbgrader.utils import notebook_hash

HOUR = 3600.0
# A submission's notebooks looked at for keys: the course's assignment has a handful, and a
# copy holding more (the collect caps files, not notebooks) gets pages for its first ones.
MAX_NOTEBOOKS = 20
NOTICE_MODE = 0o644  # as nbgrader's release_feedback leaves a page: its student fetches it


def next_start(starts: list[float], now: float, per_hour: int) -> float | None:
    """When the next grading may start: None (now), or when the oldest of the last
    ``per_hour`` starts within the hour before ``now`` is an hour old."""
    recent = sorted(s for s in starts if now - s < HOUR)
    if per_hour <= 0 or len(recent) < per_hour:
        return None
    return recent[-per_hour] + HOUR


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
    notebooks = sorted(p for p in copy.glob("*.ipynb") if p.is_file())[:MAX_NOTEBOOKS]
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
    feedback_folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    if not stat.S_ISDIR(os.lstat(feedback_folder).st_mode):
        raise OSError(f"{feedback_folder} is not a folder: no notice written")
    for key in keys:
        descriptor, draft = tempfile.mkstemp(prefix=".notice-", dir=feedback_folder)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(page)
            os.chmod(draft, NOTICE_MODE)
            os.replace(draft, feedback_folder / f"{key}.html")
        except BaseException:
            Path(draft).unlink(missing_ok=True)
            raise
