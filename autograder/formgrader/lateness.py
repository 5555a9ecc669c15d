"""How late each submission is, for the Formgrader's pages, and the time zone of its due dates.

``LateAPI`` is nbgrader's ``NbGraderAPI`` whose submission records (the JSON behind the
assignment's submissions list and a student's list of assignments) also carry ``seconds_late``
and ``late``, in the words of the class summary and ``grades.csv`` ("late by 1 h 2 min", ""
when on time): nbgrader's ``total_seconds_late`` (due date plus any extension) once autograded,
else the collected ``timestamp.txt`` against the due date. A record also carries
``not_graded``: for a student whose newest grading stopped for a reason not theirs
(``results.json``), the words saying the grade shown is from an earlier submission.

nbgrader's Edit and Add dialogs (Manage Assignments) send a date and time and, apart, a
"timezone" to ``/formgrader/api/assignment/<id>``, where ``nbgrader.utils.parse_utc`` fails on a
zone name such as ``Europe/Paris``: a 500, and the dialog stays on "Saving…". ``DueDateAPI``, put
in front of that route, first makes the two one time in UTC with ``zoneinfo`` (so summer time is
the zone's own on that date), and answers what it cannot read with a 400 whose JSON ``error``
``static/js/duedate_dialog.js`` shows in the dialog.

But: it only reads lateness: the penalty, if any, is nbgrader's late-submission plug-in's, at
autograde; with no due date nothing is late. nbgrader's command line (``nbgrader db assignment
add --duedate``) parses as nbgrader does. A wall-clock time that a zone skips or repeats when its
clocks change is read with the offset in force before the change.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import re
import zoneinfo
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.api import NbGraderAPI
from nbgrader.server_extensions.formgrader import apihandlers as nbgrader_api

from autograder.course import RESULTS_RECORD
from autograder.problems import (
    EARLIER_GRADE,
    NO_EARLIER_GRADE,
    NOT_GRADED_KIND,
    late_words,
    printable,
)

OFFSET = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?")
ZONE_EXAMPLES = "a time zone name such as Europe/Paris or a UTC offset such as +01:00"


class DueDateError(ValueError):
    """A due date or time zone the dialog cannot read, in words for the instructor."""


def zone_of(text: str | None) -> datetime.tzinfo:
    """The time zone that ``text`` names: empty is UTC (as nbgrader reads a time with none).

    >>> zone_of("Europe/Paris"), zone_of("+0100"), zone_of("-05:30"), zone_of("")
    (zoneinfo.ZoneInfo(key='Europe/Paris'), datetime.timezone(datetime.timedelta(seconds=3600)), \
datetime.timezone(datetime.timedelta(days=-1, seconds=66600)), datetime.timezone.utc)
    >>> zone_of("Europe/Pariss")
    Traceback (most recent call last):
    ...
    autograder.formgrader.lateness.DueDateError: The time zone 'Europe/Pariss' is unknown: \
give a time zone name such as Europe/Paris or a UTC offset such as +01:00.
    """
    text = (text or "").strip()
    if not text or text in {"Z", "z"}:
        return datetime.UTC
    if found := OFFSET.fullmatch(text):
        sign, hours, minutes = found.groups()
        if int(hours) <= 14 and int(minutes or 0) < 60:
            size = datetime.timedelta(hours=int(hours), minutes=int(minutes or 0))
            return datetime.timezone(-size if sign == "-" else size)
    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        # ValueError: a key zoneinfo refuses (an absolute path, "..", a character it rejects).
        raise DueDateError(
            f"The time zone {printable(text)[:60]!r} is unknown: give {ZONE_EXAMPLES}."
        ) from None


def utc_due(when: str, zone: str | None) -> str:
    """The dialog's date and time ``when`` (``YYYY-MM-DDTHH:MM``, as its date field gives it)
    read in ``zone``, as a time in UTC that nbgrader's gradebook reads.

    >>> utc_due("2026-12-15T23:59", "Europe/Paris")  # winter: UTC+1
    '2026-12-15 22:59:00'
    >>> utc_due("2026-06-15T23:59", "Europe/Paris")  # summer: UTC+2
    '2026-06-15 21:59:00'
    >>> utc_due("2026-12-15T23:59:30", "-0500"), utc_due("2026-12-15T23:59", "UTC")
    ('2026-12-16 04:59:30', '2026-12-15 23:59:00')
    >>> utc_due("15/12/2026", "UTC")
    Traceback (most recent call last):
    ...
    autograder.formgrader.lateness.DueDateError: The due date '15/12/2026' is not a date and \
time such as 2026-12-15T23:59.
    """
    try:
        moment = datetime.datetime.fromisoformat(when.strip())
    except (ValueError, TypeError, AttributeError):
        raise DueDateError(
            f"The due date {printable(str(when))[:40]!r} is not a date and time such as "
            "2026-12-15T23:59."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone_of(zone))
    try:
        utc = moment.astimezone(datetime.UTC)
    except OverflowError:
        raise DueDateError(f"The due date {when[:40]!r} is out of range.") from None
    return utc.replace(tzinfo=None).isoformat(sep=" ")


class DueDateAPI(nbgrader_api.AssignmentHandler):
    """nbgrader's assignment route, with the due date converted before nbgrader reads it and
    a 400 with an ``error`` in words, rather than a 500, for one it cannot read."""

    def get_json_body(self) -> Any:
        """The request's body with its date and zone made one time in UTC (nbgrader then reads
        it as UTC); a body with no due date is left as it is."""
        body = super().get_json_body()
        if not isinstance(body, dict) or not body.get("duedate_notimezone"):
            return body
        due = utc_due(body["duedate_notimezone"], body.get("duedate_timezone"))
        return {**body, "duedate_notimezone": due, "duedate_timezone": None}

    def put(self, assignment_id: str) -> None:
        try:
            super().put(assignment_id)  # nbgrader's checks of the login first, then the body
        except DueDateError as why:
            self.set_status(400)
            self.finish({"error": str(why)})  # a dict goes out as application/json


def seconds_late(
    gradebook: Gradebook, assignment_id: str, student_id: str, stamp: datetime.datetime | None
) -> float:
    """How late a submission is: nbgrader's own figure once autograded, else ``stamp`` (its
    ``timestamp.txt``, naive UTC as nbgrader reads it) against the assignment's due date."""
    with contextlib.suppress(MissingEntry):
        return float(gradebook.find_submission(assignment_id, student_id).total_seconds_late)
    with contextlib.suppress(MissingEntry):
        due = gradebook.find_assignment(assignment_id).duedate
        if stamp is not None and due is not None:
            return max(0.0, (stamp - due).total_seconds())
    return 0.0


def stopped_students(course_root: Path) -> set[str]:
    """The students whose newest grading stopped for a reason not theirs."""
    path = course_root / RESULTS_RECORD
    try:
        results = json.loads(path.read_text()) if path.exists() else []
    except (OSError, ValueError):
        return set()
    return {
        r["student"]
        for r in results
        if any(p.get("kind") == NOT_GRADED_KIND for p in r.get("problems", []))
    }


class LateAPI(NbGraderAPI):
    """nbgrader's API, each submission record saying how late it is."""

    def _add_lateness(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stopped = stopped_students(Path(self.coursedir.root))
        with self.gradebook as gradebook:
            known: dict[str, dict[str, float]] = {}  # assignment -> student -> seconds late
            for record in records:
                earlier = EARLIER_GRADE if record.get("autograded") else NO_EARLIER_GRADE
                record["not_graded"] = earlier if record.get("student") in stopped else ""
                if not record.get("submitted"):
                    record["seconds_late"], record["late"] = 0.0, ""
                    continue
                name, student = record["name"], record["student"]
                if name not in known:
                    # nbgrader's own figure for the whole class at once: asking seconds_late
                    # once a student made a list of 1,000 take seconds.
                    rows = gradebook.assignment_submissions(name)
                    known[name] = {row.student_id: float(row.total_seconds_late) for row in rows}
                if student in known[name]:
                    seconds = known[name][student]
                else:  # not in the gradebook: its timestamp.txt against the due date
                    autograded = record.get("autograded")
                    stamp = None if autograded else self.get_submitted_timestamp(name, student)
                    seconds = seconds_late(gradebook, name, student, stamp)
                record["seconds_late"], record["late"] = seconds, late_words(seconds)
        return records

    # nbgrader's get_student_submissions, and get_submissions for work not yet autograded,
    # build their records with get_submission: those come through here.
    def get_submission(
        self, assignment_id: str, student_id: str, *args: Any, **kwargs: Any
    ) -> dict[str, Any] | None:
        submission = super().get_submission(assignment_id, student_id, *args, **kwargs)
        if submission is None or "late" in submission:
            return submission
        return self._add_lateness([submission])[0]

    def get_submissions(self, assignment_id: str) -> list[dict[str, Any]]:
        submissions = super().get_submissions(assignment_id)
        self._add_lateness([record for record in submissions if "late" not in record])
        return submissions
