"""One student's grading kernels leave nothing behind for the next student or the instructor.

Two synthetic students are graded by ``python -m autograder grade`` (real nbgrader,
one worker, so the second runs right after the first in the same process) with ``HOME`` and
``IPYTHONDIR`` pointing at a stand-in instructor home. The first student's answer cell plants
an IPython startup file (which would log every later kernel's code) in every startup folder
it can find, and writes files into ``~`` and into the instructor's home by absolute path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission

pytestmark = pytest.mark.nbgrader

REPO = Path(__file__).resolve().parent.parent

PLANT = """import pathlib
from IPython import get_ipython

SPY = "import pathlib\\npathlib.Path({log!r}).open('a').write('a later kernel ran this\\\\n')\\n"
targets = [
    pathlib.Path(get_ipython().profile_dir.location) / "startup",
    pathlib.Path.home() / ".ipython" / "profile_default" / "startup",
    pathlib.Path({ipython!r}) / "profile_default" / "startup",
    pathlib.Path({home!r}) / ".ipython" / "profile_default" / "startup",
]
for startup in targets:
    try:
        startup.mkdir(parents=True, exist_ok=True)
        (startup / "00-spy.py").write_text(SPY)
    except OSError:
        pass
for folder in (pathlib.Path.home(), pathlib.Path({home!r})):
    try:
        (folder / "planted.txt").write_text("left for the next student")
    except OSError:
        pass
"""


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _pair_counts_score(root: Path, student: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        notebook = gb.find_submission_notebook("01_bpe_by_hand", "bpe", student)
        return sum(g.score for g in notebook.grades if "pair_counts" in g.name)


def test_a_planted_startup_file_and_home_files_never_reach_the_next_student(
    tmp_path: Path,
) -> None:
    root = make_scratch_course(tmp_path / "course")
    home, ipython = tmp_path / "instructor", tmp_path / "instructor-ipython"
    (ipython / "profile_default" / "startup").mkdir(parents=True)
    home.mkdir()
    before = {"home": _files(home), "ipython": _files(ipython)}
    log = tmp_path / "spy.log"
    correct = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    plant = PLANT.format(log=str(log), ipython=str(ipython), home=str(home))
    nb1 = ["01_bpe_by_hand.ipynb"]
    planter = {**correct, "pair_counts": plant + "\n" + correct["pair_counts"]}
    write_submission(root, "a_planter", {k: planter[k] for k in ("pair_counts", "merge_pair")}, nb1)
    write_submission(root, "b_victim", {k: correct[k] for k in ("pair_counts", "merge_pair")}, nb1)
    temp_before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("grading-home-*"))

    env = dict(os.environ, HOME=str(home), IPYTHONDIR=str(ipython), PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "autograder", "grade", "--jobs", "1", "--lean"]
    command += ["--no-progress"]
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)

    assert _pair_counts_score(root, "a_planter") == 3  # the planting cell itself still works
    assert _pair_counts_score(root, "b_victim") == 3
    assert not log.exists(), "the first student's startup file ran in a later kernel"
    assert {"home": _files(home), "ipython": _files(ipython)} == before
    # Only this test's students: other grading runs on the machine may have homes right now.
    ours = [*Path(os.environ.get("TMPDIR", "/tmp")).glob("grading-home-a_planter-*")]
    ours += Path(os.environ.get("TMPDIR", "/tmp")).glob("grading-home-b_victim-*")
    leftover = set(ours) - temp_before
    assert not leftover, f"per-student homes not deleted: {leftover}"
