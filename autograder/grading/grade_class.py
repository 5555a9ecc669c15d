"""Grade every submission in ``submitted/`` on Dask workers, then summarize.

``python -m autograder.grading.grade_class --jobs N`` (``make autograde``) grades each student
as one task on a local Dask cluster of N worker processes, or with ``--scheduler ADDRESS``
on an existing cluster (``on_dask``; nbgrader's 4.5 s start is paid once per worker). This one
process merges each student's rows into ``gradebook.db`` as they arrive (SQLite sees one
writer), keeps what was found in ``results.json`` and every test cell's judged verdict in
``verdicts.json``, and prints the class summary. ``--in-process`` grades here, without Dask.

But: the grading itself is ``grade_one``'s and the retrying Dask's; a scheduler that cannot
be reached stops the run before anything is written.
"""

from __future__ import annotations

if __name__ == "__main__":  # before any other import: a planted module would run as it loads
    from autograder.grading.trusted_paths import refuse_untrusted

    refuse_untrusted("the grading process")

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder.course import (
    ASSIGNMENT,
    ERRORS_LOG,
    RECORDS,
    REFUSED_RECORD,
    RESULTS_RECORD,
    VERDICTS_RECORD,
    class_db_path,
    find_students,
)
from autograder.grading import class_check
from autograder.grading.grade_one import DEFAULT_MEMORY_GB, prepare_worker, scratch_root
from autograder.grading.gradebook_rows import make_template, merge_student
from autograder.grading.on_dask import blind_workers, grade_on_cluster, grade_task, open_cluster
from autograder.grading.trusted_paths import refuse_untrusted
from autograder.isolation import bwrap
from autograder.isolation.bwrap import why_unavailable
from autograder.nbgrader_steps.inspect_submission import NOT_GRADED_KIND, printable
from autograder.reports import summary
from autograder.reports.export_grades import course_version
from autograder.roster import read_roster, why_not_a_student


def save_grading_results(course_root: Path, results: list[dict[str, Any]]) -> None:
    """Keep what grading found about each student (with the course version that graded
    them) and the verdict of each of their test cells, for the summary and the export; a
    student graded again replaces their entries."""
    graded = {r["student"] for r in results}
    path = course_root / RESULTS_RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {r["student"]: r for r in json.loads(path.read_text())} if path.exists() else {}
    version = course_version()  # a term's records name the course that graded them
    for result in results:
        kept = {k: v for k, v in result.items() if k not in _KEPT_APART}
        old[result["student"]] = {**kept, "course_version": version}
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


def class_members(course_root: Path, asked: list[str] | None) -> tuple[list[str], dict[str, str]]:
    """The students to grade (those asked, or every folder of submitted/) that belong to the
    class, and the refused ones with why (``roster``): a made-up id never reaches the
    gradebook."""
    roster = read_roster(course_root)
    found = find_students(course_root) if asked is None else asked
    refused = {s: why for s in found if (why := why_not_a_student(s, roster))}
    return [s for s in found if s not in refused], refused


def record_refused(course_root: Path, refused: dict[str, str]) -> None:
    """Say which folders of submitted/ were refused, here and in ``refused.json``."""
    path = course_root / REFUSED_RECORD
    path.unlink(missing_ok=True)
    if refused:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(refused, indent=1))
    for folder, why in sorted(refused.items()):
        print(f"refused submitted/{printable(folder)[:80]}: {printable(why)}; not graded")


def stopped(result: dict[str, Any]) -> bool:
    """Whether grading stopped for a reason that is not the student's."""
    return any(p["kind"] == NOT_GRADED_KIND for p in result.get("problems", []))


def log_error(course_root: Path, result: dict[str, Any]) -> None:
    """Keep the error of a student's grading that stopped, with its traceback."""
    path = course_root / ERRORS_LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    with path.open("a") as log:
        log.write(f"== {stamp} {result['student']}\n{result.get('log') or ''}\n")


def grade_in_process(
    course_root: Path,
    students: list[str],
    template: Path,
    on_result: Callable[[dict[str, Any]], None],
    timeout: int | None = None,
    lean: bool = False,
    unconfined: bool = False,
) -> None:
    """Grade one student after another in this process, without Dask: the baseline the
    cluster is measured against. The caller has run ``prepare_worker`` (its memory limit
    stays on this process)."""
    for student in students:
        on_result(grade_task(str(course_root), student, str(template), timeout, lean, unconfined))


def grade_class(
    course_root: Path,
    jobs: int,
    students: list[str] | None = None,
    memory_gb: float = DEFAULT_MEMORY_GB,
    timeout: int | None = None,
    progress: bool = True,
    lean: bool = False,
    unconfined: bool = False,
    scheduler: str | None = None,
    in_process: bool = False,
) -> list[dict[str, Any]]:
    """Grade ``students`` (default: all in submitted/) into the class gradebook and record
    what was found in ``artifacts/grading/results.json``; return the results without their
    rows, each with ``merge_seconds`` (this process's gradebook write). The caller prints the
    summary.

    On a local Dask cluster of ``jobs`` worker processes, or on the cluster whose scheduler
    is at ``scheduler`` (reached before anything is written); ``in_process``: here, one
    student after another, with this process set up as a worker (memory limit included).
    """
    from tqdm import tqdm

    course_root = course_root.resolve()
    refuse_untrusted("the grading process")
    class_check.report(course_root)  # strangers from before: a person removes them
    class_db = class_db_path(course_root)
    students, refused = class_members(course_root, students)
    record_refused(course_root, refused)
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
    with contextlib.ExitStack() as stack:
        client = None
        if in_process:
            prepare_worker(memory_gb)
        else:
            log_path = course_root / RECORDS / "workers.log"
            client = stack.enter_context(
                open_cluster(scheduler, jobs, course_root, memory_gb, log_path, unconfined)
            )
            blind = blind_workers(client, course_root)
            if blind:
                raise SystemExit(
                    f"{len(blind)} Dask worker(s) do not see {course_root / 'submitted'} "
                    f"({', '.join(blind[:3])}): the course folder must be at the same path on "
                    "every worker's machine. Nothing was graded."
                )
        ensure_assignment(course_root, class_db)
        scratch = Path(tempfile.mkdtemp(prefix="grade-class-", dir=scratch_root(course_root)))
        stack.callback(shutil.rmtree, scratch, ignore_errors=True)
        template = scratch / "template.db"
        make_template(class_db, template)
        bar = tqdm(total=len(students), unit="student", disable=not progress, file=sys.stderr)
        stack.callback(save_grading_results, course_root, results)  # even if a run stops
        stack.callback(bar.close)

        def on_result(result: dict[str, Any]) -> None:
            start = time.perf_counter()
            if stopped(result):  # not the student's doing: their earlier grades stay
                log_error(course_root, result)
            elif result.get("rows"):
                merge_student(class_db, ASSIGNMENT, result["student"], result["rows"])
            result["merge_seconds"] = time.perf_counter() - start
            results.append({k: v for k, v in result.items() if k != "rows"})
            bar.set_postfix_str(result["student"][-20:])
            bar.update(1)

        if client is None:
            grade_in_process(course_root, students, template, on_result, timeout, lean, unconfined)
        else:
            grade_on_cluster(
                client, course_root, students, template, on_result, timeout, lean, unconfined
            )
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
    parser.add_argument(
        "--scheduler",
        default=None,
        help="grade on the existing Dask cluster at this address (tcp://host:8786), whose "
        "workers see the course folder at the same path (default: a local cluster of --jobs)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="grade in this process, one student after another, without Dask (a baseline)",
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
        args.scheduler,
        args.in_process,
    )
    record = args.root.resolve() / REFUSED_RECORD
    refused = json.loads(record.read_text()) if record.exists() else {}
    if not results:
        return 1 if refused else 0
    seconds = time.perf_counter() - start
    merging = sum(r["merge_seconds"] for r in results) / len(results)
    if args.in_process:
        where = "in one process"
    elif args.scheduler:
        where = f"on the Dask cluster at {args.scheduler}"
    else:
        where = f"on a local Dask cluster of {args.jobs} worker(s)"
    print(
        f"graded {len(results)} submission(s) in {seconds:.1f} s {where} "
        f"({seconds / len(results):.2f} s a student; merging into the gradebook "
        f"{1000 * merging:.0f} ms a student)"
    )
    summary.report(args.root.resolve())
    return _exit_status(results, refused)


def _exit_status(results: list[dict[str, Any]], refused: dict[str, str]) -> int:
    """0, or 1 with one line saying why: students not graded, folders refused."""
    not_graded = [r["student"] for r in results if stopped(r)]
    if not_graded:
        print(
            f"{len(not_graded)} student(s) not graded, for a reason that is not theirs "
            f"(their earlier grades are kept): see {ERRORS_LOG}",
            file=sys.stderr,
        )
    if refused:
        print(f"{len(refused)} folder(s) of submitted/ refused: not students of the class",
              file=sys.stderr)  # fmt: skip
    return 1 if not_graded or refused else 0


if __name__ == "__main__":
    sys.exit(main())
