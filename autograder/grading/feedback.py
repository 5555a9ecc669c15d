"""Write a graded class's feedback pages: ``make feedback``, one task per student on Dask.

``feedback`` finds every student nbgrader graded (``graded_students``), gives the gradebook
the row nbgrader's readers look for (``gradebook_ready_for_readers``: this process is its
one writer), then hands each student to a worker of the grading cluster, the largest first
(``feedback_on_cluster``, ``largest_first``), or writes them here one after another
(``--in-process``). Whose pages could not be written is said in one line each, with why.

This process imports no nbgrader: the workers do (each task is ``on_dask.feedback_task``,
which runs ``grade_one.write_pages``), so the command's own start, which the workers cannot
share, stays short.

But: a page is nbgrader's ``GenerateFeedback`` output, byte for byte; nothing here writes or
changes one. It grades nothing and reads no grade.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from distributed import Client, Future, as_completed
from distributed.scheduler import KilledWorker

from autograder.course import ASSIGNMENT, RECORDS, class_db_path
from autograder.grading.on_dask import blind_workers, feedback_task, open_cluster
from autograder.grading.options import GradingOptions
from autograder.problems import printable
from autograder.sandbox.trusted_paths import refuse_untrusted

# What nbgrader's GetGrades opens the gradebook with (``Gradebook(db_url)``): its default
# course, which it adds, uncommitted, when the gradebook lacks it.
NBGRADER_DEFAULT_COURSE = "default_course"


def graded_students(course_root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Every student with a folder ``autograded/<student>/<assignment>``, sorted: whom
    nbgrader's generate_feedback gives pages."""
    autograded = course_root / "autograded"
    if not autograded.is_dir():
        return []
    return sorted(p.name for p in autograded.iterdir() if (p / assignment).is_dir())


def gradebook_ready_for_readers(course_root: Path) -> None:
    """Give the class gradebook the course row nbgrader's ``GetGrades`` looks for, when it
    lacks it (run once, by the one process that writes the gradebook, before any
    ``write_pages``): nbgrader's ``Gradebook`` adds that row whenever it opens a gradebook
    without it, which a read-only connection would refuse."""
    db_path = class_db_path(course_root)
    with sqlite3.connect(f"file:{quote(str(db_path))}?mode=ro", uri=True) as db:
        known = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'course'").fetchone()
        row = "SELECT 1 FROM course WHERE id = ?"
        if known and db.execute(row, (NBGRADER_DEFAULT_COURSE,)).fetchone():
            return
    from nbgrader.api import Gradebook  # only for a gradebook that lacks the row

    with Gradebook(f"sqlite:///{db_path}") as gradebook:  # adds the course row
        gradebook.db.commit()


def feedback(options: GradingOptions) -> int:
    """Write every graded student's feedback pages where ``options`` say (one task each on
    Dask, or here ``in_process``); print whose could not be written and why, then how long
    it took. The exit status: 1 if anyone has no pages."""
    start = time.perf_counter()
    course_root = options.course_root
    refuse_untrusted("the feedback process")
    students = graded_students(course_root)
    if not students:
        print(f"no feedback to write: no folder autograded/<student>/{ASSIGNMENT} in {course_root}")
        return 0
    if not class_db_path(course_root).is_file():
        raise SystemExit(
            f"no gradebook at {class_db_path(course_root)}: grade the class first "
            "(make autograde). No feedback was written."
        )
    gradebook_ready_for_readers(course_root)  # this process, the gradebook's one writer
    failed = _write_all(options, students)
    for student, why in sorted(failed.items()):
        print(f"no feedback for {printable(student)[:80]}: {printable(why)}", file=sys.stderr)
    seconds = time.perf_counter() - start
    print(
        f"feedback for {len(students) - len(failed)} of {len(students)} student(s) in "
        f"{seconds:.1f} s {options.where()} ({seconds / len(students):.2f} s a student)"
    )
    return 1 if failed else 0


def _write_all(options: GradingOptions, students: list[str]) -> dict[str, str]:
    """Each student's pages, with a progress bar: whose could not be written, and why."""
    from tqdm import tqdm

    course_root = options.course_root
    failed: dict[str, str] = {}
    with contextlib.ExitStack() as stack:
        bar = tqdm(
            total=len(students), unit="student", disable=not options.progress, file=sys.stderr
        )
        stack.callback(bar.close)

        def on_result(student: str, why: str | None) -> None:
            if why:
                failed[student] = why
            bar.update(1)

        if options.in_process:
            from autograder.grading.grade_one import write_pages

            for student in students:
                on_result(student, write_pages(course_root, student))
            return failed
        log_path = course_root / RECORDS / "workers.log"
        client = stack.enter_context(open_cluster(options, log_path, feedback=True))
        blind = blind_workers(client, course_root, "autograded")
        if blind:
            raise SystemExit(
                f"{len(blind)} Dask worker(s) do not see {course_root / 'autograded'} "
                f"({', '.join(blind[:3])}): the course folder must be at the same path on "
                "every worker's machine. No feedback was written."
            )
        feedback_on_cluster(client, course_root, students, on_result)
    return failed


def largest_first(course_root: Path, students: list[str]) -> list[str]:
    """``students`` by the bytes of their autograded notebooks, most first (then by name):
    the order to hand their feedback out in. A page costs about as much as its notebook
    weighs, and the scheduler hands tasks out in the order given, so the last ones, which
    leave the other workers idle while they finish, are the smallest."""

    def weight(student: str) -> int:
        folder = course_root / "autograded" / student / ASSIGNMENT
        try:
            return sum(p.stat().st_size for p in folder.glob("*.ipynb") if p.is_file())
        except OSError:  # gone meanwhile: its task says why
            return 0

    weights = {student: weight(student) for student in students}
    return sorted(students, key=lambda student: (-weights[student], student))


def feedback_on_cluster(
    client: Client,
    course_root: Path,
    students: list[str],
    on_result: Callable[[str, str | None], None],
) -> None:
    """Write each student's feedback pages as one task, the largest first
    (``largest_first``); ``on_result(student, why)`` runs here once per student as they
    finish (``why``: None, or why they have no pages)."""
    run = uuid.uuid4().hex[:8]  # keys unique on a cluster that other runs share
    futures = {
        client.submit(feedback_task, course_root, s, key=f"feedback-{s}-{run}"): s
        for s in largest_first(course_root, students)
    }
    try:
        for future in as_completed(futures, loop=client.loop):
            on_result(futures[future], _why_not(future))
            future.release()
    finally:
        client.cancel(list(futures))


def _why_not(future: Future[str | None]) -> str | None:
    """A feedback task's answer; a task that killed its workers too often, or raised, as
    the reason in one line."""
    try:
        return future.result()
    except KilledWorker:
        return "its worker died every time it was tried"
    except Exception as error:  # a worker that cannot write feedback, a bug
        return " ".join(f"{type(error).__name__}: {error}".split())[:300]
