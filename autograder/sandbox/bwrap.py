"""The one sandbox every run of student code goes through: bubblewrap, a syscall filter, caps.

``Sandbox(...).command(argv, seccomp_fd)`` wraps a command in ``bwrap``: a throwaway uid in
its own namespaces (everything it starts dies with it) that sees of the machine only the
operating system (of its ``/etc`` only what programs read) and the folders named, read-only,
and a private ``/tmp`` and scratch folders, capped, in memory. Its tasks are capped from inside
(``max_processes``, for an instructor who is not root) and by a pids cgroup (``process_cap``,
for root); ``sandbox_cap`` (the judge's) and ``memory_over`` (the kernels') add a memory cgroup
over a whole sandbox. ``remove_orphaned_caps`` removes the cgroups whose maker is gone;
``python -m autograder.sandbox.bwrap`` says which caps this machine gives, and the fallbacks.

>>> Sandbox(visible=(Path("/srv/course/bpe_course"),)).command(["true"], 3)[-7:]
['--ro-bind', '/srv/course/bpe_course', '/srv/course/bpe_course', '--seccomp', '3', '--', 'true']

The syscall filter (``compiled()``, built with libseccomp once per process) fails each call
``DENIED`` names with EPERM (Python's ``PermissionError``; nothing is killed) and allows every
other; bubblewrap loads it from the descriptor ``opened()`` hands, just before the command
runs. The sandbox is ``available()`` only where bubblewrap runs a command under that filter.
The threat model is docs/guides/sandbox.md.

>>> len(compiled()) % 8  # whole BPF instructions of 8 bytes each
0

But: memory per process and file sizes are ``setrlimit``'s job (the judge's child and
``kernel_jail`` set them). Where bubblewrap, libseccomp or a cgroup cannot be had this module
only says so (``why_unavailable``, ``say_once`` on stderr: a worker's log); the callers decide
whether to go on (grading refuses unless asked to run unconfined).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traitlets import Bool, Float
from traitlets.config import Configurable

# Each fails with EPERM (``_rules``: the three denied in part). Why, by group:
DENIED = (
    # The kernel's largest attack surfaces reachable without privilege, used by no kernel here.
    *("io_uring_setup", "io_uring_enter", "io_uring_register"),
    *("bpf", "perf_event_open", "userfaultfd"),
    *("keyctl", "add_key", "request_key"),
    # Reading or steering another process (the sandbox holds only the student's, still).
    *("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
    # New namespaces give a process capabilities inside them, and with them the code paths
    # that are otherwise for root only (mounting, network configuration).
    *("unshare", "setns", "clone", "clone3"),
    *("mount", "umount2", "pivot_root", "chroot"),
    *("fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr"),
    # Another kernel, kernel modules, files by handle (past the mount's view), the persona.
    *("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module"),
    *("open_by_handle_at", "name_to_handle_at", "personality"),
    # The machine's own administration: none of it is a student's to try.
    *("reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "iopl", "ioperm"),
    "fanotify_init",
)
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
NAMESPACE_FLAGS = (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000)
_ERRNO_OF = {"clone3": errno.ENOSYS}  # the rest: EPERM


class FilterUnavailableError(RuntimeError):
    """The filter cannot be built here; the message says what is missing."""


def _rules(seccomp: Any, name: str) -> list[tuple]:
    """The argument tests of each rule that denies ``name`` (one rule of none: always).

    ``personality`` may ask for the persona (0xffffffff) or set plain Linux (0), the values
    Python and glibc use: the kernel reads the argument's low 32 bits, neither all 0 nor all 1
    exactly when two neighbouring bits differ (a rule tests an argument once: one rule per pair
    and way). ``clone`` is denied with a flag that makes a namespace (what ``unshare`` does);
    ``clone3`` always, with ENOSYS (``_ERRNO_OF``): its flags lie in memory a filter cannot
    read, and glibc then falls back to ``clone``."""
    if name == "personality":
        return [
            (seccomp.Arg(0, seccomp.MASKED_EQ, 0b11 << bit, differ << bit),)
            for bit in range(31)
            for differ in (0b01, 0b10)
        ]
    if name == "clone":
        return [(seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag),) for flag in NAMESPACE_FLAGS]
    return [()]


@functools.cache
def compiled() -> bytes:
    """The filter as a BPF program for this machine's architecture, built once per process."""
    try:
        import pyseccomp as seccomp  # ctypes over libseccomp.so.2: it fails to import without it
    except (ImportError, RuntimeError, OSError) as error:
        raise FilterUnavailableError(
            "the syscall filter cannot be built: libseccomp or its Python binding is missing "
            f"({error}); Debian/Ubuntu: apt-get install libseccomp2, then "
            "pip install -r requirements.txt"
        ) from error
    built = seccomp.SyscallFilter(seccomp.ALLOW)
    # A call through another architecture's entry (i386's int 0x80, x32) fails too.
    built.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.ERRNO(errno.EPERM))
    with contextlib.suppress(OSError):  # libseccomp before 2.5: a list, slower but the same
        built.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree of syscall numbers
    for name in DENIED:
        action = seccomp.ERRNO(_ERRNO_OF.get(name, errno.EPERM))
        for tests in _rules(seccomp, name):
            built.add_rule(action, name, *tests)
    with os.fdopen(os.memfd_create("bpe-syscall-filter", os.MFD_CLOEXEC), "w+b") as out:
        built.export_bpf(out)  # written to the descriptor, past Python's buffer
        out.seek(0)
        return out.read()


@contextlib.contextmanager
def opened() -> Iterator[int]:
    """A fresh file descriptor holding the program from its start (bubblewrap reads it to its
    end, so each bubblewrap gets its own); closed on exit. Pass it with ``pass_fds``."""
    program = compiled()
    fd = os.memfd_create("bpe-syscall-filter", os.MFD_CLOEXEC)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


THROWAWAY_UID = 65534  # "nobody" inside the sandbox; it owns nothing there
SCRATCH_BYTES = 64 * 2**20  # a writable tmpfs holds this much, and is memory
SHM_BYTES = 4 * 2**20  # /dev/shm: enough for semaphores, not for filling memory
_TMP, _SHM = "/tmp", "/dev/shm"  # each sandbox's own, in memory
_CGROUPS = Path("/sys/fs/cgroup")
_CAP_PREFIX = "bpe-grading-"  # then the cap's name, a serial and the maker's pid, last
_SERIAL = itertools.count()


# The operating system, read-only; nothing else of the machine is there unless named.
_SYSTEM = "/usr"
_SYSTEM_LINKS = ("/bin", "/lib", "/lib32", "/lib64", "/sbin")  # often links into /usr
_ETC = Path("/etc")
# Of the machine's /etc only what a program run here reads: the dynamic loader's cache, the
# clock's zone, the account and name-service files, the mime, locale and font tables (Python's
# mimetypes, the C library, matplotlib's fontconfig), and Debian's hooks for its own Python.
# Secrets (shadow, sudoers, SSH and TLS keys) and whatever the machine adds later stay out.
_ETC_SHOWN = (
    *("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone"),
    *("passwd", "group", "nsswitch.conf", "host.conf", "hosts", "gai.conf"),
    *("services", "protocols", "mime.types", "locale.alias", "fonts", "os-release"),
    *("alternatives", "python3", f"python3.{sys.version_info.minor}"),
)
_ETC_BYTES = 64 * 2**10  # the sandbox's /etc holds only the points its entries are bound to


@dataclass(frozen=True)
class Sandbox:
    """What a sandboxed command sees, besides the operating system and a private ``/tmp``."""

    visible: tuple[Path, ...] = ()  # folders shown read-only (Python, the course library)
    blank: tuple[Path, ...] = ()  # files inside those that appear empty
    scratch: tuple[Path, ...] = ()  # folders replaced by an empty writable tmpfs
    pinned: tuple[Path, ...] = ()  # files shown read-only inside a scratch folder
    writable: tuple[Path, ...] = ()  # folders bound read-write, inside a scratch one or not
    cwd: Path | None = None
    max_processes: int | None = None  # tasks (threads count) the sandbox may hold at once

    def command(self, argv: Sequence[str], seccomp_fd: int) -> list[str]:
        """``argv`` run inside the sandbox (``bwrap`` must be on PATH), under the syscall
        filter that ``seccomp_fd`` holds."""
        out = ["bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
        out += ["--uid", str(THROWAWAY_UID), "--gid", str(THROWAWAY_UID)]
        out += ["--ro-bind", _SYSTEM, _SYSTEM, *_etc()]
        for link in map(Path, _SYSTEM_LINKS):
            if link.is_symlink():
                out += ["--symlink", os.readlink(link), str(link)]
            elif link.is_dir():
                out += ["--ro-bind", str(link), str(link)]
        out += ["--proc", "/proc", "--dev", "/dev"]
        # /dev is a folder in memory too: its shm gets a small cap, the rest no writing at all.
        out += ["--size", str(SHM_BYTES), "--tmpfs", _SHM, "--remount-ro", "/dev"]
        out += ["--size", str(SCRATCH_BYTES), "--tmpfs", _TMP]
        out += ["--setenv", "TMPDIR", "/tmp"]
        out += [*_each("--ro-bind", self.visible), *_each("--ro-bind", self.blank, "/dev/null")]
        for folder in self.scratch:
            out += ["--size", str(SCRATCH_BYTES), "--tmpfs", str(folder)]
        out += [*_each("--ro-bind", self.pinned), *_each("--bind", self.writable)]
        if self.cwd is not None:
            out += ["--chdir", str(self.cwd)]
        # Loaded by bwrap after it has made the namespaces and mounts, just before the exec.
        out += ["--seccomp", str(seccomp_fd)]
        return [*out, "--", *self._process_limit(), *argv]

    def in_memory(self) -> list[Path]:
        """The writable folders inside that are memory, not disk."""
        return [Path(_TMP), Path(_SHM), *self.scratch]

    def _process_limit(self) -> list[str]:
        """An RLIMIT_NPROC set inside the sandbox's own user namespace counts only the
        sandbox's tasks, so it caps them where no cgroup can be had (an instructor who is not
        root). Run by root the kernel does not enforce it: :func:`process_cap` does that job."""
        if self.max_processes is None:
            return []
        limit = f"--nproc={self.max_processes}:{self.max_processes}"
        return [shutil.which("prlimit") or "/usr/bin/prlimit", limit, "--"]


def _etc() -> list[str]:
    """The sandbox's ``/etc``: a folder of its own, in memory and then read-only, holding the
    entries of ``_ETC_SHOWN`` this machine has, bound from its ``/etc``.

    Binding the machine's ``/etc`` whole with empty files over its secrets would not hold:
    when the machine replaces ``/etc/shadow`` (``useradd`` renames a new one over it), Linux
    detaches every mount on the old file in the other namespaces, and a sandbox already
    running would see the new one. Here nothing the list leaves out is ever inside. It is
    short too: each entry is a mount, made and undone at every start (0.13 ms each here).

    >>> _etc()[:3], _etc()[-2:]
    (['--size', '65536', '--tmpfs'], ['--remount-ro', '/etc'])
    """
    out = ["--size", str(_ETC_BYTES), "--tmpfs", str(_ETC)]
    for entry in (_ETC / name for name in _ETC_SHOWN):
        if entry.is_symlink():  # as a link: bound, it would lead to the machine's target
            out += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.exists():
            # -try: an entry gone since this check is left out rather than failing the start.
            out += ["--ro-bind-try", str(entry), str(entry)]
    return [*out, "--remount-ro", str(_ETC)]


def _each(option: str, paths: Iterable[str | Path], source: str | None = None) -> list[str]:
    """``option source path`` for each of ``paths``; ``source`` is the path itself if None."""
    return [arg for path in paths for arg in (option, source or str(path), str(path))]


def python_and_library() -> tuple[Path, ...]:
    """What student code needs to see to run: this Python, its venv, and the folder the
    course library is imported from (wherever the venv's install points)."""
    library = _library_folder()
    found = [Path(sys.base_prefix).resolve(), Path(sys.prefix)]
    found += [Path(sys.prefix).resolve()] if Path(sys.prefix).is_symlink() else []
    return tuple(dict.fromkeys([*found, *([library] if library else [])]))


@functools.cache
def _library_folder() -> Path | None:
    """Where this Python, started isolated (``-I``) as kernels and answers are, imports
    ``bpe_course`` from: the venv's install decides, not this process's ``PYTHONPATH``."""
    find = "import importlib.util as u; s = u.find_spec('bpe_course'); print(s and s.origin or '')"
    done = subprocess.run([sys.executable, "-I", "-c", find], capture_output=True, text=True)
    origin = done.stdout.strip()
    return Path(origin).resolve().parent if origin else None


def available() -> bool:
    """True when bubblewrap runs a command here, in its namespaces and under the filter."""
    return _problem() is None


@functools.cache
def _problem() -> str | None:
    """Why the sandbox cannot be had here, in one line for an instructor; None when it can."""
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        compiled()
    except FilterUnavailableError as error:
        return str(error)
    try:
        with opened() as fd:
            command = Sandbox().command(["true"], seccomp_fd=fd)
            probe = subprocess.run(command, capture_output=True, timeout=20, pass_fds=(fd,))
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap could not be run here ({error})"
    if probe.returncode != 0:
        said = probe.stderr.decode(errors="replace").strip().splitlines()[-1:]
        return (
            "bubblewrap cannot create namespaces or load the syscall filter here (are user "
            f"namespaces disabled?): {' '.join(said) or f'exit status {probe.returncode}'}"
        )
    return None


# A bare nbgrader command's flag for running student code unconfined, on purpose.
UNCONFINED_FLAG = "--GradingSandbox.unconfined=True"


class GradingSandbox(Configurable):
    """How student code is confined, read from the configuration by every process that runs
    it (the kernels' launcher, the judge, the check that refuses unconfined kernels): set in
    ``nbgrader_config.py``, overridden per run by the grading command's flags.

    >>> from traitlets.config import Config
    >>> config = Config()
    >>> config.GradingSandbox.judge_memory_gb = 1.5
    >>> settings = GradingSandbox(config=config)
    >>> settings.judge_memory_gb, settings.kernel_memory_gb, settings.unconfined
    (1.5, 4.0, False)
    """

    unconfined = Bool(
        False,
        help="run student code without the sandbox, as the instructor, on purpose (where "
        "bubblewrap cannot run); every grade says so",
    ).tag(config=True)
    kernel_memory_gb = Float(
        4.0, help="memory of one student's kernels together, GB (each process too; 0: none)"
    ).tag(config=True)
    judge_memory_gb = Float(
        2.0, help="memory of the judge's process running one notebook's answers, GB (0: none)"
    ).tag(config=True)
    grader_memory_gb = Float(
        4.0,
        help="memory of each grading process itself (a Dask worker running nbgrader), GB: "
        "what a kernel flooding it with output can make it hold (0: none)",
    ).tag(config=True)

    def in_use(self) -> bool:
        """True when student code is to run in the sandbox: it works here and these settings
        do not say unconfined."""
        return not self.unconfined and available()


def memory_bytes(gb: float) -> int | None:
    """A memory setting in bytes; None for 0 (no limit).

    >>> memory_bytes(2.0), memory_bytes(0)
    (2147483648, None)
    """
    return int(gb * 2**30) if gb > 0 else None


def why_unavailable() -> str:
    """One line for an instructor on a machine without the sandbox."""
    return _problem() or "the sandbox works here"


def _pids_root() -> Path | None:
    return _root_of("pids")


def _memory_root() -> Path | None:
    return _root_of("memory")


def _root_of(controller: str) -> Path | None:
    for root in (_CGROUPS / controller, _CGROUPS):  # cgroup v1, then v2
        writable = (root / "cgroup.procs").exists() and os.access(root, os.W_OK)
        if writable and (root.name == controller or controller in _v2_controllers(root)):
            return root
    return None


def _v2_controllers(root: Path) -> list[str]:
    with contextlib.suppress(OSError):
        return (root / "cgroup.subtree_control").read_text().split()
    return []


def process_cap(name: str, max_processes: int) -> contextlib.AbstractContextManager[Path | None]:
    """A pids cgroup allowing ``max_processes``; yields its ``cgroup.procs`` file (write a pid
    there to cap that process and all it starts), or None where none can be made. On exit,
    whatever still runs in it is killed and the cgroup removed."""

    def limit(group: Path) -> bool:
        (group / "pids.max").write_text(str(max_processes))
        return True

    return _cgroup(_pids_root(), name, limit)


@contextlib.contextmanager
def sandbox_cap(name: str, max_processes: int, memory_bytes: int | None) -> Iterator[tuple]:
    """Caps over everything one sandbox starts, together: ``max_processes`` tasks (as
    :func:`process_cap`) and ``memory_bytes`` of memory (none if None). Yields the
    ``cgroup.procs`` files to put the sandbox in (:func:`in_cap` takes them); a cap that cannot
    be made is left out, and each process's own ``setrlimit`` is then all that holds."""
    with contextlib.ExitStack() as stack:
        procs = stack.enter_context(process_cap(name, max_processes))
        memory = _memory_cap(stack, procs, name, memory_bytes) if memory_bytes else None
        if memory_bytes and memory is None:
            say_once(f"{name}: {memory_fallback(memory_bytes)}")
        yield tuple(dict.fromkeys(cap for cap in (procs, memory) if cap))


def _memory_cap(
    stack: contextlib.ExitStack, procs: Path | None, name: str, memory_bytes: int
) -> Path | None:
    """A memory cap over the processes of the pids cap ``procs`` (:func:`memory_over`) or,
    without one, a memory cgroup of its own that ``stack`` removes."""
    if procs is not None:
        return memory_over(procs, memory_bytes)
    limit = functools.partial(_set_memory, memory_bytes=memory_bytes)
    return stack.enter_context(_cgroup(_memory_root(), name, limit))


def memory_over(procs: Path, memory_bytes: int) -> Path | None:
    """A memory limit of ``memory_bytes`` over everything in the cap whose ``cgroup.procs``
    :func:`process_cap` gave, for as long as that cap lasts. Returns the ``cgroup.procs`` to
    join as well: ``procs`` itself on cgroup v2 (``memory.max`` set in the same group), a
    group of the same name in the memory hierarchy on v1 (removed with the pids group); None
    where no memory cgroup can be had."""
    group, root = procs.parent, _memory_root()
    if root is None:
        return None
    if group.parent == root:  # cgroup v2: one group per process, both controllers in it
        return procs if _set_memory(group, memory_bytes) else None
    memory = root / group.name
    try:
        memory.mkdir(exist_ok=True)
    except OSError:
        return None
    if not _set_memory(memory, memory_bytes):
        _empty_and_remove(memory)
        return None
    return memory / "cgroup.procs"


def cgroup_versions() -> dict[str, str | None]:
    """Per cap (``pids``, ``memory``): ``"v1"`` or ``"v2"``, the cgroup version this process
    can make it with, or None where it cannot (not root, no such controller)."""
    found = {"pids": _pids_root(), "memory": _memory_root()}
    return {cap: None if r is None else "v1" if r.name == cap else "v2" for cap, r in found.items()}


def memory_fallback(memory_bytes: int | None) -> str:
    """What holds a sandbox's memory where no memory cgroup can be made (one sentence)."""
    each = f"its own {memory_bytes / 2**30:.1f} GB" if memory_bytes else "no limit of its own"
    return (
        "no memory cgroup can be made here (neither cgroup v2's memory controller nor a v1 "
        f"memory hierarchy is writable by this process): each process holds {each} "
        "(RLIMIT_AS), and processes forked inside the sandbox can together use more"
    )


_SAID: set[str] = set()


def say_once(message: str) -> None:
    """``message`` on stderr (a grading worker's log), once per process: a fallback is said,
    never silent, and not once per student."""
    if message not in _SAID:
        _SAID.add(message)
        print(f"sandbox: {message}", file=sys.stderr, flush=True)


def _set_memory(group: Path, memory_bytes: int) -> bool:
    """Write the memory limit of a cgroup of either version; False when it cannot be set."""
    v1 = group.parent.name == "memory"
    limits = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"] if v1 else ["memory.max"]
    limits += [] if v1 else ["memory.swap.max"]
    try:
        for i, limit in enumerate(limits):
            value = "0" if limit == "memory.swap.max" else str(memory_bytes)
            if i == 0 or (group / limit).exists():  # swap is counted only where it is on
                (group / limit).write_text(value)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _cgroup(root: Path | None, name: str, limit: Callable[[Path], bool]) -> Iterator[Path | None]:
    """A cgroup of this process's own under ``root`` that ``limit`` set up (False, or an
    OSError: none); yields its ``cgroup.procs``, or None, as :func:`process_cap` does."""
    # A serial of this process's own: two sandboxes of one name started side by side (two
    # students judged at once in one worker) must not share a group, nor find it taken.
    group = root / f"{_CAP_PREFIX}{name}-{next(_SERIAL)}-{os.getpid()}" if root else None
    try:
        if group is not None:
            group.mkdir()
            if not limit(group):
                group.rmdir()
                group = None
    except OSError:  # a limit that could not be written: the group made for it goes too
        if group is not None:
            with contextlib.suppress(OSError):
                group.rmdir()
        group = None
    try:
        yield group / "cgroup.procs" if group else None
    finally:
        if group is not None:
            _empty_and_remove(group)
            # The same name in the other hierarchy (cgroup v1): its memory cap, by memory_over.
            for other in (_pids_root(), _memory_root()):
                if other is not None and other != root and (other / group.name).is_dir():
                    _empty_and_remove(other / group.name)


def remove_orphaned_caps() -> list[Path]:
    """Remove the caps whose maker is gone (a grading worker killed mid-student); return them.
    Whatever still runs in one is killed first."""
    roots = dict.fromkeys(root for root in (_pids_root(), _memory_root()) if root)
    orphans = []
    for group in (g for root in roots for g in root.glob(f"{_CAP_PREFIX}*")):
        if maker_gone(group.name):
            orphans.append(group)
    for group in orphans:
        _empty_and_remove(group)
    return orphans


def maker_gone(name: str) -> bool:
    """True when ``name`` ends in ``-<pid>`` of a process no longer running (only ASCII
    digits: ``int`` would also read, or choke on, other scripts' digits).

    >>> maker_gone("bpe-grading-kernels-0-x"), maker_gone("cap-1-\u00b9")
    (False, False)
    """
    maker = name.rsplit("-", 1)[-1]
    return maker.isascii() and maker.isdigit() and not process_alive(int(maker))


def process_alive(pid: int) -> bool:
    """True when a process of this id runs on this machine (whoever owns it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # someone else's; a number no pid can be
        return True
    return True


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


def in_cap(files: tuple[Path, ...], argv: list[str]) -> list[str]:
    """``argv`` run by a shell that first puts itself (and all it starts) in each cap of
    :func:`sandbox_cap`; ``argv`` as it is without one. No Python runs between fork and exec,
    as a ``preexec_fn`` would, which can deadlock in a process with threads (a Dask worker)."""
    if not files:
        return list(argv)
    joins = "; ".join(f'echo $$ > "${i}"' for i in range(len(files)))
    shift = f"shift {len(files) - 1}; " if len(files) > 1 else ""
    join = f'{{ {joins}; }} 2>/dev/null; {shift}exec "$@"'
    return ["/bin/sh", "-c", join, *map(str, files), *argv]


def report() -> list[str]:
    """What the sandbox holds on this machine, as this process would make it: bubblewrap,
    and each cap over a whole sandbox (made for real, then removed), or its fallback."""
    lines = [f"bubblewrap: {'works' if available() else why_unavailable()}"]
    if available():
        lines.append(f"syscall filter: {len(DENIED)} calls denied (libseccomp, with EPERM)")
    versions = cgroup_versions()
    with contextlib.ExitStack() as stack:
        procs = stack.enter_context(process_cap("check", 8))
        memory = _memory_cap(stack, procs, "check", 2**30)
        made = {"pids": procs is not None, "memory": memory is not None}
    fallbacks = {
        "pids": "RLIMIT_NPROC inside the sandbox's user namespace only (prlimit), which the "
        "kernel does not enforce for root",
        "memory": memory_fallback(None),
    }
    for cap, fallback in fallbacks.items():
        how = f"cgroup {versions[cap]}" if made[cap] else f"none; fallback: {fallback}"
        lines.append(f"{cap} over the whole sandbox: {how}")
    return lines


if __name__ == "__main__":
    print("\n".join(report()))
