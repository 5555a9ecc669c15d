"""The student's self-check on each lesson, lean (as grading runs it) against whole, side by side.

Each lesson is checked as a student who finished it checks it: the released notebook with a
correct answer in every answer cell (``course_fixtures.catalogue.CORRECT``), alone in a
scratch folder, by ``python -m bpe_course.selfcheck NOTEBOOK`` from start to exit, in a fresh
process without the clone on ``PYTHONPATH``: lean (the default: the lesson's own cells run
only their definitions) and ``--whole`` (every cell, as before the lesson marks). The two
take turns, in an order reversed every other round, so both see the same load; each lesson's
median is judged against the issue's goal: lean within 5 s a notebook on 2 cores. The
figures, each goal met or missed, and the machine go to ``artifacts/bench/selfcheck.json``
(``bench/record.py``).

Run it with ``make bench`` (every bench) or alone:
``PYTHONPATH=. .venv/bin/python bench/bench_selfcheck.py [--rounds N] [--lessons 01,04]``.

But: it times the command-line check, not the notebook's own "Check this notebook" cell (the
same command plus a running kernel's Python), and a self-check that fails a test is reported,
not timed as a success.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

from course_fixtures.catalogue import CORRECT  # noqa: E402
from course_fixtures.synthetic import write_submission  # noqa: E402

GOAL_SECONDS = 5.0
ROUNDS = 3
MODES = {"lean": [], "whole": ["--whole"]}


def correct_answers() -> dict[str, str]:
    """One correct answer per exercise, one that also passes the visible type checks."""
    return {
        name: next(src for src in answers.values() if "Counter" not in src)
        for name, answers in CORRECT.items()
    }


def finished_notebooks(scratch: Path) -> dict[str, Path]:
    """Each released lesson with every answer filled in, by lesson number ("01"...)."""
    release = scratch / "release" / "bpe"
    release.mkdir(parents=True)
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy(path, release / path.name)
    folder = write_submission(scratch, "finished", correct_answers())
    return {path.name[:2]: path for path in sorted(folder.glob("*.ipynb"))}


def student_env(scratch: Path) -> dict[str, str]:
    """A student's environment: no clone on the path, Jupyter's state in ``scratch``."""
    unset = ("PYTHONPATH", "MAKELEVEL", "MAKEFLAGS", "MFLAGS")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "MPLCONFIGDIR"):
        env[name] = str(scratch / name.lower())
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    return env


def timed_check(path: Path, mode: str, env: dict[str, str]) -> tuple[float, int, str]:
    """Seconds of one self-check of ``path`` from start to exit, its exit code and output."""
    command = [sys.executable, "-m", "bpe_course.selfcheck", *MODES[mode], path.name]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=path.parent, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="checks per lesson and mode")
    parser.add_argument("--lessons", default="", help="lesson numbers, e.g. 01,04 (all)")
    args = parser.parse_args()
    run = record.Run("selfcheck", __file__)
    seconds: dict[str, dict[str, list[float]]] = {}
    failures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bpe-selfcheck-") as scratch:
        notebooks = finished_notebooks(Path(scratch))
        wanted = [n for n in args.lessons.split(",") if n] or sorted(notebooks)
        env = student_env(Path(scratch))
        for lesson in wanted:
            seconds[lesson] = {mode: [] for mode in MODES}
            for turn in range(args.rounds):
                order = list(MODES) if turn % 2 == 0 else list(reversed(MODES))
                for mode in order:
                    took, status, output = timed_check(notebooks[lesson], mode, env)
                    seconds[lesson][mode].append(round(took, 2))
                    if status != 0:
                        failures[f"{lesson} {mode}"] = output[-400:]
    print(
        f"bench_selfcheck: python -m bpe_course.selfcheck on each finished lesson, "
        f"median of {args.rounds} (s); goal: lean <= {GOAL_SECONDS:.0f} s a notebook"
    )
    print(f"  {'lesson':<8}{'lean':>8}{'whole':>8}{'whole/lean':>12}  goal")
    figures: dict[str, dict] = {}
    for lesson, by_mode in seconds.items():
        lean, whole = (statistics.median(by_mode[mode]) for mode in MODES)
        name = notebooks[lesson].stem
        goal = run.target(f"{name}: lean self-check, median (s)", lean, GOAL_SECONDS)
        print(f"  {lesson:<8}{lean:>8.2f}{whole:>8.2f}{whole / lean:>11.1f}x  {goal['verdict']}")
        figures[name] = {
            "lean (s)": by_mode["lean"],
            "whole (s)": by_mode["whole"],
            "lean, median (s)": lean,
            "whole, median (s)": whole,
            "whole / lean": round(whole / lean, 2),
        }
    for what, output in failures.items():
        print(f"  a check of {what} exited non-zero:\n{output}")
    run.write(
        {
            "rounds": args.rounds,
            "goal per notebook, lean (s)": GOAL_SECONDS,
            "lessons": figures,
            "checks that exited non-zero": sorted(failures),
        }
    )


if __name__ == "__main__":
    main()
