"""Grade every submission in ``submitted/`` with nbgrader, in parallel worker processes.

``make autograde JOBS=N`` runs ``python -m autograder.grade_class --jobs N``: it grades each
student with the real nbgrader ``Autograde`` converter, then re-grades every answer out of the
student's kernel (``autograder.verify``) and prints one summary for the class
(``autograder.summary``).

How it stays fast and safe:

- nbgrader grades one student at a time, and each ``nbgrader`` command pays about 4.5 s to
  start. Here N long-lived worker processes (one per core by default) import nbgrader once and
  then grade one student after another, so only kernel starts and the notebooks' own work
  remain per student.
- No two processes write the same SQLite file. Each submission is graded into a private copy
  of an empty gradebook; the worker sends back that student's rows as plain data and this
  process, the only writer of ``gradebook.db``, merges them (``autograder.gradebook_rows``).
- :func:`grade_submission` is a plain function of one submission that returns plain data, so
  another engine (Dask, Ray) can map it over students on many machines (see the README).
- Before any kernel starts, the worker limits its address space (``RLIMIT_AS``); kernels inherit
  the limit, so a student allocating tens of GB gets ``MemoryError``, not the machine's memory.
- Where Linux allows, each kernel starts in a mount namespace (``autograder.kernel_jail``) in
  which the gradebooks, ``submitted/``, the other students' ``autograded/`` folders,
  ``source/`` and ``.git`` are empty: a student's code cannot harm anyone else's grade.
- Each student's kernels get a fresh home (``HOME``, ``IPYTHONDIR``, Jupyter and XDG folders)
  that is deleted afterwards (``autograder.kernel_home``): nothing one student's code leaves
  in ``~``, such as an IPython startup file, reaches the next student's kernels.
- A kernel that dies or freezes costs that notebook the cells that did not run
  (``autograder.kernel_guard``); the run goes on. An unreadable notebook is left ungraded and
  flagged, not silently scored 0. Notebooks without graded cells are not executed.

The grading kernels find ``autograder`` (and through it ``solutions``) because the workers
put the code root on ``PYTHONPATH``; students' notebooks never can.

This module does not judge answers (``autograder.checks``) or write the summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

CODE_ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "bpe"
DEFAULT_MEMORY_GB = 4.0
# Libraries in the kernels should not start a thread per core each: the workers already
# use every core.
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


@dataclass
class StudentResult:
    """What grading one submission produced, as plain data (picklable, JSON-able)."""

    student: str
    graded: bool
    seconds: float
    problems: list[dict[str, str]] = field(default_factory=list)
    rows: dict[str, Any] = field(default_factory=dict)
    log: str = ""


# ---- the worker side -----------------------------------------------------------------------


def prepare_worker(memory_gb: float = DEFAULT_MEMORY_GB, code_root: str = str(CODE_ROOT)) -> None:
    """Set up a grading process: memory limit, the environment kernels inherit, quiet logs.

    Call once per worker process before :func:`grade_submission` (a pool's initializer).
    """
    if memory_gb > 0:
        limit = int(memory_gb * 2**30)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    os.environ["PYTHONPATH"] = code_root
    # nbgrader runs `alembic` when it creates a gradebook; find it next to this Python.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    for name in _ONE_THREAD:
        os.environ.setdefault(name, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("MPLBACKEND", "Agg")
    logging.getLogger().setLevel(logging.CRITICAL)


# Folders and files of a course that a student's kernel must not see (see kernel_jail).
_PRIVATE_DIRS = ("submitted", "autograded", "feedback", "source", ".exchange", "artifacts", ".git")
_PRIVATE_FILES = ("gradebook.db",)
JAIL_KERNEL = "python3-jailed"


def _scratch_root(course_root: Path) -> Path:
    """Where private gradebooks live during a run: inside a folder kernels cannot see."""
    folder = course_root / "artifacts" / "grading" / "scratch"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def jail_available() -> bool:
    """True when kernels can be started in their own mount namespace here."""
    from autograder.sandbox import isolation_works

    return isolation_works()


def _jail_kernels(
    course_root: Path, student: str, assignment: str, config: Any, hide: dict | None = None
) -> bool:
    """Make nbgrader start this student's kernels through ``kernel_jail``; False where the
    machine cannot (the kernels then run unconfined, as with plain nbgrader). ``hide``: more
    to cover (the instructor's home, ``autograder.kernel_home.home_cover``)."""
    if not jail_available():
        os.environ.pop("GRADING_JAIL", None)
        return False
    spec_dir = _scratch_root(course_root).parent / "kernels" / JAIL_KERNEL
    if not (spec_dir / "kernel.json").exists():
        spec_dir.mkdir(parents=True, exist_ok=True)
        jail = Path(__file__).resolve().parent / "kernel_jail.py"
        spec = {
            "argv": [sys.executable, "-I", "-S", str(jail), "{connection_file}"],
            "display_name": "Python 3 (grading jail)",
            "language": "python",
            "interrupt_mode": "signal",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
    kernels_root = str(spec_dir.parent.parent)
    if kernels_root not in os.environ.get("JUPYTER_PATH", "").split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            p for p in (kernels_root, os.environ.get("JUPYTER_PATH", "")) if p
        )
    roots = {course_root.resolve(), CODE_ROOT}
    # Another worker may create it later: it must exist now to be covered.
    (course_root / "autograded").mkdir(exist_ok=True)
    private = [r / name for r in sorted(roots) for name in _PRIVATE_DIRS]
    files = [r / name for r in sorted(roots) for name in _PRIVATE_FILES]
    spec = {
        "dirs": [str(p) for p in private if p.is_dir()],
        "files": [str(p) for p in files if p.is_file()],
        # Read-only: the venv (a .pth file there would run in every later kernel) and the
        # course and grading code, so no kernel can rewrite autograder/, solutions/ or
        # bpe_course/ for the students graded after it, or for the verify step itself.
        "readonly": [sys.prefix, *(str(r) for r in sorted(roots))],
        "keep": str(course_root.resolve() / "autograded" / student / assignment),
    }
    for key, paths in (hide or {}).items():
        spec[key] = [*spec.get(key, []), *paths]
    os.environ["GRADING_JAIL"] = json.dumps(spec)
    config.Execute.kernel_name = JAIL_KERNEL
    return True


def _masters(course_root: Path, assignment: str) -> dict[str, Any]:
    import nbformat

    folder = course_root / "source" / assignment
    return {p.stem: nbformat.read(p, as_version=4) for p in sorted(folder.glob("*.ipynb"))}


def _nbgrader_config(
    course_root: Path, db_path: Path, timeout: int | None, lean: bool = False
) -> Any:
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        IgnorePattern,
        LimitOutput,
        SaveAutoGrades,
    )
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.kernel_guard import GuardedExecute

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config()
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.db_url = f"sqlite:///{db_path}"
    # nbgrader's default list, with Execute swapped for the one that survives a lost kernel.
    config.Autograde.autograde_preprocessors = [
        GuardedExecute,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        AssignLatePenalties,
        CheckCellMetadata,
    ]
    if timeout is not None:
        config.Execute.timeout = timeout
    config.GuardedExecute.lean = lean
    # Lean runs a student's own cells whole; the masters say which cells are the lesson's.
    config.GuardedExecute.masters = str(course_root / "source" / ASSIGNMENT)
    # Every cell has run and its outputs are saved: a polite shutdown only costs time.
    config.Execute.shutdown_kernel = "immediate"
    # UNIX sockets, not TCP ports: two workers (or another Jupyter on the machine) can pick
    # the same free port, and the kernel then dies at start ("Address already in use").
    config.KernelManager.transport = "ipc"
    # The sockets' path prefix; relative, it would differ between the kernel's working folder
    # and this process's. grade_submission points the runtime folder at the student's home.
    runtime = os.environ.get("JUPYTER_RUNTIME_DIR") or tempfile.gettempdir()
    config.KernelManager.ip = os.path.join(runtime, "kernel")
    return config


def _skipping_autograde(skip: set[str]) -> type:
    from nbgrader.converters import Autograde

    class SkippingAutograde(Autograde):
        """nbgrader's Autograde that leaves out the notebooks named in ``skip``."""

        def init_assignment(self, assignment_id: str, student_id: str) -> None:
            super().init_assignment(assignment_id, student_id)
            self.notebooks = [p for p in self.notebooks if Path(p).stem not in skip]

    return SkippingAutograde


def _flag_ungraded(db_path: Path, notebooks: Iterable[str], student: str) -> None:
    """Mark the grades of notebooks nbgrader could not open as waiting for a person."""
    names = list(notebooks)
    if not names:
        return
    marks = ", ".join("?" for _ in names)
    with sqlite3.connect(db_path) as db:
        db.execute(
            "UPDATE grade SET needs_manual_grade = 1, auto_score = NULL WHERE notebook_id IN ("
            " SELECT sn.id FROM submitted_notebook sn"
            " JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
            " JOIN notebook n ON sn.notebook_id = n.id"
            f" WHERE sa.student_id = ? AND n.name IN ({marks}))",
            (student, *names),
        )


def grade_submission(
    course_root: str,
    student: str,
    template_db: str,
    assignment: str = ASSIGNMENT,
    timeout: int | None = None,
    lean: bool = False,
) -> dict[str, Any]:
    """Autograde one student's submission and return the result as plain data.

    Grades into a private copy of ``template_db`` (an empty gradebook that knows the
    assignment) and returns that student's rows; never raises for a bad submission.
    Run :func:`prepare_worker` once in the process first.
    """
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    from autograder.gradebook_rows import student_rows
    from autograder.kernel_home import home_cover, student_home
    from autograder.submission_checks import (
        Problem,
        has_graded_cells,
        inspect_submission,
        read_outcomes,
    )

    start = time.perf_counter()
    root = Path(course_root)
    masters = _masters(root, assignment)
    submitted = root / "submitted" / student / assignment
    released = root / "release" / assignment
    problems, unreadable = inspect_submission(
        submitted, masters, released if released.exists() else None
    )
    no_tests = {name for name, nb in masters.items() if not has_graded_cells(nb)}
    jailed = False
    scratch = Path(tempfile.mkdtemp(prefix=f"grade-{student}-", dir=_scratch_root(root)))
    # Kernels get a fresh home, deleted below; the real one is covered in the jail.
    hide = home_cover([root, CODE_ROOT])
    home = ExitStack()
    try:
        home.enter_context(student_home(student))
        db_path = scratch / "gradebook.db"
        shutil.copyfile(template_db, db_path)
        config = _nbgrader_config(root, db_path, timeout, lean)
        jailed = _jail_kernels(root, student, assignment, config, hide)
        coursedir = CourseDirectory(config=config)
        coursedir.assignment_id = assignment
        coursedir.student_id = student
        app = _skipping_autograde(unreadable | no_tests)(coursedir=coursedir, config=config)
        app.force = True
        app.create_student = True
        outcome = capture_log(app)
        log = outcome.get("log", "") + outcome.get("error", "")
        graded = bool(outcome["success"])
        if graded:
            _flag_ungraded(db_path, unreadable, student)
            autograded = root / "autograded" / student / assignment
            ran = [n for n in masters if n not in unreadable | no_tests]
            problems += read_outcomes(autograded, ran)
        else:
            last = [line for line in log.splitlines() if line.strip()][-1:] or ["see the log"]
            problems.append(Problem("grading_error", "", last[0][:200]))
        rows = student_rows(db_path, assignment, student)
    except Exception as error:  # one broken submission must not stop the class
        graded, rows, log = False, {}, repr(error)
        problems.append(Problem("grading_error", "", f"{type(error).__name__}: {error}"[:200]))
    finally:
        home.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "student": student,
        "graded": graded,
        "jailed": jailed,
        "seconds": time.perf_counter() - start,
        "problems": [p.as_dict() for p in problems],
        "rows": rows,
        "log": log,
    }


# ---- the driver side -----------------------------------------------------------------------


def class_db_path(course_root: Path) -> Path:
    """The gradebook file nbgrader_config.py names (sqlite only)."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config()
    url = str(config.CourseDirectory.get("db_url", f"sqlite:///{course_root / 'gradebook.db'}"))
    if not url.startswith("sqlite:///"):
        raise SystemExit(f"grade_class needs an SQLite gradebook; nbgrader_config.py says {url}")
    return Path(url.removeprefix("sqlite:///"))


def find_students(course_root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Every student with a folder ``submitted/<student>/<assignment>``, sorted."""
    submitted = course_root / "submitted"
    if not submitted.is_dir():
        return []
    return sorted(p.name for p in submitted.iterdir() if (p / assignment).is_dir())


def ensure_assignment(course_root: Path, class_db: Path, assignment: str = ASSIGNMENT) -> None:
    """Make sure the gradebook knows the assignment; run generate_assignment if it does not."""
    import subprocess

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


def _initializer(memory_gb: float, log_path: str) -> None:
    prepare_worker(memory_gb)
    import warnings

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
) -> None:
    """Grade ``students`` on ``jobs`` worker processes, calling ``on_result`` in this process
    for each finished one. A worker that crashes is replaced; its student is tried once more."""
    pending = list(students)
    tries: dict[str, int] = {}
    while pending:
        context = get_context("forkserver")
        log_path = str(course_root / "artifacts" / "grading" / "workers.log")
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        setup = (memory_gb, log_path)
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
) -> list[dict[str, Any]]:
    """Grade ``students`` (default: all in submitted/) into the class gradebook and record
    what was found in ``artifacts/grading/results.json``; return the results without their
    rows, each with ``merge_seconds`` (this process's gradebook write). The caller runs verify
    and the summary."""
    from tqdm import tqdm

    from autograder.gradebook_rows import make_template, merge_student

    course_root = course_root.resolve()
    class_db = class_db_path(course_root)
    students = find_students(course_root) if students is None else students
    results: list[dict[str, Any]] = []
    if not students:
        print(f"nothing to grade: no folder submitted/<student>/{ASSIGNMENT} in {course_root}")
        return results
    ensure_assignment(course_root, class_db)
    scratch = Path(tempfile.mkdtemp(prefix="grade-class-", dir=_scratch_root(course_root)))
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
        run_pool(course_root, students, template, max(1, jobs), memory_gb, timeout, on_result, lean)
    finally:
        bar.close()
        shutil.rmtree(scratch, ignore_errors=True)
        from autograder.summary import save_grading_results

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
    parser.add_argument("--no-verify", action="store_true", help="skip the out-of-kernel re-grade")
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
    from autograder import summary

    if not args.no_verify:
        from autograder import verify

        verify.verify_class(
            args.root.resolve(), args.jobs, args.student, progress=not args.no_progress
        )
    summary.report(args.root.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
