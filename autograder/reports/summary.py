"""One honest table for the whole class after grading, plus a CSV and a score-distribution figure.

``collect`` reads the gradebook through nbgrader's API and the records grading left: each
student's status (``course.Status``), each exercise's score (``—`` in the table, blank in
``summary.csv``, where nobody has given one: never 0), the visible tests the kernel and the
judge saw differently, how late the submission was (nbgrader's timestamp against the
assignment's due date, both from the gradebook; a submission whose date its own files
contradict, by the collect's record ``filed-late.json``, waits for a person), and notes.
``report`` prints it and writes ``summary.csv`` and ``scores.png`` with ``scores.txt`` beside
it (the figure in words, ``describe_distribution``), then the class's mistakes (``mistakes``: a
table, ``mistakes.csv`` and ``mistakes.png``).

But: it grades nothing and changes no gradebook.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.course import (
    ASSIGNMENT,
    ERRORS_LOG,
    EXERCISES,
    FAILED,
    FILED_LATE_RECORD,
    GRADED,
    NEEDS_PERSON,
    NOT_GRADED,
    RECORDS,
    RESULTS_RECORD,
    VERDICTS_RECORD,
    Status,
    class_db_path,
    exercise_of,
)
from autograder.problems import (  # noqa: F401 - how_late read here
    EARLIER_GRADE,
    NO_EARLIER_GRADE,
    NOT_GRADED_KIND,
    NOTEBOOK_FAILED_KIND,
    REPAIRED_KIND,
    SET_ASIDE_KINDS,
    Problem,
    how_late,
    late_words,
    printable,
)
from autograder.reports import mistakes, safe_csv
from autograder.sandbox.judge_answers import exercises_of

MAX_NOTES = 6  # per student in the printed table
NOTE_WIDTH = 150  # characters of a note in the printed table; the CSV keeps them whole
UNGRADED = "—"  # a score nobody has given yet, in the printed table (blank in the CSVs)
# Findings that put a notebook before a person even when every cell has a score.
_FOR_A_PERSON = (REPAIRED_KIND, NOTEBOOK_FAILED_KIND)


@dataclass
class StudentRow:
    """One line of the class summary."""

    student: str
    state: Status = field(default_factory=Status)
    scores: dict[str, float | None] = field(default_factory=dict)  # None: not graded yet
    maxima: dict[str, float] = field(default_factory=dict)
    nbgrader_total: float = 0.0
    seconds_late: float = 0.0  # nbgrader's: the submission's timestamp less the due date
    disagreements: list[str] = field(default_factory=list)
    waiting: set[str] = field(default_factory=set)  # exercises the judge left to a person
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return str(self.state)

    @property
    def total(self) -> float | None:
        return total(self.scores)

    @property
    def late(self) -> str:
        """'late by …' when submitted after the due date, else ''."""
        return late_words(self.seconds_late)


def total(scores: dict[str, float | None]) -> float | None:
    """The sum of ``scores``, or None while any waits for a score (never a partial sum)."""
    if any(score is None for score in scores.values()):
        return None
    return sum(score for score in scores.values() if score is not None)


def given_score(grade: Any) -> float | None:
    """An nbgrader grade's score (a person's over the automatic one), or None where nobody
    could give one yet: no automatic score, or one waiting for a person. Never 0 for those."""
    graded = grade.manual_score is not None or (
        grade.auto_score is not None and not grade.needs_manual_grade
    )
    return float(grade.score) if graded else None


def _load_json(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text()) if path.exists() else []


def collect(course_root: Path) -> list[StudentRow]:
    """The summary rows, from the gradebook and the records grade_class left."""
    from nbgrader.api import Gradebook, MissingEntry

    results = {r["student"]: r for r in _load_json(course_root / RESULTS_RECORD)}
    # Each student's verdicts looked up by name: a scan of the whole class's list per
    # student made the summary grow as the square of the class.
    verdicts_of: dict[str, list[dict[str, Any]]] = {}
    for verdict in _load_json(course_root / VERDICTS_RECORD):
        verdicts_of.setdefault(verdict["student"], []).append(verdict)
    filed_late = _filed_late(course_root)
    rows = []
    with Gradebook(f"sqlite:///{class_db_path(course_root)}") as gb:
        for student in sorted({s.id for s in gb.students} | set(results)):
            row = StudentRow(student)
            result = results.get(student, {})
            problems = [Problem(**p) for p in result.get("problems", [])]
            try:
                submission = gb.find_submission(ASSIGNMENT, student)
            except MissingEntry:
                if result:  # graded (or refused) but not in the gradebook: never dropped
                    rows.append(_not_in_gradebook(course_root, student, result, problems))
                continue
            row.seconds_late = float(submission.total_seconds_late or 0.0)
            manual = False
            hand_notes: list[str] = []
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    name = exercise_of(grade.name)
                    if name is None:
                        continue
                    row.maxima[name] = row.maxima.get(name, 0.0) + grade.max_score
                    # nbgrader's own sum, as its export has it: a hand score over the automatic.
                    row.nbgrader_total += grade.score or 0.0
                    score = given_score(grade)
                    manual |= bool(grade.needs_manual_grade)
                    hand, auto = grade.manual_score, grade.auto_score
                    if hand is not None and auto is not None and hand != auto:
                        hand_notes.append(
                            f"hand grade kept: {notebook.name}: {grade.name}: by hand {hand:g}, "
                            f"automatic {auto:g}; a person decides"
                        )
                    old = row.scores.get(name, 0.0)
                    row.scores[name] = None if score is None or old is None else old + score
            # A refused submission is in the gradebook for a person: it did not fail.
            refused = any(p.kind in SET_ASIDE_KINDS for p in problems)
            failed = result and not result.get("graded", True) and not refused
            reasons = [p.text() for p in problems if p.needs_person]
            if _not_graded(problems):
                row.state = Status(NOT_GRADED, (EARLIER_GRADE, *_not_graded(problems)))
            elif failed:
                row.state = Status(FAILED, tuple(reasons or ["see artifacts/grading"]))
            elif manual or any(score is None for score in row.scores.values()):
                row.state = Status(NEEDS_PERSON, tuple(reasons or ["ungraded cells"]))
            elif any(p.kind in _FOR_A_PERSON for p in problems):
                row.state = Status(NEEDS_PERSON, tuple(reasons))
            mine = verdicts_of.get(student, [])
            # The judge's findings for a person: the judged score stands, the status says why.
            for_person = [v for v in mine if v.get("needs_person")]
            if for_person:
                row.state = row.state.adding(NEEDS_PERSON, [v["needs_person"] for v in for_person])
            row.waiting = {e for v in for_person if (e := exercise_of(str(v.get("cell", ""))))}
            if student in filed_late:  # lateness rests on a date the files contradict
                row.state = row.state.adding(NEEDS_PERSON, [filed_late[student]])
            row.notes = hand_notes + [p.text() for p in problems if not p.needs_person]
            row.notes += [v["note"] for v in mine if v.get("note")]
            row.disagreements = [d for v in mine if (d := _disagreement(v))]
            rows.append(row)
    return rows


def _filed_late(course_root: Path) -> dict[str, str]:
    """The collect's doubts (``owned_collect``): each student whose copy is dated on time but
    changed after the due date, and why; said, not fatal, where the record does not read."""
    path = course_root / FILED_LATE_RECORD
    try:
        found = json.loads(path.read_text()) if path.exists() else {}
    except ValueError:
        found = None
    if not isinstance(found, dict):
        print(f"{path} does not read: the next collect sets it aside", file=sys.stderr)
        return {}
    return found


def _not_graded(problems: list[Problem]) -> list[str]:
    """Why grading stopped for a reason not the student's, pointing at the errors' log."""
    found = [p.detail for p in problems if p.kind == NOT_GRADED_KIND]
    return [*found, f"the error is in {ERRORS_LOG}"] if found else []


def _disagreement(v: dict[str, Any]) -> str | None:
    """A visible test cell the kernel passed or failed otherwise than the judge outside it."""
    kernel, judged = v.get("nbgrader"), v.get("verified")
    if not v.get("applied") or kernel is None or judged == kernel:
        return None
    return f"{v['cell']}: kernel {kernel:g}, judged {judged:g} ({v['why']})"


def _not_in_gradebook(
    course_root: Path, student: str, result: dict[str, Any], problems: list[Problem]
) -> StudentRow:
    """A student grading found but nbgrader never scored: every exercise waits for a person."""
    reasons = [p.text() for p in problems if p.needs_person] or ["not in the gradebook"]
    failed = not result.get("graded", False) and not problems
    kind = FAILED if failed or any(p.kind == "grading_error" for p in problems) else NEEDS_PERSON
    if _not_graded(problems):
        kind, reasons = NOT_GRADED, [NO_EARLIER_GRADE, *_not_graded(problems)]
    row = StudentRow(student, Status(kind, tuple(reasons)))
    for exercise in exercises_of(course_root):
        row.maxima[exercise.name] = sum(exercise.cells.values())
        row.scores[exercise.name] = None
    row.notes = [p.text() for p in problems if not p.needs_person]
    return row


def _score_text(score: float | None, maximum: float) -> str:
    return UNGRADED if score is None else f"{score:g}/{maximum:g}"


def write_csv(rows: list[StudentRow], path: Path) -> None:
    """``summary.csv``, every text cell safe to open in a spreadsheet (``safe_csv``)."""
    header = ["student", "status", "total", "max", *EXERCISES]
    header += ["late", "nbgrader_total", "disagreements", "notes"]
    lines = []
    for row in rows:
        lines.append(
            [
                row.student,
                row.status,
                "" if row.total is None else f"{row.total:g}",
                f"{sum(row.maxima.values()):g}",
                *["" if row.scores.get(n) is None else f"{row.scores[n]:g}" for n in EXERCISES],
                row.late,
                f"{row.nbgrader_total:g}",
                " | ".join(row.disagreements),
                " | ".join(row.notes),
            ]
        )
    safe_csv.write_csv(path, header, lines)


def plot_distribution(rows: list[StudentRow], path: Path) -> None:
    """One histogram per exercise of the graded students' scores; ungraded ones are counted
    in the title, not drawn as 0."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(EXERCISES), figsize=(3 * len(EXERCISES), 3), sharey=True)
    for ax, name in zip(axes, EXERCISES):
        scores = [r.scores[name] for r in rows if r.scores.get(name) is not None]
        ungraded = sum(1 for r in rows if name in r.scores and r.scores[name] is None)
        maximum = max((r.maxima.get(name, 0) for r in rows), default=0)
        bins = [x - 0.5 for x in range(int(maximum) + 2)]
        ax.hist(scores, bins=bins, color="#0072B2", edgecolor="white")
        # Scores are whole points: one tick per possible score, 0 to the exercise's maximum.
        ax.set_xticks(range(int(maximum) + 1))
        ax.set_xlim(-0.5, maximum + 0.5)
        ax.set_title(f"{name}\n({ungraded} ungraded)" if ungraded else name, fontsize=9)
        ax.set_xlabel("score")
    axes[0].set_ylabel("students")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def describe_distribution(rows: list[StudentRow]) -> str:
    """``scores.png`` in words: per exercise, how many graded students got each score."""
    parts = []
    for name in EXERCISES:
        scores = [r.scores[name] for r in rows if r.scores.get(name) is not None]
        ungraded = sum(1 for r in rows if name in r.scores and r.scores[name] is None)
        maximum = int(max((r.maxima.get(name, 0) for r in rows), default=0))
        counts = ", ".join(
            f"{sum(1 for s in scores if int(s + 0.5) == k)} scored {k}" for k in range(maximum + 1)
        )
        tail = f"; {ungraded} ungraded" if ungraded else ""
        parts.append(f"{name} (out of {maximum}): {counts}{tail}.")
    return "Histograms of the graded students' scores, one per exercise. " + " ".join(parts)


def format_table(rows: list[StudentRow]) -> str:
    """The summary as fixed-width text, reasons on indented lines under each student."""
    short = {"pair_counts": "pairs", "merge_pair": "merge", "merge_and_update": "update"}
    labels = (short.get(n, n.split("_")[0])[:7] for n in EXERCISES)  # one per exercise
    head = f"{'student':<20} {'total':>7} " + " ".join(f"{s:>7}" for s in labels) + "  status"
    lines = [head, "-" * len(head)]
    for row in rows:
        maximum = sum(row.maxima.values())
        cells = " ".join(
            f"{_score_text(row.scores.get(n), row.maxima.get(n, 0)):>7}" for n in EXERCISES
        )
        lines.append(
            f"{printable(row.student)[:20]:<20} {_score_text(row.total, maximum):>7} {cells}"
            f"  {row.status}{f' ({row.late})' if row.late else ''}"
        )
        for text in row.disagreements:
            lines.append(f"{'':<22}judged: {text}")
        # Failing tests are the usual case; the CSV keeps all of them.
        shown = [n for n in row.notes if not n.startswith("test failed")][:MAX_NOTES]
        for text in shown:
            cut = text if len(text) <= NOTE_WIDTH else text[: NOTE_WIDTH - 1] + "…"
            lines.append(f"{'':<22}note: {cut}")
        hidden = len(row.notes) - len(shown)
        if hidden:
            lines.append(f"{'':<22}note: {hidden} failing test cell(s), their errors in the CSV")
    kinds = Counter(r.state.kind for r in rows)
    differ = sum(1 for r in rows if r.disagreements)
    lines.append(
        f"{len(rows)} students: {kinds[GRADED]} graded, {kinds[NEEDS_PERSON]} need manual "
        f"grading, {kinds[FAILED]} failed, {kinds[NOT_GRADED]} not graded (the grades shown are "
        f"from an earlier submission); {differ} with visible tests the kernel and the judge saw "
        "differently"
    )
    return "\n".join(lines)


def report(course_root: Path, quiet: bool = False) -> list[StudentRow]:
    """Print the class summary and write the CSV and the figure; return the rows."""
    if not class_db_path(course_root).exists():
        print("no gradebook yet: nothing to summarize (make autograde grades the class)")
        return []
    rows = collect(course_root)
    write_csv(rows, course_root / RECORDS / "summary.csv")
    plot_distribution(rows, course_root / RECORDS / "scores.png")
    scores_text = describe_distribution(rows)
    (course_root / RECORDS / "scores.txt").write_text(scores_text + "\n", encoding="utf-8")
    # The class's view of what went wrong, from the same verdicts.
    mistake_table = mistakes.report(course_root, _load_json(course_root / VERDICTS_RECORD))
    if not quiet:
        print(format_table(rows))
        print(f"\nscores.png: {scores_text}")
        print("\n" + mistake_table)
        written = "summary.csv scores.png scores.txt mistakes.csv mistakes.png mistakes.txt"
        print(f"wrote {', '.join(str(RECORDS / name) for name in written.split())}")
    return rows
