"""The Formgrader's due-date dialog, reading a time zone name as well as a UTC offset.

nbgrader's Edit dialog (Manage Assignments, the pencil beside an assignment) and its Add
dialog send the date and time and, apart, a "timezone" to ``/formgrader/api/assignment/<id>``;
nbgrader joins them with a space and parses the result with ``nbgrader.utils.parse_utc``,
which fails on a zone name such as ``Europe/Paris``: the server answers 500 and the dialog
stays on "Saving…". ``DueDateAPI``, put in front of that route, converts the two to one time in
UTC first, with ``zoneinfo`` (so summer time is the zone's own on that date), and hands nbgrader
the result; what it cannot read gets a 400 whose JSON ``error`` says what is wrong, which
``static/js/duedate_dialog.js`` shows in the dialog as an alert.

But: it changes only the due date sent to that route; nbgrader's command line (``nbgrader db
assignment add --duedate``) parses as nbgrader does. A wall-clock time that a zone skips or
repeats when its clocks change is read with the offset in force before the change.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from typing import Any

from nbgrader.server_extensions.formgrader import apihandlers as nbgrader_api

from autograder.problems import printable

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
    autograder.formgrader.duedates.DueDateError: The time zone 'Europe/Pariss' is unknown: \
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
    autograder.formgrader.duedates.DueDateError: The due date '15/12/2026' is not a date and \
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


def with_utc_due_date(body: Any) -> Any:
    """The JSON body of the dialog's request with its date and zone made one time in UTC
    (nbgrader then reads it as UTC); a body with no due date is left as it is."""
    if not isinstance(body, dict) or not body.get("duedate_notimezone"):
        return body
    due = utc_due(body["duedate_notimezone"], body.get("duedate_timezone"))
    return {**body, "duedate_notimezone": due, "duedate_timezone": None}


class DueDateAPI(nbgrader_api.AssignmentHandler):
    """nbgrader's assignment route, with the due date converted before nbgrader reads it and
    a 400 with an ``error`` in words, rather than a 500, for one it cannot read."""

    def get_json_body(self) -> Any:
        return with_utc_due_date(super().get_json_body())

    def put(self, assignment_id: str) -> None:
        try:
            super().put(assignment_id)  # nbgrader's checks of the login first, then the body
        except DueDateError as why:
            self.set_status(400)
            self.set_header("Content-Type", "application/json")
            self.finish({"error": str(why)})
