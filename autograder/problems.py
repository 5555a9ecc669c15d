"""A finding about one student's submission, as plain data every room may read.

``Problem`` is what inspecting a submission, grading it and judging it find (a missing
notebook, a lost kernel, a failing test, a link refused...), each of a kind from
``_WORDING``; ``printable`` escapes a student's names before any terminal or table shows them;
``late_words`` says how late a submission is, in the words every report and the Formgrader use
(the Formgrader's extension reads it here without importing the grading code).

But: it finds nothing itself (``autograder.grading.grade_one`` and the grading steps
do) and changes nothing; a lateness is nbgrader's figure (``total_seconds_late``), only worded
here.

>>> Problem("extra_file", "", "notes.txt").text()
'extra file: notes.txt (ignored)'
"""

from __future__ import annotations

from dataclasses import dataclass

# Grading stopped for a reason that is not the student's (a kernel that cannot start, a worker
# that cannot grade or keeps dying): nothing reaches the gradebook, earlier grades stay.
NOT_GRADED_KIND = "not_graded"
# A link or special file in the submission: nothing of it runs, its regular-file notebooks
# reach the gradebook and the Formgrader unscored, for a person.
REFUSED_KIND = "unsafe_file"
# Too many files or folders in a submission (``safe_walk.MAX_ENTRIES``, ``MAX_DEPTH``): set
# aside unopened like a refused one; the detail says it all ("too many files (more than 200)").
CROWDED_KIND = "too_many_files"
# Submissions set aside for a person with nothing of them run: in the gradebook, not failed.
SET_ASIDE_KINDS = frozenset({REFUSED_KIND, CROWDED_KIND})
# A notebook whose outputs the student's kernel sent malformed (repaired or dropped), and one
# that nbgrader still could not convert: the rest of the submission is graded, a person looks.
REPAIRED_KIND = "output_repaired"
NOTEBOOK_FAILED_KIND = "notebook_failed"
# What a student reads whose newest grading stopped (NOT_GRADED_KIND), in the summary,
# grades.csv and the Formgrader: the scores shown are not of that submission.
EARLIER_GRADE = "the grade shown is from an earlier submission; the newer one is not graded"
NO_EARLIER_GRADE = "no grade yet: the submission is not graded"
# What nbgrader's own submit and collect put beside the notebooks: never the student's extras.
NBGRADER_FILES = {"timestamp.txt", "submission_secret.txt"}
# How each kind of finding reads in the summary, and whether a person must look at it.
_WORDING = {
    "missing_notebook": ("missing notebook", False),
    "invalid_json": ("not a readable notebook", True),
    "extra_file": ("extra file", False),
    "deleted_test_cell": ("locked test cell deleted, needs manual grading", True),
    "edited_locked_cell": ("locked cell edited, restored from the master", False),
    "kernel_lost": ("kernel lost", False),
    "timeout": ("cell timed out", False),
    "memory": ("memory limit reached", False),
    "test_failed": ("test failed", False),
    "grading_error": ("grading failed", True),
    NOT_GRADED_KIND: ("not graded", True),
    "unconfined": ("graded without the sandbox", False),
    REFUSED_KIND: (
        "a link or special file in the submission, never opened; the rest waits in the "
        "Formgrader for a person",
        True,
    ),
    "judge_mismatch": ("a stored score differs from the judged one", True),
    "too_large": ("a notebook too large to grade, left for a person", True),
    CROWDED_KIND: ("", True),
    # The detail says it all: "<notebook>: <why>".
    REPAIRED_KIND: ("", True),
    NOTEBOOK_FAILED_KIND: ("", True),
}


@dataclass(frozen=True)
class Problem:
    """One finding: its kind, the notebook it is in ("" for the whole submission), details."""

    kind: str
    notebook: str
    detail: str

    def text(self) -> str:
        """One line for the instructor's terminal: the submission's own names and messages
        with every non-printing character escaped, so none can move the cursor, change the
        terminal or fake a row."""
        words = _WORDING[self.kind][0]
        head = f"{words}: " if words else ""
        where = f"{printable(self.notebook)}: " if self.notebook else ""
        ignored = " (ignored)" if self.kind == "extra_file" else ""
        return f"{head}{where}{printable(self.detail)}{ignored}"

    @property
    def needs_person(self) -> bool:
        return _WORDING[self.kind][1]


def printable(text: str) -> str:
    """``text`` with each non-printing character as an escape.

    >>> printable("z-fake\\n\\x1b[2J ok")
    'z-fake\\\\n\\\\x1b[2J ok'
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def how_late(seconds: float) -> str:
    """A duration as days, hours, minutes and seconds, the two largest that are not 0.

    >>> how_late(3.4), how_late(125), how_late(90061)
    ('3 s', '2 min 5 s', '1 d 1 h')
    """
    left, parts = round(seconds), []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if left >= size or (unit == "s" and not parts):
            parts.append(f"{left // size} {unit}")
            left %= size
    return " ".join(parts[:2])


def late_words(seconds: float) -> str:
    """'late by …' for a submission ``seconds`` past its due date, '' when on time.

    >>> late_words(3725.0), late_words(0.0)
    ('late by 1 h 2 min', '')
    """
    return f"late by {how_late(seconds)}" if seconds > 0 else ""
