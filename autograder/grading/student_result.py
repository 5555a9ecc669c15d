"""What grading one student came to: one type for every way a student's grading ends.

``grade_one`` returns a ``StudentResult`` for a submission it graded and for one it refused
(a link or special file); ``on_dask.failed`` makes one for a grading that never came back.
``grade_class`` merges its ``rows`` into the class gradebook, keeps ``record()`` in
``results.json`` (which the summary, the exports and the benchmarks read) and its
``verdicts`` in ``verdicts.json``.

>>> result = StudentResult("ada", graded=False, jailed=False, seconds=0.0,
...                        problems=(Problem(NOT_GRADED_KIND, "", "the worker died"),))
>>> result.stopped, result.record()["problems"]
(True, [{'kind': 'not_graded', 'notebook': '', 'detail': 'the worker died'}])

But: it is plain data, which pickles (Dask hands it back from a worker); it reads and writes
no file and decides no status (``reports.summary`` does, from the record).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.grading.gradebook_rows import Rows
from autograder.shared.problems import NOT_GRADED_KIND, Problem


@dataclass(frozen=True)
class StudentResult:
    """One student's grading: what nbgrader did, what was found, the rows it scored."""

    student: str
    graded: bool  # nbgrader ran the notebooks (False: refused, or grading stopped)
    jailed: bool  # the student's kernels ran in the sandbox
    seconds: float  # grading this student took, in the worker
    problems: tuple[Problem, ...] = ()
    rows: Rows = field(default_factory=dict)  # the private gradebook's rows, to be merged
    verdicts: tuple[dict[str, Any], ...] = ()  # the judged verdict of each test cell
    log: str = ""  # nbgrader's log, or the traceback of a grading that stopped
    merge_seconds: float = 0.0  # writing the rows into the class gradebook, in the command

    @property
    def stopped(self) -> bool:
        """Whether grading stopped for a reason that is not the student's: nothing of it
        may reach the gradebook, whose earlier grades of the student stay."""
        return any(p.kind == NOT_GRADED_KIND for p in self.problems)

    def record(self) -> dict[str, Any]:
        """The entry of ``results.json``: everything but the rows, verdicts and log, which
        are kept elsewhere."""
        return {
            "student": self.student,
            "graded": self.graded,
            "jailed": self.jailed,
            "seconds": self.seconds,
            "problems": [p.as_dict() for p in self.problems],
            "merge_seconds": self.merge_seconds,
        }
