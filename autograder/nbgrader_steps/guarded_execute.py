"""nbgrader's Execute step, made to survive a kernel that dies or freezes part-way through.

``GuardedExecute`` keeps the cells that ran, puts an error output naming what happened (ename
``KernelLost``) into every code cell that did not, and lets nbgrader save the notebook: those
test cells score 0 and the reason is in the notebook for the summary and feedback.

A notebook past its time budget (``budget`` seconds beyond the time limit of each of its test
cells) is stopped the same way, so cell after cell that runs to the limit cannot hold a
worker for hours.

What a cell's kernel sends is the student's: a message nbclient cannot read is dropped, and
after each cell runs its outputs are made well-formed (``well_formed_outputs``) before
nbconvert or nbgrader validates them, with a note in the cell and a line in ``record`` (the
JSON lines ``grade_one`` reads to ask a person to look).

Its kernels are started and stopped without idle waits (``prompt_kernel``), and found where
the configuration says (``SandboxKernelManager.kernel_dirs``, which
``kernels.jail_kernels`` sets). It runs a notebook only in the sandbox's kernel
(``kernels.JAIL_KERNEL``, which ``make autograde`` sets up) unless the configuration says
``GradingSandbox.unconfined``, so a bare ``nbgrader autograde`` or the Formgrader's Autograde
button cannot run a student's code as the instructor.

But: a single cell that loops is nbgrader's timeout's business (``ExecutePreprocessor.timeout``
in ``nbgrader_config.py``; ``cell_timeout`` reads it for the other steps), memory is limited by
the kernels' sandbox, and nothing here grades or trims cells (``lean_lessons`` does that).
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Dict, Float, Integer, List, Unicode, default
from traitlets.config import Config

from autograder.nbgrader_steps.prompt_kernel import PromptKernelManager
from autograder.sandbox.bwrap import UNCONFINED_FLAG, GradingSandbox
from autograder.sandbox.kernels import JAIL_KERNEL
from autograder.shared.well_formed_outputs import (
    note_output,
    well_formed_cell,
    well_formed_metadata,
)
from bpe_course.lesson_cells import nbgrader_meta

# Message types named in a note as they are; any other is "a message" (its type is the kernel's).
_KNOWN_MESSAGES = (
    "execute_result", "display_data", "update_display_data", "stream", "error", "status",
    "clear_output", "execute_input", "comm_open", "comm_msg", "comm_close",
)  # fmt: skip

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


def refuse_unconfined(kernel_name: str, unconfined: bool = False) -> None:
    """Stop unless the kernel is the sandboxed one ``make autograde`` sets up, or grading
    unconfined was asked for: a bare ``nbgrader autograde`` or the Formgrader's Autograde
    button would run the student's code as the instructor, beside the gradebook.

    >>> refuse_unconfined(JAIL_KERNEL)
    """
    if kernel_name != JAIL_KERNEL and not unconfined:
        raise UnconfinedKernelError(
            "refusing to run a student's notebook outside the sandbox: grade with `make "
            f"autograde` (or pass {UNCONFINED_FLAG} to run it unconfined, as yourself, on "
            "purpose)"
        )


def cell_timeout(config: Config) -> float:
    """Seconds a cell may run, as ``config`` gives them to nbgrader's Execute (its own
    default where nothing is configured; nbgrader's default too where the limit is off),
    for the steps that hold other work to the same limit.

    >>> config = Config()
    >>> config.ExecutePreprocessor.timeout = 7
    >>> cell_timeout(config)
    7.0
    """
    seconds = Execute(config=config).timeout
    return float(seconds if seconds and seconds > 0 else Execute.timeout.default_value)


class SandboxKernelManager(PromptKernelManager):
    """``PromptKernelManager`` whose kernel specs are looked up where the configuration says
    (``kernel_dirs``, which ``kernels.jail_kernels`` sets): jupyter_client's own spec
    manager takes its folders from ``JUPYTER_PATH``, an environment variable. Its kernels get
    ``kernel_env`` (the student's home, ``kernels.give_kernels``) in their environment."""

    kernel_dirs = List(
        Unicode(), help="folders holding the kernel specs to start (empty: Jupyter's own)"
    ).tag(config=True)
    kernel_env = Dict(
        value_trait=Unicode(),
        help="variables set in the kernel's environment, over this process's (its home)",
    ).tag(config=True)

    memory_bytes = Integer(
        0, help="address-space limit of the kernel's process, set by prlimit (0: none)"
    ).tag(config=True)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The kernel's command, under ``memory_bytes`` (an unconfined kernel has no other
        limit; the sandbox's launcher sets the same one again)."""
        command = super().format_kernel_cmd(extra_arguments)
        if self.memory_bytes > 0:
            return ["prlimit", f"--as={self.memory_bytes}", "--", *command]
        return command

    async def start_kernel(self, **kw: Any) -> None:
        """Start the kernel with ``kernel_env`` in its environment (built for it alone)."""
        if self.kernel_env:
            kw["env"] = {**kw.get("env", os.environ), **self.kernel_env}
        await super().start_kernel(**kw)

    @default("kernel_spec_manager")
    def _configured_spec_manager(self) -> KernelSpecManager:
        if not self.kernel_dirs:
            return KernelSpecManager(parent=self, data_dir=self.data_dir)
        return KernelSpecManager(parent=self, data_dir=self.data_dir, kernel_dirs=self.kernel_dirs)


class GuardedExecute(Execute):
    """Execute every cell; after the kernel dies or freezes, mark the rest as not run."""

    budget = Float(60.0, help="seconds a notebook may take beyond the time its tests may").tag(
        config=True
    )
    record = Unicode(
        "", help="file to append each repaired cell to, as a JSON line (none when empty)"
    ).tag(config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # nbgrader's Execute passes its own manager class the same way, over any configured.
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(*args, **kwargs)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> Any:
        refuse_unconfined(self.kernel_name, GradingSandbox(parent=self).unconfined)
        self.kernel_lost_reason: str | None = None
        # Many cells that each run to the time limit would hold a worker for hours.
        tests = sum(1 for c in nb.cells if nbgrader_meta(c).get("grade"))
        seconds = self.timeout if self.timeout and self.timeout > 0 else cell_timeout(Config())
        self.deadline = time.monotonic() + self.budget + seconds * tests
        self.notebook_name = str((resources or {}).get("unique_key", ""))
        self.dropped: dict[int, list[str]] = {}
        nb, resources = super().preprocess(nb, resources, km)
        self.finish_notebook(nb)
        return nb, resources

    def finish_notebook(self, nb: NotebookNode) -> None:
        """Once every cell ran: the cells an update_display_data reached back into, and the
        notebook's metadata (a widget state the kernel sent), made well-formed too."""
        for index in sorted({i for cells in self._display_id_map.values() for i in cells}):
            if index < len(nb.cells) and nb.cells[index].cell_type == "code":
                self.finish_cell(nb.cells[index], index)
        self._record(-1, well_formed_metadata(nb.metadata))

    def process_message(self, msg: dict[str, Any], cell: NotebookNode, cell_index: int) -> Any:
        """nbclient's, except that a message it cannot read (a field missing, of the wrong
        type) is dropped and noted rather than failing the whole notebook."""
        try:
            return super().process_message(msg, cell, cell_index)
        except CellExecutionComplete:
            raise
        except Exception:  # what the student's kernel sent is the student's
            kind = msg.get("msg_type") if isinstance(msg, dict) else None
            what = f"a {kind} message" if kind in _KNOWN_MESSAGES else "a message"
            self.dropped.setdefault(cell_index, []).append(f"{what} nbclient cannot read")
            return None

    def finish_cell(self, cell: NotebookNode, index: int) -> None:
        """Make the cell's outputs well-formed; note what changed in the cell and the record."""
        changed = self.dropped.pop(index, []) + well_formed_cell(cell)
        if changed:
            cell.outputs.append(note_output(changed))
            self._record(index, changed)

    def _record(self, index: int, changed: list[str]) -> None:
        if not changed or not self.record:
            return
        line = {"notebook": self.notebook_name, "cell": index, "changed": changed}
        with open(self.record, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        if cell.cell_type != "code":
            return cell, resources
        try:
            return self._run_cell(cell, resources, index)
        finally:
            self.finish_cell(cell, index)

    def _run_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
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
        except (ValueError, RuntimeError, OSError, KeyError, TypeError, AttributeError) as error:
            # A kernel whose messages no longer make sense (a bad signature after its
            # process table filled up, a broken socket, a reply missing its fields) is as
            # good as lost.
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
