"""Every Formgrader page of a graded course, asked of a running server, for tests.

:func:`formgrader_pages` lists, from the course's gradebook, every page kind of nbgrader's
Formgrader for every student and every notebook of the assignment: the lists, each student's
pages, each notebook's submissions, every grading view with its four ways on (next, previous,
next and previous failing), and the JSON routes those pages load their tables from.
:func:`answer` asks the server for one of them as the logged-in instructor, following
redirects, and returns the status and the text; :func:`answer_every_page` asks for them all.

But: it checks nothing itself, and starts no server (``formgrader_server`` does).
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from nbgrader.api import Gradebook

ASSIGNMENT = "bpe"
WAYS_ON = ("next", "prev", "next_incorrect", "prev_incorrect")


def _url(*parts: str) -> str:
    return "/".join(urllib.parse.quote(part, safe="") for part in parts)


def formgrader_pages(root: Path) -> dict[tuple[str, str, str], str]:
    """Each page's address under the server's base URL, keyed by (kind, student, notebook);
    an empty student or notebook where the page has none."""
    pages = {
        ("home", "", ""): "formgrader/",
        ("assignments", "", ""): "formgrader/manage_assignments",
        ("submissions of the assignment", "", ""): _url(
            "formgrader", "manage_submissions", ASSIGNMENT
        ),
        ("gradebook", "", ""): "formgrader/gradebook",
        ("notebooks", "", ""): _url("formgrader", "gradebook", ASSIGNMENT),
        ("students", "", ""): "formgrader/manage_students",
        ("api students", "", ""): "formgrader/api/students",
        ("api notebooks", "", ""): _url("formgrader", "api", "notebooks", ASSIGNMENT),
        ("api submissions", "", ""): _url("formgrader", "api", "submissions", ASSIGNMENT),
    }
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        notebooks = [notebook.name for notebook in gradebook.find_assignment(ASSIGNMENT).notebooks]
        for notebook in notebooks:
            pages[("submissions of the notebook", "", notebook)] = _url(
                "formgrader", "gradebook", ASSIGNMENT, notebook
            )
            pages[("api submitted notebooks", "", notebook)] = _url(
                "formgrader", "api", "submitted_notebooks", ASSIGNMENT, notebook
            )
        for student in gradebook.students:
            sid = student.id
            pages[("student", sid, "")] = _url("formgrader", "manage_students", sid)
            pages[("student's notebooks", sid, "")] = _url(
                "formgrader", "manage_students", sid, ASSIGNMENT
            )
            pages[("api student", sid, "")] = _url("formgrader", "api", "student", sid)
            pages[("api student's notebooks", sid, "")] = _url(
                "formgrader", "api", "student_notebook_submissions", sid, ASSIGNMENT
            )
            for notebook in notebooks:
                submitted = gradebook.find_submission_notebook(notebook, ASSIGNMENT, sid)
                view = _url("formgrader", "submissions", submitted.id)
                pages[("grading view", sid, notebook)] = view + "/"
                for way in WAYS_ON:
                    pages[(f"grading view {way}", sid, notebook)] = f"{view}/{way}"
                query = urllib.parse.urlencode({"submission_id": submitted.id})
                pages[("api grades", sid, notebook)] = f"formgrader/api/grades?{query}"
                pages[("api comments", sid, notebook)] = f"formgrader/api/comments?{query}"
    return pages


def answer(base: str, token: str, address: str) -> tuple[int, str]:
    """The status and text of ``base + address`` for the instructor, redirects followed."""
    request = urllib.request.Request(base + address, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class _Unfollowed(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the redirect reaches the caller as an HTTPError with its Location


def _redirect(base: str, token: str, address: str) -> str:
    """Where ``base + address`` sends the instructor, as an address under ``base``."""
    request = urllib.request.Request(base + address, headers={"Authorization": f"token {token}"})
    opener = urllib.request.build_opener(_Unfollowed)
    try:
        with opener.open(request, timeout=60) as response:
            raise AssertionError(f"{address} answered {response.status}, not a redirect")
    except urllib.error.HTTPError as error:
        assert error.code in (301, 302, 303, 307), (address, error.code)
        location = urllib.parse.urlsplit(error.headers["Location"])
    target = location.path.removeprefix(urllib.parse.urlsplit(base).path)
    return target + (f"?{location.query}" if location.query else "")


def answer_every_page(
    base: str, token: str, pages: dict[tuple[str, str, str], str]
) -> dict[tuple[str, str, str], tuple[int, str]]:
    """:func:`answer` for each of ``pages``.

    Each way on from a grading view (``WAYS_ON``) is a redirect to another grading view or
    to the notebook's list, both among ``pages``: it is asked without following, and answers
    what its target answered. Following it would draw a submitted notebook again, the dearest
    page of all, four times over.
    """
    ways = {key for key in pages if key[0].removeprefix("grading view ") in WAYS_ON}
    seen = {key: answer(base, token, pages[key]) for key in pages if key not in ways}
    by_address = {pages[key]: result for key, result in seen.items()}
    for key in ways:
        target = _redirect(base, token, pages[key])
        if target not in by_address:
            by_address[target] = answer(base, token, target)
        seen[key] = by_address[target]
    return seen
