"""A student's grading kernels are capped together: memory over all their processes at once.

A hostile answer cell forks children that each stay under the per-process limit a grading
run gives its kernels (``GradingSandbox.kernel_memory_gb``, ``--memory-gb``) but together
exceed it: in the sandbox one of them is stopped, and the kernel goes on to run the next cell
(a kernel that started without the debugger, which no grading uses).
Where no memory cgroup can be made, the fallback is said (on the worker's stderr, its log, and
by ``python -m autograder.sandbox.bwrap``), never silent; the v1 memory group made for a cap
goes when the cap does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import bwrap, kernels
from tests.conftest import ROOT

LIMIT_GB = 1.0  # each of the kernel's processes may have this much, as under --memory-gb 1
CHILD_MB = 400  # three of these are over the limit together, none alone

FORKS = f"""
import os, time
ready_r, ready_w = os.pipe()
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        block = bytearray({CHILD_MB} * 2**20)
        for i in range(0, len(block), 4096):
            block[i] = 1  # touched, so it is memory in use
        os.write(ready_w, b"x")
        time.sleep(3)
        os._exit(0)
    kids.append(pid)
os.close(ready_w)
held = 0
while held < 3:
    chunk = os.read(ready_r, 3)
    if not chunk:
        break
    held += len(chunk)
ends = [os.waitpid(pid, 0)[1] for pid in kids]
print({{"held": held, "killed": sum(end != 0 for end in ends)}})
"""

# A grading worker's kernel: its memory setting as the grading command gives it, its caps
# made as grade_one makes them, the jail as grade_one asks for it; then two cells.
KERNEL = f"""
import json, os, sys
import nbformat
from nbclient import NotebookClient
from pathlib import Path
from traitlets.config import Config
from autograder.course import ASSIGNMENT
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import student_home
from autograder.sandbox.kernels import KERNEL_PROCESSES, give_kernels, jail_kernels
from autograder.plugins.guarded_execute import SandboxKernelManager

later = ["print(6 * 7)", "import sys; print(sys.modules.get('debugpy', 'absent'))"]
cells = [nbformat.v4.new_code_cell(code) for code in (sys.argv[1], *later)]
notebook = nbformat.v4.new_notebook(cells=cells)
with student_home("forks") as home, bwrap.process_cap("forks", KERNEL_PROCESSES) as cap:
    config = Config()
    config.GradingSandbox.kernel_memory_gb = {LIMIT_GB}
    give_kernels(config, home)
    assert jail_kernels(Path({str(ROOT)!r}), "forks", ASSIGNMENT, config, home, cap)
    client = NotebookClient(
        notebook, timeout=60, startup_timeout=60, kernel_name=config.Execute.kernel_name,
        kernel_manager_class=SandboxKernelManager,
        resources={{"metadata": {{"path": str(home.home)}}}}, config=config, allow_errors=True,
    )
    try:
        client.execute()
        died = None
    except Exception as error:  # the kernel itself was stopped
        died = type(error).__name__
texts = [
    "".join(o.get("text", "") or o.get("evalue", "") for o in cell.get("outputs", []))
    for cell in notebook.cells
]
print(json.dumps({{"died": died, "outputs": texts}}))
"""

# The cgroups as this process can make them (root): the caps, not bubblewrap, hold memory.
cgroups = bwrap._pids_root() is not None and bwrap._memory_root() is not None
needs_caps = pytest.mark.skipif(
    not (bwrap.available() and cgroups), reason="needs bubblewrap, pids and memory cgroups"
)


@needs_caps
@pytest.mark.slow  # starts a kernel in the sandbox
def test_a_kernels_forked_children_together_hit_its_memory_limit() -> None:
    """Three children of 400 MB each, each under its own 1 GB: together they are over what
    the kernel's sandbox may hold, so one is stopped, and the next cell still runs."""
    done = subprocess.run(
        [sys.executable, "-c", KERNEL, FORKS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["died"] is None, result
    forked, after, debugger = result["outputs"]
    got = eval(forked)  # noqa: S307 - the dict the cell printed, from our own test's cell
    assert got["killed"] >= 1, f"every child kept its {CHILD_MB} MB: {got}"
    assert after.strip() == "42", result
    # Nobody debugs a grading kernel: it started without debugpy (0.3 s of its start).
    assert debugger.strip() == "None", result


def test_no_memory_cgroup_is_said_once_and_the_process_cap_kept(monkeypatch, capsys) -> None:
    monkeypatch.setattr(bwrap, "_memory_root", lambda: None)
    monkeypatch.setattr(bwrap, "_SAID", set())
    cap = Path("/sys/fs/cgroup/pids/bpe-grading-nobody-1/cgroup.procs")  # never opened here
    for _ in range(3):  # three students of one worker
        assert kernels._whole_sandbox_caps(cap, 2**30) == [cap]
    said = capsys.readouterr().err
    assert said.count("sandbox: grading kernels: no memory cgroup can be made here") == 1, said
    assert "each process holds its own 1.0 GB (RLIMIT_AS)" in said, said


def test_no_process_cap_is_said_with_both_fallbacks(monkeypatch, capsys) -> None:
    monkeypatch.setattr(bwrap, "_SAID", set())
    assert kernels._whole_sandbox_caps(None, 2**30) == []
    said = capsys.readouterr().err
    assert "no process cap" in said and "does not enforce for root" in said, said
    assert "no memory cap either" in said and "can together use more" in said, said


@pytest.mark.slow  # runs bubblewrap once
def test_the_check_states_the_memory_fallback(monkeypatch) -> None:
    monkeypatch.setattr(bwrap, "_memory_root", lambda: None)
    lines = bwrap.report()
    assert any(
        line.startswith("memory over the whole sandbox: none; fallback: no memory cgroup")
        for line in lines
    ), lines


@pytest.mark.skipif(not cgroups, reason="no pids and memory cgroups here")
def test_the_memory_cap_of_a_process_cap_goes_with_it() -> None:
    with bwrap.process_cap("memory-check", 8) as procs:
        assert procs is not None
        memory = bwrap.memory_over(procs, 2**30)
        assert memory is not None and memory.parent.is_dir()
        assert memory_limit(memory.parent) == 2**30
    assert not procs.parent.exists() and not memory.parent.exists()


def memory_limit(group: Path) -> int:
    """The memory limit of a cgroup of either version, in bytes."""
    for name in ("memory.max", "memory.limit_in_bytes"):
        if (group / name).exists():
            return int((group / name).read_text())
    raise AssertionError(f"{group} has no memory limit file")


def test_a_cap_whose_limit_cannot_be_written_leaves_no_group_behind(tmp_path) -> None:
    """A limit that fails half-way (the folder made, ``pids.max`` refused) leaves no empty
    group for later workers to find."""

    def refused(group: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(group / "pids.max"))

    with bwrap._cgroup(tmp_path, "student-ada", refused) as procs:
        assert procs is None
    assert list(tmp_path.iterdir()) == []
