"""A bench's record: its targets met or missed, its figures, and the machine it ran on.

``Run(name, __file__)`` notes when the bench started and the load average then; ``target``
judges one goal (``measured`` at most, or at least, ``limit``) as "met" or "MISSED"; and
``Run.write(figures)`` writes ``artifacts/bench/<name>.json`` (or into ``$BENCH_RECORDS``)
atomically, through a temporary file beside it, so a bench stopped halfway leaves the last
whole record. The record holds the command that ran it, a ``machine`` entry (cores, system,
CPU model, Python, the versions of the libraries the benches time, the load average at the
start and the end, the UTC times, the git commit), the ``targets`` and the bench's figures.
docs/bench_page.py makes the site's benchmarks page from these records alone.

>>> target("one click", 12.5, 50)
{'goal': 'one click', 'measured': 12.5, 'limit': 50, 'bound': 'at most', 'verdict': 'met'}
>>> target("naive / fast", 90, 100, at_least=True)["verdict"]
'MISSED'

But: it measures nothing itself, and it names no folder of the machine: a record holding a
string that starts with ``/`` or contains the home, course, Python or temporary folder is
refused (``ValueError``) before anything is written, never quietly rewritten.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "artifacts" / "bench"
LIBRARIES = ("numpy", "tokenizers", "tiktoken", "nbgrader", "dask", "distributed", "ipykernel")
LIBRARIES += ("regex",)


def target(goal: str, measured: float | None, limit: float, *, at_least: bool = False) -> dict:
    """One goal judged: ``measured`` at most ``limit`` (or at least, with ``at_least``).

    A measurement that is missing or not a finite number misses its target: a bench that
    could not measure has not shown the goal met.
    """
    finite = measured is not None and math.isfinite(measured)
    met = finite and (measured >= limit if at_least else measured <= limit)
    return {
        "goal": goal,
        "measured": measured if finite else None,
        "limit": limit,
        "bound": "at least" if at_least else "at most",
        "verdict": "met" if met else "MISSED",
    }


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not every system has one
        return None


def _now() -> str:
    return f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M:%S}"


def cpu_model() -> str | None:
    """The CPU's model name as /proc/cpuinfo gives it, or None where it gives none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return None


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def machine() -> dict[str, object]:
    """This machine, described without naming any of its folders (no load or times)."""
    facts: dict[str, object] = {
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
    }
    if model := cpu_model():
        facts["CPU"] = model
    facts["Python"] = platform.python_version()
    for name in LIBRARIES:
        try:
            facts[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            facts[name] = "not installed"
    return facts | code()


def code() -> dict[str, object]:
    """The commit checked out now, and how many tracked files differ from it."""
    commit = _git("rev-parse", "--short", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no")
    # Others' work in progress in the same tree is part of what was timed.
    changed = len(status.splitlines()) if status else 0
    return {
        "git commit": commit.strip() if commit else None,
        "files changed since the commit": changed,
    }


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _finite(value: object) -> object:
    """``value`` with every NaN or infinity as None: they are not JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def folders_named(record: object) -> list[str]:
    """The strings of ``record`` that name a folder of this machine.

    >>> folders_named({"a": ["MB/s", "/etc"], "b": "Linux x86_64"})
    ['/etc']
    """
    folders = {str(ROOT), str(Path.home()), sys.prefix, sys.base_prefix, tempfile.gettempdir()}
    folders = {f for f in folders if f not in ("", "/")}
    return [s for s in _strings(record) if s.startswith("/") or any(f in s for f in folders)]


class Run:
    """One run of a bench, from its start to its record."""

    def __init__(self, name: str, script: str | Path, arguments: list[str] | None = None) -> None:
        self.name = name
        path = Path(script).resolve()
        self.script = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        self.arguments = list(sys.argv[1:] if arguments is None else arguments)
        self.started, self.load_at_start = _now(), _load()
        # What ran is what was checked out at the start: a long run may end after new commits.
        self.code_at_start = code()
        self.targets: list[dict] = []

    def target(self, goal: str, measured: float | None, limit: float, **how: bool) -> dict:
        """Judge one goal (as ``target``) and keep it for the record."""
        self.targets.append(target(goal, measured, limit, **how))
        return self.targets[-1]

    def command(self) -> str:
        """How to run this bench again as it ran: ``make bench`` for its defaults there."""
        if not self.arguments and os.environ.get("MAKELEVEL"):
            return "make bench"
        return " ".join(["PYTHONPATH=. .venv/bin/python", self.script, *self.arguments])

    def record(self, figures: dict) -> dict:
        """The whole record: what ran, the machine, the targets, then ``figures``."""
        facts = machine()
        if facts["git commit"] != self.code_at_start["git commit"]:
            facts["git commit when written"] = facts["git commit"]
        facts |= self.code_at_start
        facts["load average (1 min)"] = {"start": self.load_at_start, "end": _load()}
        facts["started (UTC)"], facts["ended (UTC)"] = self.started, _now()
        return {
            "script": self.script,
            "command": self.command(),
            "machine": facts,
            "targets": self.targets,
            **figures,
        }

    def write(self, figures: dict, folder: Path | None = None) -> Path:
        """Write the record into ``folder`` ($BENCH_RECORDS, else artifacts/bench/)."""
        record = _finite(self.record(figures))
        if named := folders_named(record):
            raise ValueError(f"the {self.name} record would name folders of this machine: {named}")
        folder = Path(folder or os.environ.get("BENCH_RECORDS") or RECORDS)
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / f"{self.name}.json"
        text = json.dumps(record, indent=1, allow_nan=False) + "\n"
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{self.name}-", suffix=".tmp")
        try:
            os.fchmod(handle, 0o644)  # mkstemp's 0600 would hide the record from a docs build
            with os.fdopen(handle, "w") as file:
                file.write(text)
            os.replace(temporary, out)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return out
