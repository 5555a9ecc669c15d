"""Start a grading kernel in a mount namespace that hides other students' work and the gradebook.

The grading workers register a kernel whose command is this file. It re-executes
``python -m ipykernel_launcher`` under ``unshare --mount``, where the folders and files named in
the ``GRADING_JAIL`` environment variable (JSON: ``dirs``, ``files``, ``readonly``, ``keep``) are
covered, made read-only, or kept writable, and the kernel holds no capability.

But: ``autograder/`` and ``solutions/`` stay readable to the kernel; without ``unshare`` or
``GRADING_JAIL`` the kernel starts unconfined. Standard library only.
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
