"""Grade every submission in ``submitted/`` on worker processes, then summarize.

``python -m autograder.grading.grade_class --jobs N`` (``make autograde``) runs
``grade_one.grade_submission`` for each student on N long-lived workers (nbgrader's 4.5 s start
is paid once per worker), merges each student's rows into ``gradebook.db`` from this one
process (SQLite sees one writer), keeps what was found in ``results.json`` and every test
cell's judged verdict in ``verdicts.json``, and prints the class summary.

But: a worker that crashes is replaced and its student tried once more; the pool itself is
ours, not a well-kept engine's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from autograder.course import (
    ASSIGNMENT,
    RESULTS_RECORD,
    VERDICTS_RECORD,
    class_db_path,
    find_students,
)
from autograder.grading.grade_one import (
    DEFAULT_MEMORY_GB,
    grade_submission,
    prepare_worker,
    scratch_root,
)
from autograder.grading.gradebook_rows import make_template, merge_student
from autograder.isolation import bwrap
from autograder.isolation.bwrap import why_unavailable
from autograder.reports import summary


def save_grading_results(course_root: Path, results: list[dict[str, Any]]) -> None:
    """Keep what grading found about each student and the verdict of each of their test
    cells, for the summary and the export; a student graded again replaces their entries."""
    graded = {r["student"] for r in results}
    path = course_root / RESULTS_RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {r["student"]: r for r in json.loads(path.read_text())} if path.exists() else {}
    for result in results:
        old[result["student"]] = {k: v for k, v in result.items() if k not in _KEPT_APART}
    path.write_text(json.dumps([old[s] for s in sorted(old)], indent=1))
    record = course_root / VERDICTS_RECORD
    kept = json.loads(record.read_text()) if record.exists() else []
    kept = [v for v in kept if v["student"] not in graded]
    fresh = [v for r in results for v in r.get("verdicts", [])]
    record.write_text(json.dumps(kept + fresh, indent=1))


_KEPT_APART = ("log", "rows", "verdicts")


def ensure_assignment(course_root: Path, class_db: Path, assignment: str = ASSIGNMENT) -> None:
    """Make sure the gradebook knows the assignment; run generate_assignment if it does not."""
    if class_db.exists():
        with sqlite3.connect(class_db) as db:
            known = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'assignment'").fetchone()
            if (
                known
                and db.execute("SELECT 1 FROM assignment WHERE name = ?", (assignment,)).fetchone()
            ):
                return
    print(f"{class_db.name} does not know assignment {assignment!r}: running generate_assignment")
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    nbgrader = [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"]
    subprocess.run([*nbgrader, "--log-level=WARN"], cwd=course_root, env=env, check=True)


def _failed(student: str, why: str) -> dict[str, Any]:
    problem = {"kind": "grading_error", "notebook": "", "detail": why}
    return {"student": student, "graded": False, "seconds": 0.0, "problems": [problem], "rows": {}}


def _initializer(memory_gb: float, log_path: str, unconfined: bool) -> None:
    prepare_worker(memory_gb)
    if unconfined:  # in this worker, its kernels and the judge's answers
        os.environ[bwrap.UNCONFINED] = "1"
    warnings.filterwarnings("ignore")  # nbgrader's SQLAlchemy warnings, once per student
    # Kernels inherit this process's stderr; keep their chatter out of the progress bar.
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 2)
    os.close(log)


def run_pool(
    course_root: Path,
    students: list[str],
    template: Path,
    jobs: int,
    memory_gb: float,
    timeout: int | None,
    on_result: Callable[[dict[str, Any]], None],
    lean: bool = False,
    unconfined: bool = False,
) -> None:
    """Grade ``students`` on ``jobs`` worker processes, calling ``on_result`` in this process
    for each finished one. A worker that crashes is replaced; its student is tried once more."""
    pending = list(students)
    tries: dict[str, int] = {}
    while pending:
        context = get_context("forkserver")
        log_path = str(course_root / "artifacts" / "grading" / "workers.log")
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        setup = (memory_gb, log_path, unconfined)
        with ProcessPoolExecutor(jobs, context, _initializer, setup) as pool:
            futures = {
                pool.submit(
                    grade_submission, str(course_root), s, str(template), ASSIGNMENT, timeout, lean
                ): s
                for s in pending
            }
            pending = []
            broken = False
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for future in done:
                    student = futures[future]
                    try:
                        on_result(future.result())
                    except BrokenProcessPool:
                        broken = True
                        tries[student] = tries.get(student, 0) + 1
                        if tries[student] >= 2:
                            on_result(_failed(student, "the grading worker crashed twice"))
                        else:
                            pending.append(student)
                    except Exception as error:  # a bug in a worker: report it, keep going
                        on_result(_failed(student, f"{type(error).__name__}: {error}"[:200]))
            if broken:
                print(
                    f"a grading worker crashed; retrying {len(pending)} student(s)", file=sys.stderr
                )


def grade_class(
    course_root: Path,
    jobs: int,
    students: list[str] | None = None,
    memory_gb: float = DEFAULT_MEMORY_GB,
    timeout: int | None = None,
    progress: bool = True,
    lean: bool = False,
    unconfined: bool = False,
) -> list[dict[str, Any]]:
    """Grade ``students`` (default: all in submitted/) into the class gradebook and record
    what was found in ``artifacts/grading/results.json``; return the results without their
    rows, each with ``merge_seconds`` (this process's gradebook write). The caller prints the
    summary."""
    from tqdm import tqdm

    course_root = course_root.resolve()
    class_db = class_db_path(course_root)
    students = find_students(course_root) if students is None else students
    results: list[dict[str, Any]] = []
    if not students:
        print(f"nothing to grade: no folder submitted/<student>/{ASSIGNMENT} in {course_root}")
        return results
    if not (unconfined or bwrap.available()):
        raise SystemExit(
            f"refusing to grade: {why_unavailable()}. Without the sandbox a student's code runs "
            "as you, beside everyone's files; to grade anyway, say UNCONFINED=1 (make) or "
            "--unconfined, and every grade will say so."
        )
    ensure_assignment(course_root, class_db)
    scratch = Path(tempfile.mkdtemp(prefix="grade-class-", dir=scratch_root(course_root)))
    template = scratch / "template.db"
    make_template(class_db, template)
    bar = tqdm(total=len(students), unit="student", disable=not progress, file=sys.stderr)

    def on_result(result: dict[str, Any]) -> None:
        start = time.perf_counter()
        if result.get("rows"):
            merge_student(class_db, ASSIGNMENT, result["student"], result["rows"])
        result["merge_seconds"] = time.perf_counter() - start
        results.append({k: v for k, v in result.items() if k != "rows"})
        bar.set_postfix_str(result["student"][-20:])
        bar.update(1)

    try:
        run_pool(
            course_root,
            students,
            template,
            max(1, jobs),
            memory_gb,
            timeout,
            on_result,
            lean,
            unconfined,
        )
    finally:
        bar.close()
        shutil.rmtree(scratch, ignore_errors=True)
        save_grading_results(course_root, results)  # what the summary says about each student
    return sorted(results, key=lambda r: r["student"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="course root (default: .)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--student", action="append", help="grade only this student (repeatable)")
    parser.add_argument(
        "--memory-gb",
        type=float,
        default=DEFAULT_MEMORY_GB,
        help="address-space limit per kernel, GB (0: none)",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=None,
        help="per-cell timeout in seconds (default: nbgrader_config.py's)",
    )
    parser.add_argument(
        "--lean",
        action="store_true",
        help="lesson cells run only their definitions, students' own cells whole (faster; "
        "make autograde's default)",
    )
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="grade without the sandbox (where bubblewrap is missing); every grade says so",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = grade_class(
        args.root,
        args.jobs,
        args.student,
        args.memory_gb,
        args.timeout,
        not args.no_progress,
        args.lean,
        args.unconfined,
    )
    if not results:
        return 0
    seconds = time.perf_counter() - start
    merging = sum(r["merge_seconds"] for r in results) / len(results)
    print(
        f"graded {len(results)} submission(s) in {seconds:.1f} s with {args.jobs} worker(s) "
        f"({seconds / len(results):.2f} s a student; merging into the gradebook "
        f"{1000 * merging:.0f} ms a student)"
    )
    summary.report(args.root.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
