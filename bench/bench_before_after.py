"""Grading the bench class with an earlier commit of this repository and with this tree, in turns.

Each round builds a fresh class of 12 (``bench_class.make_class``: correct, stub, one wrong
answer per exercise, three broken submissions) with each tree's own code and masters, then
times that tree's ``python -m autograder.grading.grade_class --jobs 2 --lean`` from start to
exit with one clock: everything ``make autograde`` does (the cluster or pool, grading, the
judge or verify, the summary). The earlier commit runs from a ``git worktree`` in a scratch
folder, on this tree's venv. Default: ``BEFORE_SANDBOX``, the last commit before every run of
student code went into bubblewrap and the hidden tests were judged outside the kernels; the
target is that grading is at most 1.25x as slow as it was then.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_before_after.py [--before COMMIT] [--rounds N]``

Each command's seconds go to ``artifacts/bench/before_after.json`` too.

But: without the repository's history (a copy with no ``.git``, a clone too shallow to hold the
commit) it says so and measures nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE_SANDBOX = "bc00676"  # "Encoder cold path...", the commit before the sandbox was built
TARGET_RATIO = 1.25  # the sandbox may cost at most a quarter more time
STUDENTS = 12
WORKERS = 2

_MAKE_CLASS = f"""
import sys, tempfile
from pathlib import Path
sys.path.insert(0, ".")
from tests.support.scratch_course import make_scratch_course
from bench.bench_class import make_class
root = make_scratch_course(Path(tempfile.mkdtemp(prefix="bench-before-after-")) / "course")
make_class(root, {STUDENTS})
print(root)
"""


def _run(tree: Path, *command: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)


def time_class(tree: Path) -> float:
    """Wall seconds of one grade_class command of ``tree`` on a fresh class it built."""
    made = _run(tree, sys.executable, "-c", _MAKE_CLASS)
    if made.returncode != 0:
        raise SystemExit(f"could not build the class with {tree}:\n{made.stderr[-1500:]}")
    root = Path(made.stdout.strip().splitlines()[-1])
    command = ["-m", "autograder.grading.grade_class", "--jobs", str(WORKERS), "--lean"]
    try:
        start = time.perf_counter()
        done = _run(tree, sys.executable, *command, "--no-progress", "--root", str(root))
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{tree}: grading failed:\n{done.stderr[-1500:]}")
        results = json.loads((root / "artifacts" / "grading" / "results.json").read_text())
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)
    graded = sum(1 for r in results if r["graded"])
    if graded != STUDENTS:
        raise SystemExit(f"{tree}: graded {graded} of {STUDENTS}: the bench stops")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE_SANDBOX, help="the earlier commit")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, taking turns")
    args = parser.parse_args()
    if not (ROOT / ".git").exists():
        print("no git history here (a copy without .git): nothing to compare with")
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="bench-before-"))
    before = scratch / "tree"
    added = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before],
        capture_output=True,
        text=True,
    )
    if added.returncode != 0:  # a shallow clone, say: nothing to compare with either
        print(f"cannot check out {args.before} ({added.stderr.strip()}): nothing compared")
        shutil.rmtree(scratch, ignore_errors=True)
        return 0
    trees = {f"before ({args.before})": before, "this tree": ROOT}
    seconds: dict[str, list[float]] = {label: [] for label in trees}
    try:
        for round_ in range(args.rounds):
            for label, tree in trees.items():
                seconds[label].append(time_class(tree))
                per_student = seconds[label][-1] / STUDENTS
                print(
                    f"round {round_ + 1} {label:<20} {seconds[label][-1]:6.1f} s, "
                    f"{per_student:.2f} s a student",
                    flush=True,
                )
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)])
        shutil.rmtree(scratch, ignore_errors=True)
    medians = {label: statistics.median(s) for label, s in seconds.items()}
    old, new = medians.values()
    verdict = "met" if new / old <= TARGET_RATIO else "MISSED"
    record = {"before": args.before, "students": STUDENTS, "workers": WORKERS, **seconds}
    out = ROOT / "artifacts" / "bench" / "before_after.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1))
    print(
        f"\nclass of {STUDENTS}, {WORKERS} workers, lean, median of {args.rounds}: "
        + ", ".join(f"{label} {m / STUDENTS:.2f} s a student" for label, m in medians.items())
        + f"; this tree / before = {new / old:.2f}x, target <= {TARGET_RATIO}x: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
