"""The one sandbox every run of student code goes through: bubblewrap, plus a cap on processes.

``Sandbox(...).command(argv)`` wraps a command in ``bwrap``: a throwaway uid (65534), its own
PID, network, IPC and mount namespaces (everything it starts dies with it), a read-only view
of the machine, a private ``/tmp``, the private folders hidden and only the named folders
writable. ``process_cap`` puts a process and all it starts under a pids cgroup.

But: memory and file sizes are ``setrlimit``'s job (the callers set them), and where bubblewrap
or the cgroup cannot be had this module only says so: the callers decide whether to go on.

>>> Sandbox(hide=(Path("/srv/course/source"),)).command(["true"])[-4:]
['--tmpfs', '/srv/course/source', '--', 'true']
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

THROWAWAY_UID = 65534  # "nobody" inside the sandbox; it owns nothing there
UNCONFINED = "BPE_GRADING_UNCONFINED"  # "1": run student code without the sandbox
_PIDS_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))  # cgroup v1, then v2


@dataclass(frozen=True)
class Sandbox:
    """What a sandboxed command sees: all read-only, but for these folders."""

    keep: tuple[Path, ...] = ()  # folders that must stay readable even under the private /tmp
    hide: tuple[Path, ...] = ()  # folders that appear empty
    blank: tuple[Path, ...] = ()  # files that appear empty
    reveal: tuple[Path, ...] = ()  # folders inside hidden ones that stay readable
    writable: tuple[Path, ...] = ()  # folders bound read-write (a student's fresh home)
    scratch: tuple[Path, ...] = ()  # folders replaced by an empty writable tmpfs
    cwd: Path | None = None

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the sandbox (``bwrap`` must be on PATH)."""
        out = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
        out += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        out += ["--uid", str(THROWAWAY_UID), "--gid", str(THROWAWAY_UID)]
        out += ["--setenv", "TMPDIR", "/tmp", "--cap-drop", "ALL"]
        for folder in self.keep:  # a course or venv under /tmp (a CI clone) stays readable
            if Path(folder).resolve().is_relative_to("/tmp"):
                out += ["--ro-bind", str(folder), str(folder)]
        for folder in self.hide:
            out += ["--tmpfs", str(folder)]
        for path in self.blank:
            out += ["--ro-bind", "/dev/null", str(path)]
        for folder in self.reveal:
            out += ["--ro-bind", str(folder), str(folder)]
        for folder in self.writable:
            out += ["--bind", str(folder), str(folder)]
        for folder in self.scratch:
            out += ["--tmpfs", str(folder)]
        if self.cwd is not None:
            out += ["--chdir", str(self.cwd)]
        return [*out, "--", *argv]


@functools.cache
def available() -> bool:
    """True when bubblewrap can make its namespaces on this machine."""
    if not shutil.which("bwrap"):
        return False
    try:
        probe = subprocess.run(Sandbox().command(["true"]), capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def in_use() -> bool:
    """True when student code is to run in the sandbox: it works here and nobody said
    UNCONFINED (``grade_class --unconfined``, ``make autograde UNCONFINED=1``)."""
    return os.environ.get(UNCONFINED) != "1" and available()


def why_unavailable() -> str:
    """One line for an instructor on a machine without the sandbox."""
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    return "bubblewrap cannot create namespaces here (are user namespaces disabled?)"


def _pids_root() -> Path | None:
    for root in _PIDS_ROOTS:
        writable = (root / "cgroup.procs").exists() and os.access(root, os.W_OK)
        if writable and (root.name == "pids" or "pids" in _v2_controllers(root)):
            return root
    return None


def _v2_controllers(root: Path) -> str:
    with contextlib.suppress(OSError):
        return (root / "cgroup.subtree_control").read_text()
    return ""


@contextlib.contextmanager
def process_cap(name: str, max_processes: int) -> Iterator[Path | None]:
    """A pids cgroup allowing ``max_processes``; yields its ``cgroup.procs`` file (write a pid
    there to cap that process and all it starts), or None where none can be made. On exit,
    whatever still runs in it is killed and the cgroup removed."""
    root = _pids_root()
    group = root / f"bpe-grading-{name}-{os.getpid()}" if root else None
    try:
        if group is not None:
            group.mkdir()
            (group / "pids.max").write_text(str(max_processes))
    except OSError:
        group = None
    try:
        yield group / "cgroup.procs" if group else None
    finally:
        if group is not None:
            _empty_and_remove(group)


def _empty_and_remove(group: Path) -> None:
    for _ in range(50):
        with contextlib.suppress(OSError):
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if not pids:
                group.rmdir()
                return
        time.sleep(0.02)


def join_cap(procs: Path | str | None) -> None:
    """Put this process (and so all it starts) under a cap from :func:`process_cap`."""
    if procs:
        with contextlib.suppress(OSError):
            Path(procs).write_text(str(os.getpid()))
