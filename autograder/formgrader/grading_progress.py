"""The grading service's progress on the Formgrader's submissions list, kept up to date.

``GradingProgressAPI`` answers ``/formgrader/api/grading_progress`` with JSON, for the
logged-in instructor alone (the Formgrader's own login; anyone else is refused): how many of
the service's entries stand in each state, the oldest wait, and each failure (refused, or
needing a person) with its reason. It reads the service's store read-only, as the instructor,
through ``autograder.grading.service.read_progress``, the function behind ``make
grading-status``, so the line and the panel cannot disagree. ``static/js/grading_progress.js``
asks for it every few seconds and draws it, as text, in the panel that the course's copy of
``manage_submissions.tpl`` adds above the list.

Example of an answer: ``{"line": "grading service: 0 waiting, 2 queued, …; oldest wait 3 s",
"counts": [["waiting", 0], ["queued", 2], …], "wait": "oldest wait 3 s", "failures":
[{"state": "refused", "entry": "…", "reason": "…"}], "more_failures": 0}``; with no store yet,
only ``line`` ("no queue yet"), ``counts`` empty.

But: it shows the whole course's queue (the course has one assignment), changes nothing, and
lists at most ``FAILURES_SHOWN`` failures (the newest; ``make grading-status`` lists them all).
The service's store holds names students chose: they go out as JSON strings, made printable,
and the script writes them as text, never as markup.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from nbgrader.server_extensions.formgrader.base import BaseApiHandler, check_xsrf
from tornado import web

# A flood of refused entries must not make every poll of every open page heavy.
FAILURES_SHOWN = 50


def progress_record(course_root: Path) -> dict[str, Any]:
    """What the panel shows, as JSON-ready data; a store that cannot be read says why."""
    # Imported here: the grading service loads Dask and nbgrader's exchange, which a Jupyter
    # server that never opens this page need not load.
    from autograder.grading.service import NO_QUEUE, queue_path, read_progress
    from autograder.problems import printable

    try:
        found = read_progress(course_root)
    except (sqlite3.Error, OSError) as error:
        why = f"its queue {queue_path(course_root)} cannot be read ({printable(str(error))})"
        return _only(f"grading service: {why}; make grading-status in the course folder says more")
    if found is None:
        return _only(NO_QUEUE)
    shown = found.failures[-FAILURES_SHOWN:]
    return {
        "line": found.line(),
        "counts": list(found.counts.items()),
        "wait": found.wait_words(),
        "failures": [
            {
                "state": entry.state,
                "entry": printable(entry.name)[:120],
                "reason": printable(entry.reason),
            }
            for entry in shown
        ],
        "more_failures": len(found.failures) - len(shown),
    }


def _only(line: str) -> dict[str, Any]:
    return {"line": line, "counts": [], "wait": "", "failures": [], "more_failures": 0}


class GradingProgressAPI(BaseApiHandler):
    """The service's progress, for the Formgrader's logged-in instructor."""

    async def prepare(self) -> None:
        # A request without the Formgrader's login gets a plain 403, as Jupyter's JSON APIs
        # answer, not a redirect to the login page.
        await super().prepare(_redirect_to_login=False)

    @check_xsrf
    def get(self) -> None:
        if not self.current_user:  # prepare refused it already; never answered without one
            raise web.HTTPError(403)
        record = progress_record(Path(self.coursedir.root).resolve())
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(record)
