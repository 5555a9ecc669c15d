"""No module another account plants is imported by the instructor's grading.

Another account (uid 54321, as a hub student is: it may write the shared temporary folder)
makes both folders Dask would use there, ``dask-scratch-space`` and
``dask-scratch-space-<uid>``, mode 0777, each holding an ``nbformat.py`` and a ``nbgrader.py``
that note where they ran. The temporary folder is a fresh one of mode 1777, like ``/tmp``,
named by ``TMPDIR``, so the real ``/tmp`` is left alone.

- The control: a plain Dask ``LocalCluster`` started there imports the planted module in its
  workers.
- ``grade_class`` on 2 workers grades the class and nothing planted runs; every entry of
  ``sys.path`` of the grading process, the scheduler, the nannies and the workers is the
  instructor's and writable by no one else.
- The check refuses, with its message, a group-writable folder on ``PYTHONPATH``, a folder
  under a writable parent on ``PATH`` and a missing one under a writable parent on
  ``JUPYTER_CONFIG_PATH``; the run grades nobody.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.sandbox import bwrap
from autograder.sandbox.trusted_paths import untrusted_entries, why_untrusted
from course_fixtures.catalogue import CORRECT
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root"),
]
OTHER = 54321
PLANT = (
    "import os, pathlib\n"
    "pathlib.Path(os.path.dirname(__file__), '..', f'RAN-{os.getpid()}').write_text(__file__)\n"
    "raise ImportError('planted')\n"
)
LESSON_1 = {n: next(iter(CORRECT[n].values())) for n in ("pair_counts", "merge_pair")}


PLANTING = 'mkdir -m 777 "$1" && for m in nbformat nbgrader; do printf %s "$2" > "$1/$m.py"; done'


def as_other(script: str, *args: str) -> None:
    user = ["setpriv", f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups"]
    done = subprocess.run([*user, "/bin/sh", "-c", script, "sh", *args], capture_output=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder like /tmp, with both of Dask's scratch names planted."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-shared-tmp-", dir="/tmp"))
    folder.chmod(0o1777)
    try:
        for name in ("dask-scratch-space", f"dask-scratch-space-{os.geteuid()}"):
            as_other(PLANTING, str(folder / name), PLANT)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def ran(folder: Path) -> list[str]:
    return sorted(p.read_text() for p in folder.glob("RAN-*"))


def env_with(tmp: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(ROOT), **extra)


CONTROL = """
from distributed import Client, LocalCluster
with LocalCluster(n_workers=1, processes=True, dashboard_address=None) as cluster:
    with Client(cluster) as client:
        def where():
            try:
                import nbformat
            except ImportError as error:
                return str(error)
            return nbformat.__file__
        print(list(client.run(where).values()))
"""


def test_the_control_a_plain_local_cluster_imports_the_planted_module(shared_tmp: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CONTROL], env=env_with(shared_tmp), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert "planted" in done.stdout, done.stdout + done.stderr
    assert ran(shared_tmp), "the planted module ran in the plain cluster's worker"


PATHS = """
import json, sys
from pathlib import Path
from autograder.grading.on_dask import open_cluster
from autograder.grading.options import GradingOptions

def path_and_untrusted():
    import sys
    from autograder.sandbox.trusted_paths import why_untrusted
    return sys.path, [e for e in sys.path if why_untrusted(e)]

with open_cluster(GradingOptions(Path(sys.argv[1]), jobs=2)) as client:
    print(json.dumps([
        path_and_untrusted(),
        client.run_on_scheduler(path_and_untrusted),
        *client.run(path_and_untrusted, nanny=True).values(),
        *client.run(path_and_untrusted).values(),
    ]))
"""


@pytest.mark.skipif(not bwrap.available(), reason="bubblewrap is missing")
def test_grading_imports_nothing_planted_and_trusts_every_path(
    shared_tmp: Path, tmp_path: Path
) -> None:
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    course = make_scratch_course(tmp_path / "course")
    write_submission(course, "ada", LESSON_1, ["01_bpe_by_hand.ipynb"])
    command = [sys.executable, "-m", "autograder", "grade", "--root", str(course)]
    done = subprocess.run(
        [*command, "--jobs", "2", "--lean", "--no-progress"], env=env_with(shared_tmp),
        capture_output=True, text=True, timeout=600, cwd=course,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "graded 1 submission(s)" in said, said
    assert "6/21" in said, said
    seen = subprocess.run(
        [sys.executable, "-c", PATHS, str(course)], env=env_with(shared_tmp),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert seen.returncode == 0, seen.stderr
    everywhere = json.loads(seen.stdout.splitlines()[-1])  # here, scheduler, nannies, workers
    assert len(everywhere) == 6
    planted = [str(shared_tmp / "dask-scratch-space"), f"{shared_tmp}/dask-scratch-space-0"]
    for entries, untrusted in everywhere:
        assert untrusted == [], entries
        assert not [e for e in entries if any(e.startswith(p) for p in planted)], entries
    assert ran(shared_tmp) == [], "a planted module ran in the instructor's grading"


@pytest.mark.parametrize(
    ("variable", "layout", "said"),
    [
        ("PYTHONPATH", "group-writable", "can be written by another account"),
        ("PATH", "under-writable", "which can be written by another account"),
        ("JUPYTER_CONFIG_PATH", "missing-under-sticky", "does not exist, and another account"),
        ("PYTHONPATH", "missing-under-writable", "which can be written by another account"),
    ],
)
def test_the_check_refuses_a_folder_another_account_can_change(
    tmp_path: Path, variable: str, layout: str, said: str
) -> None:
    open_parent = tmp_path / "open"
    open_parent.mkdir(mode=0o755)
    if layout == "group-writable":
        target = tmp_path / "group"
        target.mkdir()
        target.chmod(0o775)
    elif layout == "under-writable":
        open_parent.chmod(0o777)
        target = open_parent / "bin"
        target.mkdir(mode=0o755)
    else:  # a sticky folder like /tmp guards what is in it, not what is not there yet
        open_parent.chmod(0o1777 if layout == "missing-under-sticky" else 0o777)
        target = open_parent / "not-yet"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env[variable] = f"{env.get(variable, '')}{os.pathsep}{target}".lstrip(os.pathsep)
    probe = "from autograder.sandbox.trusted_paths import untrusted_entries as u; print(u())"
    found = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert str(target) in found.stdout and said in found.stdout, found.stdout + found.stderr
    (tmp_path / "submitted" / "ada" / "bpe").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    command = [sys.executable, "-m", "autograder", "grade", "--root", str(tmp_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "refusing to grade: the grading process would import" in out
    assert str(target) in out and f"(on {variable})" in out and "Traceback" not in out, out
    assert not (tmp_path / "gradebook.db").exists()


def test_this_machines_own_paths_pass_the_check() -> None:
    """The control of the refusals: the suite's own environment is trusted."""
    assert untrusted_entries() == []


def test_the_check_runs_before_grading_imports_what_it_guards(tmp_path: Path) -> None:
    """A ``tqdm.py`` in a writable folder on PYTHONPATH: refused before it could load."""
    planted = tmp_path / "open"
    planted.mkdir(mode=0o777)
    planted.chmod(0o777)
    marker = tmp_path / "ran"
    (planted / "tqdm.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (tmp_path / "submitted" / "ada" / "bpe").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{planted}")
    command = [sys.executable, "-m", "autograder", "grade", "--root", str(tmp_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "refusing to grade" in done.stdout + done.stderr
    assert not marker.exists(), "the planted module ran before the check"


def test_a_link_another_account_owns_in_a_sticky_folder_is_refused(shared_tmp: Path) -> None:
    """Its owner may re-point it after the check: the link's owner counts, not only its
    target's."""
    link = shared_tmp / "lib-link"
    as_other('ln -s /usr/lib "$1"', str(link))
    assert "is a link another account owns" in (why_untrusted(str(link / "python3")) or "")
