"""Late work is marked late, with how late, on the Formgrader's own pages, in Chromium.

A scratch course whose gradebook holds three submissions of ``bpe``: ``punctual`` a minute
before the due date, ``tardy`` 1 h 2 min 5 s after it (both autograded), and ``pending``
two days after it, collected but not yet autograded. The due date is set after the server
starts, through the Formgrader's own route (what its Edit dialog sends). A real Jupyter server
with nbgrader's formgrader and the course's extension serves it; Chromium opens the
assignment's submissions list, each student's list of assignments, a student's submission and
the grading view. The late ones say "late by …" in words, in the page's accessibility tree
(what a screen reader reads); the punctual one says nothing of the kind.

But: nothing is graded (the gradebook is written directly, as in
``tests/test_formgrader_markup.py``); no hub is started.
"""

from __future__ import annotations

import datetime
import json
import shutil
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_fixtures.scratch_course import make_scratch_course
from tests import test_browser as lab
from tests.support.formgrader_server import formgrader_server

browser = lab.browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.nbgrader,
    pytest.mark.slow,
    # nbgrader's own add_submission, as it always does with a new student.
    pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
]

TOKEN = "formgrader-lateness-test"
LESSON = "01_bpe_by_hand"
DUE = datetime.datetime(2026, 12, 1, 12, 0, 0)  # UTC, as the gradebook keeps it
DELAYS = {"punctual": -60, "tardy": 3725, "pending": 2 * 86400 + 30}
TARDY = "late by 1 h 2 min"
PENDING = "late by 2 d 30 s"


def stamp(student: str) -> datetime.datetime:
    return DUE + datetime.timedelta(seconds=DELAYS[student])


def submit(root: Path) -> dict[str, str]:
    """The three submissions, in submitted/ and (but pending's) the gradebook and autograded/;
    returns the grading view's submission id of each autograded student."""
    release = root / "release" / "bpe" / f"{LESSON}.ipynb"
    ids = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "bpe-from-scratch") as gradebook:
        for student in DELAYS:
            gradebook.update_or_create_student(student)
            folder = root / "submitted" / student / "bpe"
            folder.mkdir(parents=True)
            shutil.copyfile(release, folder / release.name)
            # nbgrader's own format; the autograded check compares it with the gradebook's.
            text = stamp(student).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
            (folder / "timestamp.txt").write_text(text)
            if student == "pending":
                continue
            gradebook.add_submission("bpe", student, timestamp=stamp(student))
            graded = root / "autograded" / student / "bpe"
            graded.mkdir(parents=True)
            shutil.copyfile(release, graded / release.name)
            shutil.copyfile(folder / "timestamp.txt", graded / "timestamp.txt")
            ids[student] = gradebook.find_submission_notebook(LESSON, "bpe", student).id
    return ids


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = make_scratch_course(tmp_path_factory.mktemp("formgrader-lateness") / "course")
    return root, submit(root)


@pytest.fixture(scope="module")
def server(course, tmp_path_factory) -> Iterator[str]:
    yield from formgrader_server(course[0], tmp_path_factory.mktemp("server"), TOKEN)


def url(base: str, *parts: str) -> str:
    return base + "/".join(urllib.parse.quote(part, safe="") for part in parts)


def set_due_date(base: str) -> None:
    """What the Formgrader's Edit dialog sends."""
    body = {"duedate_notimezone": DUE.strftime("%Y-%m-%dT%H:%M:%S"), "duedate_timezone": "UTC"}
    request = urllib.request.Request(
        url(base, "formgrader", "api", "assignment", "bpe"),
        data=json.dumps(body).encode(),
        method="PUT",
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.load(response)["duedate"].startswith("2026-12-01T12:00:00")


@pytest.fixture(scope="module")
def pages(browser, server) -> Iterator:
    set_due_date(server)
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def open_table(page, address: str):
    """The page at ``address`` once its table has loaded."""
    from playwright.sync_api import expect

    page.goto(address)
    expect(page.locator("#main-table")).not_to_contain_text("Loading, please wait")
    return page


def row(page, text: str):
    return page.get_by_role("row").filter(has_text=text)


def test_the_assignments_submissions_say_who_was_late_and_by_how_much(pages, server) -> None:
    from playwright.sync_api import expect

    page = open_table(pages, url(server, "formgrader", "manage_submissions", "bpe"))
    expect(row(page, "tardy")).to_contain_text(TARDY)
    expect(row(page, "pending")).to_contain_text(PENDING)  # collected, not yet autograded
    expect(row(page, "punctual")).not_to_contain_text("late")
    # In words a screen reader reads out, not in colour alone.
    assert TARDY in row(page, "tardy").aria_snapshot()
    assert "late" not in row(page, "punctual").aria_snapshot()


def test_each_students_assignments_say_whether_late(pages, server) -> None:
    from playwright.sync_api import expect

    page = open_table(pages, url(server, "formgrader", "manage_students", "tardy"))
    expect(row(page, "bpe")).to_contain_text(TARDY)
    assert TARDY in row(page, "bpe").aria_snapshot()
    page = open_table(pages, url(server, "formgrader", "manage_students", "punctual"))
    expect(row(page, "bpe")).to_be_visible()
    expect(row(page, "bpe")).not_to_contain_text("late")


def test_the_submission_and_the_grading_view_say_it_too(pages, server, course) -> None:
    from playwright.sync_api import expect

    page = open_table(pages, url(server, "formgrader", "manage_students", "tardy", "bpe"))
    expect(page.get_by_text(f"This submission is {TARDY}.")).to_be_visible()
    page = open_table(pages, url(server, "formgrader", "manage_students", "punctual", "bpe"))
    expect(page.locator("body")).not_to_contain_text("late by")
    ids = course[1]
    pages.goto(url(server, "formgrader", "submissions", ids["tardy"]) + "/")
    heading = pages.locator(".panel-heading .panel-title").first
    expect(heading).to_contain_text(f"({TARDY})")
    pages.goto(url(server, "formgrader", "submissions", ids["punctual"]) + "/")
    expect(pages.locator(".panel-heading .panel-title").first).to_contain_text(LESSON)
    expect(pages.locator(".panel-heading .panel-title").first).not_to_contain_text("late")
