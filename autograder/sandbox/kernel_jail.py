"""Start a grading kernel inside the sandbox: the kernelspec command of the grading workers.

It puts itself under the student's caps and limits, then replaces itself with the command
prefix in the jail, its second argument (JSON, which ``kernels.jail_kernels`` puts into the
grading configuration: ``prefix``, the ``bwrap`` command; ``caps``, the ``cgroup.procs``
files of the process and memory caps over all the student's kernels, maybe none;
``memory_bytes``, each process's own address-space limit, 0 for none; ``environment``, the
names of the variables the kernel keeps; ``landlock``, the folders it may write to;
``seccomp``, the syscall filter's program and the descriptor bwrap reads it from), followed
by ``landlock.py`` (its docstring says how it is run), which restricts the kernel's writes.

But: it decides nothing itself; without a jail or its syscall filter it refuses to start a
kernel. Standard library only, run as ``python -I -S kernel_jail.py {connection_file} JAIL``.
"""

import json
import os
import resource
import signal
import sys

FILE_LIMIT = 10 * 2**20
LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "landlock.py")


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("kernel_jail: no jail was given; refusing to start an unconfined kernel")
    spec = json.loads(sys.argv[2])
    if not spec.get("seccomp"):
        sys.exit("kernel_jail: the jail has no syscall filter; refusing to start a kernel")
    for cap in spec["caps"]:
        # Joined before bwrap starts, so everything the kernel forks is inside; on stderr
        # (the worker's log, until _cut_ties) when it cannot be.
        try:
            with open(cap, "w") as procs:
                procs.write(str(os.getpid()))
        except OSError as error:
            print(f"kernel_jail: not capped by {cap} ({error})", file=sys.stderr)
    connection = os.path.abspath(sys.argv[1])
    # The connection file may sit in the real /tmp, which the sandbox replaces: show it alone
    # (among bwrap's options, before the "--" that ends them).
    prefix = spec["prefix"]
    end = prefix.index("--")
    shown = [*prefix[:end], "--ro-bind", connection, connection, *prefix[end:]]
    # The kernel restricts its own writes with Landlock before ipykernel starts (landlock.py).
    with open(LAUNCH) as launch:
        landlock = [sys.executable, "-c", launch.read(), json.dumps(spec["landlock"])]
    command = [*shown, *landlock, "-f", connection]
    # Only the named variables go in. JPY_PARENT_PID stays out too: in its own PID namespace
    # the kernel's parent is PID 1, which ipykernel takes for a dead parent when told to watch
    # one; bwrap --die-with-parent does that job instead.
    kept = set(spec["environment"])
    environment = {
        name: value
        for name, value in os.environ.items()
        if name in kept or name.startswith("LC_") or name.endswith("_NUM_THREADS")
    }
    # An interrupt (SIGINT to this process group) must reach the kernel, which handles it
    # while it runs a cell, and not end bwrap, which would take the kernel with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _cut_ties(spec.get("memory_bytes", 0))
    _place_filter(spec["seccomp"]["fd"], bytes.fromhex(spec["seccomp"]["program"]))
    os.execvpe(command[0], command, environment)


def _place_filter(target: int, program: bytes) -> None:
    """The filter's program in a file in memory, open at ``target`` for bwrap, which reads it
    to its end and closes it before the kernel starts."""
    fd = os.memfd_create("bpe-syscall-filter", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    if fd != target:
        os.dup2(fd, target)
        os.close(fd)
    os.set_inheritable(target, True)


def _cut_ties(memory_bytes: int) -> None:
    """Nothing the kernel writes outside its sockets reaches the grader: no inherited file
    (the workers' log, their stdout) stays open, its own output goes nowhere, and no file it
    writes grows past 10 MB; no process of it holds more than ``memory_bytes`` (0: no limit
    of its own)."""
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


if __name__ == "__main__":
    main()
