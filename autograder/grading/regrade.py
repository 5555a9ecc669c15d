"""Regrade the whole class after a test changed, and report whose grade moved.

``python -m autograder.grading.regrade [grade_class options]`` (``make regrade``) takes a
snapshot of the gradebook, grades every student with ``grade_class`` (same options, the same
sandbox; hand grades are kept as in any run), takes another, and writes
``artifacts/grading/regrade-<time>.csv`` and ``.md`` listing each student whose grade moved:
the total before and after and every test cell that moved. The path that leads here: edit the
master in ``source/bpe/`` (or the hidden cases in ``autograder/hidden_tests/cases.py``), run
``make notebooks``, then ``make regrade``.

But: it grades every student, never only some (``--student`` is refused), and it tells the
instructor, not the students.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.grading import grade_class
from autograder.reports.regrade_report import snapshot, write_report


def course_root_of(argv: list[str]) -> Path:
    """The ``--root`` among grade_class's options (default: this folder)."""
    for index, arg in enumerate(argv):
        if arg.startswith("--root="):
            return Path(arg.removeprefix("--root=")).resolve()
        if arg == "--root" and index + 1 < len(argv):
            return Path(argv[index + 1]).resolve()
    return Path.cwd().resolve()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(arg == "--student" or arg.startswith("--student=") for arg in argv):
        print(
            "make regrade grades the whole class, so that nobody's changed grade goes unseen; "
            "to grade some students, use make autograde STUDENT=a,b",
            file=sys.stderr,
        )
        return 2
    root = course_root_of(argv)
    before = snapshot(root)
    try:
        status = grade_class.main(argv)
    finally:
        # Even a run that stopped part way may have moved grades: the report says whose.
        path, table = write_report(root, before, snapshot(root))
        print(f"\nregrade: whose grade moved (also {path} and {path.with_suffix('.md').name})")
        print(table)
    return status


if __name__ == "__main__":
    sys.exit(main())
