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

import sys

from autograder.grading import grade_class
from autograder.grading.options import grading_parser, options_from
from autograder.reports.regrade_report import snapshot, write_report


def main(argv: list[str] | None = None) -> int:
    # grade_class's own parser: both read one command line alike (``--ro`` is ``--root``).
    args = grading_parser(__doc__.splitlines()[0]).parse_args(argv)
    if args.student is not None:
        print(
            "make regrade grades the whole class, so that nobody's changed grade goes unseen; "
            "to grade some students, use make autograde STUDENT=a,b",
            file=sys.stderr,
        )
        return 2
    options = options_from(args)
    root = options.course_root
    before = snapshot(root)
    try:
        status = grade_class.run(options)
    finally:
        # Even a run that stopped part way may have moved grades: the report says whose.
        path, table = write_report(root, before, snapshot(root))
        print(f"\nregrade: whose grade moved (also {path} and {path.with_suffix('.md').name})")
        print(table)
    return status


if __name__ == "__main__":
    sys.exit(main())
