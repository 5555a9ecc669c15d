"""Grading a whole synthetic class on Dask: seconds per student, speedup, overhead, scale.

A class of ``--students N`` (default 12, or ``BENCH_CLASS_SIZE``) is made in a scratch copy
of the course, cycling through: a correct student, the untouched stub, one wrong answer per
exercise (from the tests' catalogue) and three bad ones (a notebook that is not JSON, a
missing notebook, a kernel killed by ``os._exit``). The same class is graded by the command
``python -m autograder grade`` (timed from start to exit) on a local Dask
cluster of 1 worker and then of every core, first running whole notebooks and then
``--lean``; the lean class is also graded ``--in-process``, one process without Dask, the
baseline of Dask's overhead. Every run judges the hidden tests outside the kernels, in the
sandbox. Targets on a 2-core machine: at most 2 s per student with every core, at least
1.66x from 1 to 2 workers (the speed of the process pool Dask replaced), Dask with 1 worker
within 1.10x of one process.

Then a larger class (``--large N``, default 48, or ``BENCH_LARGE_CLASS``; 0 skips it) is graded
lean through ``--scheduler`` on ``dask scheduler`` and ``dask worker`` programs started here, as
on a cluster of machines: the time per student, the scheduler's overhead per task (a map of
trivial tasks on the same cluster) and its memory (sampled every 50 ms), and from them the
worker cores that grade 10,000 submissions in an hour. Last, where a student's time goes: a
bare kernel's start and stop (jupyter_client's manager and grading's ``PromptKernelManager``, taking
turns) and each notebook's own cells, run once outside nbgrader. The figures and each target,
met or missed, go to ``artifacts/bench/class.json`` too, with the machine (``bench/record.py``).

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_class.py --modes lean --large 200``.

But: one machine's two cores stand in for a cluster; the estimate assumes the workers of a
bigger cluster each grade as fast as one of these.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

from autograder.course import RESULTS_RECORD  # noqa: E402
from autograder.grading import grade_one  # noqa: E402
from autograder.grading.on_dask import security  # noqa: E402
from course_fixtures.catalogue import CORRECT, WRONG  # noqa: E402
from course_fixtures.dask_programs import dask_cluster  # noqa: E402
from course_fixtures.scratch_course import make_scratch_course  # noqa: E402
from course_fixtures.synthetic import write_submission  # noqa: E402

TARGET_SECONDS_PER_STUDENT = 2.0
TARGET_SPEEDUP = 1.66  # what the course's own process pool reached: Dask must not be slower
TARGET_DASK_OVERHEAD = 1.10  # Dask with 1 worker against one process, wall time
OVERHEAD_TASKS = 2000  # trivial tasks timed for the scheduler's overhead per task
KERNEL_STARTS = 5  # bare kernels started with each kernel manager, alternating
MOOC = 10_000  # submissions to grade in an hour, for the estimate of cores needed


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


def time_grading(root: Path, *options: str) -> float:
    """Wall seconds of one ``grade_class`` command on the class, from start to exit
    (imports, cluster, grading, summary); stops the benchmark if a student failed."""
    command = [sys.executable, "-m", "autograder", "grade", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    done = subprocess.run([*command, "--root", str(root), *options], env=env, capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"grading failed ({' '.join(options)}):\n{done.stderr.decode()[-2000:]}")
    results = json.loads((root / RESULTS_RECORD).read_text())
    failed = [r["student"] for r in results if not r["graded"]]
    if failed:
        raise SystemExit(f"grading failed for {failed}: the benchmark stops")
    return seconds


def _sample_memory(pid: int, peak: list[int], stop: threading.Event) -> None:
    import psutil

    process = psutil.Process(pid)
    while not stop.is_set():
        peak[0] = max(peak[0], process.memory_info().rss)
        stop.wait(0.05)


def large_class(size: int, jobs: int) -> dict[str, float]:
    """A class of ``size`` graded on a cluster of ``jobs`` worker programs (the commands of
    ``make scheduler`` and ``make worker``, as on several machines); the scheduler's memory
    sampled throughout, then its overhead per task from a map of trivial tasks on the same
    cluster."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-large-class-"))
    try:
        return _grade_large_class(scratch, size, jobs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _grade_large_class(scratch: Path, size: int, jobs: int) -> dict[str, float]:
    import psutil
    from distributed import Client

    root = make_scratch_course(scratch / "course")
    make_class(root, size)
    with (
        dask_cluster(scratch / "dask", root, workers=jobs) as cluster,
        Client(cluster.address, security=security(root), set_as_default=False) as client,
    ):
        client.wait_for_workers(jobs, timeout=120)
        # The course's command runs Dask's scheduler as its one child: measure that.
        scheduler = psutil.Process(cluster.scheduler.pid).children()[0].pid
        idle = psutil.Process(scheduler).memory_info().rss
        peak, stop = [idle], threading.Event()
        sampler = threading.Thread(target=_sample_memory, args=(scheduler, peak, stop))
        sampler.start()
        try:
            seconds = time_grading(root, "--scheduler", cluster.address, "--lean")
        finally:
            stop.set()
            sampler.join()
        # Trivial tasks: what the scheduler and the round trips cost per task.
        client.gather(client.map(abs, range(-100, 0)))  # warm
        start = time.perf_counter()
        client.gather(client.map(abs, range(OVERHEAD_TASKS)))
        per_task = (time.perf_counter() - start) / OVERHEAD_TASKS
    return {
        "students": size,
        "workers": jobs,
        "seconds": seconds,
        "scheduler_idle_mb": idle / 2**20,
        "scheduler_peak_mb": peak[0] / 2**20,
        "overhead_ms_per_task": 1000 * per_task,
    }


def print_large(large: dict[str, float]) -> dict[str, float]:
    """The larger class's figures, and the cores a course of MOOC submissions needs."""
    n, jobs = int(large["students"]), int(large["workers"])
    per_student = large["seconds"] / n
    core_seconds = per_student * jobs  # every worker busy on its own core
    cores = math.ceil(MOOC * core_seconds / 3600)
    growth = (large["scheduler_peak_mb"] - large["scheduler_idle_mb"]) / n
    print(
        f"\nlarger class: {n} students (lean) on `dask scheduler` + {jobs} `dask worker` "
        f"programs: {large['seconds']:.1f} s, {per_student:.2f} s a student, "
        f"{core_seconds:.2f} core-seconds a student"
    )
    print(
        f"scheduler: {large['overhead_ms_per_task']:.2f} ms a task ({OVERHEAD_TASKS} trivial "
        f"tasks, {jobs} workers); memory {large['scheduler_idle_mb']:.0f} MB idle, "
        f"{large['scheduler_peak_mb']:.0f} MB at most while grading ({growth * 1024:.0f} KB a "
        "student)"
    )
    scheduler_seconds = MOOC * large["overhead_ms_per_task"] / 1000
    print(
        f"{MOOC:,} submissions in an hour: {MOOC} x {core_seconds:.2f} core-s / 3600 s = "
        f"{cores} worker cores like these; the scheduler's share, {scheduler_seconds:.0f} s "
        "of the hour"
    )
    return {
        "s a student": per_student,
        "core-seconds a student": core_seconds,
        f"worker cores for {MOOC:,} submissions an hour": cores,
        "scheduler's seconds of that hour": scheduler_seconds,
    }


def where_time_goes(root: Path) -> dict[str, float]:
    """A bare kernel start, and each graded notebook of the correct student run alone."""
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    from autograder.plugins.guarded_execute import PromptKernelManager

    grade_one.prepare_worker()
    out = {}
    bare = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    bare.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    # The same bare notebook with jupyter_client's manager and with grading's, alternated.
    managers = {"jupyter_client": AsyncKernelManager, "prompt_kernel": PromptKernelManager}
    starts: dict[str, list[float]] = {name: [] for name in managers}
    for _ in range(KERNEL_STARTS):
        for name, manager in managers.items():
            start = time.perf_counter()
            NotebookClient(
                bare, timeout=60, shutdown_kernel="immediate", kernel_manager_class=manager
            ).execute()
            starts[name].append(time.perf_counter() - start)
    for name, seconds in starts.items():
        out[f"bare kernel start + stop, {name} (median of {KERNEL_STARTS})"] = statistics.median(
            seconds
        )
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
    parser.add_argument(
        "--large",
        type=int,
        default=int(os.environ.get("BENCH_LARGE_CLASS", "48")),
        help="size of the larger class graded on a cluster of dask programs (0: skip)",
    )
    args = parser.parse_args()
    run = record.Run("class", __file__)

    scratch = Path(tempfile.mkdtemp(prefix="bench-class-"))
    root = make_scratch_course(scratch / "course")
    counts = make_class(root, args.students)
    print(f"class of {args.students}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))

    times: dict[tuple[str, int], float] = {}
    for mode in args.modes.split(","):
        lean = ["--lean"] if mode == "lean" else []
        if mode == "lean":  # the baseline: one process, no Dask
            times[mode, 0] = time_grading(root, "--in-process", *lean)
        for jobs in (1, args.jobs):
            times[mode, jobs] = time_grading(root, "--jobs", str(jobs), *lean)

    n = args.students
    print(f"\n{'run':<36} {'wall s':>8} {'s/student':>10} {'speedup':>8}")
    table = []
    for (mode, jobs), seconds in times.items():
        where = "one process, no Dask" if jobs == 0 else f"Dask, {jobs} worker(s)"
        label = f"{mode} notebooks, {where}"
        speedup = f"{times[mode, 1] / seconds:>7.2f}x" if jobs else f"{'':>8}"
        print(f"{label:<36} {seconds:>8.1f} {seconds / n:>10.2f} {speedup}")
        table.append(
            {
                "run": label,
                "wall (s)": seconds,
                "s a student": seconds / n,
                "speedup over 1 worker": times[mode, 1] / seconds if jobs else None,
            }
        )
    for mode in dict.fromkeys(mode for mode, _ in times):
        per_student = times[mode, args.jobs] / n
        speedup = times[mode, 1] / times[mode, args.jobs]
        fast_enough = run.target(
            f"{mode}: seconds a student with {args.jobs} workers",
            per_student,
            TARGET_SECONDS_PER_STUDENT,
        )["verdict"]
        scales = run.target(
            f"{mode}: speedup from 1 to {args.jobs} workers",
            speedup,
            TARGET_SPEEDUP,
            at_least=True,
        )["verdict"]
        print(
            f"{mode}: target <= {TARGET_SECONDS_PER_STUDENT} s/student with "
            f"{args.jobs} workers: {fast_enough} ({per_student:.2f}); "
            f"target >= {TARGET_SPEEDUP}x from 1 to {args.jobs} workers: {scales} ({speedup:.2f}x)"
        )
    if ("lean", 0) in times:
        ratio = times["lean", 1] / times["lean", 0]
        extra = (times["lean", 1] - times["lean", 0]) / n
        within = run.target(
            "lean: Dask with 1 worker / one process without Dask, wall time",
            ratio,
            TARGET_DASK_OVERHEAD,
        )["verdict"]
        print(
            f"Dask's overhead, 1 worker against one process (lean): {ratio:.3f}x, "
            f"{extra:+.2f} s a student; target <= {TARGET_DASK_OVERHEAD}x: {within}"
        )
    large = large_class(args.large, args.jobs) if args.large else None
    if large:
        large = {**large, **print_large(large)}
    breakdown = where_time_goes(root)
    print("\nwhere one student's time goes (run alone, outside nbgrader):")
    for label, seconds in breakdown.items():
        print(f"  {label:<56} {seconds:6.2f} s")
    run.write(
        {
            "students": n,
            "class": counts,
            "jobs": args.jobs,
            "grading": table,
            "grading_seconds": {f"{mode}-{jobs}": v for (mode, jobs), v in times.items()},
            "large_class": large,
            "breakdown": breakdown,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
