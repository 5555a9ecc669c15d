"""Code a test puts into student code to see which system calls the sandbox denies.

``PROBE`` defines ``syscall_results()``: this process's ``Seccomp:`` mode (from
``/proc/self/status``) and, per call the grading sandbox's filter denies (and a few it must
allow), what a student's cell sees when it makes the call through ``ctypes``: ``"ok"``,
``"PermissionError"``, or the errno's name for any other error. The calls are made in a forked
child, with arguments that fail harmlessly after the filter (a null pointer, a bad fd, bad
flags), so the probe changes nothing even unconfined and as root: what changes state
(``ptrace(PTRACE_TRACEME)``, ``unshare``, ``personality``) changes only the child, which exits.
``CONTROL`` defines ``ordinary_work()``: threads, a subprocess, a multiprocessing pool and
numpy, each done for real, with what came out. ``read_probe`` finds the probe's printed line
in a notebook's outputs.

But: the numbers are x86_64's (``NUMBERED_ON``); elsewhere the tests that use it skip.
"""

from __future__ import annotations

import json

NUMBERED_ON = "x86_64"
MARK = "syscall probe:"  # the start of the line a cell prints

# What the filter must allow: Python and glibc read the persona (0xffffffff) and set PER_LINUX.
ALLOWED = ("personality(query)", "personality(PER_LINUX)")
# Not denied with EPERM but with ENOSYS, so that glibc falls back to clone, which is filtered.
NOT_THERE = ("clone3",)

PROBE = r'''
import ctypes, errno, json, os

def syscall_results():
    """Seccomp's mode here, and what each probed call gives a cell."""
    status = open("/proc/self/status").read()
    mode = status.split("Seccomp:")[1].split()[0]
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        try:
            os.write(write_end, json.dumps(_calls()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(child, 0)
    return {"seccomp": mode, "calls": json.loads(b"".join(chunks) or b"{}")}

def _calls():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    name = ctypes.create_string_buffer(b"user")
    text = ctypes.create_string_buffer(b"bpe-probe")
    where = ctypes.addressof
    calls = [  # (what, number on x86_64, arguments, returns an fd or a child)
        ("io_uring_setup", 425, (1, where(params)), "fd"),
        ("io_uring_enter", 426, (-1, 0, 0, 0, 0, 0), None),
        ("io_uring_register", 427, (-1, 0, 0, 0), None),
        ("keyctl", 250, (0, -4, 0), None),  # KEYCTL_GET_KEYRING_ID, the user keyring
        ("add_key", 248, (where(name), where(text), where(text), 1, -2), None),
        ("request_key", 249, (where(name), where(text), 0, 0), None),
        ("bpf", 321, (0xFFFF, 0, 0), None),
        ("userfaultfd", 323, (1,), "fd"),  # UFFD_USER_MODE_ONLY
        ("perf_event_open", 298, (0, 0, -1, -1, 0), None),
        ("unshare", 272, (0x10000000,), None),  # CLONE_NEWUSER
        ("clone(CLONE_NEWUSER)", 56, (0x10000000 | 17, 0, 0, 0, 0), "child"),
        ("clone3", 435, (0, 0), None),
        ("setns", 308, (-1, 0), None),
        ("mount", 165, (0, 0, 0, 0, 0), None),
        ("umount2", 166, (0, 0), None),
        ("pivot_root", 155, (0, 0), None),
        ("fsopen", 430, (0, 0), "fd"),
        ("chroot", 161, (0,), None),
        ("kexec_load", 246, (0, 0, 0, 0x7FFF0000), None),  # another machine's: EINVAL
        ("kexec_file_load", 320, (-1, -1, 0, 0, 0), None),
        ("init_module", 175, (0, 0, 0), None),
        ("finit_module", 313, (-1, 0, 0), None),
        ("delete_module", 176, (where(text), 0), None),
        ("open_by_handle_at", 304, (-1, 0, 0), None),
        ("personality(query)", 135, (0xFFFFFFFF,), None),
        ("personality(PER_LINUX)", 135, (0,), None),
        ("personality(ADDR_NO_RANDOMIZE)", 135, (0x0040000,), None),
        ("ptrace", 101, (0, 0, 0, 0), None),  # PTRACE_TRACEME, last: it makes this traced
    ]
    seen = {}
    for what, number, args, gives in calls:
        got = libc.syscall(number, *map(ctypes.c_long, args))
        error = ctypes.get_errno()
        if got == 0 and gives == "child":
            os._exit(0)
        if got > 0 and gives == "fd":
            os.close(got)
        if got > 0 and gives == "child":
            os.waitpid(got, 0)
        try:
            if got == -1:
                raise OSError(error, os.strerror(error))
            seen[what] = "ok"
        except PermissionError:  # what a student's cell sees for a denied call
            seen[what] = "PermissionError"
        except OSError as other:
            seen[what] = errno.errorcode.get(other.errno, str(other.errno))
    return seen
'''

CONTROL = r'''
import json, multiprocessing, subprocess, threading

def ordinary_work():
    """Threads, a subprocess, a pool of worker processes and numpy, each for real."""
    import numpy
    found = []
    workers = [threading.Thread(target=found.append, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    echoed = subprocess.run(["echo", "spawned"], capture_output=True, text=True).stdout
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pooled = pool.map(abs, [-1, -2, -3])
    return {
        "threads": sorted(found),
        "subprocess": echoed.strip(),
        "pool": pooled,
        "numpy": int(numpy.arange(10).sum()),
    }
'''

CONTROL_EXPECTED = {
    "threads": [0, 1, 2, 3],
    "subprocess": "spawned",
    "pool": [1, 2, 3],
    "numpy": 45,
}


def read_probe(notebook_text: str) -> dict:
    """The probe's results as a cell of the notebook (its JSON text) printed them."""
    notebook = json.loads(notebook_text)
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            for line in "".join(output.get("text", "")).splitlines():
                if line.startswith(MARK):
                    return json.loads(line[len(MARK) :])
    raise AssertionError(f"no line starting {MARK!r} in the notebook's outputs")


def denied_calls(results: dict) -> dict:
    """Of the probe's results, those of the calls the filter must deny."""
    calls = results["calls"]
    return {what: seen for what, seen in calls.items() if what not in ALLOWED + NOT_THERE}
