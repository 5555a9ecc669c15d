"""How late a submission is, in the words every report and the Formgrader use.

Kept apart from ``summary`` so that the Formgrader's extension can say it without importing the
grading code (``summary`` reads the hidden tests' records).

But: it only words a number of seconds; the figure is nbgrader's (``total_seconds_late``).
"""

from __future__ import annotations


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
