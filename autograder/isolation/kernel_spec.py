"""Make nbgrader start one student's grading kernels inside the sandbox (``bwrap``).

``jail_kernels`` writes a kernelspec whose command is ``kernel_jail.py`` and puts into the
grading configuration it is given (``SandboxKernelManager.kernel_dirs``, ``Execute.kernel_name``,
and the kernel's command-line arguments, ``NotebookClient.extra_arguments``) the sandbox the
kernel runs in, as ``GradingSandbox`` settings say: of the machine only the operating system,
Python and the course library, read-only; a home and a working folder, each an empty 64 MB
folder in memory, with the files of the student's fresh home shown read-only in the first. The
course folder is not there at all. Everything a student's kernels start is capped together:
processes (the caller's ``process_cap``) and memory (``bwrap.memory_over`` on that cap:
``GradingSandbox.kernel_memory_gb``, which ``kernel_jail`` also sets as each process's own
limit); and every call they make passes the syscall filter, built here (``syscall_filter``) and
handed to ``kernel_jail`` to load.

But: where bubblewrap is missing the kernels are not started in it; the caller decides
whether to grade unconfined (``grade_class --unconfined``). Where no cgroup can be made, it
says so on stderr (the worker's log) and each process keeps only its own limits. It writes
nothing into this process's environment: two students graded side by side get their own.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from autograder.course import CODE_ROOT
from autograder.isolation import bwrap, syscall_filter
from autograder.isolation.bwrap import GradingSandbox, Sandbox, memory_bytes, python_and_library
from autograder.isolation.kernel_home import KernelHome, folder_names

JAIL_KERNEL = "python3-jailed"
JAIL_FILTER_FD = 3  # where kernel_jail puts the syscall filter for bwrap to read
KERNEL_PROCESSES = 256  # tasks (threads count) of one student's kernels; a fork bomb stops here
# All a kernel gets of the grader's environment (besides LC_* and *_NUM_THREADS): the
# instructor's own variables (tokens, keys) would otherwise reach the student's output.
KERNEL_ENVIRONMENT = (
    *folder_names(),
    *("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "PYTHONHASHSEED", "MPLBACKEND"),
    *("TOKENIZERS_PARALLELISM", "PYDEVD_DISABLE_FILE_VALIDATION", "NBGRADER_EXECUTION"),
)


# Libraries in the kernels should not start a thread per core each: the workers already
# use every core.
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


def give_kernels(config: Any, kernels: KernelHome) -> None:
    """Make the kernels that ``config`` starts (``SandboxKernelManager``) use ``kernels``' home
    and socket folder, the course library, one thread per library and no plot window: in
    their own environment, built for them, so students graded side by side keep their own;
    and hold each of their processes to ``GradingSandbox.kernel_memory_gb``. Call it after
    the run's settings are in ``config``."""
    # UNIX sockets, with a path prefix of their own folder; absolute, since the kernel's
    # working folder differs from this process's.
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(kernels.sockets / "kernel")
    quiet = {name: "1" for name in _ONE_THREAD}
    quiet.update(TOKENIZERS_PARALLELISM="false", MPLBACKEND="Agg", PYTHONPATH=str(CODE_ROOT))
    config.SandboxKernelManager.kernel_env = {**quiet, **kernels.environment()}
    # Each kernel process's own memory limit, sandbox or not.
    limit = memory_bytes(GradingSandbox(config=config).kernel_memory_gb)
    config.SandboxKernelManager.memory_bytes = limit or 0


@functools.cache
def kernels_folder() -> Path:
    """A folder of this process's own, made once, holding the jailed kernel's spec with this
    process's Python: a spec written by another process (another path to the Python, another
    machine's environment) names a Python the sandbox may not show, and every kernel dies."""
    folder = Path(tempfile.mkdtemp(prefix=f"bpe-kernels-{os.getpid()}-"))  # mode 0700
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    spec_dir = folder / "kernels" / JAIL_KERNEL
    spec_dir.mkdir(parents=True)
    jail = Path(__file__).resolve().parent / "kernel_jail.py"
    spec = {
        "argv": [sys.executable, "-I", "-S", str(jail), "{connection_file}"],
        "display_name": "Python 3 (grading sandbox)",
        "language": "python",
        "interrupt_mode": "signal",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return folder


def jail_available() -> bool:
    """True when kernels can be started in the sandbox here."""
    return bwrap.available()


def jail_kernels(
    course_root: Path,
    student: str,
    assignment: str,
    config: Any,
    kernels: KernelHome,
    cap: Path | None = None,
) -> bool:
    """Make nbgrader, configured by ``config``, start this student's kernels in the sandbox;
    False where the machine cannot or ``config`` says ``GradingSandbox.unconfined``.
    ``kernels``: the student's fresh home (its files are shown) and socket folder; ``cap``:
    the process cap's
    ``cgroup.procs``, which also gets a memory limit over all of the kernels' processes
    together: ``GradingSandbox.kernel_memory_gb`` (none where it is 0), also each kernel
    process's own address-space limit."""
    settings = GradingSandbox(config=config)
    if not settings.in_use():
        return False
    limit = memory_bytes(settings.kernel_memory_gb)
    caps = _whole_sandbox_caps(cap, limit)
    own = course_root.resolve() / "autograded" / student / assignment
    home = kernels.home
    sandbox = Sandbox(
        visible=python_and_library(),  # of the course, only the library the lessons import
        # Its working folder and its home are capped in-memory folders, gone when it ends;
        # of the home prepared on disk, only the files the grader wrote show, read-only.
        scratch=(own, home),
        pinned=tuple(sorted(p for p in home.rglob("*") if p.is_file())),
        # The kernel's sockets are files in the runtime folder: the grader must see them.
        writable=(kernels.sockets,),
        cwd=own,
        max_processes=KERNEL_PROCESSES,
    )
    jail = {
        "prefix": sandbox.command([], JAIL_FILTER_FD),
        # Built by this trusted process; kernel_jail (standard library only) places it.
        "seccomp": {"fd": JAIL_FILTER_FD, "program": syscall_filter.compiled().hex()},
        "caps": [str(procs) for procs in caps],
        "memory_bytes": limit or 0,
        "environment": KERNEL_ENVIRONMENT,
        # Inside, the kernel writes only to its folders in memory, to devices, and makes its
        # sockets: no file of its reaches the machine's disk.
        "landlock": {
            "writable": [str(folder) for folder in sandbox.in_memory()],
            "devices": ["/dev"],
            "sockets": [str(folder) for folder in sandbox.writable],
        },
    }
    # The spec is found in this process's own folder, and its command gets the jail as its
    # last argument: configuration of this student's grading, not of the process.
    config.SandboxKernelManager.kernel_dirs = [str(kernels_folder() / "kernels")]
    config.NotebookClient.extra_arguments = [json.dumps(jail)]
    config.Execute.kernel_name = JAIL_KERNEL
    return True


def _whole_sandbox_caps(cap: Path | None, memory_bytes: int | None) -> list[Path]:
    """The ``cgroup.procs`` files a kernel joins: the process cap and, over the same
    processes, a memory cap of ``memory_bytes`` (none if None). What cannot be had is said
    (once per worker), never silent."""
    if cap is None:
        bwrap.say_once(
            "grading kernels: no process cap (no pids cgroup can be made here): a kernel's "
            f"tasks are held to {KERNEL_PROCESSES} by RLIMIT_NPROC in its user namespace only, "
            "which the kernel does not enforce for root; and so no memory cap either: "
            + bwrap.memory_fallback(memory_bytes)
        )
        return []
    if not memory_bytes:
        return [cap]
    memory = bwrap.memory_over(cap, memory_bytes)
    if memory is None:
        bwrap.say_once(f"grading kernels: {bwrap.memory_fallback(memory_bytes)}")
        return [cap]
    return list(dict.fromkeys([cap, memory]))
