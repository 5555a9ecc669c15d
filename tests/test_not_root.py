"""An instructor who is not root grades in the same sandbox: bubblewrap's user namespace.

On a JupyterHub the instructor is an ordinary account: no cgroup to write, so the process cap
comes from an RLIMIT_NPROC set inside the sandbox's own user namespace. The test grades a
class of two (an honest student and one whose answer forks up to 400 processes) as uid 54321
with ``grade_class`` on 2 workers, and finds the kernels jailed, the fork loop stopped at the
cap, the honest student at full marks, and no process of that uid left.

The instructor must reach this Python, the course's ``.venv`` and the clone itself, and any
of them may lie behind a folder that other accounts cannot pass (mode 700: ``/root``, where
this machine's Python lives, or a ``mktemp -d`` folder holding the clone). In a private mount
namespace (util-linux's ``unshare``) the test covers each such folder with an open stand-in
that holds only the way through, as an install for everyone would be; the real folders keep
their modes. Then it checks that the instructor can import the grading code, and says what is
missing if not (a clone made under ``umask 077`` is not readable by others, for instance).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.reports import summary
from autograder.sandbox import bwrap
from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT
from tests.support.attacks import FORK_LOOP


def _passable(folder: Path) -> bool:
    """Whether INSTRUCTOR (no groups but its own) may pass through ``folder``."""
    info = folder.stat()
    if info.st_uid == INSTRUCTOR:
        return bool(info.st_mode & 0o100)
    if info.st_gid == INSTRUCTOR:
        return bool(info.st_mode & 0o010)
    return bool(info.st_mode & 0o001)


def _ways_through(targets: list[Path]) -> dict[Path, set[str]]:
    """Each folder on the way to ``targets`` that INSTRUCTOR cannot pass through, with the
    names inside it that lead on to a target."""
    closed: dict[Path, set[str]] = {}
    for target in targets:
        for folder in target.parents:
            if not _passable(folder):
                closed.setdefault(folder, set()).add(target.relative_to(folder).parts[0])
    return closed


def _needed() -> list[Path]:
    """What the instructor's grading runs from: this Python, the course's venv, the clone."""
    return [Path(p).resolve() for p in (sys.base_prefix, sys.prefix, ROOT)]


INSTRUCTOR = 54321  # an account that owns nothing on this machine
pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another account"),
    pytest.mark.skipif(not bwrap.available(), reason="bubblewrap is missing"),
    pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux's unshare is missing"),
]
FORKS = FORK_LOOP + 'print(f"forked {forked} ")\n'


def _as_instructor(command: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """``command`` run as INSTRUCTOR, with the way to this Python, the venv and the clone open."""
    steps = []
    # Outermost first: a stand-in's inner folders are bound back before a deeper one is covered.
    ways = _ways_through([*_needed(), cwd.resolve(), home.resolve()])
    for number, folder in enumerate(sorted(ways, key=lambda f: len(f.parts))):
        keep = home.parent / f"way-{number}"  # the way's folders, held while the stand-in goes up
        inner = [(folder / name, keep / name) for name in sorted(ways[folder])]
        steps += [f"mkdir -p {shlex.quote(str(kept))}" for _, kept in inner]
        steps += [f"mount --bind {shlex.quote(str(i))} {shlex.quote(str(k))}" for i, k in inner]
        steps.append(f"mount -t tmpfs -o mode=755,size=1m tmpfs {shlex.quote(str(folder))}")
        for real, kept in inner:
            real, kept = shlex.quote(str(real)), shlex.quote(str(kept))
            steps += [f"mkdir {real}", f"mount --bind {kept} {real}"]
    user = ["setpriv", f"--reuid={INSTRUCTOR}", f"--regid={INSTRUCTOR}", "--clear-groups"]
    # A clean environment: the suite's own (MPLCONFIGDIR, JUPYTER_*) points at root's folders.
    env = ["env", "-i", f"HOME={home}", f"PYTHONPATH={ROOT}", "LANG=C.UTF-8"]
    env += [f"PATH={Path(sys.executable).parent}:/usr/bin:/bin"]
    script = " && ".join([*steps, "exec " + " ".join([*user, *env, *command])])
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _check_reach(cwd: Path, home: Path) -> None:
    """Fail, saying what is missing, if the instructor cannot run the course's grading code."""
    imports = "import autograder.grading.grade_class, bpe_course"
    done = _as_instructor([sys.executable, "-c", shlex.quote(imports)], cwd, home)
    assert done.returncode == 0, (
        f"the instructor's account (uid {INSTRUCTOR}) cannot run {sys.executable} and import"
        f" the grading code from {ROOT}, even with the closed folders on the way covered: the"
        " clone and its .venv must be readable by other accounts (as git and pip make them"
        f" under umask 022).\n{done.stderr[-2000:]}"
    )


def _processes_of(uid: int) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}").stat().st_uid == uid:
                found.append(
                    Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                )
        except OSError:
            continue
    return found


def _left_after(seconds: float, uid: int) -> list[str]:
    """The processes of ``uid`` still there ``seconds`` after grading ended."""
    end = time.monotonic() + seconds
    while (left := _processes_of(uid)) and time.monotonic() < end:
        time.sleep(0.1)
    return left


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder the instructor's account can reach (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-not-root-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_an_instructor_who_is_not_root_grades_in_the_sandbox(open_tmp: Path) -> None:
    tmp_path = open_tmp
    root = make_scratch_course(tmp_path / "course")
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    first = {k: good[k] for k in ("pair_counts", "merge_pair")}
    notebook = ["01_bpe_by_hand.ipynb"]
    write_submission(root, "honest", first, notebook)
    write_submission(
        root, "forker", {**first, "pair_counts": FORKS + good["pair_counts"]}, notebook
    )
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:{INSTRUCTOR}", str(tmp_path)], check=True)

    _check_reach(root, home)
    command = [sys.executable, "-m", "autograder", "grade", "--jobs", "2", "--lean"]
    done = _as_instructor([*command, "--no-progress"], root, home)
    left = _left_after(5, INSTRUCTOR)
    assert done.returncode == 0, done.stderr[-2000:]

    record = json.loads((root / "artifacts" / "grading" / "results.json").read_text())
    assert all(result["jailed"] for result in record), [r["problems"] for r in record]
    rows = {row.student: row for row in summary.report(root, quiet=True)}
    assert rows["honest"].scores["pair_counts"] == 3 and rows["honest"].scores["merge_pair"] == 3
    assert rows["forker"].scores["pair_counts"] == 3  # its answer is right, forks aside
    text = (root / "autograded" / "forker" / "bpe" / "01_bpe_by_hand.ipynb").read_text()
    forked = int(text.split("forked ")[1].split(" ")[0])
    assert forked < 300  # the cap (256 tasks, the kernel's own threads included), not 400
    assert left == [], f"processes of the instructor's account left running: {left}"
