"""nbgrader's Execute step, made to survive a kernel that dies or freezes part-way through.

``GuardedExecute`` keeps the cells that ran, puts an error output naming what happened (ename
``KernelLost``) into every code cell that did not, and lets nbgrader save the notebook: those
test cells score 0 and the reason is in the notebook for the summary and feedback.

A notebook past its time budget (``budget`` seconds beyond the time limit of each of its test
cells) is stopped the same way, so cell after cell that runs to the limit cannot hold a
worker for hours.

Its kernels are started and stopped without idle waits (``prompt_kernel``). It runs a
notebook only in the sandbox's kernel (``kernel_spec.JAIL_KERNEL``, which ``make autograde``
sets up) unless grading unconfined was asked for, so a bare ``nbgrader autograde`` or the
Formgrader's Autograde button cannot run a student's code as the instructor.

But: a single cell that loops is nbgrader's timeout's business, memory is limited by the
grading worker, and nothing here grades or trims cells (``lean_lessons`` does that).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Float

from autograder.isolation.bwrap import UNCONFINED
from autograder.isolation.kernel_spec import JAIL_KERNEL
from autograder.nbgrader_steps.prompt_kernel import PromptKernelManager

# The ename of the error output written into cells that could not run; the summary looks for it.
KERNEL_LOST = "KernelLost"


def lost_output(reason: str) -> NotebookNode:
    """The error output a cell gets when the kernel was gone before or while it ran."""
    text = f"{reason}; this cell did not run and its tests score 0"
    return NotebookNode(
        output_type="error", ename=KERNEL_LOST, evalue=text, traceback=[f"{KERNEL_LOST}: {text}"]
    )


class UnconfinedKernelError(RuntimeError):
    """A student's notebook was about to run outside the sandbox, as the instructor."""


def refuse_unconfined(kernel_name: str) -> None:
    """Stop unless the kernel is the sandboxed one ``make autograde`` sets up, or grading
    unconfined was asked for: a bare ``nbgrader autograde`` or the Formgrader's Autograde
    button would run the student's code as the instructor, beside the gradebook.

    >>> refuse_unconfined(JAIL_KERNEL)
    """
    if kernel_name != JAIL_KERNEL and os.environ.get(UNCONFINED) != "1":
        raise UnconfinedKernelError(
            "refusing to run a student's notebook outside the sandbox: grade with `make "
            f"autograde` (or set {UNCONFINED}=1 to run it unconfined, as yourself, on purpose)"
        )


class GuardedExecute(Execute):
    """Execute every cell; after the kernel dies or freezes, mark the rest as not run."""

    budget = Float(60.0, help="seconds a notebook may take beyond the time its tests may").tag(
        config=True
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # nbgrader's Execute passes its own manager class the same way, over any configured.
        kwargs.setdefault("kernel_manager_class", PromptKernelManager)
        super().__init__(*args, **kwargs)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> Any:
        refuse_unconfined(self.kernel_name)
        self.kernel_lost_reason: str | None = None
        # Many cells that each run to the time limit would hold a worker for hours.
        tests = sum(1 for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade"))
        self.deadline = time.monotonic() + self.budget + (self.timeout or 10) * tests
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type != "code":
            return cell, resources
        if self.kernel_lost_reason is None and time.monotonic() > self.deadline:
            self.kernel_lost_reason = f"the notebook ran past its time budget before cell {index}"
            self._kill_kernel()
        if self.kernel_lost_reason is not None:
            cell.outputs = [lost_output(self.kernel_lost_reason)]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self.kernel_lost_reason = f"kernel died while cell {index} ran"
        except CellTimeoutError:
            # nbgrader already interrupted the cell once; no answer after that means the
            # kernel ignores interrupts. Waiting on every later cell would cost a timeout
            # each, so stop it now.
            self.kernel_lost_reason = (
                f"kernel froze in cell {index} (no reply even to an interrupt)"
            )
            self._kill_kernel()
        except (ValueError, RuntimeError, OSError) as error:
            # A kernel whose messages no longer make sense (a bad signature after its
            # process table filled up, a broken socket) is as good as lost.
            self.kernel_lost_reason = f"kernel broke while cell {index} ran ({error})"[:200]
            self._kill_kernel()
        cell.outputs.append(lost_output(self.kernel_lost_reason))
        return cell, resources

    def _kill_kernel(self) -> None:
        if self.km is None:
            return
        try:
            run_sync(self.km.signal_kernel)(signal.SIGKILL)
        except Exception as error:  # already gone: nothing left to stop
            self.log.warning("could not kill the frozen kernel: %s", error)
