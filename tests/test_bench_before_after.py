"""What bench_before_after.py records, without grading anything: its targets and its machine.

``--before d3ffb9d`` (however the commit is spelled) is measured as issue 22's target,
``--before f09f28c`` as issue 42's and ``--before bc00676`` as the sandbox's; any other commit
has no target. The machine is described (cores, Python, the libraries grading runs on, the
cgroups) without naming a folder of it, so a docs page can be made from the record as it is.

A command's CPU seconds count every process it starts, a grandchild left running when the
command exits included (a grading cluster's worker is one), where a cgroup can be made.

But: no class is graded here; the ratios themselves come only from ``make bench``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bench import bench_before_after as bench
from tests.conftest import ROOT

has_history = pytest.mark.skipif(
    not (ROOT / ".git").exists() or None in (bench._full("d3ffb9d"), bench._full("f09f28c")),
    reason="no git history holding the targets' commits",
)


@has_history
def test_a_targets_commit_however_spelled_is_measured_as_that_target() -> None:
    full = bench._full("d3ffb9d")
    assert full is not None
    for spelled in ("d3ffb9d", full, full[:12]):
        assert bench.comparisons(["sandbox"], spelled) == [("issue-22", spelled)]
    assert bench.comparisons(["sandbox"], "bc00676") == [("sandbox", "bc00676")]
    assert bench.comparisons(["sandbox"], "f09f28c") == [("issue-42", "f09f28c")]
    assert bench.comparisons(["sandbox"], "efee848") == [(None, "efee848")]
    every = bench.comparisons(list(bench.TARGETS), None)
    assert [name for name, _ in every] == ["sandbox", "issue-22", "issue-42"]
    assert bench.TARGETS["issue-22"].ratio == 1.10
    assert bench.TARGETS["issue-42"].ratio == 1.05


def test_the_machine_is_described_without_any_of_its_folders() -> None:
    run = bench._Run("before_after", bench.__file__)
    run.loads.extend([0.5, 1.75])
    made = run.record({"seconds": {"before (d3ffb9d)": [30.0], "this tree (abc1234)": [31.0]}})
    facts = made["machine"]
    assert facts["cores"] == os.cpu_count() and facts["Python"]
    assert {"nbgrader", "ipykernel", "jupyter_client", "bubblewrap", "cgroups"} <= facts.keys()
    assert facts["load average (1 min)"]["between commands"] == [0.5, 1.75]
    assert facts["load average (1 min)"]["max"] == 1.75
    assert bench.record.folders_named(made) == [], made
    shown = json.dumps(made)
    for folder in (ROOT, Path.home(), Path(sys.prefix), Path(tempfile.gettempdir())):
        assert str(folder) not in shown, (folder, shown)


# A parent that starts a busy grandchild and exits at once, without waiting for it.
_ORPHAN = (
    "import subprocess, sys\n"
    "subprocess.Popen([sys.executable, '-c', 'x = 0\\nfor i in range(10**7): x += i'])\n"
)


def test_cpu_of_a_process_nobody_waits_for_is_counted() -> None:
    group, how = bench.cpu_group()
    if group is None:
        pytest.skip(f"no CPU-accounting cgroup can be made here: {how}")
    try:
        done = bench._run(ROOT, sys.executable, "-c", _ORPHAN, group=group)
        assert done.returncode == 0, done.stderr
        deadline = time.monotonic() + 60
        while (group / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.1)  # the grandchild still counting
        # The parent alone uses a few hundredths of a second; the loop, most of a second.
        assert bench._group_cpu(group) > 0.3
    finally:
        bench._remove_group(group)
    assert not group.exists()
