"""Regrade the whole class after a test changed, and report whose grade moved.

``python -m autograder regrade [grade's options]`` (``make regrade``) takes a
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

from autograder.grading import grade_class
from autograder.grading.options import GradingOptions
from autograder.reports.regrade_report import snapshot, write_report


def run(options: GradingOptions) -> int:
    """Grade the whole class as ``options`` say, then report whose grade moved; the exit
    status of the grading."""
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
