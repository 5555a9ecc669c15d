"""Start a grading kernel inside the sandbox under Landlock: it may write only where it should.

Inside bubblewrap a kernel can write to its private folders in memory (``/tmp``, its home,
its working folder, ``/dev/shm``) and to one folder of the grading machine's disk, the one its
sockets live in, which the grader must reach. ``restrict`` asks the Linux kernel (Landlock,
5.13 and later) to refuse this process and all it starts every write outside the ``writable``
folders, writes to the devices under ``devices`` aside, and in ``sockets`` everything but
making a socket: a student's code can no longer fill that disk with files, or with sockets.

Run by ``kernel_jail`` as ``python -c <this file's text> <JSON> -f <connection file>``, the
JSON holding the three lists; it restricts itself, lets ipykernel bind its sockets, takes the
right to make sockets away too (Landlock's layers only ever narrow), then runs the kernel.

But: where the Linux kernel has no Landlock (too old, or left out of its security modules) the
kernel starts without it, and the socket folder takes files of up to 10 MB each (the kernel's
file-size limit) until the notebook's time runs out; so it does where ``/var/tmp`` cannot be
written, since the socket folder then lies under ``/tmp``, where the kernel may write. Reading
and running are not restricted here; what the kernel can see is bubblewrap's business.
Standard library only.
"""

import asyncio
import ctypes
import json
import os
import sys
import threading

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_VERSION = 1  # landlock_create_ruleset's flag: ask the ABI version
_PATH_BENEATH = 1
_NO_NEW_PRIVS = 38  # prctl: required before restrict_self without CAP_SYS_ADMIN
_LIBC = ctypes.CDLL(None, use_errno=True)

WRITE_FILE = 1 << 1
REMOVE_DIR, REMOVE_FILE = 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK = 1 << 6, 1 << 7, 1 << 8, 1 << 9
MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 10, 1 << 11, 1 << 12
REFER = 1 << 13  # ABI 2: rename and link across folders
TRUNCATE = 1 << 14  # ABI 3


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _writes(abi: int) -> int:
    """Every right that creates, changes or removes a file, as far as this ABI knows them."""
    rights = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG
    rights |= MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
    rights |= REFER if abi >= 2 else 0
    return rights | (TRUNCATE if abi >= 3 else 0)


def abi_version() -> int:
    """Landlock's ABI version here, 0 where there is none."""
    version = _LIBC.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    return max(version, 0)


def restrict(writable: list[str], devices: list[str], sockets: list[str]) -> int:
    """Refuse this process every write but those named; return the ABI used, 0 if none."""
    abi = abi_version()
    if abi == 0:
        return 0
    handled = _writes(abi)
    attr = _RulesetAttr(handled)
    ruleset = _LIBC.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        device_rights = WRITE_FILE | (TRUNCATE if abi >= 3 else 0)
        rules = [(p, handled) for p in writable] + [(p, device_rights) for p in devices]
        for path, allowed in [*rules, *((p, MAKE_SOCK) for p in sockets)]:
            _allow(ruleset, path, allowed)
        if _LIBC.prctl(_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if _LIBC.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _allow(ruleset: int, path: str, allowed: int) -> None:
    folder = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = _PathBeneathAttr(allowed, folder)
        if _LIBC.syscall(_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule on {path}")
    finally:
        os.close(folder)


def main() -> None:
    spec = json.loads(sys.argv.pop(1))
    restrict(spec["writable"], spec["devices"], spec["sockets"])
    # No one debugs a grading kernel: without debugpy, whose import is 0.3 of the kernel's
    # 0.75 CPU seconds of start, ipykernel starts without its debugger.
    sys.modules["debugpy"] = None  # type: ignore[assignment]
    from ipykernel.kernelapp import IPKernelApp

    # No threads that forward C-level output: they would run Python (which student code can
    # patch) under the first layer only. The kernel's stdout and stderr go nowhere anyway.
    app = IPKernelApp.instance(capture_fd_output=False)
    app.initialize()  # binds the kernel's sockets; no student code has run yet
    # From here on not even a socket there: each would be one more inode of the machine's disk.
    later = (spec["writable"], spec["devices"], [])
    if restrict(*later):  # with no Landlock here, there is no layer to give the threads
        _restrict_threads(app, later)
    app.start()


def _restrict_threads(app: object, rules: tuple) -> None:
    """Landlock binds the thread that asks, and those it starts later: ipykernel's own threads
    that run callbacks (IOPub, control, shell channel), started during ``initialize``, take the
    layer too, before any student code could hand them work."""
    threads = [app.iopub_thread, app.control_thread, app.shell_channel_thread]

    async def apply() -> None:
        restrict(*rules)

    loops = [thread.io_loop.asyncio_loop for thread in threads if thread is not None]
    asked = [asyncio.run_coroutine_threadsafe(apply(), loop) for loop in loops]
    try:
        for future in asked:
            future.result(timeout=30)
    except (OSError, TimeoutError) as error:
        raise RuntimeError(f"a kernel thread could not be restricted: {error!r}") from error
    # Any other thread would still run under the first layer: refuse to start with one.
    others = {t.name for t in threading.enumerate()} - _RESTRICTED_THREADS
    if others:
        raise RuntimeError(f"kernel threads Landlock's second layer does not reach: {others}")


# The main thread, those _restrict_threads reaches, and the heartbeat, which runs no Python
# once started (it waits in zmq's C code).
_RESTRICTED_THREADS = {"MainThread", "IOPub", "Control", "Shell channel", "Heartbeat"}


if __name__ == "__main__":
    main()
