"""The class's mistakes at a glance: per exercise, how many students made each named mistake.

``count_mistakes`` reads the judged verdict of every test cell (``verdicts.json``) and puts
each student's failed answer to an exercise in one bar: the mistake the judge named (in the
hidden core cases first, then the random ones, then the visible examples), else a helper
from another lesson that the answer calls without defining it (``NameError: name
'pair_counts' is not defined`` in lesson 2, which asks the student to paste lesson 1's: the
bar "missing helper from lesson 1 (pair_counts)"), else ``not written`` (the released stub),
else ``unexplained`` (failed, and no known mistake fits).
``report`` writes ``mistakes.csv`` (the students behind each bar), ``mistakes.png`` and
beside it ``mistakes.txt`` (the figure in words, :func:`describe`), and returns the table
and that description, which the class summary prints.

But: it judges nothing itself, and a notebook that was never graded (missing, unreadable)
has no verdicts, so it is in no bar.

>>> verdicts = [
...     {"student": "ada", "cell": "test_merge_pair_hidden_core", "points": 1, "verified": 0.0,
...      "why": "merge_pair is wrong on 2 of 9 test inputs (likely mistake: overlapping "
...             "merges). The smallest: ..."},
...     {"student": "bo", "cell": "test_merge_pair_examples", "points": 1, "verified": 0.0,
...      "why": "example merge_pair(('a', 'b'), ('a', 'b')) gave ('b', 'a')"},
... ]
>>> [(b.exercise, b.label, b.students) for b in count_mistakes(verdicts)]
[('merge_pair', 'overlapping merges', ['ada']), ('merge_pair', 'unexplained', ['bo'])]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.course import EXERCISES, RECORDS, exercise_of
from autograder.reports.safe_csv import write_csv
from bpe_course.feedback import named_mistake, not_written
from bpe_course.mistakes import mistake_names

NAMED, NOT_WRITTEN, UNEXPLAINED = "named", "not written", "unexplained"
# Where a named mistake is looked for first: the core cases are built to trip each one.
_CELL_ORDER = ("hidden_core", "hidden_random", "examples")
# The lesson (notebook number) of each exercise; the judge runs an answer with its own
# lesson's definitions only, so an exercise of another lesson must be pasted in.
LESSON_OF = {
    "pair_counts": 1,
    "merge_pair": 1,
    "train_bpe": 2,
    "encode_bpe": 2,
    "merge_and_update": 4,
}
_UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")


@dataclass(frozen=True)
class Bar:
    """One bar of the figure: an exercise, what went wrong, and who."""

    exercise: str
    kind: str  # NAMED, NOT_WRITTEN or UNEXPLAINED
    mistake: str  # the mistake's name; "" for the other kinds
    students: list[str]

    @property
    def label(self) -> str:
        return self.mistake or self.kind


def _cell_rank(exercise: str, cell: str) -> int:
    part = cell.removeprefix(f"test_{exercise}_")
    return _CELL_ORDER.index(part) if part in _CELL_ORDER else len(_CELL_ORDER)


def missing_helper(exercise: str, message: str) -> str | None:
    """The name of a helper from another lesson that a failure message says is undefined.

    >>> missing_helper("train_bpe", "train_bpe raised NameError: name 'merge_pair' is not "
    ...     "defined on every input; ...")
    'missing helper from lesson 1 (merge_pair)'
    >>> missing_helper("train_bpe", "NameError: name 'STEP' is not defined") is None
    True
    """
    for name in _UNDEFINED.findall(message):
        if name in LESSON_OF and LESSON_OF[name] != LESSON_OF.get(exercise):
            return f"missing helper from lesson {LESSON_OF[name]} ({name})"
    return None


def _diagnosis(exercise: str, failed: list[dict[str, Any]]) -> tuple[str, str]:
    """(kind, mistake) for one student's failed test cells of one exercise."""
    ordered = sorted(failed, key=lambda v: (_cell_rank(exercise, v["cell"]), v["cell"]))
    for name_of in (named_mistake, missing_helper):  # a named mistake first, in any cell
        for verdict in ordered:
            mistake = name_of(exercise, verdict.get("why", ""))
            if mistake is not None:
                return NAMED, mistake
    if any(not_written(exercise, v.get("why", "")) for v in ordered):
        return NOT_WRITTEN, ""
    return UNEXPLAINED, ""


def count_mistakes(verdicts: list[dict[str, Any]]) -> list[Bar]:
    """The bars, by exercise in the course's order, then named mistakes in the catalogue's
    order, then not written and unexplained; each bar's students sorted."""
    failed: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for verdict in verdicts:
        exercise = exercise_of(verdict.get("cell", ""))
        judged = verdict.get("verified")
        if exercise is not None and judged is not None and judged < verdict.get("points", 0):
            failed.setdefault((exercise, verdict["student"]), []).append(verdict)
    who: dict[tuple[str, str, str], list[str]] = {}
    for (exercise, student), cells in sorted(failed.items()):
        who.setdefault((exercise, *_diagnosis(exercise, cells)), []).append(student)
    known = mistake_names()
    bars = []
    for exercise in EXERCISES:
        order = [(NAMED, m) for m in known.get(exercise, [])]
        helpers = {m for (name, kind, m) in who if name == exercise and kind == NAMED}
        order += [(NAMED, m) for m in sorted(helpers - set(known.get(exercise, [])))]
        order += [(NOT_WRITTEN, ""), (UNEXPLAINED, "")]
        for kind, mistake in order:
            students = who.get((exercise, kind, mistake))
            if students:
                bars.append(Bar(exercise, kind, mistake, students))
    return bars


def plot(bars: list[Bar], path: Path) -> None:
    """Horizontal bars, one per mistake, grouped by exercise (a gap and a heading between
    groups); the unnamed kinds are drawn grey and hatched, so they differ by more than
    colour."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    positions, labels, colors, hatches, heads = [], [], [], [], []
    y = 0.0
    for exercise in EXERCISES:
        mine = [b for b in bars if b.exercise == exercise]
        if not mine:
            continue
        heads.append((y, exercise))
        y += 1
        for bar in mine:
            positions.append(y)
            labels.append(bar.label)
            colors.append("#0072B2" if bar.kind == NAMED else "#9a9a9a")
            hatches.append("" if bar.kind == NAMED else "//")
            y += 1
        y += 0.5
    fig, ax = plt.subplots(figsize=(9, 1.0 + 0.3 * max(y, 1)))
    counts = [len(b.students) for b in bars]
    ax.barh(positions, counts, color=colors, hatch=hatches, edgecolor="white")
    for position, count in zip(positions, counts):
        ax.text(count, position, f" {count}", va="center", fontsize=8)
    for position, exercise in heads:
        ax.text(0, position, exercise, va="center", fontsize=9, fontweight="bold")
    ax.set_yticks(positions, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("students")
    ax.set_xlim(0, max(counts, default=1) * 1.15 + 0.5)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title("Failed answers by the mistake the judge named" if bars else "No failed answers")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def format_table(bars: list[Bar]) -> str:
    """The bars as text: exercise, students, what went wrong."""
    if not bars:
        return "mistakes: no failed answers"
    lines = [f"{'exercise':<18} {'students':>8}  mistake", "-" * 60]
    for bar in bars:
        label = bar.mistake or f"({bar.kind})"
        lines.append(f"{bar.exercise:<18} {len(bar.students):>8}  {label}")
    return "\n".join(lines)


def describe(bars: list[Bar]) -> str:
    """The figure in words: per exercise, each bar's label and how many students.

    >>> said = describe([Bar("merge_pair", NAMED, "overlapping merges", ["ada", "bo"]),
    ...                  Bar("merge_pair", UNEXPLAINED, "", ["cy"])])
    >>> said.split(". ", 1)[1]
    'merge_pair: overlapping merges 2 students; unexplained 1 student.'
    """
    if not bars:
        return "Bar chart of failed answers by mistake: no failed answers."
    parts = []
    for exercise in EXERCISES:
        mine = [b for b in bars if b.exercise == exercise]
        if mine:
            said = "; ".join(
                f"{b.label} {len(b.students)} student{'s' if len(b.students) != 1 else ''}"
                for b in mine
            )
            parts.append(f"{exercise}: {said}.")
    return (
        "Bar chart of failed answers by mistake (named mistakes in solid blue, the rest grey "
        "and hatched). " + " ".join(parts)
    )


def report(course_root: Path, verdicts: list[dict[str, Any]]) -> str:
    """Write ``mistakes.csv``, ``mistakes.png`` and ``mistakes.txt`` (the figure in words)
    under ``artifacts/grading``; return the table and the figure's description."""
    bars = count_mistakes(verdicts)
    header = ["exercise", "kind", "mistake", "count", "students"]
    rows = [[b.exercise, b.kind, b.mistake, len(b.students), " ".join(b.students)] for b in bars]
    write_csv(course_root / RECORDS / "mistakes.csv", header, rows)
    plot(bars, course_root / RECORDS / "mistakes.png")
    description = describe(bars)
    (course_root / RECORDS / "mistakes.txt").write_text(description + "\n", encoding="utf-8")
    return format_table(bars) + "\n\nmistakes.png: " + description
