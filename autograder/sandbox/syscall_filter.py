"""The system calls student code may not make in the grading sandbox, as a seccomp filter.

``DENIED`` names them, all in one place; ``compiled()`` builds the filter with libseccomp (its
``pyseccomp`` binding) once per process and returns the program, which bubblewrap loads from a
file descriptor (``--seccomp FD``) just before it runs the command, after its own namespaces
and mounts are made; ``opened()`` hands a fresh descriptor holding it. Every other call is
allowed. A denied call fails with EPERM, which Python raises as ``PermissionError``; nothing
is killed. Three are denied in part: ``personality`` unless it asks for the persona
(0xffffffff) or sets plain Linux (0), the two values Python and glibc use; ``clone`` with a
flag that makes a namespace (what ``unshare`` would do); ``clone3`` always, with ENOSYS, since
its flags lie in memory a filter cannot read and glibc then falls back to ``clone``. A call
made through another architecture's entry (i386's ``int 0x80``, x32) fails with EPERM too.

>>> len(compiled()) % 8  # whole BPF instructions of 8 bytes each
0

But: it only builds the filter; bubblewrap loads it (``bwrap.Sandbox.command``), and where
libseccomp or pyseccomp is missing :class:`FilterUnavailableError` says so and the sandbox counts
as unavailable: grading refuses unless asked to run unconfined.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
from collections.abc import Iterator
from typing import Any

# Each fails with EPERM (see the module's docstring for the three denied in part). Why, by group:
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
PER_LINUX, PERSONA_QUERY = 0x0, 0xFFFFFFFF
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
NAMESPACE_FLAGS = (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000)
_ERRNO_OF = {"clone3": errno.ENOSYS}  # the rest: EPERM


class FilterUnavailableError(RuntimeError):
    """The filter cannot be built here; the message says what is missing."""


def _library() -> Any:
    try:
        import pyseccomp  # ctypes over libseccomp.so.2: it fails to import without it
    except (ImportError, RuntimeError, OSError) as error:
        raise FilterUnavailableError(
            "the syscall filter cannot be built: libseccomp or its Python binding is missing "
            f"({error}); Debian/Ubuntu: apt-get install libseccomp2, then "
            "pip install -r requirements.txt"
        ) from error
    return pyseccomp


def _rules(seccomp: Any, name: str) -> list[tuple]:
    """The argument tests of each rule that denies ``name`` (one rule of none: always)."""
    if name == "personality":
        return _persona_changes(seccomp)
    if name == "clone":
        return [(seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag),) for flag in NAMESPACE_FLAGS]
    return [()]


def _persona_changes(seccomp: Any) -> list[tuple]:
    """Every persona but 0 and 0xffffffff. The kernel reads the argument's low 32 bits, and a
    rule may test one argument once, so: the 32 bits are neither all 0 nor all 1 exactly when
    two neighbouring bits differ, one rule for each pair and way they can differ."""
    rules = []
    for bit in range(31):
        pair = 0b11 << bit
        for differ in (0b01 << bit, 0b10 << bit):
            rules.append((seccomp.Arg(0, seccomp.MASKED_EQ, pair, differ),))
    return rules


@functools.cache
def compiled() -> bytes:
    """The filter as a BPF program for this machine's architecture, built once per process."""
    seccomp = _library()
    built = seccomp.SyscallFilter(seccomp.ALLOW)
    built.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.ERRNO(errno.EPERM))
    with contextlib.suppress(OSError):  # libseccomp before 2.5: a list, slower but the same
        built.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree of syscall numbers
    for name in DENIED:
        action = seccomp.ERRNO(_ERRNO_OF.get(name, errno.EPERM))
        for tests in _rules(seccomp, name):
            built.add_rule(action, name, *tests)
    with _memory_file() as fd, os.fdopen(os.dup(fd), "wb") as out:
        built.export_bpf(out)
        return os.pread(fd, os.fstat(fd).st_size, 0)


@contextlib.contextmanager
def opened() -> Iterator[int]:
    """A fresh file descriptor holding the program from its start (bubblewrap reads it to its
    end, so each bubblewrap gets its own); closed on exit. Pass it with ``pass_fds``."""
    program = compiled()
    with _memory_file() as fd:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd


@contextlib.contextmanager
def _memory_file() -> Iterator[int]:
    fd = os.memfd_create("bpe-syscall-filter", os.MFD_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)
