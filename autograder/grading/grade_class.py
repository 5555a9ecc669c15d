"""Grade a class, regrade it and report whose grade moved, and find strangers in it.

``grade_class`` (``make autograde``) grades each student of ``submitted/`` as one task on Dask
(``on_dask``) or, ``--in-process``, here; this one process merges each student's rows into
``gradebook.db`` as they arrive (SQLite sees one writer), keeps what was found in
``results.json`` and ``verdicts.json``, and prints the class summary. Nothing is graded unless
the term's core hidden cases catch every known mistake (``cases.why_unfair``). ``regrade``
(``make regrade``) grades every student between two ``snapshot``s of the gradebook and writes
``artifacts/grading/regrade-<time>.csv`` and ``.md``: whose grade moved, and which cells.

>>> before = {"ada": {"test_merge_pair_hidden_core": 0.0, "test_merge_pair_examples": 1.0}}
>>> after = {"ada": {"test_merge_pair_hidden_core": 1.0, "test_merge_pair_examples": 1.0}}
>>> [(c.student, c.before, c.after, c.cells) for c in changes(before, after)]
[('ada', 1.0, 2.0, [('test_merge_pair_hidden_core', 0.0, 1.0)])]

``check_class`` (``make check-class``, and first in ``make autograde``) lists each id of the
gradebook, ``submitted/`` or ``feedback/`` that is no student of the class, and each Dask
scratch folder of the temporary folder that another account owns (a Dask process started
without a folder of its own would import modules from it), with how to remove it.

But: grading one student is ``grade_one``'s. A regrade tells the instructor, not the students.
The check removes nothing, and cannot tell a student dropped from the roster from a made-up id.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from distributed import Client
from nbgrader.api import Gradebook, MissingEntry
from tqdm import tqdm

from autograder.course import (
    ASSIGNMENT,
    ERRORS_LOG,
    RECORDS,
    REFUSED_RECORD,
    RESULTS_RECORD,
    VERDICTS_RECORD,
    class_db_path,
    find_students,
    sqlite_uri,
    term_secret,
)
from autograder.grading.grade_one import scratch_root
from autograder.grading.gradebook_rows import StudentResult, make_template, merge_student
from autograder.grading.on_dask import (
    grade_on_cluster,
    grade_task,
    open_cluster,
    ready_to_grade,
    refuse_blind,
)
from autograder.grading.options import GradingOptions
from autograder.hidden_tests.cases import why_unfair
from autograder.problems import printable
from autograder.reports import summary
from autograder.reports.export_grades import course_version
from autograder.reports.safe_csv import replacing, write_csv
from autograder.reports.summary import UNGRADED, given_score, total
from autograder.roster import read_roster, why_not_a_student
from autograder.sandbox import bwrap
from autograder.sandbox.trusted_paths import refuse_untrusted


def _gradebook_ids(course_root: Path) -> list[str]:
    path = class_db_path(course_root)
    if not path.exists():
        return []
    with sqlite3.connect(sqlite_uri(path, read_only=True), uri=True) as db:
        known = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'student'").fetchone()
        return [row[0] for row in db.execute("SELECT id FROM student")] if known else []


def strangers(course_root: Path) -> list[str]:
    """One line for each id that is no student of the class, where it is and what to do."""
    roster = read_roster(course_root)
    found = []
    for name in _gradebook_ids(course_root):
        remove = f"`nbgrader db student remove {_shell(name)} --force`"
        found.append((name, "the gradebook", f"remove it with {remove}"))
    for place in ("submitted", "feedback"):
        folder = course_root / place
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            move = f"`mv {place}/{_shell(path.name)} <somewhere else>`"
            found.append((path.name, f"{place}/", f"move it out of the course with {move}"))
    return [
        f"in {where}: {why}; {fix}"
        for name, where, fix in found
        if (why := why_not_a_student(name, roster))
    ]


def foreign_dask_folders() -> list[str]:
    """One line for each Dask scratch folder in the temporary folder another account owns."""
    lines = []
    for path in sorted(Path(tempfile.gettempdir()).glob("dask-scratch-space*")):
        try:
            owner = path.lstat().st_uid
        except OSError:
            continue
        if owner not in (0, os.geteuid()):
            lines.append(
                f"{path} belongs to uid {owner}: a Dask program started without a folder of "
                f"its own would import modules from it; as root, `rm -rf {path}`"
            )
    return lines


def _shell(text: str) -> str:
    """``text`` quoted for a shell, with non-printing characters shown escaped."""
    return shlex.quote(printable(text)[:120])


def strangers_report(course_root: Path) -> list[str]:
    """Print what was found (nothing when all is well); return it."""
    lines = strangers(course_root) + foreign_dask_folders()
    for line in lines:
        print(f"check: {line}")
    return lines


def check_class(course_root: Path) -> int:
    """Print what was found, or that all is well; 1 when something was found."""
    lines = strangers_report(course_root)
    if not lines:
        print(f"check: every id of {ASSIGNMENT}'s gradebook and folders is a student's")
    return 1 if lines else 0


def save_grading_results(course_root: Path, results: list[StudentResult]) -> None:
    """Keep what grading found about each student, with the course version that graded them,
    and each of their test cells' verdicts; a student graded again replaces their entries."""
    graded = {r.student for r in results}
    path = course_root / RESULTS_RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {r["student"]: r for r in json.loads(path.read_text())} if path.exists() else {}
    version = course_version()  # a term's records name the course that graded them
    for result in results:
        old[result.student] = {**result.record(), "course_version": version}
    with replacing(path) as out:  # whole, for the grading service's summary thread reads it
        out.write(json.dumps([old[s] for s in sorted(old)], indent=1))
    record = course_root / VERDICTS_RECORD
    kept = json.loads(record.read_text()) if record.exists() else []
    kept = [v for v in kept if v["student"] not in graded]
    fresh = [v for r in results for v in r.verdicts]
    with replacing(record) as out:
        out.write(json.dumps(kept + fresh, indent=1))


def notebooks_missing(course_root: Path, class_db: Path) -> list[str]:
    """The notebooks of ``source/<assignment>/`` that the gradebook does not hold (all, when
    it knows only the assignment's name, as ``nbgrader db assignment add`` leaves it)."""
    masters = sorted(p.stem for p in (course_root / "source" / ASSIGNMENT).glob("*.ipynb"))
    if not class_db.exists():
        return masters
    with sqlite3.connect(class_db) as db:  # a file that holds no gradebook yet is not made one
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'assignment'").fetchone():
            return masters
    with Gradebook(f"sqlite:///{class_db}") as gradebook:
        try:
            held = {notebook.name for notebook in gradebook.find_assignment(ASSIGNMENT).notebooks}
        except MissingEntry:
            return masters
    return [name for name in masters if name not in held]


def record_refused(course_root: Path, refused: dict[str, str]) -> None:
    """Say which folders of submitted/ were refused, here and in ``refused.json``."""
    path = course_root / REFUSED_RECORD
    path.unlink(missing_ok=True)
    if refused:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(refused, indent=1))
    for folder, why in sorted(refused.items()):
        print(f"refused submitted/{printable(folder)[:80]}: {printable(why)}; not graded")


def merge_result(course_root: Path, result: StudentResult) -> StudentResult:
    """Merge one student's rows into the class gradebook (this process is its one writer), or
    log why their grading stopped, with its traceback; the result without its rows, with the
    merge's time."""
    start = time.perf_counter()
    if result.stopped:  # not the student's doing: their earlier grades stay
        path = course_root / ERRORS_LOG
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with path.open("a") as log:
            log.write(f"== {stamp} {result.student}\n{result.log}\n")
    elif result.rows:
        merge_student(class_db_path(course_root), ASSIGNMENT, result.student, result.rows)
    return replace(result, rows={}, merge_seconds=time.perf_counter() - start)


def start_grading(
    options: GradingOptions, stack: contextlib.ExitStack
) -> tuple[Client | None, Path]:
    """Everything before the first student is graded, closed by ``stack``: the cluster (None
    with ``in_process``), every process proved able to grade, the term's cases checked fair;
    returns the client and the path of the empty gradebook each student is graded into, which
    ``ready_template`` makes. Stops the command (``SystemExit``) saying why when grading
    cannot start."""
    course_root = options.course_root
    if not (options.unconfined or bwrap.available()):
        raise SystemExit(
            f"refusing to grade: {bwrap.why_unavailable()}. Without the sandbox a student's code "
            "runs as you, beside everyone's files; to grade anyway, say UNCONFINED=1 (make) or "
            "--unconfined, and every grade will say so."
        )
    client = None
    if options.in_process:
        problem = ready_to_grade(options, "this grading process")
        if problem:
            raise SystemExit(problem)
    else:
        client = stack.enter_context(open_cluster(options, course_root / RECORDS / "workers.log"))
        refuse_blind(client, course_root, "submitted", "Nothing was graded.")
    # Every student meets these same cases. Checked once the cluster answers: a scheduler
    # that cannot be reached stops the run before anything (the term's secret) is written.
    unfair = why_unfair(term_secret(course_root))
    if unfair:
        raise SystemExit(unfair)
    scratch = Path(tempfile.mkdtemp(prefix="grade-class-", dir=scratch_root(course_root)))
    stack.callback(shutil.rmtree, scratch, ignore_errors=True)
    return client, scratch / "template.db"


def ready_template(course_root: Path, template: Path) -> None:
    """Make ``template`` (``start_grading``'s): the class gradebook without its students, once
    it holds every notebook of the assignment (else generate_assignment runs). The grading
    service makes its own, never generating the assignment (``Service.assignment_ready``)."""
    class_db = class_db_path(course_root)
    missing = notebooks_missing(course_root, class_db)
    if missing:
        print(
            f"{class_db.name} does not hold {', '.join(missing)} of assignment {ASSIGNMENT!r}: "
            "running generate_assignment (a due date already set is kept)"
        )
        bin_dir = str(Path(sys.executable).parent)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        nbgrader = [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"]
        subprocess.run([*nbgrader, "--log-level=WARN"], cwd=course_root, env=env, check=True)
    make_template(class_db, template)


def grade_class(options: GradingOptions, students: list[str] | None = None) -> list[StudentResult]:
    """Grade ``students`` (default: all in submitted/) into the class gradebook, where
    ``options`` say, and record what was found in ``artifacts/grading/results.json``; return
    the results without their rows, sorted by student. The caller prints the summary."""
    course_root = options.course_root.resolve()
    options = replace(options, course_root=course_root)
    refuse_untrusted("the grading process")
    strangers_report(course_root)  # strangers from before: a person removes them
    roster = read_roster(course_root)
    found = find_students(course_root) if students is None else students
    # Only students of the class are graded: a made-up id never reaches the gradebook.
    refused = {s: why for s in found if (why := why_not_a_student(s, roster))}
    students = [s for s in found if s not in refused]
    record_refused(course_root, refused)
    results: list[StudentResult] = []
    if not students:
        print(f"nothing to grade: no folder submitted/<student>/{ASSIGNMENT} in {course_root}")
        return results
    options = options.for_tasks(len(students))
    with contextlib.ExitStack() as stack:
        client, template = start_grading(options, stack)
        ready_template(course_root, template)
        bar = tqdm(
            total=len(students), unit="student", disable=not options.progress, file=sys.stderr
        )
        stack.callback(save_grading_results, course_root, results)  # even if a run stops
        stack.enter_context(bar)

        def on_result(result: StudentResult) -> None:
            results.append(merge_result(course_root, result))
            bar.set_postfix_str(result.student[-20:])
            bar.update(1)

        if client is None:  # the baseline the cluster is measured against
            for student in students:
                on_result(grade_task(options, student, template))
        else:
            grade_on_cluster(client, options, students, template, on_result)
    return sorted(results, key=lambda r: r.student)


def run(options: GradingOptions, students: list[str] | None = None) -> int:
    """Grade, print how long it took and the class summary; the command's exit status."""
    start = time.perf_counter()
    results = grade_class(options, students)
    record = options.course_root / REFUSED_RECORD
    refused = json.loads(record.read_text()) if record.exists() else {}
    if not results:
        return 1 if refused else 0
    seconds = time.perf_counter() - start
    merging = sum(r.merge_seconds for r in results) / len(results)
    print(
        f"graded {len(results)} submission(s) in {seconds:.1f} s "
        f"{options.for_tasks(len(results)).where()} "
        f"({seconds / len(results):.2f} s a student; merging into the gradebook "
        f"{1000 * merging:.0f} ms a student)"
    )
    summary.report(options.course_root)
    return _exit_status(results, refused)


def _exit_status(results: list[StudentResult], refused: dict[str, str]) -> int:
    """0, or 1 with one line saying why: students not graded, folders refused (a student left
    to a person is graded: the summary names them)."""
    not_graded = [r.student for r in results if r.stopped]
    if not_graded:
        print(
            f"{len(not_graded)} student(s) not graded, for a reason that is not theirs "
            f"(the grades shown for them are from an earlier submission): see {ERRORS_LOG}",
            file=sys.stderr,
        )
    if refused:
        print(f"{len(refused)} folder(s) of submitted/ refused: not students of the class",
              file=sys.stderr)  # fmt: skip
    return 1 if not_graded or refused else 0


def regrade(options: GradingOptions) -> int:
    """Grade the whole class, then report whose grade moved; the grading's exit status."""
    root = options.course_root
    before = snapshot(root)
    try:
        status = run(options)
    finally:
        # Even a run that stopped part way may have moved grades: the report says whose.
        path, table = write_report(root, before, snapshot(root))
        print(f"\nregrade: whose grade moved (also {path} and {path.with_suffix('.md').name})")
        print(table)
    return status


# student -> test cell grade_id -> score (None: waiting for a person, or not scored)
Snapshot = dict[str, dict[str, float | None]]
COLUMNS = ("student", "before", "after", "change", "test cells that moved")


@dataclass(frozen=True)
class Change:
    """One student whose grade a regrade moved: totals (None: not complete) and the cells."""

    student: str
    before: float | None
    after: float | None
    cells: list[tuple[str, float | None, float | None]]

    @property
    def change(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before


def snapshot(course_root: Path) -> Snapshot:
    """Every student's score on every test cell of the assignment, as the gradebook holds it."""
    db = class_db_path(course_root)
    if not db.exists():
        return {}
    with Gradebook(f"sqlite:///{db}") as gb:
        submissions = sorted(gb.assignment_submissions(ASSIGNMENT), key=lambda s: s.student_id)
        return {
            submission.student_id: {
                grade.name: given_score(grade)
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
            for submission in submissions
        }


def changes(before: Snapshot, after: Snapshot) -> list[Change]:
    """Each student (by name) with a test cell scored differently after than before; a
    student new to the gradebook counts too, a student the regrade did not reach does not."""
    moved = []
    for student in sorted(after):
        old, new = before.get(student, {}), after[student]
        cells = [
            (cell, old.get(cell), new.get(cell))
            for cell in sorted(set(old) | set(new))
            if old.get(cell) != new.get(cell) or (cell in old) != (cell in new)
        ]
        if cells:
            moved.append(Change(student, total(old) if old else None, total(new), cells))
    return moved


def _score(score: float | None, sign: str = "") -> str:
    return UNGRADED if score is None else f"{score:{sign}g}"


def rows(moved: list[Change]) -> list[tuple[str, ...]]:
    """The report's rows as text, one per student: COLUMNS."""
    return [
        (
            c.student,
            _score(c.before),
            _score(c.after),
            _score(c.change, "+"),
            "; ".join(f"{cell} {_score(a)} → {_score(b)}" for cell, a, b in c.cells),
        )
        for c in moved
    ]


def format_table(moved: list[Change], students: int) -> str:
    """The report as a Markdown table (also readable as plain text), with a closing line."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)] if moved else []
    # A student id is a folder name the student may have chosen: no escape sequence or "|"
    # of it reaches the terminal or the Markdown table.
    lines += [
        "| " + " | ".join(printable(text).replace("|", "\\|") for text in row) + " |"
        for row in rows(moved)
    ]
    lines.append(
        f"{len(moved)} of {students} students' grades moved"
        + ("; tell them." if moved else ": nobody to tell.")
    )
    return "\n".join(lines)


def write_report(course_root: Path, before: Snapshot, after: Snapshot) -> tuple[Path, str]:
    """Write ``regrade-<UTC time>.csv`` and ``.md`` under artifacts/grading; return the CSV's
    path and the table to print."""
    when = datetime.now(UTC)
    moved = changes(before, after)
    out = course_root / RECORDS
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"regrade-{when:%Y%m%d-%H%M%S}"
    csv_path = stem.with_suffix(".csv")
    write_csv(csv_path, COLUMNS, rows(moved))  # text cells safe in a spreadsheet
    table = format_table(moved, len(after))
    title = f"# Regrade of {when:%Y-%m-%d %H:%M} UTC\n\nGrades are totals of the test cells "
    title += f"({UNGRADED}: waiting for a person); a hand grade counts over the automatic one.\n\n"
    stem.with_suffix(".md").write_text(title + table + "\n")
    return csv_path, table
