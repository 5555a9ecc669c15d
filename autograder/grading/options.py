"""How a grading run was asked to grade: ``GradingOptions``, frozen, built once from the
command line (``autograder.cli``) and handed whole (it pickles) to the cluster, each worker and
each student's grading.

>>> options = GradingOptions(course_root=course_root("/c"), jobs=3, lean=True)
>>> options.course_root, options.lean, options.where()
(PosixPath('/c'), True, 'on a local Dask cluster of 3 worker(s)')

But: it grades nothing and imports only the standard library, so the command reads its
arguments before it imports Dask or nbgrader; which students to grade is not part of it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class GradingOptions:
    """What a grading run was told, the same in the command, the cluster and every worker."""

    course_root: Path  # absolute, links resolved: workers must see it at the same path
    jobs: int = 1  # worker processes of a local cluster
    memory_gb: float | None = None  # one student's kernels; 0: no limit; None: the config's
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

    def for_tasks(self, tasks: int) -> GradingOptions:
        """These options for a run of ``tasks`` tasks (a student each): a local cluster of no
        more workers than tasks, since an idle worker still starts, sets up and proves it can
        grade (about 2 CPU seconds) for nothing.

        >>> GradingOptions(course_root=Path("/c"), jobs=4).for_tasks(1).where()
        'on a local Dask cluster of 1 worker(s)'
        >>> GradingOptions(course_root=Path("/c"), jobs=2).for_tasks(30).jobs
        2
        """
        return replace(self, jobs=max(1, min(self.jobs, tasks)))


def course_root(text: str) -> Path:
    """The course folder named on the command line, absolute and with links resolved."""
    return Path(text).resolve()
