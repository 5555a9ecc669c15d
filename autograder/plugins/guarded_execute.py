"""nbgrader's Execute step, made to survive a kernel that dies or freezes part-way through.

``GuardedExecute`` keeps the cells that ran, puts an error output naming what happened (ename
``KernelLost``) into every code cell that did not, and lets nbgrader save the notebook: those
test cells score 0 and the reason is in the notebook for the summary and feedback.

A notebook past its time budget (``budget`` seconds beyond the time limit of each of its test
cells) is stopped the same way, so cell after cell that runs to the limit cannot hold a
worker for hours.

Its kernels are found where the configuration says (``SandboxKernelManager.kernel_dirs``, which
``kernels.jail_kernels`` sets). It runs a notebook only in the sandbox's kernel
(``kernels.JAIL_KERNEL``, which ``make autograde`` sets up) unless the configuration says
``GradingSandbox.unconfined``, so a bare ``nbgrader autograde`` or the Formgrader's Autograde
button cannot run a student's code as the instructor, beside the gradebook.

They are started and stopped without idle waits. jupyter_client's client calls a kernel
ready after its ``kernel_info`` reply and then 0.2 s in which the kernel publishes nothing; its
manager, after killing a kernel, looks every 0.1 s whether it has gone. Grading starts three
kernels a student. ``PromptKernelClient`` is ready as soon as the kernel has replied and its
``idle`` status for that request has come through the IOPub socket (proof that the socket is
connected: nbclient ignores any message that is not about its own requests).
``PromptKernelManager``, asked to stop a kernel now (grading's ``shutdown_kernel =
"immediate"``), kills it itself and looks every 5 ms whether it has gone, so that
jupyter_client's own stop, which follows, finds it gone at its first look; a stop that is not
now is jupyter_client's own, 0.1 s a look. Both classes use jupyter_client's public API only
(the manager: ``signal_kernel``, ``is_alive``, ``shutdown_kernel``), so its version needs no
upper bound; ``tests/test_prompt_kernel.py`` checks that they use no private name of it and
that stopping a kernel now never naps 0.1 s.

What a cell's kernel sends is the student's, made well-formed under nbformat's own schema. A
cell can send iopub messages of its own with its own parent, and nbclient copies what they
hold into the notebook: an execution count that is a string, a MIME bundle that is a list, a
stream named ``<script>``, a traceback that is not a list, metadata nested a thousand deep,
text holding a lone surrogate that UTF-8 cannot write. nbconvert or nbgrader would then refuse
the whole notebook. So a message nbclient cannot read is dropped, and after each cell runs
``well_formed_cell`` checks it against nbformat's schema (``nbformat.validator``) and, where it
fails, rebuilds each output from the fields the schema knows, dropping what cannot be
repaired. What changed, in words that never repeat the student's own text, goes into the cell
as a short note (``note_output``) and into ``record`` (the JSON lines ``grade_one`` reads to
ask a person to look). ``well_formed_metadata`` bounds a notebook's metadata the same way (a
widget state is the kernel's too). Then ``merged_streams`` makes each run of printed output
one output per stream, so that where the kernel's flushes fell (with the machine's load)
never changes the graded notebook or the feedback page of the same answer.

But: a single cell that loops is nbgrader's timeout's business (``ExecutePreprocessor.timeout``
in ``nbgrader_config.py``; ``cell_timeout`` reads it for the other steps), memory is limited by
the kernels' sandbox, nothing here grades or trims cells (``lessons`` does that), and every
well-formed output is kept, its text as sent (``PlainOutputs`` and ``MarkupAsText`` decide
later what of it may be shown); the prompt kernel classes only shorten waiting for a kernel.

>>> from nbformat.v4 import new_code_cell
>>> cell = new_code_cell("forge()")
>>> cell.execution_count = "<b>x</b>"
>>> cell.outputs = [{"output_type": "stream", "name": "<script>", "text": "hi"}]
>>> well_formed_cell(cell)
['the cell: execution_count', 'stream: name']
>>> cell.execution_count, cell.outputs[0]["name"]
(None, 'stdout')
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable
from queue import Empty
from typing import Any

from jupyter_client import protocol_version_info
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode, from_dict
from nbformat.validator import isvalid
from nbgrader.preprocessors import Execute
from traitlets import Dict, DottedObjectName, Float, Integer, List, Type, Unicode, default
from traitlets.config import Config

from autograder.sandbox.bwrap import UNCONFINED_FLAG, GradingSandbox
from autograder.sandbox.kernels import JAIL_KERNEL
from bpe_course.lesson_cells import nbgrader_meta

_REPLY_SECONDS = 1.0  # then ask again, as jupyter_client does
_IOPUB_SECONDS = 0.2  # a status lost before the socket connected: ask again
_LOOK_SECONDS = 0.005  # a killed kernel is gone within milliseconds; 0.1 s a look is idle
_GONE_SECONDS = 1.0  # then jupyter_client's own wait (0.1 s a look, 5 s in all) takes over


class PromptKernelClient(AsyncKernelClient):
    """An async kernel client whose ``wait_for_ready`` returns once the kernel has answered."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (math.inf if timeout is None else timeout)
        while True:
            request = self.kernel_info()
            reply = await _first(self.get_shell_msg, request, _REPLY_SECONDS)
            if reply and await _first(self.get_iopub_msg, request, _IOPUB_SECONDS, "idle"):
                self._adapt_protocol(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                if reply is None:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")
                raise RuntimeError(
                    f"Kernel replied, but its IOPub status never came in {timeout:.0f} seconds"
                )

    def _adapt_protocol(self, reply: dict[str, Any]) -> None:
        """Speak the kernel's major protocol version, as jupyter_client's own client does."""
        major = int(reply["content"]["protocol_version"].split(".")[0])
        if major != protocol_version_info[0]:
            self.session.adapt_version = major


async def _first(
    get: Callable[..., Awaitable[dict[str, Any]]], request: str, seconds: float, state: str = ""
) -> dict[str, Any] | None:
    """The first message ``get`` gives within ``seconds`` about ``request`` (with ``state``:
    saying the kernel is in that state), or None; the others are dropped."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        try:
            message = await get(timeout=left)
        except Empty:
            return None
        about = message["parent_header"].get("msg_id") == request
        if about and (not state or message["content"].get("execution_state") == state):
            return message
    return None


class PromptKernelManager(AsyncKernelManager):
    """jupyter_client's async kernel manager, with ``PromptKernelClient`` and a prompt stop."""

    # The manager builds its client from client_factory; client_class names it for the rest.
    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)
    client_class = DottedObjectName(f"{__name__}.PromptKernelClient")

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        """jupyter_client's stop; asked to stop now, first kill the kernel and wait for it to go."""
        if now and self.owns_kernel and self.has_kernel:
            # The same SIGKILL to the kernel's process group that jupyter_client's kill sends.
            await self.signal_kernel(signal.SIGKILL)
            until = time.monotonic() + _GONE_SECONDS
            while await self.is_alive() and time.monotonic() < until:
                await asyncio.sleep(_LOOK_SECONDS)
        await super().shutdown_kernel(now=now, restart=restart)


OUTPUT_TYPES = ("execute_result", "display_data", "stream", "error")
STREAM_NAMES = ("stdout", "stderr")
MAX_COUNT = 2**31 - 1  # beyond this a count is no prompt number anyone typed
MAX_DEPTH = 32  # nesting of metadata or JSON data; nbconvert copies it recursively
MAX_METADATA_BYTES = 100_000
JSON_MIME = re.compile(r"^application/(.*\+)?json$")  # the schema's: any JSON value
NOTE = "[grader] "  # starts the note a repaired cell shows


def _valid(node: Any, ref: str) -> bool:
    try:
        return isvalid(node, ref=ref, version=4, version_minor=5)
    except Exception:  # a value no JSON schema can read (a set, an object) is not valid
        return False


def _course_rules(output: Any) -> bool:
    """What the course asks beyond the schema: a stream is stdout or stderr (its name
    becomes a class name in HTML), a result's count is a plausible prompt number."""
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("name") in STREAM_NAMES
    return kind != "execute_result" or not _count(output.get("execution_count"))[1]


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests dicts or lists more than ``limit`` deep, found without
    recursion (the value may be nested deeper than Python's recursion limit).

    >>> too_deep({"a": [1]}, 2), too_deep({"a": [[1]]}, 2)
    (False, True)
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((child, depth + 1) for child in item)
    return False


def _bounded(value: Any, limit: int = MAX_METADATA_BYTES) -> bool:
    """Whether ``value`` is plain JSON, shallow and small enough to keep."""
    if too_deep(value):
        return False
    try:
        return len(json.dumps(value)) <= limit
    except (TypeError, ValueError, RecursionError):
        return False


def _encodable(value: Any) -> bool:
    """Whether ``value`` can be written as UTF-8 JSON (a lone surrogate, which a kernel's
    JSON may carry as an escape, cannot: nbformat's writer then fails)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _as_utf8(output: dict[str, Any]) -> dict[str, Any] | None:
    """``output`` with each character UTF-8 cannot hold replaced by "?"; None if it is not
    JSON at all."""
    try:
        text = json.dumps(output, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return dict(json.loads(text.encode("utf-8", "replace").decode("utf-8")))


def _count(value: Any) -> tuple[int | None, bool]:
    """An execution count as the schema wants it (a whole number from 0, or none), and
    whether it had to change."""
    if value is None or (type(value) is int and 0 <= value <= MAX_COUNT):
        return value, False
    return None, True


def _text(value: Any) -> tuple[str, bool]:
    """A multiline string as one string, and whether it had to change."""
    if isinstance(value, str):
        return value, False
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value), False
    return "", True


def _bundle(data: Any) -> tuple[dict[str, Any], list[str]]:
    """A MIME bundle with every value the schema refuses dropped, and what was dropped."""
    if not isinstance(data, dict):
        return {}, ["data"]
    kept = {
        mime: value
        for mime, value in data.items()
        if isinstance(mime, str)
        and (_bounded(value) if JSON_MIME.match(mime) else not _text(value)[1])
    }
    return kept, ["data"] if len(kept) < len(data) else []


def _rebuilt(output: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """``output`` rebuilt from the fields its type has, each made well-formed; None when its
    type is none of nbformat's."""
    kind = output.get("output_type")
    if kind not in OUTPUT_TYPES:
        return None, ["an output of no known type, dropped"]
    fixed: list[str] = []
    new: dict[str, Any] = {"output_type": kind}
    if kind in ("execute_result", "display_data"):
        new["data"], dropped = _bundle(output.get("data"))
        fixed += dropped
        metadata = output.get("metadata")
        new["metadata"] = metadata if isinstance(metadata, dict) and _bounded(metadata) else {}
        if new["metadata"] is not metadata:
            fixed.append("metadata")
    if kind == "execute_result":
        new["execution_count"], changed = _count(output.get("execution_count"))
        fixed += ["execution_count"] if changed else []
    if kind == "stream":
        name = output.get("name")
        new["name"] = name if name in STREAM_NAMES else "stdout"
        new["text"], changed = _text(output.get("text"))
        fixed += (["name"] if name not in STREAM_NAMES else []) + (["text"] if changed else [])
    if kind == "error":
        for field in ("ename", "evalue"):
            value = output.get(field)
            new[field] = value if isinstance(value, str) else ""
            fixed += [] if isinstance(value, str) else [field]
        lines = output.get("traceback")
        good = isinstance(lines, list) and all(isinstance(line, str) for line in lines)
        new["traceback"] = lines if good else []
        fixed += [] if good else ["traceback"]
    return new, [f"{kind}: {field}" for field in fixed] or [f"{kind}: an unknown field"]


def well_formed_output(output: Any) -> tuple[NotebookNode | None, list[str]]:
    """``output`` if nbformat's schema takes it as it is, else rebuilt well-formed, else
    None; with what changed, in words.

    >>> well_formed_output({"output_type": "display_data", "data": [1], "metadata": {}})
    ({'output_type': 'display_data', 'data': {}, 'metadata': {}}, ['display_data: data'])
    """
    if not isinstance(output, dict):
        return None, ["an output that is not an object, dropped"]
    if too_deep(output):
        new, changed = _rebuilt(output)
    elif not _encodable(output):
        new, changed = _as_utf8(output), [f"{output.get('output_type')}: text not UTF-8"[:60]]
        if new is not None and not (_valid(new, "output") and _course_rules(new)):
            new, more = _rebuilt(new)
            changed += more
    elif _valid(output, "output") and _course_rules(output):
        return (output if isinstance(output, NotebookNode) else from_dict(output)), []
    else:
        new, changed = _rebuilt(output)
    if new is None or not _valid(new, "output"):
        return None, changed
    return from_dict(new), changed


def well_formed_cell(cell: NotebookNode) -> list[str]:
    """Make the code cell ``cell`` well-formed in place; return what changed (empty when it
    already was), each as ``<where>: <field>``."""
    changed: list[str] = []
    count, bad = _count(cell.get("execution_count"))
    if bad:
        cell["execution_count"] = count
        changed.append("the cell: execution_count")
    outputs = cell.get("outputs")
    if not isinstance(outputs, list):
        outputs = []
        changed.append("the cell: outputs")
    fine = all(isinstance(o, dict) and _course_rules(o) for o in outputs)
    if fine and not too_deep(outputs) and _valid(cell, "code_cell") and _encodable(outputs):
        return changed
    kept = []
    for output in outputs:
        new, what = well_formed_output(output)
        changed += what
        if new is not None:
            kept.append(new)
    cell["outputs"] = kept
    if not _valid(cell, "code_cell"):  # what the kernel wrote into the cell's metadata
        timing = cell.get("metadata", {}).pop("execution", None)
        changed += ["the cell: metadata"] if timing is not None else []
    if not _valid(cell, "code_cell"):  # nothing else a kernel reaches: keep no output at all
        cell["outputs"] = []
        changed.append("the cell: every output, dropped")
    return changed


def merged_streams(outputs: list[NotebookNode]) -> tuple[list[NotebookNode], dict[int, int]]:
    """``outputs`` with each run of stream outputs (those between two other outputs) made one
    output per stream, stdout first, its pieces joined in the order they came; and where
    each output went (old index: new index). The kernel flushes its streams before any
    display, so the runs do not depend on timing (the module says why that matters). The
    text is joined as it came: nbclient's own ``coalesce_streams`` also rewrites carriage
    returns with a regex whose time grows with the square of a line's length, a student's to
    choose, and moves every print above the figures between them.

    >>> from nbformat.v4 import new_output
    >>> def stream(name, text): return new_output("stream", name=name, text=text)
    >>> pieces = [stream("stderr", "!"), stream("stdout", "a"), stream("stdout", "\\r b\\n"),
    ...           new_output("display_data", data={"text/plain": "fig"}), stream("stdout", "c")]
    >>> merged, where = merged_streams(pieces)
    >>> [o.get("text", o.get("data")) for o in merged], where[3]
    (['a\\r b\\n', '!', {'text/plain': 'fig'}, 'c'], 2)
    """
    merged: list[NotebookNode] = []
    where: dict[int, int] = {}
    start = 0
    while start < len(outputs):
        end = start
        while end < len(outputs) and outputs[end].get("output_type") == "stream":
            end += 1
        if end == start:  # not a stream: kept as it is
            where[start] = len(merged)
            merged.append(outputs[start])
            start += 1
            continue
        run = list(enumerate(outputs[start:end], start))
        for name in sorted({o["name"] for _, o in run}, key=lambda n: (n != "stdout", n)):
            pieces = [(i, o) for i, o in run if o["name"] == name]
            first = pieces[0][1]
            first["text"] = "".join(_text(o["text"])[0] for _, o in pieces)
            where.update((i, len(merged)) for i, _ in pieces)
            merged.append(first)
        start = end
    return merged, where


def well_formed_metadata(metadata: NotebookNode) -> list[str]:
    """Drop each top-level entry of a notebook's metadata that is nested too deep or too
    large to copy (a widget state a kernel sent); return what was dropped."""
    dropped = [key for key, value in metadata.items() if not _bounded(value, 10 * 2**20)]
    for key in dropped:
        del metadata[key]
    return [f"notebook metadata: {len(dropped)} entries"] if dropped else []


def note_output(changed: list[str]) -> NotebookNode:
    """The note a repaired cell shows: what the grader changed in its outputs, and that a
    person will look.

    >>> note = note_output(["stream: name"]).text
    >>> note.startswith(NOTE), "(stream: name)" in note
    (True, True)
    """
    what = "; ".join(dict.fromkeys(changed))
    text = (
        f"{NOTE}output this cell's kernel sent was not well-formed and was repaired or "
        f"dropped ({what[:300]}); a person will check this notebook.\n"
    )
    return from_dict({"output_type": "stream", "name": "stderr", "text": text})


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
    """Stop unless the kernel is the sandbox's (``JAIL_KERNEL``) or unconfined was asked for.

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
    """``PromptKernelManager`` finding kernel specs in ``kernel_dirs`` (jupyter_client's own
    spec manager takes its folders from ``JUPYTER_PATH``, an environment variable), its
    kernels given ``kernel_env`` (the student's home, ``kernels.give_kernels``)."""

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
        dirs = {"kernel_dirs": self.kernel_dirs} if self.kernel_dirs else {}
        return KernelSpecManager(parent=self, data_dir=self.data_dir, **dirs)


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
                self.finish_cell(nb.cells[index], index, first_time=False)
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

    def finish_cell(self, cell: NotebookNode, index: int, first_time: bool = True) -> None:
        """Make the cell's outputs well-formed, the first time each run of streams in one
        output per stream (``merged_streams``); note what changed in the cell and the
        record."""
        changed = self.dropped.pop(index, []) + well_formed_cell(cell)
        if first_time:
            cell["outputs"], where = merged_streams(cell["outputs"])
            # nbclient's record of where each display sits, moved to match: a later cell's
            # update reaches the display it named.
            for cells in self._display_id_map.values():
                if index in cells:
                    cells[index] = [where[i] for i in cells[index] if i in where]
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
