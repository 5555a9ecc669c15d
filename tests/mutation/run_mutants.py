"""``make mutants``: mutmut mutates the reference answers (``solutions/bpe.py`` and
``merge_and_update`` with its helper in ``solutions/fast.py``); every mutant is graded twice,
by the hidden checker and by the visible example cells alone, each in its own mutmut run.

It prints, per exercise, the mutants made, killed by the hidden tests, killed by the visible
tests and listed as equivalent, then every survivor with the line it changes, and writes the
same to ``artifacts/mutants/report.txt``. It exits 1 when a mutant survives the hidden tests
without an entry in ``tests/mutation/equivalent.py``, when an entry is killed or gone, or when
the visible tests alone kill less than ``VISIBLE_TARGET`` of an exercise's mutants.

The checker's expected values come from a copy of ``solutions/`` frozen before mutmut starts
(``tests.mutation.frozen``). A mutant that runs past mutmut's time limit counts as killed, as
a cell past nbgrader's limit scores 0. mutmut also mutates the fast trainer in ``fast.py``;
those mutants belong to no exercise and are left out.

But: it changes nothing in the repository; mutmut works in a scratch folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.mutation.equivalent import EQUIVALENT
from tests.mutation.generate import MODULES, all_mutants
from tests.mutation.kill import EXERCISES, KINDS, ROOT, owner

VISIBLE_TARGET = 0.8
REPORT = ROOT / "artifacts" / "mutants" / "report.txt"
SUITE = Path(__file__).with_name("mutmut_suite.py")
SETUP_CFG = """[mutmut]
source_paths = solutions/
pytest_add_cli_args_test_selection = killtests/
pytest_add_cli_args = -pno:cacheprovider
use_git_change_detection = false
timeout_multiplier = 4
timeout_constant = 2
also_copy =
    pytest.ini
    killtests/
"""
KILLED = {"killed", "timeout", "segfault"}
SURVIVED = {"survived", "no tests"}  # "no tests": the kind's tests never reach the function


def build_project(folder: Path, frozen: Path) -> None:
    """A scratch project for one mutmut run: the reference, the suite, mutmut's settings."""
    (folder / "solutions").mkdir(parents=True)
    for path in sorted((ROOT / "solutions").glob("*.py")):
        shutil.copy2(path, folder / "solutions" / path.name)
    (folder / "killtests").mkdir()
    shutil.copy2(SUITE, folder / "killtests" / "test_kill.py")
    (folder / "setup.cfg").write_text(SETUP_CFG)
    (folder / "pytest.ini").write_text("[pytest]\n")  # no settings from folders above
    if not (frozen / "solutions").exists():
        shutil.copytree(ROOT / "solutions", frozen / "solutions", ignore=_caches)


def _caches(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def run_mutmut(folder: Path, kind: str, frozen: Path, jobs: int, log: Path) -> None:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # solutions/ must come from mutmut's mutants/ folder
    env.update(BPE_COURSE_ROOT=str(ROOT), BPE_MUTATION_KIND=kind, BPE_FROZEN_REFERENCE=str(frozen))
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)]
    with open(log, "wb") as out:
        done = subprocess.run(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"mutmut run ({kind}) failed with code {done.returncode}:\n{tail}")


def read_statuses(folder: Path) -> dict[str, str]:
    """Each mutant's status from mutmut's records in ``folder/mutants``."""
    from mutmut.stats import status_by_exit_code

    found = {}
    for path in MODULES.values():
        meta = folder / "mutants" / path.relative_to(ROOT).with_suffix(".py.meta")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found.update({name: status_by_exit_code[code] for name, code in codes.items()})
    return found


@dataclass
class Tally:
    """One exercise's figures."""

    made: int = 0
    hidden: int = 0
    visible: int = 0
    equivalent: int = 0
    timeouts: int = 0
    hidden_survivors: list[str] = field(default_factory=list)
    visible_survivors: list[str] = field(default_factory=list)

    @property
    def visible_share(self) -> float:
        killable = self.made - self.equivalent
        return self.visible / killable if killable else 1.0


def tally(statuses: dict[str, dict[str, str]]) -> dict[str, Tally]:
    """Per exercise: ``statuses[kind][mutant]`` counted; survivors listed."""
    tallies = {name: Tally() for name in EXERCISES}
    for mutant in sorted(statuses["hidden"], key=_natural):
        name = owner(mutant)
        if name is None:
            continue
        found = tallies[name]
        found.made += 1
        hidden, visible = statuses["hidden"][mutant], statuses["visible"].get(mutant, "missing")
        for status in (hidden, visible):
            if status not in KILLED | SURVIVED:
                raise SystemExit(f"{mutant}: mutmut says {status!r}; look at the logs")
        found.timeouts += hidden == "timeout"
        if hidden in KILLED:
            found.hidden += 1
        else:
            found.hidden_survivors.append(mutant)
            found.equivalent += mutant in EQUIVALENT
        if visible in KILLED:
            found.visible += 1
        elif mutant not in EQUIVALENT:
            found.visible_survivors.append(mutant)
    return tallies


def _natural(mutant: str) -> tuple[str, int]:
    stem, _, number = mutant.rpartition("__mutmut_")
    return stem, int(number)


def problems(tallies: dict[str, Tally], statuses: dict[str, dict[str, str]]) -> list[str]:
    """What makes the run fail: unlisted survivors, stale entries, low visible kill rates."""
    found = []
    for name, t in tallies.items():
        for mutant in t.hidden_survivors:
            if mutant not in EQUIVALENT:
                found.append(f"{mutant} survives the hidden tests: kill it with a case, or list it")
        if t.visible_share < VISIBLE_TARGET:
            found.append(f"{name}: the visible tests kill {t.visible_share:.0%} (< 80%)")
    for mutant in EQUIVALENT:
        status = statuses["hidden"].get(mutant)
        if status is None:
            found.append(f"{mutant} is listed as equivalent but mutmut no longer makes it")
        elif status not in SURVIVED:
            found.append(f"{mutant} is listed as equivalent but the hidden tests kill it")
    return found


def report(tallies: dict[str, Tally], trouble: list[str], seconds: float) -> str:
    mutants = all_mutants()
    lines = [
        f"{'exercise':<18}{'made':>6}{'hidden':>9}{'visible':>10}{'equivalent':>12}"
        f"{'hidden %':>10}{'visible %':>11}"
    ]
    for name, t in tallies.items():
        killable = t.made - t.equivalent
        hidden_share = t.hidden / killable if killable else 1.0
        lines.append(
            f"{name:<18}{t.made:>6}{t.hidden:>9}{t.visible:>10}{t.equivalent:>12}"
            f"{hidden_share:>10.0%}{t.visible_share:>11.0%}"
        )
    total = sum(t.made for t in tallies.values())
    timeouts = sum(t.timeouts for t in tallies.values())
    lines += [
        "",
        f"{total} mutants of the five exercises in {seconds:.0f} s; hidden and visible % are of "
        f"the non-equivalent ones; {timeouts} hidden kills were timeouts (a looping answer "
        "scores 0).",
        "",
        "Survived the hidden tests:",
    ]
    for t in tallies.values():
        for mutant in t.hidden_survivors:
            listed = EQUIVALENT.get(mutant)
            note = f"equivalent: {listed.why}" if listed else "NOT LISTED AS EQUIVALENT"
            lines.append(f"  {mutant}: {mutants[mutant].change}\n      {note}")
    lines += ["", "Survived the visible tests alone (the hidden tests kill them):"]
    for t in tallies.values():
        lines += [f"  {m}: {mutants[m].change}" for m in t.visible_survivors]
    if trouble:
        lines += ["", "PROBLEMS:", *(f"  {p}" for p in trouble)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation.run_mutants")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="mutmut workers")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    start = time.monotonic()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bpe-mutants-"))
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    try:
        frozen = scratch / "frozen"
        statuses = {}
        for kind in KINDS:
            folder = scratch / kind
            shutil.rmtree(folder, ignore_errors=True)
            build_project(folder, frozen)
            print(f"mutmut run: {kind} tests ...", flush=True)
            run_mutmut(folder, kind, frozen, args.jobs, REPORT.with_name(f"mutmut-{kind}.log"))
            os.chdir(folder)  # mutmut reads its settings from the working folder
            try:
                statuses[kind] = read_statuses(folder)
            finally:
                os.chdir(ROOT)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    tallies = tally(statuses)
    trouble = problems(tallies, statuses)
    text = report(tallies, trouble, time.monotonic() - start)
    REPORT.write_text(text)
    print(text, end="")
    print(f"(also in {REPORT.relative_to(ROOT)})")
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
