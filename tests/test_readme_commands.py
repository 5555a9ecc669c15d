"""The README's commands, run exactly as it shows them, in a copy of the course.

``make lab`` and the students' guide's ``make widget`` start their servers as written (the
port, the token and the browser chosen through Jupyter's and Python's own environment
variables, as a reader may set them), and must serve the first lesson and the widget. For
the instructors, a copy of the clone's tracked files (``tests.support.course_copy``, the venv
linked) runs the README's first block (``make venv``, ``make notebooks``, ``make
student-bundle``), then two students hand in lessons 1, 2 and 4 (one right, one whose
``merge_pair`` misses back-to-back pairs), a roster names them and a Canvas export lists
them, and the README's second block runs line by line: grading, feedback, the export, the
Canvas file, a regrade and the solutions. Each line must exit 0 and leave what its comment promises.

But: it drives no browser and starts no hub (``tests/test_browser.py`` and
``tests/test_hub.py`` do); ``make test`` and ``make test-fast`` are run by CI itself.
"""

from __future__ import annotations

import csv
import json
import subprocess
import urllib.request
import zipfile
from pathlib import Path

import pytest

from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.synthetic import write_submission
from tests.support import doc_text
from tests.support.course_copy import course_copy
from tests.test_browser import answers, free_port, jupyter_env, port_open, start, stop, wait_until

pytestmark = pytest.mark.slow  # each test makes a course copy and starts servers or grades

QUICKSTART = doc_text.commands("README.md", "## Quickstart")

SETUP = doc_text.commands("README.md", "## For instructors")
TERM = doc_text.commands("README.md", "student's newest entry), then:")
NOTEBOOKS = ["01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb", "04_making_it_fast.ipynb"]
RIGHT = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
MISTAKE = "string replacement missing back-to-back pairs"
ROSTER = "student_id,first_name,last_name,lms_user_id\nada,Ada,Right,701\nbo,Bo,Wrong,702\n"
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,bpe (77),Current Score\n"
    "    Points Possible,,,,,21.00,(read only)\n"
    '"Right, Ada",701,,ada,A,,0.00\n'
    '"Wrong, Bo",702,,bo,A,,0.00\n'
)


def run(line: str, course: Path) -> str:
    """One README line, through bash as a reader types it; its output."""
    done = subprocess.run(
        ["bash", "-c", line], cwd=course, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{line!r} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def test_make_lab_opens_the_first_lesson(tmp_path: Path) -> None:
    assert QUICKSTART[0] == "make lab"
    course = course_copy(tmp_path / "course")
    port, token = free_port(), "readme-lab-token"
    env = jupyter_env(tmp_path / "jupyter")
    env.update(JUPYTER_PORT=str(port), JUPYTER_TOKEN=token, BROWSER="true")
    log = tmp_path / "lab.log"
    process = start(["bash", "-c", QUICKSTART[0]], course, env, log)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(f"{base}/api/status?token={token}"), process, log, "make lab")
        # Lab serves notebooks/ and opens the first lesson: the page it hands the browser
        # (BROWSER=true stands in for one) leads there.
        url = f"{base}/api/contents/01_bpe_by_hand.ipynb?content=0&token={token}"
        with urllib.request.urlopen(url, timeout=10) as response:
            assert json.load(response)["type"] == "notebook"
        # The server writes two such pages: one for Lab, one for the file it was asked to open.
        runtime = tmp_path / "jupyter" / "runtime"
        page = "jpserver-file-to-run-*-open.html"
        wait_until(lambda: list(runtime.glob(page)), process, log, "Lab")
        opened = next(runtime.glob(page)).read_text()
        assert "/lab/tree/01_bpe_by_hand.ipynb" in opened
    finally:
        stop(process)


def test_make_widget_serves_the_widget_on_its_port(tmp_path: Path) -> None:
    guide = doc_text.text("docs/guides/students.md")
    assert "`make widget` serves the widget" in guide and "`http://127.0.0.1:8866`" in guide
    course = course_copy(tmp_path / "course")
    if port_open(8866):
        pytest.fail("port 8866, which the guide's `make widget` uses, is taken here")
    log = tmp_path / "widget.log"
    process = start(["bash", "-c", "make widget"], course, jupyter_env(tmp_path / "j"), log)
    try:
        wait_until(lambda: port_open(8866), process, log, "make widget", timeout=120)
        with urllib.request.urlopen("http://127.0.0.1:8866/", timeout=120) as response:
            page = response.read().decode()
        assert "bpe-watch-it-learn" in page or "Watch it learn" in page
    finally:
        stop(process)


@pytest.mark.nbgrader
def test_the_readmes_instructor_commands_run_as_written(tmp_path: Path) -> None:
    assert SETUP == ["make venv", "make notebooks", "make student-bundle"]
    assert [line.split()[1] for line in TERM] == [
        "autograde",
        "feedback",
        "export",
        "canvas",
        "regrade",
        "solutions",
    ]
    course = course_copy(tmp_path / "course")
    for line in SETUP:
        run(line, course)
    assert sorted(p.name for p in (course / "notebooks").glob("*.ipynb")) == sorted(
        p.name for p in (course / "release" / "bpe").glob("*.ipynb")
    )
    with zipfile.ZipFile(course / "dist" / "bpe-course-student.zip") as bundle:
        names = bundle.namelist()
    assert any(name.endswith("01_bpe_by_hand.ipynb") for name in names)
    assert not any("solutions/" in name or "autograder/" in name for name in names)

    write_submission(course, "ada", RIGHT, NOTEBOOKS)
    write_submission(course, "bo", dict(RIGHT, merge_pair=WRONG["merge_pair"][MISTAKE]), NOTEBOOKS)
    (course / "roster.csv").write_text(ROSTER)
    (course / "canvas-export.csv").write_text(CANVAS_EXPORT)
    said = {line.split()[1]: run(line, course) for line in TERM}

    grades = rows(course / "grades.csv")
    assert (grades["ada"]["status"], grades["ada"]["total"]) == ("graded", "21")
    assert grades["bo"]["status"] == "graded" and float(grades["bo"]["total"]) < 21
    for student in ("ada", "bo"):
        pages = {p.name for p in (course / "feedback" / student / "bpe").glob("*.html")}
        assert {Path(name).with_suffix(".html").name for name in NOTEBOOKS} <= pages
    with (course / "artifacts" / "grading" / "canvas-import.csv").open(newline="") as handle:
        canvas = {row[1]: row[5] for row in list(csv.reader(handle))[2:]}
    assert canvas == {"701": "21.00", "702": f"{float(grades['bo']['total']):.2f}"}
    # Nothing changed between the two gradings: the same term secret draws the same cases.
    assert "0 of 2 students' grades moved: nobody to tell." in said["regrade"]
    solutions = sorted(p.name for p in (course / "release" / "bpe-solutions").glob("*.ipynb"))
    assert solutions == sorted(p.name for p in (course / "release" / "bpe").glob("*.ipynb"))
