"""The grading sandbox's syscall filter, seen from student code: the judge's child and a kernel.

A probe (``tests/support/syscall_probe.py``) in an answer and in a jailed kernel's cell reads
``Seccomp: 2`` and gets ``PermissionError`` for each denied call, while the calls Python and
glibc make (``personality``'s query, ``clone3``'s fallback to ``clone``) still work and
ordinary work (threads, a subprocess, a multiprocessing pool, numpy; in the kernel also
tokenizers' Rust threads, tiktoken and matplotlib) comes out right. Unconfined, the same probe
reads ``Seccomp: 0``, so the check can fail. Where the filter cannot be built, grading is
refused as for a missing bubblewrap. The graded-class version (a probe in a submission, read
from the autograded notebook) is in ``tests/test_hostile_class.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from autograder.sandbox import bwrap, judge_answers
from autograder.sandbox.judge_answers import run_answers
from tests.conftest import ROOT
from tests.support.syscall_probe import (
    CONTROL,
    CONTROL_EXPECTED,
    NUMBERED_ON,
    PROBE,
    denied_calls,
)

on_this_machine = pytest.mark.skipif(
    os.uname().machine != NUMBERED_ON or not bwrap.available(),
    reason=f"the probe's numbers are {NUMBERED_ON}'s; needs bubblewrap and libseccomp",
)

ANSWER = (
    PROBE
    + CONTROL
    + """
def pair_counts(words):
    return {("probe", json.dumps(syscall_results())): 1, ("work", json.dumps(ordinary_work())): 2}
"""
)


def _judge_probe() -> tuple[dict, dict]:
    jobs = [("pair_counts", [ANSWER], {"core": [({("a", "b"): 1},)]})]
    (got,) = run_answers(jobs, seconds=20)["pair_counts"]["core"]
    assert got.error is None, got.error
    found = {key: json.loads(text) for key, text in got.value}
    return found["probe"], found["work"]


@on_this_machine
@pytest.mark.slow  # two runs of the judge's sandbox
def test_the_judges_child_is_filtered_and_still_works(monkeypatch) -> None:
    results, work = _judge_probe()
    assert results["seccomp"] == "2", results
    denied = denied_calls(results)
    assert set(denied.values()) == {"PermissionError"}, denied
    assert results["calls"]["personality(query)"] == "ok"
    assert results["calls"]["personality(PER_LINUX)"] == "ok"
    assert results["calls"]["clone3"] == "ENOSYS"  # glibc then uses clone, filtered
    assert work == CONTROL_EXPECTED
    # The control: unconfined, no filter, and the probe sees the calls go through.
    monkeypatch.setattr(judge_answers, "confined", lambda: False)
    results, work = _judge_probe()
    assert results["seccomp"] == "0", results
    assert [what for what, seen in denied_calls(results).items() if seen != "PermissionError"]
    assert work == CONTROL_EXPECTED


# A jailed kernel as a grading worker starts one (as in tests/test_kernel_memory.py), running
# the probe, ordinary work, and the libraries lesson 4 uses.
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

cells = [nbformat.v4.new_code_cell(source) for source in json.loads(sys.argv[1])]
notebook = nbformat.v4.new_notebook(cells=cells)
with student_home("probe") as home, bwrap.process_cap("probe", KERNEL_PROCESSES) as cap:
    config = Config()
    give_kernels(config, home)
    assert jail_kernels(Path({str(ROOT)!r}), "probe", ASSIGNMENT, config, home, cap)
    client = NotebookClient(
        notebook, timeout=120, startup_timeout=60, kernel_name=config.Execute.kernel_name,
        kernel_manager_class=SandboxKernelManager,
        resources={{"metadata": {{"path": str(home.home)}}}}, config=config, allow_errors=True,
    )
    client.execute()
print(json.dumps(notebook))
"""

LIBRARIES = """
import io, json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from bpe_course.parallel import count_pieces
from bpe_course.real_tokenizers import hf_train, tiktoken_encoding
merges = hf_train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
ids = tiktoken_encoding(merges).encode("lowest newest")
figure, axes = plt.subplots()
axes.plot([1, 2, 3])
picture = io.BytesIO()
figure.savefig(picture, format="png")
counted = count_pieces(["low lower ", "newest widest "], workers=2)
print("libraries:", json.dumps({"merges": len(merges), "ids": len(ids) > 0,
      "png": picture.getvalue()[:4] == b"\\x89PNG", "counted": sum(counted.values())}))
"""


@on_this_machine
@pytest.mark.slow  # starts a kernel in the sandbox
def test_a_grading_kernel_is_filtered_and_lesson_work_still_runs() -> None:
    cells = [
        PROBE + "\nprint('syscall probe:', json.dumps(syscall_results()))",
        CONTROL + "\nprint('work:', json.dumps(ordinary_work()))",
        LIBRARIES,
    ]
    done = subprocess.run(
        [sys.executable, "-c", KERNEL, json.dumps(cells)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outputs = {}
    for cell in json.loads(done.stdout.strip().splitlines()[-1])["cells"]:
        for output in cell.get("outputs", []):
            assert output["output_type"] == "stream", output
            label, _, text = output["text"].partition(": ")
            outputs[label.strip()] = json.loads(text)
    results = outputs["syscall probe"]
    assert results["seccomp"] == "2", results
    assert set(denied_calls(results).values()) == {"PermissionError"}, results
    assert results["calls"]["personality(query)"] == "ok"
    assert outputs["work"] == CONTROL_EXPECTED
    from bpe_course.parallel import count_pieces  # in one process here, no workers

    counted = sum(count_pieces(["low lower ", "newest widest "], workers=1).values())
    assert outputs["libraries"] == {"merges": 4, "ids": True, "png": True, "counted": counted}


def test_the_filter_denies_what_the_threat_model_lists() -> None:

    listed = (ROOT / "docs" / "guides" / "sandbox.md").read_text()
    for name in bwrap.DENIED:
        assert f"`{name}`" in listed, name
    must = {"io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key"}
    must |= {"request_key", "ptrace", "bpf", "userfaultfd", "perf_event_open", "unshare"}
    must |= {"setns", "mount", "umount2", "pivot_root", "kexec_load", "kexec_file_load"}
    must |= {"init_module", "finit_module", "delete_module", "open_by_handle_at"}
    assert must <= set(bwrap.DENIED)


def test_no_filter_means_no_grading(monkeypatch, tmp_path) -> None:
    """Where libseccomp cannot be had, the sandbox is unavailable and grading refuses, as
    for a missing bubblewrap."""
    from autograder.grading import grade_class
    from autograder.grading.options import GradingOptions
    from autograder.sandbox import bwrap

    def missing() -> bytes:
        raise bwrap.FilterUnavailableError("libseccomp is not installed (test)")

    monkeypatch.setattr(bwrap, "compiled", missing)
    monkeypatch.setattr(bwrap, "_problem", bwrap._problem.__wrapped__)  # not the cached
    assert not bwrap.available()
    assert "libseccomp is not installed (test)" in bwrap.why_unavailable()
    assert not bwrap.GradingSandbox().in_use()
    (tmp_path / "submitted" / "ada" / "bpe").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    with pytest.raises(SystemExit) as refused:
        grade_class.grade_class(GradingOptions(tmp_path, jobs=1, progress=False))
    assert "refusing to grade" in str(refused.value)
    assert "libseccomp" in str(refused.value)


def test_a_kernel_is_not_started_without_the_filter(tmp_path) -> None:
    """A jail whose spec lacks the filter (a stale spec, a caller that forgot it) starts no
    kernel: ``kernel_jail`` says so instead of running the prefix unfiltered."""
    jail = ROOT / "autograder" / "sandbox" / "kernel_jail.py"
    ran = tmp_path / "ran"
    spec = {"prefix": ["/bin/sh", "-c", f"touch {ran}", "--"], "caps": [], "environment": []}
    spec["landlock"] = {"writable": [], "devices": [], "sockets": []}
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(jail), str(tmp_path / "kernel.json"), json.dumps(spec)],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "no syscall filter" in done.stderr, done.stderr
    assert not ran.exists()
