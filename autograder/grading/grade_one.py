"""Grade one student's submission with nbgrader's own Autograde, into a private gradebook.

``grade_submission`` is a plain function of one submission that returns plain data (the
student's gradebook rows and what was found), so any engine can map it over students;
``prepare_worker`` sets up a grading process once (memory limit, environment).

But: it never writes the class gradebook (``grade_class`` merges the rows) and judges
nothing itself: nbgrader runs the notebooks with the steps of ``nbgrader_steps``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
import traceback
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import ASSIGNMENT, CODE_ROOT, RECORDS
from autograder.grading.gradebook_rows import flag_ungraded, judged_scores_kept, student_rows
from autograder.isolation import bwrap
from autograder.isolation.kernel_home import remove_orphaned_homes, student_home
from autograder.isolation.kernel_spec import KERNEL_PROCESSES, jail_kernels
from autograder.nbgrader_steps.inspect_submission import (
    NOT_GRADED_KIND,
    Problem,
    has_graded_cells,
    inspect_submission,
    read_outcomes,
    unsafe_entries,
)
from autograder.nbgrader_steps.lean_lessons import RestoreLessonCells, TrimLessonCells

DEFAULT_MEMORY_GB = 4.0
# Libraries in the kernels should not start a thread per core each: the workers already
# use every core.
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


def scratch_root(course_root: Path) -> Path:
    """Where private gradebooks live during a run: inside a folder kernels cannot see."""
    folder = course_root / RECORDS / "scratch"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def prepare_worker(memory_gb: float = DEFAULT_MEMORY_GB, code_root: str = str(CODE_ROOT)) -> None:
    """Set up a grading process: memory limit, the environment kernels inherit, quiet logs;
    remove what grading processes that are gone left on this machine.

    Call once per worker process before :func:`grade_submission` (``on_dask.GradingWorker``
    does, in every Dask worker).
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
    # What a worker killed mid-student left on this machine: its kernels' homes, its caps.
    # Tidying up never stops grading.
    with contextlib.suppress(Exception):
        remove_orphaned_homes()
    with contextlib.suppress(Exception):
        bwrap.remove_orphaned_caps()


def _masters(course_root: Path, assignment: str) -> dict[str, Any]:
    folder = course_root / "source" / assignment
    return {p.stem: nbformat.read(p, as_version=4) for p in sorted(folder.glob("*.ipynb"))}


def _nbgrader_config(
    course_root: Path, db_path: Path, timeout: int | None, lean: bool, record: Path
) -> Any:
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config()
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.db_url = f"sqlite:///{db_path}"
    # nbgrader_config.py's steps; in lean grading, lesson cells cut to their definitions
    # around Execute.
    steps = list(config.Autograde.autograde_preprocessors)
    if lean:
        at = [str(step).rsplit(".", 1)[-1] for step in steps].index("GuardedExecute")
        steps[at : at + 1] = [TrimLessonCells, steps[at], RestoreLessonCells]
    config.Autograde.autograde_preprocessors = steps
    if timeout is not None:
        config.Execute.timeout = timeout
    config.JudgeHiddenTests.course_root = str(course_root)
    config.MarkupAsText.course_root = str(course_root)
    config.JudgeHiddenTests.record = str(record)
    # Lean runs a student's own cells whole; the masters say which cells are the lesson's.
    config.TrimLessonCells.masters = str(course_root / "source" / ASSIGNMENT)
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


class SkippingAutograde(Autograde):
    """nbgrader's Autograde that leaves out the notebooks named in ``skip``."""

    skip: frozenset[str] = frozenset()

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        super().init_assignment(assignment_id, student_id)
        self.notebooks = [p for p in self.notebooks if Path(p).stem not in self.skip]


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
    start = time.perf_counter()
    root = Path(course_root)
    masters = _masters(root, assignment)
    submitted = root / "submitted" / student / assignment
    released = root / "release" / assignment
    unsafe = unsafe_entries(submitted)
    if unsafe:  # nothing of it reaches nbgrader, which would follow the links
        problem = Problem("unsafe_file", "", ", ".join(unsafe)[:200])
        return _not_graded(student, start, problem)
    problems, unreadable = inspect_submission(
        submitted, masters, released if released.exists() else None
    )
    no_tests = {name for name, nb in masters.items() if not has_graded_cells(nb)}
    jailed = False
    scratch = Path(tempfile.mkdtemp(prefix=f"grade-{student}-", dir=scratch_root(root)))
    # Kernels get a fresh home, deleted below; the sandbox shows them no other.
    home = ExitStack()
    try:
        kernel_home = home.enter_context(student_home(student))
        cap = home.enter_context(bwrap.process_cap(student, KERNEL_PROCESSES))
        db_path = scratch / "gradebook.db"
        shutil.copyfile(template_db, db_path)
        record = scratch / "verdicts.jsonl"
        config = _nbgrader_config(root, db_path, timeout, lean, record)
        jailed = jail_kernels(root, student, assignment, config, kernel_home, cap)
        if not jailed:
            why = "UNCONFINED=1" if bwrap.available() else bwrap.why_unavailable()
            problems.append(Problem("unconfined", "", why))
        coursedir = CourseDirectory(config=config)
        coursedir.assignment_id = assignment
        coursedir.student_id = student
        app = SkippingAutograde(coursedir=coursedir, config=config)
        app.skip = frozenset(unreadable | no_tests)
        app.force = True
        app.create_student = True
        outcome = capture_log(app)
        log = outcome.get("log", "") + outcome.get("error", "")
        graded = bool(outcome["success"])
        if graded:
            flag_ungraded(db_path, unreadable, student)
            autograded = root / "autograded" / student / assignment
            ran = [n for n in masters if n not in unreadable | no_tests]
            problems += read_outcomes(autograded, ran)
        else:  # nbgrader itself failed (a kernel that did not start): not the student's doing
            last = [line for line in log.splitlines() if line.strip()][-1:] or ["see the log"]
            problems.append(Problem(NOT_GRADED_KIND, "", f"nbgrader failed: {last[0][:200]}"))
        rows = student_rows(db_path, assignment, student) if graded else {}
        verdicts = _read_verdicts(record)
        problems += [
            Problem("judge_mismatch", v["notebook"], why)
            for v, why in judged_scores_kept(db_path, student, verdicts)
        ]
    except Exception as error:  # a bug in grading must not stop the class, nor cost grades
        graded, rows, verdicts = False, {}, []
        log = "".join(traceback.format_exception(error))
        why = f"grading failed: {type(error).__name__}: {error}"[:200]
        problems.append(Problem(NOT_GRADED_KIND, "", why))
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
        "verdicts": verdicts,
        "log": log,
    }


def _not_graded(student: str, start: float, problem: Problem) -> dict[str, Any]:
    return {
        "student": student,
        "graded": False,
        "jailed": False,
        "seconds": time.perf_counter() - start,
        "problems": [problem.as_dict()],
        "rows": {},
        "verdicts": [],
        "log": "",
    }


def _read_verdicts(record: Path) -> list[dict[str, Any]]:
    """The judged verdict of every test cell, as ``JudgeHiddenTests`` wrote them."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
