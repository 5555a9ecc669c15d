"""How late each submission is, from nbgrader's own gradebook, for the Formgrader's pages.

``LateAPI`` is nbgrader's ``NbGraderAPI`` whose submission records (the JSON behind the
assignment's submissions list and a student's list of assignments) carry two more keys:
``seconds_late`` and ``late``, the words the class summary and ``grades.csv`` use ("late by
1 h 2 min", or "" when on time). An autograded submission's lateness is nbgrader's
``total_seconds_late`` (its timestamp against the due date plus any extension); one collected
but not yet autograded has no gradebook record, so its ``timestamp.txt`` is set against the
assignment's due date. ``late_by`` gives the same words for one submission, for the pages drawn
on the server. A record also carries ``not_graded``: for a student whose newest grading
stopped for a reason not theirs (``results.json``), the words saying the grade shown is from an
earlier submission, as the summary and ``grades.csv`` say them ("" otherwise).

But: it only reads; the penalty, if any, is nbgrader's late-submission plug-in's, applied at
autograde. With no due date nothing is late.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.api import NbGraderAPI

from autograder.course import RESULTS_RECORD
from autograder.problems import EARLIER_GRADE, NO_EARLIER_GRADE, NOT_GRADED_KIND
from autograder.reports.late import late_words


def seconds_late(
    gradebook: Gradebook, assignment_id: str, student_id: str, stamp: datetime.datetime | None
) -> float:
    """How late a submission is: nbgrader's own figure once autograded, else ``stamp`` (its
    ``timestamp.txt``, naive UTC as nbgrader reads it) against the assignment's due date."""
    try:
        return float(gradebook.find_submission(assignment_id, student_id).total_seconds_late)
    except MissingEntry:
        pass
    try:
        due = gradebook.find_assignment(assignment_id).duedate
    except MissingEntry:
        return 0.0
    if stamp is None or due is None:
        return 0.0
    return max(0.0, (stamp - due).total_seconds())


def late_by(gradebook: Gradebook, assignment_id: str, student_id: str) -> str:
    """The words for an autograded submission's lateness ('' when on time or not found)."""
    return late_words(seconds_late(gradebook, assignment_id, student_id, None))


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
            for record in records:
                earlier = EARLIER_GRADE if record.get("autograded") else NO_EARLIER_GRADE
                record["not_graded"] = earlier if record.get("student") in stopped else ""
                if not record.get("submitted"):
                    record["seconds_late"], record["late"] = 0.0, ""
                    continue
                stamp = None
                if not record.get("autograded"):
                    stamp = self.get_submitted_timestamp(record["name"], record["student"])
                seconds = seconds_late(gradebook, record["name"], record["student"], stamp)
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
