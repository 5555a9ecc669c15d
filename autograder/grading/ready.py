"""Prove that a grading process can grade before it is given a student.

``why_cannot_grade(course_root)`` looks at what this process imports and runs (no folder that
another account can write: ``trusted_paths``) and starts one grading kernel the way grading
does (this process's Python, the kernel spec made for this process, the sandbox, a fresh home)
to import the course library and answer. It returns None when all is well, else one paragraph
naming what is wrong and what to do. Every Dask worker runs it at setup (``on_dask``); the
grading command stops before anyone is graded when a worker cannot grade.

But: it proves the machinery, not a submission; a kernel that a student's code later kills is
that student's outcome.
"""

from __future__ import annotations

import atexit
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

from autograder.course import ASSIGNMENT
from autograder.plugins.guarded_execute import SandboxKernelManager
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import KERNEL_PROCESSES, give_kernels, jail_kernels, student_home
from autograder.sandbox.trusted_paths import refusal, untrusted_entries

PROBE = "import bpe_course, sys\nprint(sys.executable, bpe_course.__file__)"
PROBE_SECONDS = 60


def why_cannot_grade(
    course_root: Path, process: str = "this grading process", settings: Config | None = None
) -> str | None:
    """Why this process cannot grade (one paragraph), or None when it can, with the
    sandbox ``settings`` of the run (``GradingSandbox``; by default its own defaults)."""
    lines = untrusted_entries()
    if lines:
        return refusal(process, lines)
    return _kernel_round_trip(course_root, process, settings or Config())


def _kernel_round_trip(course_root: Path, process: str, settings: Config) -> str | None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    with student_home("probe") as home, bwrap.process_cap("probe", KERNEL_PROCESSES) as cap:
        config = Config()
        config.merge(settings)
        give_kernels(config, home)
        jailed = jail_kernels(course_root, "probe", ASSIGNMENT, config, home, cap)
        client = NotebookClient(
            notebook,
            timeout=PROBE_SECONDS,
            startup_timeout=PROBE_SECONDS,
            kernel_name=config.Execute.kernel_name if jailed else "python3",
            kernel_manager_class=SandboxKernelManager,
            resources={"metadata": {"path": str(home.home)}},
            config=config,
            allow_errors=True,
        )
        try:
            client.execute()
        except Exception as error:  # the kernel did not start or answer
            if client.km is None:  # nbclient cleaned up but left its exit hook, which fails
                atexit.unregister(client._cleanup_kernel)  # as the command ends, after this
            return _cannot(process, f"{type(error).__name__}: {error}", jailed)
    outputs = notebook.cells[0].get("outputs", [])
    errors = [o for o in outputs if o.get("output_type") == "error"]
    if errors:
        return _cannot(process, f"{errors[0]['ename']}: {errors[0]['evalue']}", jailed)
    return None


def _cannot(process: str, what: str, jailed: bool) -> str:
    shown = ", ".join(str(p) for p in bwrap.python_and_library())
    where = f"the sandbox shows only {shown}" if jailed else "it ran unconfined"
    return (
        f"{process} cannot grade: a grading kernel started with {sys.executable} failed "
        f"({' '.join(what.split())[:300]}); {where}. Start the worker with the course's own "
        "Python (`make worker`, or the `.venv/bin/dask` of the course folder) on a machine "
        "where that Python and the course folder are at the same paths as here; nothing was "
        "graded by it."
    )
