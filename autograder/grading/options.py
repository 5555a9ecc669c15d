"""How a grading run was asked to grade, and the command line every grading command shares.

``GradingOptions`` holds what a run was told (the course folder, where and how many workers,
the sandbox, the per-cell timeout, lean lessons, the memory limit), frozen, built once from
the command line by ``options_from`` and handed whole to the cluster, each worker (it pickles)
and each student's grading. ``course_parser`` builds the option every grading command takes
(``--root``); ``grading_parser`` adds how to grade (``grade_class`` and ``regrade`` read it).

>>> args = grading_parser("grade").parse_args(["--root", "/c", "--lean", "--jobs", "3"])
>>> options = options_from(args)
>>> options.course_root, options.lean, options.where()
(PosixPath('/c'), True, 'on a local Dask cluster of 3 worker(s)')

But: it grades nothing and imports only the standard library, so a command parses its
arguments before it imports Dask or nbgrader; which students to grade is the command's
(``--student``), not part of how.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MEMORY_GB = 4.0  # address-space limit of each grading kernel


@dataclass(frozen=True)
class GradingOptions:
    """What a grading run was told, the same in the command, the cluster and every worker."""

    course_root: Path  # absolute, links resolved: workers must see it at the same path
    jobs: int = 1  # worker processes of a local cluster
    memory_gb: float = DEFAULT_MEMORY_GB  # one student's kernels; 0: no limit
    timeout: int | None = None  # per cell, seconds; None: nbgrader_config.py's
    lean: bool = False  # lesson cells run only their definitions
    unconfined: bool = False  # student code runs without the sandbox, and grades say so
    scheduler: str | None = None  # an existing cluster's address; None: a local one
    in_process: bool = False  # grade in the command's own process, without Dask
    progress: bool = True  # a progress bar on stderr
    judge_memory_gb: float | None = None  # the judge's; None: nbgrader_config.py's

    def where(self) -> str:
        """Where the students are graded, as the command's last line says it."""
        if self.in_process:
            return "in one process"
        if self.scheduler:
            return f"on the Dask cluster at {self.scheduler}"
        return f"on a local Dask cluster of {self.jobs} worker(s)"


def course_root(text: str) -> Path:
    """The course folder named on the command line, absolute and with links resolved."""
    return Path(text).resolve()


def course_parser(description: str, allow_abbrev: bool = False) -> argparse.ArgumentParser:
    """A parser with the option every grading command takes, ``--root``; each command adds
    its own."""
    parser = argparse.ArgumentParser(description=description, allow_abbrev=allow_abbrev)
    parser.add_argument(
        "--root", type=course_root, default=".", help="course root (default: the current folder)"
    )
    return parser


def grading_parser(description: str) -> argparse.ArgumentParser:
    """``course_parser`` with how to grade and whom: the options of ``grade_class``, which
    ``regrade`` reads with this same parser so that both read a command line alike."""
    # grade_class has always taken abbreviations (--stud); one parser resolves them once.
    parser = course_parser(description, allow_abbrev=True)
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
        help="grade on the existing Dask cluster at this address (tls://host:8786), whose "
        "workers see the course folder at the same path (default: a local cluster of --jobs)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="grade in this process, one student after another, without Dask (a baseline)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def options_from(args: argparse.Namespace) -> GradingOptions:
    """The options ``grading_parser`` read."""
    return GradingOptions(
        course_root=args.root,
        jobs=args.jobs,
        memory_gb=args.memory_gb,
        timeout=args.timeout,
        lean=args.lean,
        unconfined=args.unconfined,
        scheduler=args.scheduler,
        in_process=args.in_process,
        progress=not args.no_progress,
    )
