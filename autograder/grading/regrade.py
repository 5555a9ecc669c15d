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

if __name__ == "__main__":  # before any other import: a planted module would run as it loads
    from autograder.grading.trusted_paths import refuse_untrusted

    refuse_untrusted("the regrading process")

import argparse
import sys
from pathlib import Path

from autograder.grading import grade_class
from autograder.reports.regrade_report import snapshot, write_report

# The two of grade_class's options that regrade must read as grade_class does.
WATCHED = ("--root", "--student")


def parse(argv: list[str]) -> tuple[Path, list[str] | None]:
    """The course root and the students among grade_class's options ``argv``.

    grade_class's parser takes any unambiguous abbreviation (``--ro`` for ``--root``), which a
    parser knowing only these two options could resolve otherwise; so an abbreviation of
    either is refused here, and the rest is left to grade_class.

    >>> parse(["--root=/course", "--lean"])
    (PosixPath('/course'), None)
    >>> parse(["--ro", "/course"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """
    parser = argparse.ArgumentParser(prog="regrade", allow_abbrev=False, add_help=False)
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--student", action="append")
    args, rest = parser.parse_known_args(argv)
    for arg in rest:
        name = arg.split("=", 1)[0]
        shortened = [full for full in WATCHED if len(name) > 2 and full.startswith(name)]
        if shortened:
            parser.error(f"write {shortened[0]} in full, not {name}")
    return args.root.resolve(), args.student


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    root, students = parse(argv)
    if students is not None:
        print(
            "make regrade grades the whole class, so that nobody's changed grade goes unseen; "
            "to grade some students, use make autograde STUDENT=a,b",
            file=sys.stderr,
        )
        return 2
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
