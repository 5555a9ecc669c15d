"""A class of 100 and of 1,000 graded, fed back and exported: each step's cost a student.

Opt-in: without ``--sizes`` it says so and does nothing (``make bench`` runs it only with
``BENCH_THOUSAND=1``, which passes ``--sizes 100,1000``). At each size a class is written into
a scratch copy of the course, its answers drawn in turn from the catalogue
(``course_fixtures.catalogue``): every correct style, the untouched stub, every catalogued
wrong answer, the answers that hand the work to the course's engine, an answer that prints
markup and terminal escapes, a notebook that is not JSON, a missing notebook and a kernel
killed by ``os._exit``; a roster and a Canvas gradebook export name every student. Then each
step runs as the instructor runs it, one command each, in turn:

- grade: ``python -m autograder grade --jobs 2 --lean`` (``make autograde``), a local Dask
  cluster of 2 workers, the class summary and mistakes chart at its end included;
- summary: the class summary and mistakes chart alone (``summary.report``, what ``grade``
  ends with), timed apart since grading's cost would hide how it grows;
- feedback: ``python -m autograder feedback --jobs 2`` (``make feedback``); at the smallest
  size also ``--jobs 1`` just before it, the same pages on one worker, for the speed-up of a
  second worker (goal: at least 1.7x);
- grades.csv: ``python -m autograder export`` (``make export``);
- nbgrader export: ``nbgrader export --to=grades-nbgrader.csv`` (``make export-nbgrader``);
- Canvas: ``python -m autograder canvas export.csv`` (``make canvas``);
- Moodle: ``python -m autograder moodle --identifier email`` (``make moodle``).

At the largest size, once every step has run, the Formgrader is started on the class's
gradebook as ``make lab`` starts it and headless Chromium loads its assignment list, student
list and the assignment's submissions five times each (``bench_formgrader.time_loads``, the
page's own clock; goal: the worst load of each within 2 s).

Every step is measured the same way: wall seconds from start to exit, the CPU seconds of the
command and every process it waited for (``RUSAGE_CHILDREN``), and peak memory as the
resident set summed over the command's whole process tree (Dask's scheduler, nannies and
workers, the kernels), sampled every 50 ms with psutil (pages shared between processes count
once per process, so it overstates). Each feedback step starts from an empty ``feedback/``.
Goals (issue 45), judged in the one run: each step's wall seconds a student at the largest
size within 1.25x of its cost at the smallest, the speed-up of a second worker, and each
Formgrader list's worst load. The record goes to ``artifacts/bench/thousand.json``
(``bench/record.py``).

Runtime: under an hour on 2 idle cores (its record says when it started and ended), nearly
all of it grading and feedback at 1,000 (grading's wall time is above its CPU time: the
class's looping answers wait out the cell time limit); longer on a loaded machine. About
1 GB of temporary disk.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_thousand.py --sizes 100,1000``
(``--sizes 10,30`` for a quick look: the goal is set for 100 against 1,000).

But: one machine's two cores stand in for a cluster, and a step that grows faster than
linear only past 1,000 goes unseen. The speed-up of a second worker is measured at the
smallest size only (on one worker, 1,000 students' feedback would add about 20 minutes).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

TARGET_GROWTH = 1.25  # cost a student at the largest size over the smallest (issue 45)
TARGET_SPEEDUP = 1.7  # feedback on 2 workers against 1, at the smallest size (issue 45)
FEEDBACK_ONE, FEEDBACK_TWO = "feedback (1 worker)", "feedback (2 workers)"
FORMGRADER_LIMIT_S = 2.0  # each list's worst load at the largest size (issue 45)
FORMGRADER_LOADS = 5  # loads of each list, in turn
WORKERS = 2  # the local cluster of grading and feedback
SAMPLE_SECONDS = 0.05  # how often the process tree's memory is read
BIN = Path(sys.executable).parent
CANVAS_COLUMN = "bpe (77)"
MERGING = re.compile(r"merging into the gradebook (\d+) ms a student")
SUMMARY = (
    "import sys; from pathlib import Path; from autograder.reports import summary; "
    "summary.report(Path(sys.argv[1]))"
)
MARKUP = "\nprint('<script>alert(1)</script><img src=x onerror=alert(2)>\\x1b[31mred\\x1b[0m')\n"


@dataclass(frozen=True)
class Kind:
    """One kind of student in the class's cycle: answers to write and how to break them."""

    label: str
    answers: dict[str, str]
    breakage: str = ""  # "", "json", "missing" or "exit", as bench_class.make_class does


def kinds() -> list[Kind]:
    """One cycle of the class, honest and hostile mixed, in a fixed order."""
    from course_fixtures.catalogue import CORRECT, DELEGATING, WRONG

    styles = max(len(answers) for answers in CORRECT.values())
    correct = [
        {name: list(answers.values())[style % len(answers)] for name, answers in CORRECT.items()}
        for style in range(styles)
    ]
    good = correct[0]
    right = [Kind(f"correct-{style}", answers) for style, answers in enumerate(correct)]
    right.append(Kind("stub", {}))
    wrong = [
        Kind(f"wrong-{name}", {**good, name: code})
        for name, answers in WRONG.items()
        for code in answers.values()
    ]
    hostile = [
        Kind(f"delegating-{name}", {**good, name: code})
        for name, answers in DELEGATING.items()
        for code in answers.values()
    ]
    hostile.append(Kind("markup", {**good, "pair_counts": good["pair_counts"] + MARKUP}))
    hostile += [Kind(f"bad-{how}", good, how) for how in ("json", "missing", "exit")]
    return interleaved([right, wrong, hostile])


def interleaved(groups: list[list[Kind]]) -> list[Kind]:
    """The groups' kinds spread evenly through one cycle, each group in its own order, so
    that any stretch of the class (a small one too) holds each group in its share.

    >>> [k.label for k in interleaved([[Kind("a", {}), Kind("b", {})], [Kind("x", {})]])]
    ['a', 'x', 'b']
    """
    placed = [
        ((number + 0.5) / len(group), order, kind)
        for order, group in enumerate(groups)
        for number, kind in enumerate(group)
    ]
    return [kind for _, _, kind in sorted(placed, key=lambda item: item[:2])]


def make_class(root: Path, size: int) -> dict[str, int]:
    """Write ``size`` submissions, a roster and a Canvas export into the course ``root``;
    return how many of each kind (the kind's label without its detail)."""
    from bench_class import _kill_kernel_in

    from course_fixtures.synthetic import write_submission

    cycle = kinds()
    counts: dict[str, int] = {}
    roster = ["student_id,first_name,last_name,email,lms_user_id,sis_login_id,section"]
    canvas = [
        f"Student,ID,SIS User ID,SIS Login ID,Section,{CANVAS_COLUMN},Current Score",
        "    Points Possible,,,,,21.00,(read only)",
    ]
    for number in range(size):
        kind = cycle[number % len(cycle)]
        group = kind.label.split("-")[0]
        counts[group] = counts.get(group, 0) + 1
        student = f"s{number:04d}-{kind.label}"
        folder = write_submission(root, student, kind.answers)
        if kind.breakage == "json":
            (folder / "04_making_it_fast.ipynb").write_text("{ not a notebook")
        elif kind.breakage == "missing":
            (folder / "01_bpe_by_hand.ipynb").unlink()
        elif kind.breakage == "exit":
            _kill_kernel_in(folder / "02_encoding_by_rank.ipynb", "encode_bpe")
        lms_id = 100_000 + number
        roster.append(f"{student},S,{number},{student}@example.org,{lms_id},{student},A")
        canvas.append(f'"{number}, S",{lms_id},,{student},A,,0.00')
    (root / "roster.csv").write_text("\n".join(roster) + "\n")
    (root / "canvas-export.csv").write_text("\n".join(canvas) + "\n")
    return counts


def steps(root: Path, one_worker_too: bool) -> dict[str, list[str]]:
    """Each step of the term's end, as the command the instructor's make target runs; with
    ``one_worker_too``, feedback on one worker as well, just before the same on two."""
    ours = [sys.executable, "-m", "autograder"]
    jobs = ["--jobs", str(WORKERS), "--no-progress"]
    one = {FEEDBACK_ONE: [*ours, "feedback", "--root", str(root), "--jobs", "1", "--no-progress"]}
    return {
        "grade (2 workers, lean)": [*ours, "grade", "--root", str(root), *jobs, "--lean"],
        "summary and mistakes chart": [sys.executable, "-c", SUMMARY, str(root)],
        **(one if one_worker_too else {}),
        FEEDBACK_TWO: [*ours, "feedback", "--root", str(root), *jobs],
        "grades.csv": [*ours, "export", "--root", str(root)],
        "nbgrader export": [
            *(str(BIN / "nbgrader"), "export", "--to=grades-nbgrader.csv", "--log-level=WARN")
        ],
        "Canvas": [*ours, "canvas", str(root / "canvas-export.csv"), "--root", str(root)],
        "Moodle": [*ours, "moodle", "--root", str(root), "--identifier", "email"],
    }


def _tree_rss(process) -> int:
    """The resident bytes of ``process`` and all its descendants now (psutil.Process)."""
    import psutil

    total = 0
    for member in [process, *process.children(recursive=True)]:
        # A process may be gone between the listing and the reading.
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            total += member.memory_info().rss
    return total


def _sample(pid: int, peak: list[int], stop: threading.Event) -> None:
    import psutil

    try:
        process = psutil.Process(pid)
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(process))
            stop.wait(SAMPLE_SECONDS)
    except psutil.NoSuchProcess:
        pass  # the command ended


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(command: list[str], root: Path) -> dict[str, float]:
    """Run ``command`` in the course folder: its wall and CPU seconds and the peak summed
    resident memory of its process tree (MB). Stops the benchmark if it failed."""
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs `alembic`
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=path)
    peak, stop = [0], threading.Event()
    cpu, start = _children_cpu(), time.perf_counter()
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    sampler = threading.Thread(target=_sample, args=(process.pid, peak, stop))
    sampler.start()
    try:
        output, _ = process.communicate()
    finally:
        stop.set()
        sampler.join()
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    text = output.decode(errors="replace")
    if process.returncode != 0:
        shown = " ".join(Path(c).name if c.startswith("/") else c for c in command[:4])
        raise SystemExit(f"{shown} failed:\n{text[-3000:]}")
    figures = {"wall (s)": wall, "CPU (s)": cpu, "peak memory (MB)": peak[0] / 2**20}
    # grade's own line: the one process writing the gradebook, whose cost a student the
    # gradebook's growth could raise while the workers hide it.
    if merging := MERGING.search(text):
        figures["merging into the gradebook (ms a student)"] = float(merging.group(1))
    return figures


def run_class(
    size: int, merges: dict[str, float], *, smallest: bool, largest: bool
) -> tuple[dict[str, int], list[dict], dict[str, dict[str, list[float]]]]:
    """The class of ``size`` through every step, in a scratch course removed afterwards: its
    counts of each kind, each step's figures and, when ``largest``, the Formgrader's loads.
    Grading's merge into the gradebook, in ms a student as it prints it, goes to ``merges``;
    ``smallest`` adds feedback on one worker."""
    from course_fixtures.scratch_course import make_scratch_course

    scratch = Path(tempfile.mkdtemp(prefix=f"bench-thousand-{size}-"))
    loads: dict[str, dict[str, list[float]]] = {}
    try:
        root = make_scratch_course(scratch / "course")
        counts = make_class(root, size)
        rows = []
        for step, command in steps(root, one_worker_too=smallest).items():
            if step in (FEEDBACK_ONE, FEEDBACK_TWO):  # each writes every page afresh
                shutil.rmtree(root / "feedback", ignore_errors=True)
            figures = measure(command, root)
            merging = figures.pop("merging into the gradebook (ms a student)", None)
            if merging is not None:
                merges[str(size)] = merging
            rows.append(
                {
                    "students": size,
                    "step": step,
                    **figures,
                    "s a student": figures["wall (s)"] / size,
                    "CPU s a student": figures["CPU (s)"] / size,
                }
            )
            print(
                f"{size:>6} {step:<28} {figures['wall (s)']:>8.1f} {figures['CPU (s)']:>8.1f} "
                f"{figures['peak memory (MB)']:>8.0f} {figures['wall (s)'] / size:>10.3f}",
                flush=True,
            )
        _check_outputs(root, size)
        if largest:
            loads = formgrader_loads(root, scratch / "server", size)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return counts, rows, loads


def formgrader_loads(root: Path, scratch: Path, size: int) -> dict[str, dict[str, list[float]]]:
    """The Formgrader's three lists on the graded class, each loaded FORMGRADER_LOADS times in
    headless Chromium (``bench_formgrader.time_loads``). If the server or the browser fails,
    no loads: the goals are judged missed and the hour's other figures are still written."""
    from bench_formgrader import formgrader, time_loads

    from course_fixtures.jupyter_servers import headless_chromium

    try:
        with formgrader(root, scratch) as base, headless_chromium() as browser:
            return time_loads(browser, base, size, FORMGRADER_LOADS)
    except Exception as failure:  # a page past its timeout, a server that did not start
        print(f"the Formgrader's lists were not timed: {failure}", flush=True)
        return {}


def _check_outputs(root: Path, size: int) -> None:
    """Each export holds every student: a step that wrote less did not do the work timed."""
    for name in ("grades.csv", "grades-nbgrader.csv"):
        lines = (root / name).read_text().splitlines()
        if len(lines) - 1 < size:
            raise SystemExit(f"{name} holds {len(lines) - 1} students, not {size}")
    graded = [p for p in (root / "feedback").iterdir() if (p / "bpe").is_dir()]
    if len(graded) < size - size // 10:  # the broken ones may have fewer pages, not none
        raise SystemExit(f"feedback for {len(graded)} of {size} students")


def growth(rows: list[dict]) -> Iterator[tuple[str, int, int, float, float]]:
    """Each step's (step, smallest size, largest size, its cost a student at each).

    >>> rows = [{"students": 10, "step": "a", "s a student": 2.0},
    ...         {"students": 100, "step": "a", "s a student": 2.4}]
    >>> list(growth(rows))
    [('a', 10, 100, 2.0, 2.4)]
    """
    by_step: dict[str, dict[int, float]] = {}
    for row in rows:
        by_step.setdefault(row["step"], {})[int(row["students"])] = float(row["s a student"])
    for step, costs in by_step.items():
        small, large = min(costs), max(costs)
        if small != large:
            yield step, small, large, costs[small], costs[large]


def cpu_growth(rows: list[dict], step: str, small: int, large: int) -> float | None:
    """``step``'s CPU seconds a student at ``large`` over those at ``small``: on a machine
    others load, wall time grows with their work and CPU time does not."""
    cpu = {int(r["students"]): float(r["CPU s a student"]) for r in rows if r["step"] == step}
    return cpu[large] / cpu[small] if cpu.get(small) else None


def speedup(rows: list[dict]) -> tuple[int, float | None]:
    """The class size where feedback ran on one worker and on two, and one's wall seconds
    over two's there (None if either is missing).

    >>> speedup([{"students": 10, "step": FEEDBACK_ONE, "wall (s)": 9.0},
    ...          {"students": 10, "step": FEEDBACK_TWO, "wall (s)": 5.0},
    ...          {"students": 90, "step": FEEDBACK_TWO, "wall (s)": 40.0}])
    (10, 1.8)
    """
    one = {int(r["students"]): float(r["wall (s)"]) for r in rows if r["step"] == FEEDBACK_ONE}
    two = {int(r["students"]): float(r["wall (s)"]) for r in rows if r["step"] == FEEDBACK_TWO}
    size = min(one, default=0)
    return size, (one[size] / two[size] if two.get(size) else None)


def judge(
    run: record.Run, rows: list[dict], loads: dict[str, dict[str, list[float]]] | None = None
) -> list[dict]:
    """The run's goals, judged as ``run`` keeps them: each step's cost a student at the
    largest size at most TARGET_GROWTH times its cost at the smallest; if feedback ran on one
    worker, two at least TARGET_SPEEDUP times as fast; with ``loads`` (the largest size's),
    each Formgrader list's worst load within FORMGRADER_LIMIT_S, missed if it has none."""
    judged = []
    for step, small, large, before, after in growth(rows):
        ratio = after / before if before > 0 else None
        judged.append(
            run.target(f"{step}: s a student at {large} / at {small}", ratio, TARGET_GROWTH)
        )
    size, times = speedup(rows)
    if size:
        goal = f"feedback at {size}: 1 worker's wall s / 2 workers'"
        judged.append(run.target(goal, times, TARGET_SPEEDUP, at_least=True))
    if loads is None:  # no Formgrader in this judgement
        return judged
    from bench_formgrader import PAGES

    largest = max((int(row["students"]) for row in rows), default=0)
    for label in PAGES:
        clock = loads.get(label, {}).get("page clock (s)")
        goal = f"Formgrader at {largest}, {label}: worst load (s)"
        judged.append(run.target(goal, max(clock) if clock else None, FORMGRADER_LIMIT_S))
    return judged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="",
        help="class sizes, smallest first (100,1000: the goal's; none: do nothing, it is opt-in)",
    )
    args = parser.parse_args()
    if not args.sizes:
        print(
            "bench_thousand.py is opt-in (about an hour): `make bench BENCH_THOUSAND=1`, "
            "or give --sizes 100,1000"
        )
        return 0
    sizes = sorted({int(size) for size in args.sizes.split(",")})
    if len(sizes) < 2 or sizes[0] < 1:
        parser.error("give at least two class sizes, each 1 or more: --sizes 100,1000")
    run = record.Run("thousand", __file__)
    began = time.perf_counter()
    print(f"{'class':>6} {'step':<28} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'s/student':>10}")
    classes, rows, merges, loads = {}, [], {}, {}
    for size in sizes:
        edge = {"smallest": size == sizes[0], "largest": size == sizes[-1]}
        classes[str(size)], measured, found = run_class(size, merges, **edge)
        rows += measured
        loads |= found
    for judged in judge(run, rows, loads):
        measured = "not measured" if judged["measured"] is None else f"{judged['measured']:.2f}"
        bound = f"{judged['bound']} {judged['limit']}"
        print(f"{judged['goal']}: {measured} ({bound}): {judged['verdict']}")
    one_worker_size, one_over_two = speedup(rows)
    run.write(
        {
            "sizes": sizes,
            "workers": f"local Dask cluster of {WORKERS} worker processes",
            "memory": "peak of the resident set summed over the command's process tree, "
            f"sampled every {SAMPLE_SECONDS * 1000:.0f} ms",
            "class (students of each kind)": classes,
            "grading's merge into the gradebook (ms a student), by class size": merges,
            "growth of each step, largest size against smallest": [
                {
                    "step": step,
                    "wall s a student": after / before if before > 0 else None,
                    "CPU s a student": cpu_growth(rows, step, small, large),
                }
                for step, small, large, before, after in growth(rows)
            ],
            "feedback on 1 worker and on 2, at the smallest size": {
                "students": one_worker_size,
                "1 worker's wall s / 2 workers'": one_over_two,
            },
            "Formgrader at the largest size, each list's loads": loads,
            "seconds in all": time.perf_counter() - began,
            "steps": rows,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
