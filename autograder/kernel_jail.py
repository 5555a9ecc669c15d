"""Start a grading kernel that cannot see or touch other students' work or the gradebook.

nbgrader runs a student's code as the instructor, in the course folder: without this, a cell
could rewrite ``gradebook.db``, another student's autograded notebook, or the private gradebook
its own grading writes to. The grading workers register a kernel whose command is this file;
it re-executes the usual ``python -m ipykernel_launcher`` inside a new mount namespace where
every other student's folders, the gradebooks, the records and ``.git`` are covered by empty
folders, the course and grading code are read-only, the student's own autograded folder stays
writable, and the kernel holds no capability (so it cannot unmount anything). ``autograder/``
and ``solutions/`` stay readable: the hidden tests import them, which is why
``autograder.verify`` exists.

What to hide comes in the ``GRADING_JAIL`` environment variable as JSON:
``{"dirs": [...], "files": [...], "readonly": [...], "keep": "<the student's autograded
folder>"}``: ``dirs`` become empty folders, ``files`` empty files, ``readonly`` folders stay
visible but unwritable (the instructor's home when this Python lives in it, see
``autograder.kernel_home``). Without it, or
where ``unshare`` is missing, the kernel starts unconfined, as nbgrader would start it.

Only the standard library, run as ``python -I -S kernel_jail.py {connection_file}``.
"""

import json
import os
import shlex
import shutil
import sys


def jail_script(spec: dict) -> str:
    """The shell commands that cover the private paths and keep the student's own folder.

    A path that cannot be covered is reported on stderr and the kernel still starts: a
    grading run must not turn into zeros for everyone because one mount failed."""
    keep = spec.get("keep", "")
    steps = ["spare=$(mktemp -d)", 'warn() { echo "kernel_jail: could not hide $1" >&2; }']
    if keep:
        steps.append(f'mount --bind {shlex.quote(keep)} "$spare" || warn {shlex.quote(keep)}')
    # Read-only first: a bind onto itself would otherwise hide the covers made below.
    for folder in spec.get("readonly", []):
        quoted = shlex.quote(folder)
        steps.append(
            f"{{ mount --rbind {quoted} {quoted} && mount -o remount,bind,ro {quoted}; }}"
            f" || warn {quoted}"
        )
    for folder in spec.get("dirs", []):
        quoted = shlex.quote(folder)
        steps.append(f"mount -t tmpfs -o size=64k none {quoted} || warn {quoted}")
    for path in spec.get("files", []):
        steps.append(f"mount --bind /dev/null {shlex.quote(path)} || warn {shlex.quote(path)}")
    if keep:
        quoted = shlex.quote(keep)
        steps += [f'mkdir -p {quoted} && mount --bind "$spare" {quoted} || warn {quoted}']
    steps += ['umount "$spare" 2>/dev/null; rmdir "$spare"']
    steps.append('exec setpriv --no-new-privs --bounding-set=-all "$@"')
    return "\n".join(steps)


def main() -> None:
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", *sys.argv[1:]]
    raw = os.environ.get("GRADING_JAIL")
    if not raw or not (shutil.which("unshare") and shutil.which("setpriv")):
        os.execv(kernel[0], kernel)
    spec = json.loads(raw)
    user = [] if os.geteuid() == 0 else ["--map-root-user"]
    command = ["unshare", "--mount", *user, "sh", "-c", jail_script(spec), "jail", *kernel]
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
