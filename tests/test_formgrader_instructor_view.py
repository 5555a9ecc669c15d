"""What an instructor reads in the Formgrader, in Chromium: students' names as the roster writes
them, no "None" for a missing email, and lesson 1's corpus table readable in the grading view.

A scratch course whose gradebook holds three students who submitted ``bpe``: ``bpe-student1``,
named as the hub names an account (first name "Student", last name "1", no email), ``ada``
(Ada Lovelace, with an email) and ``anon`` (no name at all). A real Jupyter server with
nbgrader's formgrader and the course's extension serves it; Chromium opens the students list,
the assignment's submissions, a notebook's submissions and one grading view.

But: nothing is graded (the gradebook is written directly, as in
``tests/test_formgrader_lateness.py``); no hub is started, and the Lab menu's Formgrader entries
are the hub test's to read.
"""

from __future__ import annotations

import datetime
import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_fixtures.jupyter_servers import formgrader_server
from course_fixtures.scratch_course import make_scratch_course
from tests import test_browser as lab

browser = lab.browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.nbgrader,
    pytest.mark.slow,
    # nbgrader's own add_submission, as it always does with a new student.
    pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
]

TOKEN = "formgrader-instructor-view-test"
LESSON = "01_bpe_by_hand"
# id: (first name, last name, email), as the gradebook keeps them (None where missing).
STUDENTS = {
    "bpe-student1": ("Student", "1", None),
    "ada": ("Ada", "Lovelace", "ada@example.org"),
    "anon": (None, None, None),
}
SUBMITTED = datetime.datetime(2026, 12, 1, 12, 0, 0)
SHOWN = {"bpe-student1": "Student 1", "ada": "Ada Lovelace", "anon": "anon"}


def submit(root: Path) -> str:
    """Each student's submission of lesson 1, as released, in the gradebook and autograded/;
    returns the grading view's id of ``ada``'s."""
    release = root / "release" / "bpe" / f"{LESSON}.ipynb"
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "bpe-from-scratch") as gradebook:
        for student, (first, last, email) in STUDENTS.items():
            gradebook.update_or_create_student(
                student, first_name=first, last_name=last, email=email
            )
            for stage in ("submitted", "autograded"):
                folder = root / stage / student / "bpe"
                folder.mkdir(parents=True)
                shutil.copyfile(release, folder / release.name)
                # nbgrader's own format; its lists read the time from here.
                stamp = SUBMITTED.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
                (folder / "timestamp.txt").write_text(stamp)
            gradebook.add_submission("bpe", student, timestamp=SUBMITTED)
        return gradebook.find_submission_notebook(LESSON, "bpe", "ada").id


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = make_scratch_course(tmp_path_factory.mktemp("formgrader-view") / "course")
    return root, submit(root)


@pytest.fixture(scope="module")
def server(course, tmp_path_factory) -> Iterator[str]:
    yield from formgrader_server(course[0], tmp_path_factory.mktemp("server"), TOKEN)


@pytest.fixture(scope="module")
def page(browser, server) -> Iterator:
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    try:
        yield context.new_page()
    finally:
        context.close()


def url(base: str, *parts: str) -> str:
    return base + "/".join(urllib.parse.quote(part, safe="") for part in parts)


def open_table(page, address: str):
    from playwright.sync_api import expect

    page.goto(address)
    expect(page.locator("#main-table")).not_to_contain_text("Loading, please wait")
    return page


def cells(page, student: str) -> list[str]:
    """The texts of the cells of the row that holds ``student``'s id."""
    row = page.get_by_role("row").filter(has_text=student).first
    return [text.strip() for text in row.locator("td").all_inner_texts()]


def test_the_students_list_shows_names_as_written_and_no_none(page, server) -> None:
    open_table(page, url(server, "formgrader", "manage_students"))
    for student, shown in SHOWN.items():
        name, sid, email, *_ = cells(page, student)
        assert (name, sid) == (shown, student)
        assert email == (STUDENTS[student][2] or "")
    assert "None" not in page.locator("#main-table").inner_text()
    # A student with no name keeps a link with words in it to their page.
    link = page.get_by_role("link", name="anon", exact=True)
    assert link.get_attribute("href").endswith("/formgrader/manage_students/anon")


def test_the_assignments_submissions_show_the_same_names(page, server) -> None:
    open_table(page, url(server, "formgrader", "manage_submissions", "bpe"))
    for student, shown in SHOWN.items():
        assert cells(page, student)[:2] == [shown, student]
    assert "None" not in page.locator("#main-table").inner_text()


def test_a_notebooks_submissions_reveal_the_same_names(page, server) -> None:
    from playwright.sync_api import expect

    open_table(page, url(server, "formgrader", "gradebook", "bpe", LESSON))
    page.locator("#toggle_names").click()
    shown = page.locator("#main-table a.name-shown")
    expect(shown.first).to_be_visible()
    assert sorted(shown.all_inner_texts()) == sorted(SHOWN.values())


def test_the_grading_view_names_the_student_the_same_way(page, server, course) -> None:
    from playwright.sync_api import expect

    page.goto(url(server, "formgrader", "submissions", course[1]) + "/")
    name = page.locator(".live-notebook a.name-shown")
    expect(name).to_have_count(1)
    assert name.text_content().strip() == SHOWN["ada"]


def test_lesson_ones_corpus_table_has_room_between_its_columns(page, server, course) -> None:
    from playwright.sync_api import expect

    page.goto(url(server, "formgrader", "submissions", course[1]) + "/")
    table = page.locator("#notebook-container table").filter(has_text="symbols").first
    expect(table).to_be_visible()
    headers = table.locator("th")
    assert headers.all_inner_texts() == ["word", "symbols", "count"]
    for cell in [*headers.all(), table.locator("td").first]:
        padding = cell.evaluate(
            "c => ['left', 'right'].map(s => parseFloat(getComputedStyle(c)['padding-' + s]))"
        )
        assert min(padding) >= 4, padding
    # What an instructor sees: the words of neighbouring headers stand apart.
    edges = headers.evaluate_all(
        "cells => cells.map(c => { const r = document.createRange(); r.selectNodeContents(c);"
        " const b = r.getBoundingClientRect(); return [b.left, b.right]; })"
    )
    gaps = [right_next[0] - left[1] for left, right_next in zip(edges, edges[1:])]
    assert min(gaps) >= 8, gaps
