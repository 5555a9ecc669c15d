"""The instructor's server renders and runs nothing under the course's student folders, and
the Formgrader's pages run only the Formgrader's own scripts.

A file under ``submitted/``, ``autograded/`` or ``feedback/`` holds what a student wrote. The
routes that turn a file into a page answer 403 with a plain-text message for such a path:
nbconvert's exports (``nbconvert/<format>/<path>``, and ``nbconvert/<format>`` with a notebook in
the request), ``view/<path>`` (a page framing ``files/<path>``), and Voila's
``voila/render/<path>`` (which runs the notebook's code as the instructor), ``voila/files/<path>``
(an SVG goes out as an image that can hold script, with no login asked) and ``voila/tree/<path>``.

- ``StudentPaths``, a tornado matcher placed first among the server's routes, matches a request
  for one of those routes when the path it names, decoded as the route decodes it (and again, in
  case something downstream does), lies under a student folder (``is_student_path``: ``..``,
  doubled slashes, links and another case of a folder's name count). ``Refusal`` answers it:
  403, ``text/plain``, ``nosniff``, a policy that runs nothing, a message that echoes nothing.
- ``GuardedExport``, in front of nbconvert's POST route, refuses a notebook whose ``path`` is
  under a student folder.
- ``StudentFiles``: such a file, served by ``files/`` or the grading view's file route, goes out
  as ``text/plain`` (raster images keep their type) with ``nosniff``, so no page can load it as a
  script or a style sheet, and with a sandboxing policy, so opened alone it runs nothing either.
- ``FormgraderPolicy``: the Formgrader's pages get a Content-Security-Policy whose scripts come
  only from the Formgrader's static folders (nbgrader's and the course's) or are inline: a
  ``<script src>`` that markup slipped into a page, aimed at a student's file under ``files/``,
  is refused, and so are plugins, ``<base>`` and forms sent elsewhere.

Example: ``GET /nbconvert/html/submitted/ada/bpe/01_bpe_by_hand.ipynb`` answers 403, and so
does ``GET /nbconvert/html/notes/%2e%2e/submitted/ada/bpe/01_bpe_by_hand.ipynb``;
``GET /nbconvert/html/notebooks/01_bpe_by_hand.ipynb`` renders as before.

But: the browser apps (``lab/tree/``, ``doc/tree/``, ``notebooks/``, ``edit/``, ``tree/``) and the
JSON APIs (``api/contents``, ``voila/api/contents``) are left as they are: the apps draw a
notebook themselves, sanitizing an untrusted notebook's outputs, and JSON is not rendered. A
POSTed notebook that carries no path is converted as before: its page already acts with the
instructor's session. Inline scripts stay allowed, since every Formgrader page has some and its
buttons use inline ``onclick`` handlers (``script-src 'self'`` left every table at "Loading", and
still let a ``<script src>`` from ``files/``, being ``'self'``, run; nonces would mean copying
every page and nbconvert's grading template): an inline script that markup managed to add would
run, and the escaping (``autograder.formgrader``) is what stops that. The grading view's
MathJax, from a CDN, is refused (offline it never loaded). The instructor's own files
(``source/``, ``release/``, anywhere else) are served as Jupyter serves them.
"""

from __future__ import annotations

import mimetypes
import os
import re
from typing import Any
from urllib.parse import unquote

from jupyter_server.nbconvert.handlers import NbconvertPostHandler
from jupyter_server.utils import url_path_join
from nbgrader.apps import NbGrader
from nbgrader.coursedir import CourseDirectory
from tornado import httputil, routing, web

# Types a browser never runs as script or style, whatever the page that loads them.
INERT_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
PLAIN = "text/plain; charset=UTF-8"
STUDENT_FILE_POLICY = (
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox; "
    "frame-ancestors 'self'"
)
# The Formgrader's own script folders, as paths under the server's base URL.
SCRIPT_FOLDERS = ("formgrader/static/", "formgrader/course_static/")


class FormgraderPolicy:
    """Mixed into the course's Formgrader handlers (``autograder.formgrader``)."""

    @property
    def content_security_policy(self) -> str:
        origin = f"{self.request.protocol}://{self.request.host}"
        base_url = self.settings.get("base_url", "/")  # nbgrader's ``base_url`` drops the "/"
        scripts = " ".join(origin + url_path_join(base_url, folder) for folder in SCRIPT_FOLDERS)
        return (
            f"default-src 'self'; script-src 'unsafe-inline' {scripts}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'self'; "
            # Jupyter's own policy reports here too: refusals show in the server's log.
            f"report-uri {url_path_join(base_url, 'api/security/csp-report')}"
        )


def student_folders(settings: dict) -> list[str]:
    """The course's folders that hold what students wrote, resolved."""
    formgrader = settings.get("nbgrader_formgrader")
    if formgrader is not None:
        course = formgrader.coursedir
    else:  # no formgrader extension: as nbgrader's configuration in the server's folder says
        app = NbGrader()
        app.load_config_file()
        course = CourseDirectory(config=app.config)
    names = (course.submitted_directory, course.autograded_directory, course.feedback_directory)
    return [os.path.realpath(os.path.join(course.root, name)) for name in names]


def is_within(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


def is_student_path(settings: dict, relative: str) -> bool:
    """Whether ``relative`` (a path under the server's root, as a route received it) names a
    file or folder under the course's ``submitted/``, ``autograded/`` or ``feedback/``.

    Both the path as asked and where its links lead count, and so does any folder on the way
    that is one of them under another name (another case, on a file system that ignores case).
    A path the system cannot even look at (a NUL byte) counts too.
    """
    root = os.path.abspath(os.path.expanduser(settings.get("server_root_dir") or os.getcwd()))
    folders = student_folders(settings)
    asked = os.path.normpath(os.path.join(root, relative.lstrip("/")))
    try:
        resolved = os.path.realpath(asked)
        if is_within(asked, folders) or is_within(resolved, folders):
            return True
        return _same_folder_on_the_way(resolved, folders)
    except (ValueError, OSError):
        return True


def _same_folder_on_the_way(path: str, folders: list[str]) -> bool:
    known = [os.stat(folder) for folder in folders if os.path.isdir(folder)]
    while True:
        try:
            if any(os.path.samestat(os.stat(path), folder) for folder in known):
                return True
        except OSError:
            pass  # not there (yet): its parents may be
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


class StudentFiles:
    """Mixed into a static-file handler: student files go out inert."""

    def is_student_file(self) -> bool:
        if not hasattr(self, "_bpe_student_file"):
            path = self.path_args[0] if self.path_args else ""
            self._bpe_student_file = is_student_path(self.settings, path)
        return self._bpe_student_file

    def flush(self, *args: Any, **kwargs: Any) -> Any:
        # The headers are set here, not in set_default_headers, which runs before the route's
        # arguments are known; every file handler sets its own type before its first flush.
        if getattr(self, "path_args", None) is not None and self.is_student_file():
            self.set_header("Content-Security-Policy", STUDENT_FILE_POLICY)
            name = self.path_args[0] if self.path_args else ""
            if mimetypes.guess_type(name)[0] not in INERT_TYPES:
                self.set_header("Content-Type", PLAIN)
            self.set_header("X-Content-Type-Options", "nosniff")
        return super().flush(*args, **kwargs)


# The routes that render or run a file, each capturing the file's path (a pattern of the
# path after the server's base URL; wider than the route's own, so no spelling slips by).
RENDERING_ROUTES = (
    r"nbconvert/[^/]*(/.*)",
    r"view(/.*)",
    r"voila/render(/.*)",
    r"voila/files(/.*)",
    r"voila/tree(/.*)",
)
REFUSAL = (
    "403: this Jupyter server does not render or run files under the course's submitted/, "
    "autograded/ or feedback/ folders: they hold what students wrote. Read such a file as "
    "text through files/ (the same path after files/), or grade it in the Formgrader.\n"
)
REFUSAL_POLICY = "default-src 'none'; sandbox"
# Decode this many more times, in case a route or the contents manager decodes again.
EXTRA_DECODINGS = 3


def spellings(path: str) -> list[str]:
    """``path`` decoded once (as tornado decodes a route's group), then again while it changes.

    >>> spellings("/submitted%252fada")
    ['/submitted%2fada', '/submitted/ada']
    """
    found = [unquote(path)]
    for _ in range(EXTRA_DECODINGS):
        again = unquote(found[-1])
        if again == found[-1]:
            break
        found.append(again)
    return found


class StudentPaths(routing.Matcher):
    """Matches a request for a rendering route whose path lies under a student folder."""

    def __init__(self, settings: dict) -> None:
        self.settings = settings
        base = re.escape(url_path_join(settings.get("base_url", "/"), "/"))
        routes = "|".join(RENDERING_ROUTES)
        # Any case: a server that matched routes without case must not slip by either.
        self.pattern = re.compile(f"{base}(?:{routes})$", re.IGNORECASE | re.DOTALL)

    def match(self, request: httputil.HTTPServerRequest) -> dict[str, Any] | None:
        found = self.pattern.match(request.path or "")
        if found is None:
            return None
        path = next(group for group in found.groups() if group is not None)
        student = any(is_student_path(self.settings, spelled) for spelled in spellings(path))
        return {} if student else None


def refuse(handler: web.RequestHandler) -> None:
    handler.clear()
    handler.set_status(403)
    handler.set_header("Content-Type", PLAIN)
    handler.set_header("X-Content-Type-Options", "nosniff")
    handler.set_header("Content-Security-Policy", REFUSAL_POLICY)
    handler.finish(REFUSAL)


class Refusal(web.RequestHandler):
    """The answer to whatever ``StudentPaths`` matched, whatever the method."""

    SUPPORTED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

    def check_xsrf_cookie(self) -> None:
        """Nothing to check: every request is refused (tornado would refuse a POST without
        the cookie first, as an HTML page)."""

    def prepare(self) -> None:
        refuse(self)


class GuardedExport(NbconvertPostHandler):
    """nbconvert's POST route, refusing a notebook whose path is under a student folder."""

    async def post(self, format: str) -> None:
        model = self.get_json_body()
        path = model.get("path") if isinstance(model, dict) else None
        if isinstance(path, str) and is_student_path(self.settings, path):
            refuse(self)
            return
        await super().post(format)


# nbconvert's POST route with ``GuardedExport`` (the pattern under the base URL).
EXPORT_ROUTE = (r"/nbconvert/(?P<format>\w+)", GuardedExport)


def refuse_student_paths(webapp: web.Application) -> None:
    """Put ``StudentPaths`` first among ``webapp``'s routes, whatever was added before."""
    webapp.default_router.rules.insert(0, routing.Rule(StudentPaths(webapp.settings), Refusal))
