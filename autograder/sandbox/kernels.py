"""Make nbgrader start one student's grading kernels inside the sandbox (``bwrap``).

``jail_kernels`` points nbgrader at a kernelspec whose command is ``kernel_jail.py`` and gives
it the jail, whose parts ``kernel_jail`` lists: a sandbox that shows Python and the course
library, not the course folder, with an empty home and working folder in memory; caps over
all the student's kernels together; the syscall filter; the folders Landlock lets it write.

``student_home`` gives one student's kernels a fresh home, deleted afterwards, with an IPython
profile that keeps no history, so no startup file or history one student's code leaves
reaches the next; sockets go in a folder of their own in ``/var/tmp``.
``remove_orphaned_homes`` deletes those of a worker killed mid-student.

But: where bubblewrap is missing the kernels are not started in it; the caller decides
whether to grade unconfined (``grade_class --unconfined``). Where no cgroup can be made, it
says so on stderr (the worker's log) and each process keeps only its own limits. It writes
nothing into this process's environment: two students graded side by side get their own.

>>> with student_home("ada") as kernels:
...     kernels.environment()["HOME"] == str(kernels.home), (kernels.home / ".ipython").is_dir()
(True, True)
>>> kernels.home.exists()
False
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.course import CODE_ROOT
from autograder.sandbox import bwrap
from autograder.sandbox.bwrap import (
    GradingSandbox,
    Sandbox,
    memory_bytes,
    process_alive,
    python_and_library,
)

_HOME_PREFIX = "grading-home-"  # then the student, the grading process's id, mkdtemp's letters
_SPECS_PREFIX = "bpe-kernels-"  # then the grading process's id, mkdtemp's letters
# Read by IPython when the kernel starts; a fresh profile keeps nobody's code on disk.
_NO_HISTORY = "c.HistoryManager.enabled = False\n"


def _folders(home: Path, sockets: Path) -> dict[str, Path]:
    return {
        "HOME": home,
        "IPYTHONDIR": home / ".ipython",
        "JUPYTER_CONFIG_DIR": home / ".jupyter",
        "JUPYTER_DATA_DIR": home / ".local" / "share" / "jupyter",
        "JUPYTER_RUNTIME_DIR": sockets,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "MPLCONFIGDIR": home / ".config" / "matplotlib",
    }


@dataclass(frozen=True)
class KernelHome:
    """One student's kernels' fresh home, and the folder of their sockets."""

    home: Path
    sockets: Path

    def environment(self) -> dict[str, str]:
        """The variables that point a kernel at this home, for its own environment."""
        return {name: str(folder) for name, folder in _folders(self.home, self.sockets).items()}


def _sockets_root() -> Path:
    """``/var/tmp`` where there is one: in the sandbox the socket folder then lies outside
    every folder the kernel may write to (``/tmp`` among them), so Landlock can keep it to
    sockets. Short, so that socket paths stay under 108 bytes."""
    shared = Path("/var/tmp")
    return shared if os.access(shared, os.W_OK | os.X_OK) else Path(tempfile.gettempdir())


def _remove(folder: Path) -> None:
    """Remove a folder a kernel had, even one it made unreadable (Landlock leaves chmod)."""
    with contextlib.suppress(OSError):
        folder.chmod(0o700)
    shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def student_home(student: str) -> Iterator[KernelHome]:
    """A fresh, empty home for one student's kernels, removed after the block; kernels get
    it through their environment (``KernelHome.environment``)."""
    # The grading process's id in the name: a worker killed mid-student leaves the folder
    # behind, and the next worker knows it for an orphan (remove_orphaned_homes).
    prefix = f"{_HOME_PREFIX}{student[:12]}-{os.getpid()}-"
    home = Path(tempfile.mkdtemp(prefix=prefix))
    # A name of its own, not the home's: on a hub anyone can list /tmp and make a folder first.
    sockets = Path(tempfile.mkdtemp(prefix=prefix, suffix=".sockets", dir=_sockets_root()))
    folders = _folders(home, sockets)
    try:
        for folder in folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        profile = folders["IPYTHONDIR"] / "profile_default"
        profile.mkdir()
        for name in ("ipython_config.py", "ipython_kernel_config.py"):
            (profile / name).write_text(_NO_HISTORY)
        # matplotlib rebuilds its font list in an empty folder (seconds); the list is plain
        # JSON data, so the instructor's copy is safe to reuse.
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        ours = os.environ.get("MPLCONFIGDIR") or os.path.join(cache, "matplotlib")
        for path in Path(ours).glob("fontlist-*.json"):
            shutil.copyfile(path, folders["MPLCONFIGDIR"] / path.name)
        yield KernelHome(home, sockets)
    finally:
        _remove(home)
        _remove(sockets)


def remove_orphaned_homes() -> list[Path]:
    """Remove the homes, socket folders and kernel specs (``kernels_folder``) whose grading
    process is gone; return them. Only folders of this account are touched (on a hub,
    students share ``/tmp``)."""
    orphans = []
    places = dict.fromkeys([Path(tempfile.gettempdir()), _sockets_root()])
    patterns = (f"{_HOME_PREFIX}*", f"{_SPECS_PREFIX}*")
    for home in (found for p in places for pattern in patterns for found in p.glob(pattern)):
        pid = home.name.rsplit("-", 2)[-2]
        try:
            info = home.lstat()
        except OSError:  # another worker, starting too, removed it first
            continue
        ours = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
        if ours and pid.isascii() and pid.isdigit() and not process_alive(int(pid)):
            _remove(home)
            orphans.append(home)
    return orphans


JAIL_KERNEL = "python3-jailed"
JAIL_FILTER_FD = 3  # where kernel_jail puts the syscall filter for bwrap to read
KERNEL_PROCESSES = 256  # tasks (threads count) of one student's kernels; a fork bomb stops here
# All a kernel gets of the grader's environment (besides LC_* and *_NUM_THREADS): the
# instructor's own variables (tokens, keys) would otherwise reach the student's output.
KERNEL_ENVIRONMENT = (
    *_folders(Path("/"), Path("/")),  # those that point at the student's home
    *("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "PYTHONHASHSEED", "MPLBACKEND"),
    *("TOKENIZERS_PARALLELISM", "PYDEVD_DISABLE_FILE_VALIDATION", "NBGRADER_EXECUTION"),
)


# Libraries in the kernels should not start a thread per core each: the workers already
# use every core.
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


def give_kernels(config: Any, kernels: KernelHome) -> None:
    """Make the kernels that ``config`` starts (``SandboxKernelManager``) use ``kernels``' home
    and socket folder, in an environment built for them (students graded side by side keep
    their own), each process held to ``GradingSandbox.kernel_memory_gb``. Call it after the
    run's settings are in ``config``."""
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
    folder = Path(tempfile.mkdtemp(prefix=f"{_SPECS_PREFIX}{os.getpid()}-"))  # mode 0700
    # A cluster's worker is stopped without its atexit: remove_orphaned_homes takes it then.
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
    the process cap's ``cgroup.procs``, also given a memory limit over all of the kernels'
    processes together, ``GradingSandbox.kernel_memory_gb`` (none where it is 0)."""
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
        "seccomp": {"fd": JAIL_FILTER_FD, "program": bwrap.compiled().hex()},
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
    """The ``cgroup.procs`` files a kernel joins: ``cap`` and a memory cap of ``memory_bytes``
    over the same processes (none if None); what cannot be had is said (``bwrap.say_once``)."""
    if cap is None:
        bwrap.say_once(
            "grading kernels: no process cap (no pids cgroup can be made here): a kernel's "
            f"tasks are held to {KERNEL_PROCESSES} by RLIMIT_NPROC in its user namespace only, "
            "which the kernel does not enforce for root; and so no memory cap either: "
            + bwrap.memory_fallback(memory_bytes)
        )
        return []
    memory = bwrap.memory_over(cap, memory_bytes) if memory_bytes else None
    if memory_bytes and memory is None:
        bwrap.say_once(f"grading kernels: {bwrap.memory_fallback(memory_bytes)}")
    return list(dict.fromkeys(procs for procs in (cap, memory) if procs))
