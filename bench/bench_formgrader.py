"""The Formgrader with a class of 1,000: how soon its lists show their rows, in Chromium.

A scratch copy of the course gets a gradebook of ``--students N`` (default 1,000, or
``BENCH_FORMGRADER_CLASS``) who all submitted ``bpe``, written through nbgrader's own gradebook
API (``update_or_create_student``, ``add_submission``, then a score on every grade cell as
nbgrader's autograde leaves it, one cell in 50 waiting for a person), with the indexes every
grading's merge adds (``gradebook_rows.ensure_indexes``), and for each the ``submitted/`` and
``autograded/`` folders with nbgrader's ``timestamp.txt`` that the lists look at. Nobody's
notebooks are graded: the three pages timed read the gradebook and those folders, not the
notebooks, and grading 1,000 notebooks would take an hour.

The Formgrader is started as ``make lab`` starts it: ``jupyter_server`` with nbgrader's
formgrader and the course's ``autograder.formgrader``, Jupyter's folders temporary
(``course_fixtures/jupyter_servers.py``, as the Formgrader tests start it). Headless Chromium
then opens, ``--loads`` times each in turn (default 5), the assignment list
(``manage_assignments``), the student list (``manage_students``) and the assignment's
submissions (``manage_submissions/bpe``). A load is timed by the page's own clock, from the
start of its navigation until nbgrader's script has filled the table (``models.loaded``) with
every row (one assignment; N students; N submissions); the Python side's wall time of the same
load is kept beside it. Target: the worst load of each page within 2 s (issue 45). The figures
go to ``artifacts/bench/formgrader.json`` (``bench/record.py``).

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_formgrader.py --students 1000``. It takes a few
minutes on 2 cores, most of them writing the gradebook (45 s to 3 min, as the machine is
loaded), then about a minute of loads.

But: one browser on the machine that serves; a real instructor's network adds its own time.
The first load of each page is the browser's first (nothing cached); the others reuse what
Chromium cached. Writing the gradebook is timed but is no target.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

from autograder.grading.gradebook_rows import ensure_indexes  # noqa: E402
from course_fixtures.jupyter_servers import headless_chromium  # noqa: E402
from course_fixtures.scratch_course import make_scratch_course  # noqa: E402

LIMIT_S = 2.0  # each list within 2 s with 1,000 students (issue 45)
ASSIGNMENT = "bpe"
COURSE_ID = "bpe-from-scratch"
TOKEN = "bench-formgrader"
SUBMITTED = datetime.datetime(2026, 12, 1, 12, 0, 0)
# One grade cell in this many has no automatic score and waits for a person, as the judge
# leaves some answers (nbgrader's queries cost more with each grade that waits).
PERSON_EVERY = 50
# Each page timed: its address under the server, and whose rows it must show (None: the
# class's students, one row each).
PAGES = {
    "assignment list (manage_assignments)": ("formgrader/manage_assignments", 1),
    "student list (manage_students)": ("formgrader/manage_students", None),
    "the assignment's submissions (manage_submissions/bpe)": (
        f"formgrader/manage_submissions/{ASSIGNMENT}",
        None,
    ),
}
# True, in the page, once nbgrader's script has filled the table with at least n rows: the
# page's clock then (milliseconds from the start of its navigation).
FILLED = """n => (window.models && window.models.loaded
    && document.querySelectorAll('#main-table > tr').length >= n) ? performance.now() : false"""


def student_id(i: int) -> str:
    return f"student-{i:04d}"


def write_class(root: Path, size: int) -> None:
    """``size`` students who submitted ``bpe``, in the gradebook through nbgrader's API, each
    grade cell scored (a pattern, so the totals differ), with nbgrader's folders beside."""
    from nbgrader.api import Gradebook

    # nbgrader's own add_submission warns of each new student's rows, as it always does.
    warnings.filterwarnings("ignore", module="nbgrader.api")
    stamp = SUBMITTED.strftime("%Y-%m-%d %H:%M:%S.%f UTC")  # nbgrader's own format
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        for i in range(size):
            student = student_id(i)
            gradebook.update_or_create_student(
                student, first_name=f"Given{i}", last_name=f"Family{i}", email=None
            )
            submission = gradebook.add_submission(ASSIGNMENT, student, timestamp=SUBMITTED)
            for notebook in submission.notebooks:
                for n, grade in enumerate(notebook.grades):
                    left_to_a_person = (i + n) % PERSON_EVERY == 0
                    full = grade.max_score if (i + n) % 3 else 0.0
                    grade.auto_score = None if left_to_a_person else full
                    # What nbgrader's SaveAutoGrades sets after autograding a cell.
                    grade.needs_manual_grade = grade.auto_score is None
            gradebook.db.commit()
            for stage in ("submitted", "autograded"):
                folder = root / stage / student / ASSIGNMENT
                folder.mkdir(parents=True)
                (folder / "timestamp.txt").write_text(stamp)
    # Every grading's merge (make autograde, the grading service) leaves these indexes in the
    # class gradebook; a gradebook written through nbgrader's API alone would lack them.
    with contextlib.closing(sqlite3.connect(root / "gradebook.db")) as db, db:
        ensure_indexes(db)


@contextlib.contextmanager
def formgrader(root: Path, scratch: Path) -> Iterator[str]:
    """The course's Formgrader on ``root``, as the tests start it; its base URL."""
    from course_fixtures.jupyter_servers import formgrader_server

    yield from formgrader_server(root, scratch, TOKEN)


def time_loads(browser, base: str, size: int, loads: int) -> dict[str, dict[str, list[float]]]:
    """Each page's loads, in turn: the page's own seconds to a full table, and the wall
    seconds of the same load from here."""
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    times: dict[str, dict[str, list[float]]] = {
        label: {"page clock (s)": [], "wall (s)": []} for label in PAGES
    }
    try:
        page = context.new_page()
        for _ in range(loads):
            for label, (address, rows) in PAGES.items():
                start = time.perf_counter()
                page.goto(base + address, wait_until="commit")
                shown = page.wait_for_function(
                    FILLED, arg=rows or size, polling="raf", timeout=120_000
                ).json_value()
                times[label]["wall (s)"].append(time.perf_counter() - start)
                times[label]["page clock (s)"].append(shown / 1000)
    finally:
        context.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = int(os.environ.get("BENCH_FORMGRADER_CLASS", "1000"))
    parser.add_argument("--students", type=int, default=default, help="class size")
    parser.add_argument("--loads", type=int, default=5, help="loads of each page, in turn")
    args = parser.parse_args()
    run = record.Run("formgrader", __file__)

    scratch = Path(tempfile.mkdtemp(prefix="bench-formgrader-"))
    try:
        root = make_scratch_course(scratch / "course")
        start = time.perf_counter()
        write_class(root, args.students)
        writing = time.perf_counter() - start
        print(f"gradebook of {args.students} written through nbgrader's API in {writing:.1f} s")
        with formgrader(root, scratch / "server") as base, headless_chromium() as browser:
            times = time_loads(browser, base, args.students, args.loads)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"\n{'page':<56} {'best s':>7} {'worst s':>8} {'worst wall s':>13}")
    table = []
    for label, measured in times.items():
        clock, wall = measured["page clock (s)"], measured["wall (s)"]
        verdict = run.target(f"Formgrader, {label}: worst load (s)", max(clock), LIMIT_S)
        print(
            f"{label:<56} {min(clock):>7.2f} {max(clock):>8.2f} {max(wall):>13.2f} "
            f"{verdict['verdict']}"
        )
        table.append(
            {
                "page": label,
                "best (s)": min(clock),
                "worst (s)": max(clock),
                "each load, page clock (s)": clock,
                "each load, wall (s)": wall,
            }
        )
    run.write(
        {
            "students": args.students,
            "loads": args.loads,
            "gradebook written through nbgrader's API (s)": writing,
            "pages": table,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
