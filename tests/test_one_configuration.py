"""Every grading setting reaches the code that uses it as configuration, never the environment.

The production code (``autograder/``, ``bpe_course/``, ``hub/``) reads ``os.environ`` only for
the few user-facing variables the README lists, and writes it only where a library takes no
setting (nbgrader's ``alembic`` on ``PATH``); an environment built for a child process (a
``dict(os.environ, ...)``, an ``env=``) is fine. Two students graded side by side in one
process each get their own kernels' home and memory limit, and the process's environment is
left as it was; the judge's memory is the ``GradingSandbox`` setting of the run.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.sandbox import bwrap
from autograder.sandbox.trusted_paths import SEARCHED
from tests.conftest import ROOT

PRODUCTION = ("autograder", "bpe_course", "hub")
# Variables production code may read, each listed in the README's "Settings" paragraph.
READ = {
    "BPE_COURSE_HIDE_TORCH",  # a lesson runs as if PyTorch were missing (the lessons' check)
    "BPE_COURSE_SELFCHECK",  # set for the self-check's own kernel, which then skips itself
    "NBGRADER_EXECUTION",  # nbgrader's own, set in its kernels: the self-check skips itself
    "BPE_HUB_SETTINGS",  # the hub's settings file, which run_hub hands JupyterHub
    "DASK_ROOT_CONFIG",  # where Dask reads settings: checked for other accounts' folders
    "XDG_CACHE_HOME",  # where matplotlib's font list is copied from into a kernel's home
    *SEARCHED,  # folders read for code or settings: checked for other accounts' folders
}
# Variables read in a loop over a named list: each name of the list.
LOOPED = {("autograder/sandbox/trusted_paths.py", "name"): SEARCHED}
# The one write: nbgrader runs `alembic` from its own PATH and takes no setting for it.
WRITTEN = {("autograder/grading/grade_one.py", "PATH")}
_CHILD = re.compile(r"\benv\b\s*=|\"env\"|\*\*os\.environ|dict\(os\.environ|os\.environ\.items\(\)")
_USE = re.compile(r"\bos\.environ\b|\bgetenv\(|\bputenv\(")
_KEY = re.compile(r"(?:os\.environ\[|os\.environ\.get\(|getenv\()\s*([\"']?)(\w+)\1")
_WRITE = re.compile(
    r"os\.environ\[[^\]]+\]\s*=[^=]|os\.environ\.(?:update|pop|setdefault|clear)\(|putenv|"
    r"del os\.environ"
)


def _constants(source: str) -> dict[str, str]:
    """The module's top-level ``NAME = "text"`` assignments."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


def environment_uses(root: Path) -> tuple[list[str], list[str]]:
    """Each read of a variable not in ``READ`` and each write not in ``WRITTEN``, as
    ``path:line: text``; lines that build an environment for a child are skipped."""
    unlisted, writes = [], []
    for package in PRODUCTION:
        for path in sorted((root / package).rglob("*.py")):
            source = path.read_text()
            constants = _constants(source)
            relative = str(path.relative_to(root))
            for number, line in enumerate(source.splitlines(), 1):
                if not _USE.search(line):
                    continue
                where = f"{relative}:{number}: {line.strip()}"
                names = set()
                for quote, key in _KEY.findall(line):
                    looped = LOOPED.get((relative, key), ())
                    names |= set(looped) if looped else {key if quote else constants.get(key, key)}
                if _WRITE.search(line):
                    if not names or any((relative, n) not in WRITTEN for n in names):
                        writes.append(where)
                elif _CHILD.search(line):
                    continue
                elif not names or not names <= READ:
                    unlisted.append(where)
    return unlisted, writes


def test_production_code_reads_only_the_listed_variables_and_writes_none() -> None:
    unlisted, writes = environment_uses(ROOT)
    assert unlisted == [], "read but not in READ (and the README):\n" + "\n".join(unlisted)
    assert writes == [], "os.environ written:\n" + "\n".join(writes)
    readme = (ROOT / "README.md").read_text()
    missing = sorted(name for name in READ if f"`{name}`" not in readme)
    assert missing == [], f"not listed in the README: {missing}"


def test_the_check_finds_a_setting_sent_through_the_environment(tmp_path: Path) -> None:
    """The control: the side channel this project had is found, both ends of it."""
    (tmp_path / "autograder").mkdir()
    (tmp_path / "autograder" / "side.py").write_text(
        'import os\nUNCONFINED = "BPE_GRADING_UNCONFINED"\n'
        'os.environ[UNCONFINED] = "1"\n'
        'confined = os.environ.get(UNCONFINED) != "1"\n'
        'child = dict(os.environ, HOME="/tmp")\n'
    )
    unlisted, writes = environment_uses(tmp_path)
    assert [w.split(":")[1] for w in writes] == ["3"]
    assert [u.split(":")[1] for u in unlisted] == ["4"]


def test_the_judge_gets_the_memory_the_run_configures(monkeypatch: pytest.MonkeyPatch) -> None:
    """``GradingSandbox.judge_memory_gb`` (and the sandbox choice) of the run's configuration
    reach the judge; ``tests/test_sandbox_attacks.py`` shows the judge holds an answer to it."""
    from autograder.plugins import hidden_tests_outside

    handed = []

    def judge(nb, mine, secret, seconds, memory_gb, unconfined):  # noqa: ANN001, ANN202
        handed.append((seconds, memory_gb, unconfined))
        return {}, hidden_tests_outside.Findings()

    monkeypatch.setattr(hidden_tests_outside, "judge_notebook", judge)
    monkeypatch.setattr(hidden_tests_outside, "exercises_of", lambda root: [])
    monkeypatch.setattr(hidden_tests_outside, "term_secret", lambda root: "term")
    from nbformat.v4 import new_notebook

    for memory_gb, unconfined in ((0.25, False), (3.0, True)):
        config = Config()
        config.GradingSandbox.judge_memory_gb = memory_gb
        config.GradingSandbox.unconfined = unconfined
        config.ExecutePreprocessor.timeout = 4
        step = hidden_tests_outside.JudgeHiddenTests(config=config)
        step.preprocess(new_notebook(), {"unique_key": "01_bpe_by_hand"})
    default = hidden_tests_outside.JudgeHiddenTests(config=Config())
    default.preprocess(new_notebook(), {"unique_key": "01_bpe_by_hand"})
    assert handed == [(4.0, 0.25, False), (4.0, 3.0, True), (30.0, 2.0, False)]


# Two students' kernels started at once from one process, each with its own settings: one in
# the sandbox with 1.5 GB, one unconfined. Each prints its home and its memory limit.
SIDE_BY_SIDE = f"""
import json, os, sys
from concurrent.futures import ThreadPoolExecutor
import nbformat
from nbclient import NotebookClient
from traitlets.config import Config
from autograder.course import ASSIGNMENT
from pathlib import Path
from autograder.sandbox import bwrap
from autograder.sandbox.kernels import student_home
from autograder.sandbox.kernels import KERNEL_PROCESSES, give_kernels, jail_kernels
from autograder.plugins.guarded_execute import SandboxKernelManager

PROBE = "import os, resource\\nprint(os.environ['HOME'], resource.getrlimit(resource.RLIMIT_AS)[0])"
before = dict(os.environ)

def grade(student, memory_gb, unconfined):
    cell = nbformat.v4.new_code_cell(PROBE)
    notebook = nbformat.v4.new_notebook(cells=[cell])
    with student_home(student) as home, bwrap.process_cap(student, KERNEL_PROCESSES) as cap:
        config = Config()
        config.GradingSandbox.kernel_memory_gb = memory_gb
        config.GradingSandbox.unconfined = unconfined
        give_kernels(config, home)
        jailed = jail_kernels(Path({str(ROOT)!r}), student, ASSIGNMENT, config, home, cap)
        client = NotebookClient(
            notebook, timeout=120, startup_timeout=60,
            kernel_name=config.Execute.kernel_name if jailed else "python3",
            kernel_manager_class=SandboxKernelManager,
            resources={{"metadata": {{"path": str(home.home)}}}}, config=config,
        )
        client.execute()
        said_home, limit = cell.outputs[0]["text"].split()
        return {{"jailed": jailed, "own_home": said_home == str(home.home), "limit": int(limit)}}

with ThreadPoolExecutor(2) as pool:
    ada = pool.submit(grade, "ada", 1.5, False)
    bob = pool.submit(grade, "bob", 4.0, True)
    results = {{"ada": ada.result(), "bob": bob.result()}}
results["environ_kept"] = dict(os.environ) == before
print(json.dumps(results))
"""


@pytest.mark.skipif(not bwrap.available(), reason="needs bubblewrap and the syscall filter")
@pytest.mark.slow  # starts two kernels, one in the sandbox
def test_two_students_side_by_side_keep_their_own_settings() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIDE_BY_SIDE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["ada"] == {"jailed": True, "own_home": True, "limit": int(1.5 * 2**30)}
    # Unconfined, and nothing of ada's reached bob: his own home and memory limit.
    assert results["bob"] == {"jailed": False, "own_home": True, "limit": 4 * 2**30}
    assert results["environ_kept"] is True


def test_a_flag_left_out_leaves_nbgrader_config_s_setting_standing() -> None:
    """An instructor's ``GradingSandbox`` settings in ``nbgrader_config.py`` hold unless the
    command gives the flag; given, the flag wins. (A flag's default once overrode the file.)"""
    from autograder.cli import options_from, parser
    from autograder.grading.grade_one import command_config

    course = Config()
    course.GradingSandbox.kernel_memory_gb = 6.0
    course.GradingSandbox.judge_memory_gb = 3.0
    course.GradingSandbox.unconfined = True
    course.ExecutePreprocessor.timeout = 12

    def settings(*flags: str) -> tuple[float, float, bool]:
        merged = Config(course)
        merged.merge(command_config(options_from(parser().parse_args(["grade", *flags]))))
        sandbox = bwrap.GradingSandbox(config=merged)
        return sandbox.kernel_memory_gb, sandbox.judge_memory_gb, sandbox.unconfined

    assert settings() == (6.0, 3.0, True)
    assert settings("--memory-gb", "1", "--judge-memory-gb", "0.5") == (1.0, 0.5, True)


def test_two_sandboxes_of_one_name_side_by_side_each_get_their_own_caps() -> None:
    """The judge names its caps after its process; two students judged at once in one worker
    once found the second's group taken and ran without process or memory cap."""
    with bwrap.sandbox_cap("judge-side-by-side", 8, 2**30) as first:
        if not first:
            pytest.skip("no cgroup can be made here")
        with bwrap.sandbox_cap("judge-side-by-side", 8, 2**30) as second:
            assert second and set(first).isdisjoint(second)
    assert not any(path.parent.exists() for path in (*first, *second))


def test_a_grading_process_holds_itself_to_the_grader_memory_setting() -> None:
    """What a kernel prints piles up in the grading process until its cell ends; a flood must
    stop that process at ``GradingSandbox.grader_memory_gb``, not take the machine."""
    code = (
        "import resource\n"
        "from autograder.grading.grade_one import prepare_worker\n"
        "prepare_worker(1.5)\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0])\n"
        "try:\n"
        "    flood = bytearray(2 * 2**30)\n"
        "except MemoryError:\n"
        "    print('stopped')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(int(1.5 * 2**30)), "stopped"]
    assert bwrap.GradingSandbox(config=Config()).grader_memory_gb == 4.0


def test_a_worker_proves_it_can_grade_with_the_settings_it_grades_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's probe kernel starts under ``nbgrader_config.py``'s sandbox settings with
    the flags over them, as every student's kernels do, not under the flags alone."""
    from autograder.grading import grade_one, on_dask
    from autograder.grading.options import GradingOptions

    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.GradingSandbox.unconfined = True\n"
        "c.GradingSandbox.kernel_memory_gb = 6.0\n"
    )
    probed: list[Config] = []
    # ready_to_grade imports it from grade_one when it runs (the feedback command never does).
    monkeypatch.setattr(grade_one, "prepare_worker", lambda memory_gb: None)
    monkeypatch.setattr(
        on_dask, "why_cannot_grade", lambda root, process, settings: probed.append(settings)
    )
    on_dask.ready_to_grade(GradingOptions(tmp_path, memory_gb=1.0), "worker")
    sandbox = bwrap.GradingSandbox(config=probed[0])
    assert (sandbox.unconfined, sandbox.kernel_memory_gb) == (True, 1.0)
