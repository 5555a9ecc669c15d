"""Grading a whole synthetic class: seconds per student, and the speedup of parallel workers.

A class of ``--students N`` (default 12, or ``BENCH_CLASS_SIZE``; the issue's full class is
200) is made in a scratch copy of the course, cycling through: a correct student, the
untouched stub, one wrong answer per exercise (from the tests' catalogue) and three bad ones
(a notebook that is not JSON, a missing notebook, a kernel killed by ``os._exit``). The same
class is graded by ``autograder.grading.grade_class`` with 1 worker and then with every core,
side by side in one run, first running whole notebooks and then ``--lean`` (lesson cells run only
their definitions); each run includes judging the hidden tests outside the kernels, in the
sandbox. Targets on a 2-core machine: at most 2 s per student for all four notebooks with every
core, at least 1.6x from 1 to 2 workers.

Then it shows where a student's time goes: a bare kernel start and each notebook's own cells,
run once outside nbgrader. Results go to ``artifacts/bench/class.json`` too.

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_class.py --students 200`` (about 20 minutes here).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import grade_class, grade_one  # noqa: E402
from tests.support.catalogue import CORRECT, WRONG  # noqa: E402
from tests.support.scratch_course import make_scratch_course  # noqa: E402
from tests.support.synthetic import write_submission  # noqa: E402

TARGET_SECONDS_PER_STUDENT = 2.0
TARGET_SPEEDUP = 1.6


def _kinds() -> list[tuple[str, dict[str, str], str]]:
    """(label, answers, how to break it) for one cycle of the synthetic class."""
    good = {n: next(iter(v.values())) for n, v in CORRECT.items()}
    kinds = [("correct", good, ""), ("stub", {}, "")]
    for name, wrong in WRONG.items():
        if wrong:
            kinds.append((f"wrong-{name}", {**good, name: next(iter(wrong.values()))}, ""))
    kinds += [
        ("bad-json", good, "json"),
        ("bad-missing", good, "missing"),
        ("bad-exit", good, "exit"),
    ]
    return kinds


def make_class(root: Path, size: int) -> dict[str, int]:
    """Write ``size`` submissions into ``root``; return how many of each kind."""
    kinds = _kinds()
    counts: dict[str, int] = {}
    for i in range(size):
        label, answers, breakage = kinds[i % len(kinds)]
        counts[label] = counts.get(label, 0) + 1
        student = f"s{i:03d}-{label}"
        folder = write_submission(root, student, answers)
        if breakage == "json":
            (folder / "04_making_it_fast.ipynb").write_text("{ not a notebook")
        elif breakage == "missing":
            (folder / "01_bpe_by_hand.ipynb").unlink()
        elif breakage == "exit":
            _kill_kernel_in(folder / "02_encoding_by_rank.ipynb", "encode_bpe")
    return counts


def _kill_kernel_in(path: Path, grade_id: str) -> None:
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = "import os\n\nos._exit(1)\n"
    nbformat.write(notebook, path)


def time_grading(root: Path, jobs: int, lean: bool) -> float:
    start = time.perf_counter()
    results = grade_class.grade_class(root, jobs, progress=False, lean=lean)
    seconds = time.perf_counter() - start
    failed = [r["student"] for r in results if not r["graded"]]
    if failed:
        raise SystemExit(f"grading failed for {failed}: the benchmark stops")
    return seconds


def where_time_goes(root: Path) -> dict[str, float]:
    """A bare kernel start, and each graded notebook of the correct student run alone."""
    import nbformat
    from nbclient import NotebookClient

    grade_one.prepare_worker()
    out = {}
    bare = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    bare.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    start = time.perf_counter()
    NotebookClient(bare, timeout=60, shutdown_kernel="immediate").execute()
    out["bare kernel start + stop"] = time.perf_counter() - start
    folder = root / "autograded" / "s000-correct" / "bpe"
    for path in sorted(folder.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        client = NotebookClient(
            notebook,
            timeout=120,
            allow_errors=True,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute()
        out[f"{path.stem} (kernel + cells)"] = time.perf_counter() - start
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = int(os.environ.get("BENCH_CLASS_SIZE", "12"))
    parser.add_argument("--students", type=int, default=default, help="class size (200: full)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="workers for the parallel run"
    )
    parser.add_argument(
        "--modes", default="full,lean", help="full (whole notebooks), lean, or both: full,lean"
    )
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-class-"))
    root = make_scratch_course(scratch / "course")
    counts = make_class(root, args.students)
    print(f"class of {args.students}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))

    times = {}
    for lean in [mode == "lean" for mode in args.modes.split(",")]:
        for jobs in (1, args.jobs):
            times[lean, jobs] = time_grading(root, jobs, lean)

    n = args.students
    print(f"\n{'run':<28} {'wall s':>8} {'s/student':>10} {'speedup':>8}")
    for (lean, jobs), seconds in times.items():
        label = f"{'lean' if lean else 'full'} notebooks, {jobs} worker(s)"
        print(f"{label:<28} {seconds:>8.1f} {seconds / n:>10.2f} {times[lean, 1] / seconds:>7.2f}x")
    for lean in sorted({lean for lean, _ in times}):
        per_student = times[lean, args.jobs] / n
        speedup = times[lean, 1] / times[lean, args.jobs]
        fast_enough = "met" if per_student <= TARGET_SECONDS_PER_STUDENT else "MISSED"
        scales = "met" if speedup >= TARGET_SPEEDUP else "MISSED"
        print(
            f"{'lean' if lean else 'full'}: target <= {TARGET_SECONDS_PER_STUDENT} s/student with "
            f"{args.jobs} workers: {fast_enough} ({per_student:.2f}); "
            f"target >= {TARGET_SPEEDUP}x: {scales} ({speedup:.2f}x)"
        )
    breakdown = where_time_goes(root)
    print("\nwhere one student's time goes (run alone, outside nbgrader):")
    for label, seconds in breakdown.items():
        print(f"  {label:<42} {seconds:6.2f} s")
    record = {
        "students": n,
        "jobs": args.jobs,
        "grading_seconds": {f"{'lean' if k[0] else 'full'}-{k[1]}": v for k, v in times.items()},
        "breakdown": breakdown,
    }
    out = ROOT / "artifacts" / "bench" / "class.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
