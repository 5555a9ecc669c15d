"""The instructor's server renders and runs nothing under the course's student folders.

Jupyter's server and the extensions in the course's venv have routes that turn a file into a
page: nbconvert's exports (``nbconvert/<format>/<path>``, and ``nbconvert/<format>`` with a
notebook in the request), ``view/<path>`` (a page framing ``files/<path>``) and Voila's
``voila/render/<path>`` (which runs the notebook's code as the instructor), ``voila/files/<path>``
(an SVG goes out as an image that can hold script, with no login asked) and ``voila/tree/<path>``.
A file under ``submitted/``, ``autograded/`` or ``feedback/`` holds what a student wrote, so for
those paths each of these routes answers 403 with a plain-text message instead:

- ``StudentPaths`` is a tornado matcher placed first among the server's routes: it matches a
  request for one of those routes only when the path it names, decoded as the route decodes it
  (and decoded again, in case something downstream does), lies under a student folder, as
  ``headers.is_student_path`` decides (``..``, doubled slashes, links and another case of a
  folder's name taken into account). Every other request goes on to the route it was for.
- ``Refusal`` answers what it matched: 403, ``text/plain``, ``nosniff``, a policy that runs
  nothing, and a message that echoes nothing of the request.
- ``GuardedExport`` stands in front of nbconvert's POST route and refuses a notebook whose
  ``path`` is under a student folder.

Example: ``GET /nbconvert/html/submitted/ada/bpe/01_bpe_by_hand.ipynb`` answers 403, and so
does ``GET /nbconvert/html/notes/%2e%2e/submitted/ada/bpe/01_bpe_by_hand.ipynb``;
``GET /nbconvert/html/notebooks/01_bpe_by_hand.ipynb`` renders as before.

But: ``files/`` is not refused here; ``headers.StudentFiles`` sends those files as plain text.
The browser apps (``lab/tree/``, ``doc/tree/``, ``notebooks/``, ``edit/``, ``tree/``) and the
JSON APIs (``api/contents``, ``voila/api/contents``) are left as they are: the apps open a
notebook and draw it themselves, sanitizing an untrusted notebook's outputs, and JSON is not
rendered. A POSTed notebook that carries no path is converted as before: its content came from
a page that already acts with the instructor's session.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from jupyter_server.nbconvert.handlers import NbconvertPostHandler
from jupyter_server.utils import url_path_join
from tornado import httputil, routing, web

from autograder.formgrader.headers import PLAIN, is_student_path

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
        if any(is_student_path(self.settings, spelled) for spelled in spellings(path)):
            return {}
        return None


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


def export_route() -> tuple[str, type]:
    """nbconvert's POST route with ``GuardedExport`` (the pattern under the base URL)."""
    return (r"/nbconvert/(?P<format>\w+)", GuardedExport)


def refuse_student_paths(webapp: web.Application) -> None:
    """Put ``StudentPaths`` first among ``webapp``'s routes, whatever was added before."""
    webapp.default_router.rules.insert(0, routing.Rule(StudentPaths(webapp.settings), Refusal))
