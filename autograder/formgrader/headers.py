"""The second layer behind the Formgrader's escaping: what the browser may run on the
instructor's origin.

- ``FormgraderPolicy``: the Formgrader's pages get a Content-Security-Policy whose scripts may
  come only from the Formgrader's own static folders (nbgrader's and the course's) or be inline.
  A ``<script src>`` that markup slipped into a page, aimed at a student's file under
  ``files/``, is refused, and so are plugins, ``<base>`` and forms sent elsewhere.
- ``StudentFiles``: a file under the course's ``submitted/``, ``autograded/`` or ``feedback/``
  folder, served by ``files/`` or by the grading view's file route, is sent as ``text/plain``
  (raster images keep their type) with ``nosniff``, so no page can load it as a script or a
  style sheet, and with a sandboxing policy, so opened on its own it runs nothing either.

But: inline scripts stay allowed, since every Formgrader page has some and its buttons use
inline ``onclick`` handlers (``script-src 'self'`` left every page's table at "Loading", and
still let a ``<script src>`` from ``files/`` run, ``files/`` being ``'self'``; nonces would mean
copying every page and nbconvert's own grading template). An inline script that markup managed
to add would still run and could still call the server's API: the escaping
(``autograder.formgrader``) is what stops that. The grading view's MathJax, which nbgrader loads
from a CDN, is refused (the course runs offline, where it never loaded). Files of the
instructor's own (``source/``, ``release/``, anywhere else) are served as Jupyter serves them.
"""

from __future__ import annotations

import mimetypes
import os
from typing import Any

from jupyter_server.utils import url_path_join

# Types a browser never runs as script or style, whatever the page that loads them.
INERT_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
PLAIN = "text/plain; charset=UTF-8"
STUDENT_FILE_POLICY = (
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox; "
    "frame-ancestors 'self'"
)
# The Formgrader's own script folders, as paths under the server's base URL.
SCRIPT_FOLDERS = ("formgrader/static/", "formgrader/course_static/")


def formgrader_policy(origin: str, base_url: str) -> str:
    """The Content-Security-Policy of a Formgrader page served from ``origin``."""
    scripts = " ".join(origin + url_path_join(base_url, folder) for folder in SCRIPT_FOLDERS)
    return (
        f"default-src 'self'; script-src 'unsafe-inline' {scripts}; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'self'; "
        # Jupyter's own policy reports here too: refusals show in the server's log.
        f"report-uri {url_path_join(base_url, 'api/security/csp-report')}"
    )


class FormgraderPolicy:
    """Mixed into the course's Formgrader handlers (``autograder.formgrader``)."""

    @property
    def content_security_policy(self) -> str:
        origin = f"{self.request.protocol}://{self.request.host}"
        return formgrader_policy(origin, self.settings.get("base_url", "/"))


def student_folders(settings: dict) -> list[str]:
    """The course's folders that hold what students wrote, resolved."""
    formgrader = settings.get("nbgrader_formgrader")
    course = formgrader.coursedir if formgrader is not None else _course_without_formgrader()
    names = (course.submitted_directory, course.autograded_directory, course.feedback_directory)
    return [os.path.realpath(os.path.join(course.root, name)) for name in names]


def _course_without_formgrader() -> Any:
    """The course folder as nbgrader's configuration in the server's folder names it, for a
    server without nbgrader's formgrader extension."""
    from nbgrader.apps import NbGrader
    from nbgrader.coursedir import CourseDirectory

    app = NbGrader()
    app.load_config_file()
    return CourseDirectory(config=app.config)


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
        plain = [os.path.normpath(folder) for folder in folders]
        if is_within(asked, plain) or is_within(resolved, folders):
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
            self._bpe_student_file = self._under_student_folder()
        return self._bpe_student_file

    def _under_student_folder(self) -> bool:
        return is_student_path(self.settings, self.path_args[0] if self.path_args else "")

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


def files_handler(handler: type) -> type:
    """The server's ``files/`` handler with student files sent inert."""
    return type(f"Course{handler.__name__}", (StudentFiles, handler), {})
