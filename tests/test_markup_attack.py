"""A student's markup reaches neither the instructor's Formgrader nor the feedback page as HTML.

A hostile submission of lesson 1 (a markdown ``<script>``, an ``<img onerror>``, ``javascript:``
links, an SVG attachment with a script, a raw text/html cell, a copy of a lesson cell with a
script added) and an honest one go through the real ``nbgrader autograde`` and
``generate_feedback`` with the course's ``nbgrader_config.py``. The autograded notebook, drawn
as the Formgrader draws it, and the feedback page hold none of the vectors as markup, and the
lesson's ``<details>`` and ``<kbd>`` still render. The control: the same submission through the
config without ``MarkupAsText`` keeps every vector, and in Chromium its script runs where the
guarded page's does not.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell, new_raw_cell
from traitlets.config import Config

import autograder.plugins.outputs
from autograder.grading.grade_one import _nbgrader_config
from autograder.plugins.feedback import FeedbackExporter
from autograder.sandbox.bwrap import UNCONFINED_FLAG
from autograder.sandbox.kernels import KernelHome
from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests import test_browser as lab
from tests.test_browser import ROOT

browser = lab.browser
page = lab.page

pytestmark = pytest.mark.nbgrader

LESSON = "01_bpe_by_hand.ipynb"
STEP = '    "autograder.plugins.outputs.MarkupAsText",\n'
SVG = "<svg xmlns='http://www.w3.org/2000/svg'><script>document.title='PWNED-svg'</script></svg>"
MARKDOWN = (
    "My notes <script>document.title='PWNED-md-script'</script>\n\n"
    "<img src=x onerror=\"document.title='PWNED-md-img'\">\n\n"
    "[a link](javascript:document.title='PWNED-md-link')\n\n"
    "<a href=\"javascript:document.title='PWNED-a-link'\">another</a>\n\n"
    "![a picture](attachment:p.svg)\n"
)
RAW = "<script>document.title='PWNED-raw'</script><b>raw html</b>"
# The raw cell's script is the one vector nbconvert's own template already escapes (bleach).
LIVE_WITHOUT_STEP = (
    "PWNED-md-script",
    "PWNED-md-img",
    "PWNED-md-link",
    "PWNED-a-link",
    "PWNED-lesson-copy",
)
ADDED_TO_LESSON = "\n\n<script>document.title='PWNED-lesson-copy'</script>"


def answers() -> dict[str, str]:
    return {name: next(iter(CORRECT[name].values())) for name in ("pair_counts", "merge_pair")}


def add_hostile_cells(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    markdown = new_markdown_cell(MARKDOWN)
    markdown["attachments"] = {"p.svg": {"image/svg+xml": base64.b64encode(SVG.encode()).decode()}}
    raw = new_raw_cell(RAW)
    raw.metadata["format"] = raw.metadata["raw_mimetype"] = "text/html"
    lesson = next(c for c in nb.cells if c.cell_type == "markdown" and "<details" in c.source)
    copy = new_markdown_cell(lesson.source + ADDED_TO_LESSON)
    nb.cells[1:1] = [markdown, raw, copy]
    nbformat.write(nb, path)


def grade_course(root: Path, students: dict[str, bool]) -> None:
    """Submit lesson 1 for each student (True: hostile), autograde and make feedback."""
    for student, hostile in students.items():
        folder = write_submission(root, student, answers(), [LESSON])
        if hostile:
            add_hostile_cells(folder / LESSON)
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=bin_dir + os.pathsep + os.environ["PATH"])
    # A bare nbgrader autograde refuses to run kernels unconfined unless told to.
    for step, *flags in (("autograde", UNCONFINED_FLAG), ("generate_feedback",)):
        command = [sys.executable, "-m", "nbgrader", step, "bpe", "--force", "--log-level=WARN"]
        command += flags
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def courses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``guarded``: the course as it is; ``control``: its config without ``MarkupAsText``."""
    guarded = make_scratch_course(tmp_path_factory.mktemp("markup") / "course")
    grade_course(guarded, {"ada": False, "mallory": True})
    control = make_scratch_course(tmp_path_factory.mktemp("markup-control") / "course")
    config = control / "nbgrader_config.py"
    text = config.read_text()
    assert text.count(STEP) == 1
    config.write_text(text.replace(STEP, ""))
    grade_course(control, {"mallory": True})
    return {"guarded": guarded, "control": control}


class Markup(HTMLParser):
    """What a browser would make live in a page: scripts, attributes, tags, visible text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        self._in_script = tag == "script"
        if tag == "script":
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)


def live_vectors(page: str, honest: str) -> list[str]:
    """The student's markup that a browser would run or follow in ``page``; ``honest`` is the
    same page of an honest student, for the template's own scripts."""
    found, plain = Markup(page), Markup(honest)
    live = [f"<script> {s[:40]!r}" for s in found.scripts if "PWNED" in s]
    if len(found.scripts) != len(plain.scripts):
        live.append(f"{len(found.scripts)} scripts, the honest page has {len(plain.scripts)}")
    for tag, name, value in found.attributes:
        if name.startswith("on") and (tag, name, value) not in plain.attributes:
            live.append(f"<{tag} {name}={value[:60]!r}>")
        if value.strip().lower().startswith(("javascript:", "data:image/svg")):
            live.append(f"<{tag} {name}={value[:60]!r}>")
    if found.tags.count("b") > plain.tags.count("b"):
        live.append("the raw cell's <b>")
    return live


def as_formgrader_draws(notebook: Path) -> str:
    """The HTML of a submission in the Formgrader: nbgrader's own exporter and template."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {
        **dict.fromkeys(["assignment_id", "notebook_id", "submission_id", "base_url"], "x"),
        **dict.fromkeys(["student", "last_name", "first_name", "notebook_path"], "x"),
        "index": 0,
        "total": 1,
    }
    return HTMLExporter(config=config).from_filename(str(notebook), resources=resources)[0]


def autograded(root: Path, student: str) -> Path:
    return root / "autograded" / student / "bpe" / LESSON


def feedback(root: Path, student: str) -> Path:
    return root / "feedback" / student / "bpe" / LESSON.replace(".ipynb", ".html")


def pages(root: Path, student: str) -> dict[str, str]:
    return {
        "formgrader": as_formgrader_draws(autograded(root, student)),
        "feedback": feedback(root, student).read_text(encoding="utf-8"),
    }


def test_no_vector_survives_in_the_formgrader_or_the_feedback(courses: dict[str, Path]) -> None:
    honest = pages(courses["guarded"], "ada")
    for where, page in pages(courses["guarded"], "mallory").items():
        assert live_vectors(page, honest[where]) == [], where
        shown = " ".join(Markup(page).text)
        for marker in ("PWNED-md-script", "PWNED-md-img", "PWNED-md-link", "PWNED-raw"):
            assert marker in shown, (where, marker)  # the student's text shows, as text


def test_without_the_step_every_vector_is_live(courses: dict[str, Path]) -> None:
    honest = pages(courses["guarded"], "ada")
    for where, page in pages(courses["control"], "mallory").items():
        live = " ".join(live_vectors(page, honest[where]))
        for marker in (*LIVE_WITHOUT_STEP, "onerror", "data:image/svg", "raw cell's <b>"):
            assert marker in live, (where, marker)


def test_the_lessons_own_html_still_renders(courses: dict[str, Path]) -> None:
    honest = pages(courses["guarded"], "ada")
    for where, page in pages(courses["guarded"], "mallory").items():
        tags, plain = Markup(page).tags, Markup(honest[where]).tags
        for tag in ("details", "kbd"):
            assert tags.count(tag) == plain.count(tag) > 0, (where, tag)
    release = nbformat.read(courses["guarded"] / "release" / "bpe" / LESSON, as_version=4)
    graded = nbformat.read(autograded(courses["guarded"], "ada"), as_version=4)
    prose = [c.source for c in release.cells if c.cell_type == "markdown"]
    assert [c.source for c in graded.cells if c.cell_type == "markdown"] == prose


def test_attachments_keep_only_pictures_that_cannot_script(courses: dict[str, Path]) -> None:
    nb = nbformat.read(autograded(courses["guarded"], "mallory"), as_version=4)
    assert all(not c.get("attachments") for c in nb.cells if c.cell_type != "code")
    cell = nbformat.v4.new_markdown_cell("![](attachment:a.png)")
    cell["attachments"] = {
        "a.png": {"image/png": "iVBORw0KGgo=", "image/svg+xml": "PHN2Zz4="},
        "b.png": {"image/png": '" onerror="alert(1)'},
    }
    step = autograder.plugins.outputs.MarkupAsText()
    kept, _ = step.preprocess_cell(cell, {}, 0)
    assert kept["attachments"] == {"a.png": {"image/png": "iVBORw0KGgo="}}


def test_grade_class_runs_the_step_with_the_course_masters(
    courses: dict[str, Path], tmp_path: Path
) -> None:
    root = courses["guarded"]
    kernels = KernelHome(home=tmp_path / "home", sockets=tmp_path / "sockets")
    config = _nbgrader_config(
        root, tmp_path / "g.db", Config(), True, tmp_path / "v.jsonl", kernels
    )
    assert "autograder.plugins.outputs.MarkupAsText" in (config.Autograde.autograde_preprocessors)
    assert config.MarkupAsText.course_root == str(root)


def test_the_feedback_exporter_cleans_html_outputs_whatever_the_config() -> None:
    config = Config()
    config.HTMLExporter.sanitize_html = False
    assert FeedbackExporter(config=config).sanitize_html is True


@pytest.mark.browser
def test_in_chromium_the_students_script_runs_only_without_the_step(
    page, courses: dict[str, Path]
) -> None:
    from playwright.sync_api import expect

    def offline(route) -> None:
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            route.abort()

    page.context.route("**/*", offline)
    page.goto(feedback(courses["control"], "mallory").as_uri())
    expect(page).to_have_title(re.compile("^PWNED"), timeout=20_000)
    page.goto(feedback(courses["guarded"], "mallory").as_uri())
    # The page has loaded (its formulas drawn) and a failed image's onerror has had time.
    expect(page.locator("math").first).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1_000)
    assert not page.title().startswith("PWNED")
    assert page.locator("a[href^='javascript:' i], img[onerror]").count() == 0
    expect(page.get_by_text("[a link](javascript:", exact=False)).to_be_visible()
