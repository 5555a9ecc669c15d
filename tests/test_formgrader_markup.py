"""Markup in the gradebook shows as text in the Formgrader and runs no script, in Chromium.

A scratch course whose gradebook holds markup, as a poisoned gradebook from before would:
student ids with a ``"`` and an ``<img onerror>``, with ``</script>``, and with a
``<script src>`` aimed at a file a student placed under ``submitted/`` (served by the
instructor's own ``files/``); a first and a last name with markup; a notebook whose name is
markup. A real Jupyter server with nbgrader's formgrader and the course's extension
(``autograder.formgrader``) serves it; Chromium opens the student's page, the student's
notebook submissions page, the notebook submissions page, the grading view and a link whose
URL-encoded id is markup the gradebook does not hold. Every payload would set the page's title
and open a dialog: neither happens, and the markup is in the page as text. The student's file
goes out as inert text, and a script tag aimed at it, added to a Formgrader page, is refused by
its Content-Security-Policy. The control: the same pages from nbgrader's formgrader alone run
the payloads (``BPE_FORMGRADER_UNGUARDED=1`` runs the whole file so, to see it fail). Last, the
hub's role settings (``hub.layout``, ``hub.roles``) load the extension in the instructor's
server and not in a student's.

But: no hub is started and no account made (tests/test_hub.py does that); nothing is graded,
the markup is put into the gradebook directly.
"""

from __future__ import annotations

import os
import shutil
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_fixtures.jupyter_servers import formgrader_server
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests import test_browser as lab
from tests.test_browser import ROOT

browser = lab.browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.nbgrader,
    pytest.mark.slow,
    # nbgrader's own add_submission, as it always does with a new student.
    pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
]

TOKEN = "formgrader-markup-test"
LESSON = "01_bpe_by_hand"
RUN = "alert(document.title='PWNED')"
PLANTED = "submitted/mallory/bpe/pwn.js"
QUOTE_ID = f'"><img src=x onerror="{RUN}">'
SCRIPT_ID = f"</script><script>{RUN}</script>"
SRC_ID = f'<script src="/files/{PLANTED}"></script>'
FIRST = f'<img src=x onerror="{RUN}">'
LAST = f"</script><script>{RUN}</script>"
NOTEBOOK = f'<img src=x onerror="{RUN}">'
UNKNOWN = f'<img src=x onerror="{RUN}">"</script><script>{RUN}</script>'
STUDENTS = (QUOTE_ID, SCRIPT_ID, SRC_ID)
UNGUARDED = os.environ.get("BPE_FORMGRADER_UNGUARDED") == "1"


def url(base: str, *parts: str) -> str:
    return base + "/".join(urllib.parse.quote(part, safe="") for part in parts)


def poison(root: Path) -> dict[str, str]:
    """Put the markup into the scratch course's gradebook and folders; returns the grading
    view's submission ids by name."""
    gradebook = Gradebook(f"sqlite:///{root / 'gradebook.db'}", "bpe-from-scratch")
    try:
        gradebook.add_notebook(NOTEBOOK, "bpe")
        for student in (*STUDENTS, "mallory"):
            names = {"first_name": FIRST, "last_name": LAST} if student == QUOTE_ID else {}
            gradebook.update_or_create_student(student, **names)
            gradebook.add_submission("bpe", student)
        ids = {}
        for student in STUDENTS:
            notebook = gradebook.find_submission_notebook(LESSON, "bpe", student)
            ids[student] = notebook.id
        ids["notebook"] = gradebook.find_submission_notebook(NOTEBOOK, "bpe", QUOTE_ID).id
    finally:
        gradebook.close()
    release = root / "release" / "bpe" / f"{LESSON}.ipynb"
    for student in STUDENTS:
        folder = root / "autograded" / student / "bpe"
        folder.mkdir(parents=True)
        shutil.copyfile(release, folder / f"{LESSON}.ipynb")
    shutil.copyfile(release, root / "autograded" / QUOTE_ID / "bpe" / f"{NOTEBOOK}.ipynb")
    write_submission(root, "mallory", {}, [f"{LESSON}.ipynb"])
    (root / PLANTED).write_text(f"{RUN};\n")
    return ids


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = make_scratch_course(tmp_path_factory.mktemp("formgrader-markup") / "course")
    return root, poison(root)


def start_server(root: Path, tmp: Path, guarded: bool) -> Iterator[str]:
    yield from formgrader_server(root, tmp, TOKEN, guarded and not UNGUARDED)


@pytest.fixture(scope="module")
def guarded(course, tmp_path_factory) -> Iterator[str]:
    yield from start_server(course[0], tmp_path_factory.mktemp("guarded"), guarded=True)


@pytest.fixture(scope="module")
def stock(course, tmp_path_factory) -> Iterator[str]:
    yield from start_server(course[0], tmp_path_factory.mktemp("stock"), guarded=False)


def pages(base: str, ids: dict[str, str]) -> dict[str, str]:
    """Every Formgrader page that shows the markup, by a name for the messages."""
    found = {}
    for n, student in enumerate(STUDENTS):
        found[f"student {n}"] = url(base, "formgrader", "manage_students", student)
        found[f"student {n} notebooks"] = url(base, "formgrader", "manage_students", student, "bpe")
        found[f"grading view {n}"] = url(base, "formgrader", "submissions", ids[student]) + "/"
    found["grading view of the notebook"] = (
        url(base, "formgrader", "submissions", ids["notebook"]) + "/"
    )
    found["mallory notebooks"] = url(base, "formgrader", "manage_students", "mallory", "bpe")
    found["notebook submissions"] = url(base, "formgrader", "gradebook", "bpe", NOTEBOOK)
    found["lesson submissions"] = url(base, "formgrader", "gradebook", "bpe", LESSON)
    found["assignment submissions"] = url(base, "formgrader", "manage_submissions", "bpe")
    found["students"] = url(base, "formgrader", "manage_students")
    found["unknown student link"] = url(base, "formgrader", "manage_students", UNKNOWN)
    return found


def visit(browser, address: str) -> dict:
    """Open ``address`` as the logged-in instructor; what ran, and the page's text."""
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        response = page.goto(address)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # an onerror fires after the failed image load
        return {
            "status": response.status if response else None,
            "title": page.title(),
            "dialogs": dialogs,
            "text": page.evaluate("document.body ? document.body.textContent : ''"),
            "handlers": page.evaluate("document.querySelectorAll('[onerror]').length"),
            "loading": page.evaluate("document.body.textContent.includes('Loading, please')"),
        }
    finally:
        context.close()


def ran(seen: dict) -> bool:
    return seen["title"] == "PWNED" or bool(seen["dialogs"]) or seen["handlers"] > 0


def test_markup_shows_as_text_and_runs_nowhere(browser, course, guarded) -> None:
    root, ids = course
    addresses = pages(guarded, ids)
    seen = {name: visit(browser, address) for name, address in addresses.items()}
    live = {name: s["title"] for name, s in seen.items() if ran(s)}
    assert live == {}, f"markup ran as script on {sorted(live)}"
    for n, student in enumerate(STUDENTS):
        # The grading view shows the names instead, when the gradebook has them.
        views = [f"grading view {n}"] if student != QUOTE_ID else []
        for name in (f"student {n}", f"student {n} notebooks", *views):
            assert seen[name]["status"] == 200, name
            assert student in seen[name]["text"], (name, "the id shows as text")
    assert f"{FIRST} {LAST}" in seen["grading view 0"]["text"], "the names show as text"
    for name in ("notebook submissions", "grading view of the notebook", "mallory notebooks"):
        assert NOTEBOOK in seen[name]["text"], (name, "the notebook's name shows as text")
    # The policy and the copies leave the pages working: their tables load (ids holding a "/"
    # break nbgrader's own API links, so those tables never do).
    working = ["student 0", "student 0 notebooks", "mallory notebooks", "notebook submissions"]
    working += ["lesson submissions", "assignment submissions", "students"]
    assert [name for name in working if seen[name]["loading"]] == []
    unknown = seen["unknown student link"]
    assert unknown["status"] == 404 and "No such student" in unknown["text"]


def test_the_students_file_is_inert(browser, course, guarded) -> None:
    request = urllib.request.Request(
        guarded + "files/" + PLANTED, headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        headers = response.headers
        assert response.read().decode() == f"{RUN};\n"
    assert headers["Content-Type"].startswith("text/plain"), headers["Content-Type"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in headers["Content-Security-Policy"].split(";")[3]
    # A tag the escaping missed, aimed at that file, on a Formgrader page: refused.
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto(url(guarded, "formgrader", "manage_students"))
        policy = page.evaluate(
            """src => new Promise(done => {
                document.addEventListener('securitypolicyviolation',
                    event => done(event.violatedDirective));
                const tag = document.createElement('script');
                tag.src = src;
                document.head.appendChild(tag);
                setTimeout(() => done('not refused'), 2000);
            })""",
            "/files/" + PLANTED,
        )
        assert policy.startswith("script-src"), policy
        assert dialogs == [] and "PWNED" not in page.title()
    finally:
        context.close()


def test_control_nbgraders_formgrader_alone_runs_the_markup(browser, course, stock) -> None:
    root, ids = course
    addresses = pages(stock, ids)
    expected_live = [
        "student 0",
        "student 1",
        "student 2",
        "student 0 notebooks",
        "grading view 0",
        "grading view of the notebook",
        "mallory notebooks",
        "notebook submissions",
        "unknown student link",
    ]
    live = [name for name in expected_live if ran(visit(browser, addresses[name]))]
    assert live == expected_live


def serve_as(role: str, tmp: Path) -> tuple[dict, str]:
    """Start a server with the hub's settings of ``role`` (instructor or student) on a course
    copy that holds the course's ``autograder``; returns the Formgrader page's headers and the
    server's log."""
    from hub import layout, roles

    folder = layout.HubFolder(tmp / "hub")
    layout.write_role_settings(folder, "bpe-from-scratch")
    course = tmp / "course"
    course.mkdir()
    (course / "autograder").symlink_to(ROOT / "autograder")
    settings = {
        "venv": sys.prefix,
        "instructor": "teacher",
        "course_root": str(course),
        "config_common": str(folder.common),
        "config_student": str(folder.student),
        "exchange": str(tmp / "exchange"),
    }
    env = lab.jupyter_env(tmp / "jupyter")
    env.update(roles.role_environment(settings, "teacher" if role == "instructor" else "pupil"))
    port = lab.free_port()
    command = [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}"]
    command += ["--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}", "--allow-root"]
    log = tmp / "server.log"
    process = lab.start([*command, f"--ServerApp.root_dir={course}"], course, env, log)
    try:
        base = f"http://127.0.0.1:{port}/"
        status = f"{base}api/status?token={TOKEN}"
        lab.wait_until(lambda: lab.answers(status), process, log, "the Jupyter server")
        request = urllib.request.Request(
            base + "formgrader/manage_students", headers={"Authorization": f"token {TOKEN}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                headers = dict(response.headers)
        except urllib.error.HTTPError as error:
            headers = dict(error.headers)
    finally:
        lab.stop(process)
    return headers, log.read_text()


def test_the_hubs_settings_turn_it_on_for_the_instructor_only(tmp_path) -> None:
    loaded = "autograder.formgrader | extension was successfully loaded"
    headers, log = serve_as("instructor", tmp_path / "instructor")
    assert loaded in log
    assert "/formgrader/static/" in headers["Content-Security-Policy"]
    headers, log = serve_as("student", tmp_path / "student")
    assert "autograder.formgrader" not in log and "formgrader/static" not in str(headers)
