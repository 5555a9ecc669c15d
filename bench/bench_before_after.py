"""Grading the bench class with earlier commits of this repository and with this tree, in turns.

Each round builds a fresh class of 12 (``bench_class.make_class``: correct, stub, one wrong
answer per exercise, three broken submissions) with each tree's own code and masters, then
times that tree's grading command (``python -m autograder grade --jobs 2 --lean``, an earlier
tree's ``python -m autograder.grading.grade_class``) from start to exit with one clock:
everything ``make autograde`` does (the cluster or pool, grading, the judge or verify, the
summary). Beside the wall seconds it records the CPU seconds (user and system) of every
process the command starts, which another program's load on the machine disturbs far less
than the wall: the command runs in a CPU-accounting cgroup of its own (``cpuacct`` in cgroup
v1, ``cpu.stat`` in v2), which counts its processes whether or not anything waits for them;
where no group can be made, ``RUSAGE_CHILDREN`` counts those waited for (the record says
which).
Earlier commits run from a ``git worktree`` in a scratch folder, on this tree's venv; the
trees take turns, in an order reversed every other round.
Each target is a ratio to an earlier commit (``TARGETS``): ``sandbox``, at most 1.25x the time
of bc00676, the last commit before every run of student code went into bubblewrap; ``issue-22``,
at most 1.10x the time of d3ffb9d, the last commit before the hidden cases were drawn per
student and sent to the judge's sandbox one at a time; ``issue-42``, at most 1.05x the time of
f09f28c, the last commit before issue 42 moved ``autograder/`` into fewer, larger modules behind
one command. By default every target runs, in one run; ``--target`` picks one,
``--before COMMIT`` compares with any commit (the target whose commit it is, if any),
``--after COMMIT`` times a commit instead of this tree.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_before_after.py [--before COMMIT] [--rounds N]``

The seconds of every command, each comparison (its target, ratio and met or missed) and the
machine (cores, Python, the versions of the libraries grading runs on, bubblewrap, the
cgroups, the load average sampled between commands) go to ``artifacts/bench/before_after.json``;
no folder of the machine is named there.

But: without the repository's history (a copy with no ``.git``, a clone too shallow to hold the
commit) it says so and measures nothing; the earlier trees import this venv's ``bpe_course``
(its editable install), and the ratio is only as steady as the machine's other load.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run

import record  # noqa: E402  (bench/record.py, beside this script)

STUDENTS = 12
WORKERS = 2
# Besides record.py's: what grading runs on (the kernels, their messages, the cluster).
LIBRARIES = ("nbclient", "nbconvert", "jupyter_client", "pyzmq", "tornado", "traitlets")


@dataclass(frozen=True)
class Target:
    """How much slower than ``commit`` grading may be, and why that commit."""

    commit: str
    ratio: float
    what: str


TARGETS = {
    # "Encoder cold path...": the commit before the sandbox was built; a quarter more time.
    "sandbox": Target("bc00676", 1.25, "the sandbox costs at most 1.25x grading without it"),
    # "Hub students named...": the last commit before issue 22's drawn cases (efee848).
    "issue-22": Target(
        "d3ffb9d", 1.10, "issue 22 (drawn cases, one at a time) within 10% of grading before"
    ),
    # "Tie test refuses unhashable...": the last commit before issue 42's move (abdfd79).
    "issue-42": Target(
        "f09f28c", 1.05, "issue 42 (autograder/ moved, one command) within 5% of grading before"
    ),
}

_MAKE_CLASS = f"""
import sys, tempfile
from pathlib import Path
sys.path.insert(0, ".")
try:
    from course_fixtures.scratch_course import make_scratch_course
except ImportError:  # an earlier tree, from before course_fixtures/ (670aea6)
    from tests.support.scratch_course import make_scratch_course
from bench.bench_class import make_class
root = make_scratch_course(Path(tempfile.mkdtemp(prefix="bench-before-after-")) / "course")
make_class(root, {STUDENTS})
print(root)
"""


def _run(tree: Path, *command: str, group: Path | None = None) -> subprocess.CompletedProcess:
    """``command`` run in ``tree``, in the CPU-accounting ``group`` (its folder) if given."""
    env = dict(os.environ, PYTHONPATH=str(tree))

    def join_group() -> None:  # in the child, before it runs the command
        (group / "cgroup.procs").write_text(str(os.getpid()))  # type: ignore[operator]

    join = join_group if group else None
    return subprocess.run(
        command, cwd=tree, env=env, capture_output=True, text=True, preexec_fn=join
    )


def _grade_command(tree: Path) -> list[str]:
    """How ``tree`` grades a class: ``python -m autograder grade`` where it has the one
    command, its grade_class module before."""
    if (tree / "autograder" / "__main__.py").exists():
        return ["-m", "autograder", "grade"]
    return ["-m", "autograder.grading.grade_class"]


_CGROUPS = Path("/sys/fs/cgroup")


def cpu_group() -> tuple[Path | None, str]:
    """A fresh CPU-accounting cgroup (its folder), or None where none can be made; and how
    the CPU seconds are counted with it."""
    for parent in (_CGROUPS / "cpuacct", _CGROUPS):  # v1's hierarchy, else v2's root
        if parent == _CGROUPS and not (parent / "cgroup.controllers").exists():
            continue
        try:
            group = Path(tempfile.mkdtemp(prefix="bench-before-after-", dir=parent))
        except OSError:
            continue
        return group, f"a cgroup of its own ({'cpuacct' if parent != _CGROUPS else 'v2'})"
    return None, "RUSAGE_CHILDREN (the processes waited for only)"


def _cpu_method() -> str:
    group, how = cpu_group()
    if group is not None:
        _remove_group(group)
    return how


def _remove_group(group: Path) -> None:
    """Remove an emptied group; one a leftover process still holds is said, and left."""
    try:
        group.rmdir()
    except OSError as error:
        print(f"could not remove {group.name} ({error}): a process the command left runs on")


def _group_cpu(group: Path | None) -> float:
    """CPU seconds used so far in ``group``, or by this process's waited-for children."""
    if group is None:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime
    if (group / "cpuacct.usage").exists():
        return int((group / "cpuacct.usage").read_text()) / 1e9
    stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
    return int(stat["usage_usec"]) / 1e6


def time_class(tree: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one grading command of ``tree`` on a fresh class it built,
    the command in a CPU-accounting group of its own (``cpu_group``)."""
    made = _run(tree, sys.executable, "-c", _MAKE_CLASS)
    if made.returncode != 0:
        raise SystemExit(f"could not build the class with {tree}:\n{made.stderr[-1500:]}")
    root = Path(made.stdout.strip().splitlines()[-1])
    command = [*_grade_command(tree), "--jobs", str(WORKERS), "--lean"]
    group, _ = cpu_group()
    try:
        start, cpu_start = time.perf_counter(), _group_cpu(group)
        arguments = (*command, "--no-progress", "--root", str(root))
        done = _run(tree, sys.executable, *arguments, group=group)
        seconds, cpu = time.perf_counter() - start, _group_cpu(group) - cpu_start
        if done.returncode != 0:
            raise SystemExit(f"{tree}: grading failed:\n{done.stderr[-1500:]}")
        results = json.loads((root / "artifacts" / "grading" / "results.json").read_text())
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)
        if group is not None:
            _remove_group(group)
    graded = sum(1 for r in results if r["graded"])
    if graded != STUDENTS:
        raise SystemExit(f"{tree}: graded {graded} of {STUDENTS}: the bench stops")
    return seconds, cpu


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def _full(commit: str) -> str | None:
    done = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    return done.stdout.strip() or None


def _short(commit: str) -> str:
    return _git("rev-parse", "--short", commit).stdout.strip() or commit


def comparisons(targets: list[str], before: str | None) -> list[tuple[str | None, str]]:
    """(target name or None, earlier commit) to measure: ``before`` alone (under the target
    whose commit it is, if one is), else the named targets."""
    if before is None:
        return [(name, TARGETS[name].commit) for name in targets]
    named = [n for n, t in TARGETS.items() if _full(t.commit) and _full(t.commit) == _full(before)]
    return [(named[0] if named else None, before)]


def grading_facts() -> dict[str, object]:
    """What ``record.machine`` leaves out and grading's speed depends on: more libraries,
    bubblewrap, and the cgroups the caps are made with; no folder of the machine."""
    facts: dict[str, object] = {}
    for name in LIBRARIES:
        try:
            facts[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            facts[name] = "not installed"
    try:
        version = subprocess.run(["bwrap", "--version"], capture_output=True, text=True)
        facts["bubblewrap"] = version.stdout.split()[-1] if version.returncode == 0 else None
    except OSError:
        facts["bubblewrap"] = None
    from autograder.sandbox import bwrap  # this tree's: what its caps would be made with

    facts["cgroups"] = {cap: v or "none" for cap, v in bwrap.cgroup_versions().items()}
    return facts


class _Run(record.Run):
    """record.py's run, with the grading facts and the load sampled between commands."""

    def __init__(self, name: str, script: str) -> None:
        super().__init__(name, script)
        self.loads: list[float] = []

    def record(self, figures: dict) -> dict:
        out = super().record(figures)
        out["machine"].update(grading_facts())
        load = out["machine"]["load average (1 min)"]
        load.update({"between commands": self.loads, "max": max(self.loads, default=None)})
        return out


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--target",
        action="append",
        choices=sorted(TARGETS),
        help="a target to measure (again for more); default: every one",
    )
    parser.add_argument("--before", help="an earlier commit to compare with, instead")
    parser.add_argument("--after", help="a commit to time instead of this tree (worktree)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, taking turns")
    args = parser.parse_args()
    if not (ROOT / ".git").exists():
        print("no git history here (a copy without .git): nothing to compare with")
        return 0
    wanted = comparisons(args.target or list(TARGETS), args.before)
    run = _Run("before_after", __file__)  # artifacts/bench/before_after.json
    scratch = Path(tempfile.mkdtemp(prefix="bench-before-"))
    trees: dict[str, Path] = {}
    labels: dict[str, str] = {}  # commit as given -> its label
    try:
        for commit in [c for _, c in wanted] + ([args.after] if args.after else []):
            if commit in labels:
                continue
            tree = scratch / f"tree-{len(trees)}"
            added = _git("worktree", "add", "--detach", str(tree), commit)
            if added.returncode != 0:  # a shallow clone, say: nothing to compare with
                print(f"cannot check out {commit} ({added.stderr.strip()}): nothing compared")
                return 0
            label = f"{'after' if commit == args.after else 'before'} ({_short(commit)})"
            labels[commit], trees[label] = label, tree
        now = f"this tree ({_short('HEAD')}, {_dirty()} files changed)" if not args.after else ""
        after = labels[args.after] if args.after else now
        if not args.after:
            trees[after] = ROOT
        seconds, cpu = _measure(trees, args.rounds, run.loads)
    finally:
        for tree in trees.values():
            if tree != ROOT:
                _git("worktree", "remove", "--force", str(tree))
        shutil.rmtree(scratch, ignore_errors=True)
    compared = []
    print(f"\nclass of {STUDENTS}, {WORKERS} workers, lean, median of {args.rounds}:")
    for name, commit in wanted:
        for measure, figures in (("wall", seconds), ("CPU", cpu)):
            compared.append(_compare(run, name, figures, labels[commit], after, measure))
    print(f"load average (1 min) between commands: {min(run.loads):.2f} to {max(run.loads):.2f}")
    figures = {
        "students": STUDENTS,
        "workers": WORKERS,
        "mode": "lean",
        "rounds": args.rounds,
        "comparisons": compared,
        "seconds": seconds,
        "CPU seconds": cpu,
        "CPU counted with": _cpu_method(),
    }
    run.write(figures)
    return 0


def _compare(
    run: _Run, name: str | None, figures: dict, before: str, after: str, measure: str
) -> dict:
    """One comparison of ``after`` with ``before`` in one measure (wall or CPU seconds),
    judged against its target where ``name`` is one, and printed."""
    medians = {label: statistics.median(s) for label, s in figures.items()}
    per_round = [a / b for a, b in zip(figures[after], figures[before])]
    ratio = medians[after] / medians[before]
    target = TARGETS.get(name) if name else None
    goal = f"{name}: {target.what} ({measure} seconds)" if target else None
    verdict = run.target(goal, ratio, target.ratio)["verdict"] if target else None
    shown = f", target <= {target.ratio}x ({name}): {verdict}" if target else ", no target"
    print(
        f"{measure:>4}: {before} {medians[before] / STUDENTS:.2f} s a student, {after} "
        f"{medians[after] / STUDENTS:.2f}: {ratio:.3f}x (per round "
        + ", ".join(f"{r:.3f}" for r in per_round)
        + f"){shown}"
    )
    return {
        "target": name,
        "measure": measure,
        "before": before,
        "after": after,
        "before s a student": medians[before] / STUDENTS,
        "after s a student": medians[after] / STUDENTS,
        "ratio": ratio,
        "ratio per round": per_round,
        "at most": target.ratio if target else None,
        "verdict": verdict,
    }


def _dirty() -> int:
    """How many files of this tree differ from its commit (others' work in progress too)."""
    return len(_git("status", "--porcelain", "--untracked-files=no").stdout.splitlines())


def _measure(
    trees: dict[str, Path], rounds: int, loads: list[float]
) -> tuple[dict[str, list], dict[str, list]]:
    """Every tree's wall and CPU seconds, taking turns (the order reversed each other round,
    so none is always first or last); the load average goes into ``loads`` before and after
    each."""
    seconds: dict[str, list[float]] = {label: [] for label in trees}
    cpu: dict[str, list[float]] = {label: [] for label in trees}
    loads.append(_load())
    for round_ in range(rounds):
        order = list(trees.items())
        for label, tree in order if round_ % 2 == 0 else order[::-1]:
            wall, used = time_class(tree)
            seconds[label].append(wall)
            cpu[label].append(used)
            loads.append(_load())
            print(
                f"round {round_ + 1} {label:<36} {wall:6.1f} s, {wall / STUDENTS:.2f} s a "
                f"student, CPU {used:6.1f} s, load {loads[-1]:.2f}",
                flush=True,
            )
    return seconds, cpu


if __name__ == "__main__":
    sys.exit(main())
