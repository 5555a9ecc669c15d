"""Say why ``make hub`` cannot run here, and what to do instead, before anything is touched.

    python -m hub.preflight    # exit 0: go on; exit 1: the reason is printed

The hub makes real Unix accounts and starts servers as them, so it needs Linux and root.

But: it checks only the machine; npm, the hub's environment and free ports are checked by the
steps that need them.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys

INSTEAD = "To work through the lessons alone, run `make lab` instead."


def why_not(system: str, euid: int | None, have_useradd: bool) -> str | None:
    """The reason this machine cannot run the hub, or None when it can.

    >>> why_not("Linux", 0, True) is None
    True
    >>> why_not("Darwin", 501, False).splitlines()[0]
    'make hub needs Linux: it makes Unix accounts with useradd and starts servers as them.'
    """
    if system != "Linux":
        return (
            "make hub needs Linux: it makes Unix accounts with useradd and starts servers as "
            f"them.\nThis is {system}. {INSTEAD} For a class, run the hub on a Linux server "
            "(see 'Deploying the hub for real' in docs/guides/hub.md)."
        )
    if euid != 0:
        return (
            "make hub needs root: it makes one Unix account per student and starts each "
            f"student's server as that account.\nRun `sudo make hub`. {INSTEAD}"
        )
    if not have_useradd:
        return "make hub needs useradd and userdel (Debian: apt-get install passwd)."
    return None


def main() -> int:
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    reason = why_not(platform.system(), euid, shutil.which("useradd") is not None)
    if reason:
        print(reason, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
