"""Failure messages are readable where students read them, in a real browser.

- A feedback page of a wrong submission (real ``nbgrader autograde`` and ``generate_feedback``
  in a scratch course) opened offline in Chromium, every request but file: and data: refused:
  formulas are drawn from the page's MathML with no script, no message line is wider than the
  page, and each test cell is named by what it tests; the page stays under 300 KB.
- Lab's Validate button on a wrong answer, with the course's ``nbgrader_config.py`` where
  Lab runs (the course folder): the dialog holds the whole message, and so does
  ``nbgrader validate`` in a terminal.

Servers and Chromium start as in ``tests/test_browser.py``, whose helpers these reuse.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.bwrap import UNCONFINED_FLAG
from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests import test_browser as lab
from tests.test_browser import ARTIFACTS, ROOT, start_lab

# The browser, a page and the server starter, exactly as the widget's browser tests get them.
browser = lab.browser
page = lab.page
server = lab.server

pytestmark = [pytest.mark.browser, pytest.mark.nbgrader]

LESSON = "01_bpe_by_hand.ipynb"
PADDED = "string replacement missing back-to-back pairs"
# The visible test's message for the padded replacement, as Python prints it (its first
# line: the hidden tests' words, from bpe_course.feedback).
VISIBLE_MESSAGE = (
    "AssertionError: merge_pair is wrong on 2 of 11 examples (likely mistake: string "
    "replacement missing back-to-back pairs). The smallest:"
)
TITLES = [
    "pair_counts: the visible tests (the lesson's examples)",
    "pair_counts: hidden tests on the worked examples and edge cases",
    "pair_counts: hidden tests on random inputs",
    "merge_pair: the visible tests (the lesson's examples)",
    "merge_pair: hidden tests on the worked examples and edge cases",
    "merge_pair: hidden tests on random inputs",
]


def wrong_answers() -> dict[str, str]:
    return {
        "pair_counts": CORRECT["pair_counts"]["Counter"],
        "merge_pair": WRONG["merge_pair"][PADDED],
    }


@pytest.fixture(scope="module")
def feedback_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_scratch_course(tmp_path_factory.mktemp("feedback") / "course")
    write_submission(root, "ada", wrong_answers(), [LESSON])
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=bin_dir + os.pathsep + os.environ["PATH"])
    # A bare nbgrader autograde refuses to run kernels unconfined unless told to.
    for step, *flags in (("autograde", UNCONFINED_FLAG), ("generate_feedback",)):
        command = [sys.executable, "-m", "nbgrader", step, "bpe", "--force", "--log-level=WARN"]
        command += flags
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)
    return root / "feedback" / "ada" / "bpe" / LESSON.replace(".ipynb", ".html")


# Every student gets a page per lesson: a class of 300 releases 1,200 of them. The page was
# 632 KB while it carried MathJax (450 KB); its MathML formulas and nbgrader's inlined
# Bootstrap (117 KB) leave about 180 KB.
MAX_PAGE_BYTES = 300_000


def test_the_feedback_page_loads_nothing_from_outside(feedback_page: Path) -> None:
    text = feedback_page.read_text(encoding="utf-8")
    assert "cdnjs.cloudflare.com" not in text and "<script" not in text
    assert str(ROOT) not in text  # no link into the instructor's files
    assert feedback_page.stat().st_size < MAX_PAGE_BYTES


def test_the_feedback_page_offline_typesets_formulas_and_wraps_messages(
    page, feedback_page: Path
) -> None:
    from playwright.sync_api import expect

    refused: list[str] = []

    def offline(route) -> None:
        url = route.request.url
        if url.startswith(("file:", "data:")):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.context.route("**/*", offline)
    page.set_viewport_size({"width": 1000, "height": 900})
    page.goto(feedback_page.as_uri())
    # The browser draws the MathML itself: every formula takes room on the page.
    formulas = page.locator(".text_cell_render math")
    expect(formulas.first).to_be_visible()
    assert formulas.count() >= 5
    sizes = formulas.evaluate_all(
        "maths => maths.map(m => [m.getBoundingClientRect().width, "
        "m.getBoundingClientRect().height])"
    )
    assert all(width > 0 and height > 0 for width, height in sizes), sizes
    assert "$" not in page.locator(".text_cell_render").first.inner_text()
    # Every failure message is whole, and no line of it is wider than the page.
    messages = page.locator(".output_error pre")
    assert messages.count() == 3  # the visible cell and both hidden cells of merge_pair
    shown = " ".join(" ".join(messages.all_inner_texts()).split())
    assert " ".join(VISIBLE_MESSAGE.split()) in shown
    assert f"Likely mistake: {PADDED}. Replacing ' a b ' in the space-padded word" in shown
    too_wide = page.evaluate(
        """() => {
            const page = document.documentElement.clientWidth;
            return [...document.querySelectorAll('.output_error pre')]
                .filter(p => p.scrollWidth > p.clientWidth + 1
                             || p.getBoundingClientRect().right > page)
                .map(p => p.innerText.slice(0, 60));
        }"""
    )
    assert too_wide == []
    # Each test cell is named by what it tests, in the summary at the top.
    assert page.locator("#toc a").all_inner_texts() == TITLES
    table = page.locator(".rendered_html table").first
    assert table.locator("th").all_inner_texts() == ["word", "symbols", "count"]
    padding = table.locator("th").first.evaluate("th => getComputedStyle(th).paddingRight")
    assert padding != "0px"  # the header cells do not run together
    assert refused == []  # nothing even tried to reach the network
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    messages.last.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "feedback_offline.png")


def test_lab_validate_button_shows_the_whole_message(page, server, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    course = tmp_path / "course"
    release = tmp_path / "release" / "bpe"
    release.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / LESSON, release / LESSON)
    submitted = write_submission(tmp_path, "me", wrong_answers(), [LESSON])
    course.mkdir()
    shutil.copy(submitted / LESSON, course / LESSON)
    # A student runs Lab in the course folder, where the course's nbgrader_config.py is.
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    token = "validate-test-token"
    base = start_lab(server, course, tmp_path, token)
    page.goto(f"{base}/lab/tree/{LESSON}?reset&token={token}")
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Validate").first.click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog.get_by_text("The following cell failed", exact=False).first).to_be_visible(
        timeout=120_000
    )
    assert VISIBLE_MESSAGE in dialog.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "lab_validate.png")
    # The same check in a terminal: nbgrader validate cuts lines at Validator.width.
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", LESSON],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert VISIBLE_MESSAGE in done.stdout, done.stdout[-3000:]
