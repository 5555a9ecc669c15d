"""The course's guard around nbgrader's Formgrader: student ids, names, notebook and file names
show as text, never run as markup.

A Jupyter server extension (``autograder.formgrader``, enabled next to nbgrader's own formgrader
extension). nbgrader 0.9 renders its pages through a Jinja environment that does not autoescape,
puts ids from the gradebook and from the URL into HTML and inside JavaScript strings, and draws
the grading view with nbconvert templates that do not escape either. In front of each of
nbgrader's page routes this extension puts a subclass of its handler that renders through an
autoescaping environment (the course's copies of the pages that need ``|tojson``, in
``templates/``, found first), draws the grading view with the course's copies of its nbconvert
templates (``templates/formgrade/``), and answers 404 for a student, assignment or notebook that
the gradebook does not hold. It serves the course's copy of the one script that showed a name as
markup (``static/js/``).

It also marks late work ("late by …", ``lateness``) on a student's submission, the grading view,
and, through ``static/js/late_marks.js``, the rows of the submissions list and of a student's
list of assignments; writes a student's name as the roster has it and a missing email as blank
(``static/js/student_names.js`` and the grading view's copy of nbgrader's macros), with room
between the grading view's columns (``static/css/formgrade.css``); lets the due-date dialog take
a time zone name and show an error instead of hanging (``lateness.DueDateAPI``, loaded by
``templates/manage_assignments.tpl`` with ``duedate_dialog.js``); answers a submission whose
notebook has no autograded copy (lesson 3 has no graded cells) with a 404 page saying why, its
next and previous leading back to the notebook's list (nbgrader answered 500); shows, above an
assignment's submissions, the grading service's progress, kept up to date
(``GradingProgressAPI``, drawn by ``static/js/grading_progress.js``); and keeps the server's
routes that render or run a file away from the student folders (``student_routes``).
Load order does not matter: the handlers read nbgrader's settings only when a request comes.

But: of nbgrader's JSON API it changes only that three submission routes carry ``late`` and
``seconds_late`` and that the assignment route reads a time zone name (it adds one route, the
service's progress); it does not stop markup that a student's notebook puts in the grading
view's cells (``autograder.plugins.outputs`` does, at autograde).
"""

from __future__ import annotations

import copy
import os
import sqlite3
from pathlib import Path
from typing import Any

import nbgrader
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader
from jupyter_server.utils import url_path_join
from nbconvert.exporters import HTMLExporter
from nbgrader.api import MissingEntry
from nbgrader.server_extensions.formgrader import apihandlers as nbgrader_api
from nbgrader.server_extensions.formgrader import handlers as nbgrader_handlers
from nbgrader.server_extensions.formgrader.base import BaseApiHandler, check_xsrf
from tornado import web

from autograder.formgrader.lateness import DueDateAPI, LateAPI, seconds_late
from autograder.formgrader.student_routes import (
    EXPORT_ROUTE,
    FormgraderPolicy,
    StudentFiles,
    refuse_student_paths,
)
from autograder.problems import late_words, printable

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
ENVIRONMENT = "bpe_formgrader_jinja2_env"
EXPORTER = "bpe_formgrader_exporter"
# The nbgrader whose templates and script the course copied.
COPIED_FROM = "0.9.6"


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "autograder.formgrader"}]


def environment() -> Environment:
    """nbgrader's pages with autoescaping, the course's copies found first; a course page
    may extend nbgrader's page of the same name as ``nbgrader/<name>``."""
    pages = FileSystemLoader([str(TEMPLATES), nbgrader_handlers.template_path])
    nbgraders = PrefixLoader({"nbgrader": FileSystemLoader(nbgrader_handlers.template_path)})
    return Environment(loader=ChoiceLoader([pages, nbgraders]), autoescape=True)


class CourseRendering(FormgraderPolicy):
    """Render with the course's environment and exporter, whatever nbgrader's settings hold
    (nbgrader's extension, loaded after this one, would overwrite them)."""

    def render(self, name: str, **ns: Any) -> str:
        return self.settings[ENVIRONMENT].get_template(name).render(**ns)

    @property
    def exporter(self) -> HTMLExporter:
        """The grading view's: nbgrader's settings, the course's ``formgrade`` copies first."""
        if EXPORTER not in self.settings:
            config = copy.deepcopy(self.settings["nbgrader_formgrader"].config)
            config.HTMLExporter.template_name = "formgrade"
            folders = [str(TEMPLATES), nbgrader_handlers.template_path]
            config.HTMLExporter.extra_template_basedirs = folders
            self.settings[EXPORTER] = HTMLExporter(config=config)
        return self.settings[EXPORTER]

    def must_exist(self, find: Any, what: str, *names: str) -> None:
        """404 for a name the gradebook does not hold (nbgrader shows any id from the URL)."""
        try:
            find(*names)
        except MissingEntry:
            # The reason is the page's heading; the id stays out of it, and out of the log.
            raise web.HTTPError(404, reason=f"No such {what}") from None


class StudentPage(CourseRendering, nbgrader_handlers.ManageStudentsAssignmentsHandler):
    def get(self, student_id: str) -> None:
        self.must_exist(self.gradebook.find_student, "student", student_id)
        super().get(student_id)


class ShowsLateness:
    """Mixed into a handler: its ``api`` is ``LateAPI``, built as nbgrader builds its own."""

    @property
    def api(self) -> LateAPI:
        level = self.log.level
        self.coursedir.parent.load_config_file()
        api = LateAPI(self.coursedir, self.authenticator, parent=self.coursedir.parent)
        api.log_level = level
        return api

    def late_by(self, assignment_id: str, student_id: str) -> str:
        # A gradebook of its own: the Formgrader's long-lived one may not yet see a due date
        # just set through the Edit dialog.
        with self.api.gradebook as gradebook:
            return late_words(seconds_late(gradebook, assignment_id, student_id, None))


class StudentNotebooksPage(
    ShowsLateness, CourseRendering, nbgrader_handlers.ManageStudentNotebookSubmissionsHandler
):
    def get(self, student_id: str, assignment_id: str) -> None:
        self.must_exist(self.gradebook.find_student, "student", student_id)
        self.must_exist(self.gradebook.find_assignment, "assignment", assignment_id)
        self.bpe_late = self.late_by(assignment_id, student_id)
        super().get(student_id, assignment_id)

    def render(self, name: str, **ns: Any) -> str:
        return super().render(name, late=getattr(self, "bpe_late", ""), **ns)


class WithLateness:
    """The grading view's exporter, handing the page how late the submission is."""

    def __init__(self, exporter: HTMLExporter, late: Any) -> None:
        self.exporter, self.late = exporter, late

    def from_filename(self, filename: str, resources: dict | None = None, **kw: Any) -> Any:
        resources = dict(resources or {})
        resources["bpe_late"] = self.late(resources["assignment_id"], resources["student"])
        return self.exporter.from_filename(filename, resources=resources, **kw)


NOT_AUTOGRADED = (
    "This notebook has no graded cells, so the course does not autograde it and there is "
    "nothing here to grade. The student's copy is in {submitted}."
)
NO_COPY = (
    "There is no autograded copy of this notebook for this student: it was not submitted, or "
    "it could not be read or graded (the summary that make autograde prints says which). What the "
    "student handed in is in {submitted}."
)


class GradingView(ShowsLateness, CourseRendering, nbgrader_handlers.SubmissionHandler):
    @property
    def exporter(self) -> WithLateness:
        return WithLateness(super().exporter, self.late_by)

    def render(self, name: str, **ns: Any) -> str:
        if name == "formgrade_404.tpl":  # the course's copy; nbgrader's cannot load
            ns["why"] = self.why_missing(ns["resources"])
        return super().render(name, **ns)

    def why_missing(self, resources: dict) -> str:
        """Why a submission's notebook has no autograded copy, in a sentence."""
        assignment, student = resources["assignment_id"], resources["student"]
        notebook = self.gradebook.find_notebook(resources["notebook_id"], assignment)
        folder = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
        submitted = os.path.relpath(folder, self.coursedir.root) + "/"
        graded = notebook.grade_cells or notebook.task_cells
        return (NO_COPY if graded else NOT_AUTOGRADED).format(submitted=submitted)


class WaysOn(CourseRendering, nbgrader_handlers.SubmissionNavigationHandler):
    """Next and previous from a grading view; from a submission with no autograded copy
    (nbgrader's own lists leave those out, and it answered 500), back to the notebook's list."""

    def get(self, submission_id: str, action: str) -> None:
        try:
            super().get(submission_id, action)
        except ValueError:
            submission = self.gradebook.find_submission_notebook_by_id(submission_id)
            back = self._assignment_notebook_list_url(
                submission.assignment.assignment.name, submission.notebook.name
            )
            self.redirect(back, permanent=False)


class NotebooksPage(CourseRendering, nbgrader_handlers.GradebookNotebooksHandler):
    def get(self, assignment_id: str) -> None:
        self.must_exist(self.gradebook.find_assignment, "assignment", assignment_id)
        super().get(assignment_id)


class SubmissionsPage(CourseRendering, nbgrader_handlers.GradebookNotebookSubmissionsHandler):
    def get(self, assignment_id: str, notebook_id: str) -> None:
        self.must_exist(self.gradebook.find_notebook, "notebook", notebook_id, assignment_id)
        super().get(assignment_id, notebook_id)


class SubmissionFiles(StudentFiles, CourseRendering, nbgrader_handlers.SubmissionFilesHandler):
    """Files of a submission's autograded folder, which the grading view links to."""

    def is_student_file(self) -> bool:
        return True


# The grading service's progress above an assignment's submissions: ``GradingProgressAPI``
# answers /formgrader/api/grading_progress with JSON for the logged-in instructor alone, from
# the same function as make grading-status (the store read-only), and grading_progress.js
# draws it as text. Names students chose go out made printable, and are never markup.
# A flood of refused entries must not make every poll of every open page heavy.
FAILURES_SHOWN = 50


def progress_record(course_root: Path) -> dict[str, Any]:
    """What the panel shows, as JSON-ready data; a store that cannot be read says why."""
    # Imported here: the grading service loads Dask and nbgrader's exchange, which a Jupyter
    # server that never opens this page need not load.
    from autograder.grading.service import NO_QUEUE, queue_path, read_progress

    try:
        found = read_progress(course_root)
    except (sqlite3.Error, OSError) as error:
        why = f"its queue {queue_path(course_root)} cannot be read ({printable(str(error))})"
        return _only(f"grading service: {why}; make grading-status in the course folder says more")
    if found is None:
        return _only(NO_QUEUE)
    shown = found.failures[-FAILURES_SHOWN:]
    return {
        "line": found.line(),
        "counts": list(found.counts.items()),
        "wait": found.wait_words(),
        "failures": [
            {
                "state": entry.state,
                "entry": printable(entry.name)[:120],
                "reason": printable(entry.reason),
            }
            for entry in shown
        ],
        "more_failures": len(found.failures) - len(shown),
    }


def _only(line: str) -> dict[str, Any]:
    return {"line": line, "counts": [], "wait": "", "failures": [], "more_failures": 0}


class GradingProgressAPI(BaseApiHandler):
    """The service's progress, for the Formgrader's logged-in instructor."""

    async def prepare(self) -> None:
        # A request without the Formgrader's login gets a plain 403, as Jupyter's JSON APIs
        # answer, not a redirect to the login page.
        await super().prepare(_redirect_to_login=False)

    @check_xsrf
    def get(self) -> None:
        if not self.current_user:  # prepare refused it already; never answered without one
            raise web.HTTPError(403)
        record = progress_record(Path(self.coursedir.root).resolve())
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(record)


CHECKED = {
    nbgrader_handlers.ManageStudentsAssignmentsHandler: StudentPage,
    nbgrader_handlers.ManageStudentNotebookSubmissionsHandler: StudentNotebooksPage,
    nbgrader_handlers.GradebookNotebooksHandler: NotebooksPage,
    nbgrader_handlers.GradebookNotebookSubmissionsHandler: SubmissionsPage,
    nbgrader_handlers.SubmissionFilesHandler: SubmissionFiles,
    nbgrader_handlers.SubmissionHandler: GradingView,
    nbgrader_handlers.SubmissionNavigationHandler: WaysOn,
}
# The API routes whose submission records say how late each is.
LATE_RECORDS = (
    nbgrader_api.SubmissionCollectionHandler,
    nbgrader_api.SubmissionHandler,
    nbgrader_api.StudentSubmissionCollectionHandler,
)


def course_handler(handler: type) -> type:
    """The course's subclass of one of nbgrader's handlers (static files are left as they are)."""
    if handler in CHECKED:
        return CHECKED[handler]
    if not issubclass(handler, nbgrader_handlers.BaseHandler):
        return handler
    return type(f"Course{handler.__name__}", (CourseRendering, handler), {})


def routes(serverapp: Any) -> list[tuple]:
    """nbgrader's page routes with the course's handlers, the course's script, /files/ and
    nbconvert's POST route."""
    found = [
        (pattern, course_handler(handler), *rest)
        for pattern, handler, *rest in nbgrader_handlers.default_handlers
    ]
    found += [
        (pattern, type(f"Course{handler.__name__}", (ShowsLateness, handler), {}), *rest)
        for pattern, handler, *rest in nbgrader_api.default_handlers
        if handler in LATE_RECORDS
    ]
    found.append((r"/formgrader/api/assignment/([^/]+)", DueDateAPI))
    found.append((r"/formgrader/api/grading_progress", GradingProgressAPI))
    static = {"path": str(STATIC)}
    found.append((r"/formgrader/course_static/(.*)", web.StaticFileHandler, static))
    contents = serverapp.contents_manager
    handler = contents.files_handler_class  # student files sent inert
    files = type(f"Course{handler.__name__}", (StudentFiles, handler), {})
    found.append((r"/files/(.*)", files, contents.files_handler_params))
    found.append(EXPORT_ROUTE)
    base_url = serverapp.web_app.settings["base_url"]
    return [(url_path_join(base_url, pattern.lstrip("/")), *rest) for pattern, *rest in found]


def in_front(webapp: web.Application, rules: list[tuple]) -> None:
    """Add ``rules`` ahead of every route added so far: tornado takes the first group of
    routes that matches, and nbgrader's extension may have added its own already."""
    before = list(webapp.default_router.rules)
    webapp.add_handlers(".*$", rules)
    added = [rule for rule in webapp.default_router.rules if rule not in before]
    for rule in added:
        webapp.default_router.rules.remove(rule)
    webapp.default_router.rules[0:0] = added


def _load_jupyter_server_extension(serverapp: Any) -> None:
    if nbgrader.__version__ != COPIED_FROM:
        serverapp.log.warning(
            "autograder.formgrader: its templates are copies of nbgrader %s's, this is %s; "
            "compare them with nbgrader's before relying on the Formgrader",
            COPIED_FROM,
            nbgrader.__version__,
        )
    webapp = serverapp.web_app
    webapp.settings[ENVIRONMENT] = environment()
    in_front(webapp, routes(serverapp))
    refuse_student_paths(webapp)
    serverapp.log.info("autograder.formgrader: the Formgrader's pages escape what they show")
