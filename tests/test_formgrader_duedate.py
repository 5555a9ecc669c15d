"""The Formgrader's due-date dialog takes a time zone name, and says why it did not save.

A course folder whose gradebook holds ``bpe`` and no due date, served by a real Jupyter server
with nbgrader's formgrader and the course's extension (``autograder.formgrader.lateness``).
In Chromium, as the instructors' guide says: Manage Assignments, the pencil beside ``bpe``
(found by its name, as a screen reader gives it), the date and time, the time zone, Save.
``Europe/Paris`` in December stores the instant one hour earlier in UTC; ``-05:00`` five
hours later; a zone that does not exist leaves the stored date as it was and shows an alert
(role=alert) saying so, with the Save button back to "Save", where nbgrader's dialog stayed on
"Saving..." with no word. The same zone name sent to the route with nbgrader's own handler
only (the course's extension off) is the control: it fails.

But: nothing is graded and no hub is started (``tests/test_hub.py`` sets a due date there).
"""

from __future__ import annotations

import datetime
import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_fixtures.jupyter_servers import formgrader_server
from tests import test_browser as lab
from tests.conftest import ROOT
from tests.support.lms import _alembic_on_path

browser = lab.browser

pytestmark = [pytest.mark.browser, pytest.mark.nbgrader, pytest.mark.slow]

TOKEN = "formgrader-duedate-test"
COURSE_ID = "bpe-from-scratch"


def make_course(root: Path) -> Path:
    (root / "source" / "bpe").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    with _alembic_on_path(), Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gb:
        gb.update_or_create_assignment("bpe")
    return root


def stored_due_date(root: Path) -> datetime.datetime | None:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gradebook:
        return gradebook.find_assignment("bpe").duedate


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_course(tmp_path_factory.mktemp("formgrader-duedate") / "course")


@pytest.fixture(scope="module")
def server(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from formgrader_server(course, tmp_path_factory.mktemp("server"), TOKEN)


@pytest.fixture(scope="module")
def dialog_page(browser, server) -> Iterator:
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def save_due_date(page, base: str, when: str, zone: str):
    """Manage Assignments, the pencil beside bpe, the date and the zone, Save; the dialog."""
    from playwright.sync_api import expect

    page.goto(base + "formgrader/manage_assignments")
    expect(page.locator("#main-table")).not_to_contain_text("Loading, please wait")
    page.get_by_role("link", name="Edit the due date of bpe", exact=True).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Due date (optional)").fill(when)
    dialog.get_by_label("Time zone").fill(zone)
    dialog.get_by_role("button", name="Save").click()
    return dialog


def test_a_zone_name_or_an_offset_is_saved_as_the_right_instant_in_utc(
    dialog_page, server, course
) -> None:
    from playwright.sync_api import expect

    dialog = save_due_date(dialog_page, server, "2026-12-15T23:59", "Europe/Paris")
    expect(dialog).to_have_count(0, timeout=30_000)
    assert stored_due_date(course) == datetime.datetime(2026, 12, 15, 22, 59)
    row = dialog_page.get_by_role("row").filter(has_text="bpe")
    expect(row).to_contain_text("2026-12-15 22:59:00")  # shown in the course's zone, UTC

    dialog = save_due_date(dialog_page, server, "2026-12-15T23:59", "-05:00")
    expect(dialog).to_have_count(0, timeout=30_000)
    assert stored_due_date(course) == datetime.datetime(2026, 12, 16, 4, 59)


def test_an_unknown_zone_shows_why_and_changes_nothing(dialog_page, server, course) -> None:
    from playwright.sync_api import expect

    before = stored_due_date(course)
    assert before is not None, "the test above sets one"
    dialog = save_due_date(dialog_page, server, "2026-12-20T12:00", "Europe/Pariss")
    alert = dialog.get_by_role("alert")
    expect(alert).to_contain_text("The time zone 'Europe/Pariss' is unknown", timeout=30_000)
    expect(alert).to_contain_text("Europe/Paris or a UTC offset such as +01:00")
    expect(dialog.get_by_role("button", name="Save")).to_have_text("Save")
    assert stored_due_date(course) == before
    # Typing a good zone then saves from the same dialog.
    dialog.get_by_label("Time zone").fill("Europe/Paris")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_have_count(0, timeout=30_000)
    assert stored_due_date(course) == datetime.datetime(2026, 12, 20, 11, 0)


def put_due_date(base: str, when: str, zone: str) -> tuple[int, str]:
    """What the dialog sends, straight to the route; the status and body of the answer."""
    body = json.dumps({"duedate_notimezone": when, "duedate_timezone": zone}).encode()
    request = urllib.request.Request(
        base + "formgrader/api/assignment/bpe",
        data=body,
        method="PUT",
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_without_the_course_extension_a_zone_name_fails(tmp_path: Path) -> None:
    """The control: nbgrader's own route answers 500 for the zone the guide names."""
    course = make_course(tmp_path / "course")
    for base in formgrader_server(course, tmp_path / "server", TOKEN, guarded=False):
        status, _ = put_due_date(base, "2026-12-15T23:59", "Europe/Paris")
        assert status == 500
        assert stored_due_date(course) is None
        status, _ = put_due_date(base, "2026-12-15T23:59", "+0100")  # what works there
        assert status == 200
        assert stored_due_date(course) == datetime.datetime(2026, 12, 15, 22, 59)
