"""Late work is marked late, with how late, on the Formgrader's own pages, in Chromium; and
the grading service's progress shows above the assignment's submissions.

A scratch course whose gradebook holds three submissions of ``bpe``: ``punctual`` a minute
before the due date, ``tardy`` 1 h 2 min 5 s after it (both autograded), and ``pending``
two days after it, collected but not yet autograded. The due date is set after the server
starts, through the Formgrader's own route (what its Edit dialog sends). A real Jupyter server
with nbgrader's formgrader and the course's extension serves it; Chromium opens the
assignment's submissions list, each student's list of assignments, a student's submission and
the grading view. The late ones say "late by …" in words, in the page's accessibility tree
(what a screen reader reads); the punctual one says nothing of the kind.

Above the same list, the grading service's panel says in one line that no service has run,
then, from a store holding entries in every state (and one it does not know), shows each
count, the oldest wait in words and each failure with its reason; an entry named with markup
shows as text; a change in the store shows without a reload, the keyboard focus kept; the
JSON route behind it answers the Formgrader's login alone.

But: nothing is graded (the gradebook is written directly, as in
``tests/test_formgrader_markup.py``); no hub is started.
"""

from __future__ import annotations

import datetime
import json
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
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


# The grading service's progress, in the panel above the same list. Entries as the service's
# store holds them; one in a state a later service may add, one named with markup.
HOURS_AGO = 3 * 3600 + 5
MARKUP = "<img src=x onerror=\"document.title='owned'\">"
ENTRIES = (
    ("punctual+bpe+2026-12-01 11:59:00.000000 UTC+01", "queued", ""),
    ("tardy+bpe+2026-12-01 13:02:05.000000 UTC+02", "queued", ""),
    ("pending+bpe+2026-12-03 12:00:30.000000 UTC+03", "grading", ""),
    ("punctual+bpe+2026-12-01 11:00:00.000000 UTC+04", "graded", ""),
    ("tardy+bpe+2026-12-01 11:00:00.000000 UTC+05", "graded", ""),
    ("tardy+bpe+2026-12-01 12:30:00.000000 UTC+06", "needs a person", "its grading hung"),
    (f"{MARKUP}+bpe+2026-12-01 12:00:00.000000 UTC+07", "refused", f"{MARKUP} is no student"),
    ("pending+bpe+2026-12-03 12:01:00.000000 UTC+08", "a newer service's state", ""),
)


def no_store(root: Path) -> Path:
    """No service has run in ``root``: the store's folder removed; the folder."""
    from autograder.grading.service import STATE_FOLDER

    shutil.rmtree(root / STATE_FOLDER, ignore_errors=True)
    return root / STATE_FOLDER


def fill_store(root: Path) -> Path:
    """The service's store with only ``ENTRIES``, the first seen ``HOURS_AGO``; its path."""
    from autograder.grading.service import Store

    folder = no_store(root)
    folder.mkdir(mode=0o700, parents=True)
    store = Store(folder / "queue.db")
    try:
        for k, (name, state, reason) in enumerate(ENTRIES):
            store.add(name, name.split("+")[0], 1000, state, reason)
            seen = time.time() - (HOURS_AGO if k == 0 else 60)
            store.db.execute("UPDATE entry SET seen = ? WHERE name = ?", (seen, name))
    finally:
        store.close()
    return folder / "queue.db"


def progress_panel(page, base: str):
    from playwright.sync_api import expect

    open_table(page, url(base, "formgrader", "manage_submissions", "bpe"))
    panel = page.get_by_role("region", name="Grading as submissions arrive")
    expect(panel).to_be_visible()
    return panel


def test_with_no_service_the_panel_says_so_in_one_line(pages, server, course) -> None:
    from playwright.sync_api import expect

    from autograder.grading.service import NO_QUEUE

    no_store(course[0])
    panel = progress_panel(pages, server)
    expect(panel.get_by_role("status")).to_have_text(NO_QUEUE)
    expect(panel.get_by_role("listitem")).to_have_count(0)


def test_the_panel_shows_the_counts_the_oldest_wait_and_each_failure(pages, server, course):
    from playwright.sync_api import expect

    from autograder.grading.service import Store, status_line

    path = fill_store(course[0])
    panel = progress_panel(pages, server)
    live = panel.get_by_role("status")  # a polite live region: read out when it changes
    expect(live).to_have_attribute("aria-live", "polite")
    counts = panel.get_by_role("list", name="Entries by state").get_by_role("listitem")
    expected = ["0 waiting", "2 queued", "1 grading", "2 graded", "1 refused", "0 superseded"]
    expected += ["1 needs a person", "0 held", "1 a newer service's state"]
    expect(counts).to_have_text(expected)
    expect(panel).to_contain_text("Oldest wait 3 h")  # in words, outside the live region
    expect(live).not_to_contain_text("Oldest wait")
    failures = live.locator("#bpe-progress-failure-list li")
    expect(failures).to_have_count(2)
    expect(failures.nth(0)).to_have_text(f"needs a person: {ENTRIES[5][0]}: its grading hung")
    # A student's markup in an entry's name and reason is shown as the text it is.
    expect(failures.nth(1)).to_have_text(f"refused: {ENTRIES[6][0]}: {MARKUP} is no student")
    expect(panel.locator("img")).to_have_count(0)
    assert pages.title() != "owned"
    snapshot = panel.aria_snapshot()  # what a screen reader reads: words, not colours
    assert "1 needs a person" in snapshot and "its grading hung" in snapshot, snapshot
    # The line of make grading-status, from the same function: the same counts.
    store = Store(path, read_only=True)
    try:
        line = status_line(store)
    finally:
        store.close()
    assert line.startswith("grading service: 0 waiting, 2 queued, 1 grading, 2 graded"), line
    assert line.split(";")[0] == "grading service: " + ", ".join(expected)


def test_the_panel_follows_the_store_and_leaves_the_focus_where_it_was(pages, server, course):
    from playwright.sync_api import expect

    from autograder.grading.service import Store

    path = fill_store(course[0])
    panel = progress_panel(pages, server)
    counts = panel.get_by_role("list", name="Entries by state")
    expect(counts).to_contain_text("2 graded")
    breadcrumb = pages.get_by_role("link", name="Assignments", exact=True)
    breadcrumb.focus()
    store = Store(path)
    try:  # as the service goes on: a queued entry graded, the oldest one
        store.set(ENTRIES[0][0], "graded")
    finally:
        store.close()
    expect(counts).to_contain_text("3 graded", timeout=20_000)  # no reload
    expect(counts).to_contain_text("1 queued")
    expect(panel).to_contain_text("Oldest wait 1 min")
    expect(breadcrumb).to_be_focused()


def ask_progress(base: str, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(
        url(base, "formgrader", "api", "grading_progress"), headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_progress_route_answers_the_formgraders_login_alone(server, course) -> None:
    """Entry names and reasons are the instructor's to read: without the Formgrader's login
    (none, or a wrong token) the route says no, without sending anyone to a login page."""
    fill_store(course[0])
    for headers in ({}, {"Authorization": "token not-the-token"}):
        status, text = ask_progress(server, headers)
        assert status == 403, (headers, status)
        assert "queued" not in text and "punctual" not in text, text
    status, text = ask_progress(server, {"Authorization": f"token {TOKEN}"})
    assert status == 200, text
    answer = json.loads(text)
    assert answer["line"].startswith("grading service: "), answer
    assert [f["state"] for f in answer["failures"]] == ["needs a person", "refused"], answer
