"""Make nbgrader start one student's grading kernels inside ``kernel_jail``.

``jail_kernels`` writes a kernelspec whose command is ``kernel_jail.py`` and puts in
``GRADING_JAIL`` what that kernel must not see (other students, the gradebooks, ``.git``), what
it may only read (the course, the grading code, the venv) and the one folder it may write.

But: where the machine cannot make mount namespaces the kernels run unconfined, as with
plain nbgrader; the jail itself is ``kernel_jail``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from autograder.course import CODE_ROOT, RECORDS
from autograder.isolation.sandbox import isolation_works

# Folders and files of a course that a student's kernel must not see (see kernel_jail).
_PRIVATE_DIRS = ("submitted", "autograded", "feedback", "source", ".exchange", "artifacts", ".git")
_PRIVATE_FILES = ("gradebook.db",)
JAIL_KERNEL = "python3-jailed"


def jail_available() -> bool:
    """True when kernels can be started in their own mount namespace here."""
    return isolation_works()


def jail_kernels(
    course_root: Path, student: str, assignment: str, config: Any, hide: dict | None = None
) -> bool:
    """Make nbgrader start this student's kernels through ``kernel_jail``; False where the
    machine cannot (the kernels then run unconfined, as with plain nbgrader). ``hide``: more
    to cover (the instructor's home, ``autograder.isolation.kernel_home.home_cover``)."""
    if not jail_available():
        os.environ.pop("GRADING_JAIL", None)
        return False
    spec_dir = course_root / RECORDS / "kernels" / JAIL_KERNEL
    if not (spec_dir / "kernel.json").exists():
        spec_dir.mkdir(parents=True, exist_ok=True)
        jail = Path(__file__).resolve().parent / "kernel_jail.py"
        spec = {
            "argv": [sys.executable, "-I", "-S", str(jail), "{connection_file}"],
            "display_name": "Python 3 (grading jail)",
            "language": "python",
            "interrupt_mode": "signal",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
    kernels_root = str(spec_dir.parent.parent)
    if kernels_root not in os.environ.get("JUPYTER_PATH", "").split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            p for p in (kernels_root, os.environ.get("JUPYTER_PATH", "")) if p
        )
    roots = {course_root.resolve(), CODE_ROOT}
    # Another worker may create it later: it must exist now to be covered.
    (course_root / "autograded").mkdir(exist_ok=True)
    private = [r / name for r in sorted(roots) for name in _PRIVATE_DIRS]
    files = [r / name for r in sorted(roots) for name in _PRIVATE_FILES]
    spec = {
        "dirs": [str(p) for p in private if p.is_dir()],
        "files": [str(p) for p in files if p.is_file()],
        # Read-only: the venv (a .pth file there would run in every later kernel) and the
        # course and grading code, so no kernel can rewrite autograder/, solutions/ or
        # bpe_course/ for the students graded after it, or for the verify step itself.
        "readonly": [sys.prefix, *(str(r) for r in sorted(roots))],
        "keep": str(course_root.resolve() / "autograded" / student / assignment),
    }
    for key, paths in (hide or {}).items():
        spec[key] = [*spec.get(key, []), *paths]
    os.environ["GRADING_JAIL"] = json.dumps(spec)
    config.Execute.kernel_name = JAIL_KERNEL
    return True
