"""No route of the instructor's Jupyter server renders or runs a student's file, in Chromium.

A small course folder served as ``make lab`` serves the course (JupyterLab, Notebook 7, Voila's
server extension, nbgrader's formgrader and the course's ``autograder.formgrader``). Under
``submitted/``, ``autograded/`` and ``feedback/`` lies a student's notebook whose stored
outputs and markdown hold an ``<img onerror>`` and a ``<script>``, and whose one code cell, if
anything ran it, would leave a marker file; beside them an HTML page and an SVG image with a
script. Route by route (nbconvert's exporters, ``view/``, ``files/``, Voila's ``render/``,
``files/`` and ``tree/``, and the same paths spelled with ``%2e%2e``, an encoded letter, a
doubled slash, another case and a link to ``submitted/``), Chromium opens the page: no script
runs in any frame and no marker appears; every answer is a refusal (403, plain text) or plain
text. JupyterLab and Notebook 7, which open the notebook in the browser app, run none of it
either (they sanitize an untrusted notebook's outputs). The controls: the same notebook outside
those folders still renders on nbconvert (and its script runs there, so the check can see a
script run), and Voila runs its code.

But: the Formgrader's own pages are tests/test_formgrader_markup.py's; no hub is started.
"""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from playwright.sync_api import Error as PlaywrightError

from course_fixtures.jupyter_servers import formgrader_server
from tests import test_browser as lab
from tests.test_browser import ROOT

browser = lab.browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKEN = "server-routes-test"
RUN = "console.log('PWNED');window.PWNED=1"
MARKUP = f'<img src=x onerror="{RUN}"><script>{RUN}</script>'
NOTEBOOK = "01_bpe_by_hand.ipynb"
STUDENT_NOTEBOOKS = [f"{folder}/mallory/bpe/{NOTEBOOK}" for folder in ("submitted", "autograded")]
STUDENT_NOTEBOOKS.append(f"feedback/mallory/bpe/{NOTEBOOK}")
PAGE = "feedback/mallory/bpe/01_bpe_by_hand.html"
IMAGE = "submitted/mallory/bpe/drawing.svg"
CONTROL = "control.ipynb"
REFUSED = "does not render or run"


def payload(marker: Path) -> nbformat.NotebookNode:
    """A notebook that shows ``MARKUP`` from its stored outputs and writes ``marker`` if run."""
    code = new_code_cell(f"import pathlib\npathlib.Path({str(marker)!r}).touch()")
    code.outputs = [new_output("display_data", data={"text/html": MARKUP, "text/plain": "x"})]
    code.execution_count = 1
    notebook = new_notebook(cells=[new_markdown_cell(MARKUP), code])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return notebook


def marker_for(markers: Path, path: str) -> Path:
    return markers / path.replace("/", "_")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The course folder and the folder its markers would land in."""
    base = tmp_path_factory.mktemp("server-routes")
    root, markers = base / "course", base / "markers"
    root.mkdir()
    markers.mkdir()
    shutil.copyfile(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    for path in (*STUDENT_NOTEBOOKS, CONTROL):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(payload(marker_for(markers, path)), root / path)
    (root / PAGE).write_text(f"<!DOCTYPE html><html><body>{MARKUP}</body></html>")
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><script>{RUN}</script></svg>'
    (root / IMAGE).write_text(svg)
    # A link of the instructor's own that leads into submitted/.
    (root / "alias").symlink_to("submitted")
    return root, markers


@pytest.fixture(scope="module")
def server(course, tmp_path_factory) -> Iterator[str]:
    yield from formgrader_server(course[0], tmp_path_factory.mktemp("server"), TOKEN, lab_too=True)


def spellings(path: str) -> list[str]:
    """``path`` as asked plainly and in the ways a guard on the literal text would miss."""
    folder, rest = path.split("/", 1)
    return [
        path,
        f"nowhere/%2e%2e/{path}",
        f"%{ord(folder[0]):02x}{folder[1:]}/{rest}",
        f"{folder}//{rest}",
        f"{folder.upper()}/{rest}",
        f"alias/{rest}" if folder == "submitted" else f"./{path}",
    ]


def routes() -> dict[str, str]:
    """Every route that could render or run a student's file, by a name for the messages."""
    found = {}
    for path in STUDENT_NOTEBOOKS:
        for exporter in ("html", "slides", "markdown", "script", "notebook"):
            found[f"nbconvert {exporter} {path}"] = f"nbconvert/{exporter}/{path}?download=false"
        found[f"voila {path}"] = f"voila/render/{path}"
        found[f"view {path}"] = f"view/{path}"
        found[f"files {path}"] = f"files/{path}"
    # The folders share one check: the other spellings of a path are tried on submitted/.
    for n, spelled in enumerate(spellings(STUDENT_NOTEBOOKS[0])[1:]):
        found[f"nbconvert html spelled {n}"] = f"nbconvert/html/{spelled}?download=false"
        found[f"voila spelled {n}"] = f"voila/render/{spelled}"
    for path in (PAGE, IMAGE):
        found[f"files {path}"] = f"files/{path}"
        found[f"view {path}"] = f"view/{path}"
        found[f"voila files {path}"] = f"voila/files/{path}"
    found["voila tree"] = "voila/tree/submitted/mallory/bpe"
    return found


def fetch(address: str, body: bytes | None = None, method: str | None = None) -> tuple:
    headers = {"Authorization": f"token {TOKEN}"}
    request = urllib.request.Request(address, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


@pytest.fixture(scope="module")
def instructor(browser) -> Iterator[tuple]:
    """A tab logged in as the instructor, and the list of what its pages say and alert."""
    context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
    page = context.new_page()
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text))
    page.on("dialog", lambda dialog: answer_dialog(dialog, said))
    yield page, said
    context.close()


def answer_dialog(dialog, said: list[str]) -> None:
    if dialog.type == "beforeunload":  # Lab asks before a page with a kernel goes
        dialog.accept()
    else:
        said.append(dialog.message)
        dialog.dismiss()


def leave(page) -> None:
    """An empty page, so that what a page does as it goes counts for it, not the next."""
    page.goto("about:blank")


def visit(instructor: tuple, address: str, settle_on: str | None = None) -> dict:
    """Open ``address`` in the instructor's tab; what ran in any of its frames."""
    page, said = instructor
    said.clear()
    try:
        response = page.goto(address, timeout=90_000)
    except PlaywrightError as error:  # a type the browser downloads, not shows
        leave(page)
        return {"status": str(error).splitlines()[0], "ran": "PWNED" in said}
    # The load event comes after every inline script and every failed image's onerror.
    if settle_on:  # an app that draws the notebook after it loads
        page.wait_for_selector(settle_on, timeout=90_000)
    page.wait_for_timeout(200)
    flags = [frame.evaluate("Boolean(window.PWNED)") for frame in page.frames]
    ran = any(flags) or "PWNED" in said
    leave(page)
    return {"status": response.status if response else None, "ran": ran or "PWNED" in said}


def test_no_route_renders_or_runs_a_students_file(instructor, course, server) -> None:
    root, markers = course
    seen = {name: visit(instructor, server + address) for name, address in routes().items()}
    ran = sorted(name for name, s in seen.items() if s["ran"])
    assert ran == [], f"a student's script ran on {ran}"
    ran = [path for path in STUDENT_NOTEBOOKS if marker_for(markers, path).exists()]
    assert ran == [], "a student's code cell ran"
    rendered = []
    for name, address in routes().items():
        status, headers, body = fetch(server + address)
        plain = headers.get("Content-Type", "").startswith("text/plain")
        inert = plain and headers.get("X-Content-Type-Options") == "nosniff"
        if status == 403:
            assert inert and REFUSED in body, (name, headers, body[:300])
        elif status not in (301, 302, 404) and not inert:
            rendered.append((name, status, headers.get("Content-Type")))
    assert rendered == [], f"answered other than as text: {rendered}"
    # Plain spellings are refused, not merely missing.
    for address in (f"nbconvert/html/{STUDENT_NOTEBOOKS[0]}", f"voila/render/{IMAGE}"):
        assert fetch(server + address)[0] == 403, address
    # Whatever the method (tornado itself would refuse a POST without its cookie as HTML).
    for method in ("HEAD", "POST", "DELETE"):
        status, headers, _ = fetch(server + f"voila/render/{IMAGE}", method=method)
        assert status == 403 and headers["Content-Type"].startswith("text/plain"), method


def test_an_export_posted_with_a_students_path_is_refused(course, server) -> None:
    root = course[0]
    for path, expected in ((STUDENT_NOTEBOOKS[0], 403), (CONTROL, 200)):
        content = nbformat.read(root / path, as_version=4)  # its text joined, as Lab sends it
        model = {"name": NOTEBOOK, "path": path, "content": content}
        status, headers, body = fetch(server + "nbconvert/html", json.dumps(model).encode())
        assert status == expected, (path, status, body[:300])


def test_the_browser_apps_run_none_of_it(instructor, server) -> None:
    path = STUDENT_NOTEBOOKS[0]
    for app in ("lab/tree", "notebooks"):
        seen = visit(instructor, f"{server}{app}/{path}", settle_on=".jp-OutputArea-output")
        assert seen["status"] == 200 and not seen["ran"], (app, seen)


def test_control_the_same_notebook_elsewhere_still_renders(instructor, course, server) -> None:
    root, markers = course
    status, headers, body = fetch(f"{server}nbconvert/html/{CONTROL}?download=false")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "onerror" in body
    # The check sees a script run when one does: the control's runs on nbconvert's page.
    assert visit(instructor, f"{server}nbconvert/html/{CONTROL}?download=false")["ran"]
    visit(instructor, f"{server}voila/render/{CONTROL}")
    assert marker_for(markers, CONTROL).exists(), "Voila ran the control's code cell"
