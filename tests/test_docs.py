"""The course's website: ``make docs`` builds it offline from a clean copy, and it holds up.

The slow tests share one build: the files git tracks are copied, as this tree has them, into a
private temporary folder with ``.venv`` linked (as ``tests.support.course_copy`` does), and
``make docs`` runs there from nothing, as in a fresh clone (no cached lesson runs, no site).
Then: every relative link and image of every page resolves (the file, and the ``#id`` on
it); nothing on any page or stylesheet loads from a network address (only ``<a href>`` may
point out, since a link loads nothing until followed); no page holds a solution, a hidden
test or a line of reference code (a lesson page names no solution or hidden-test marker, a
guide no more often than the README does); and Chromium, with every request that is not
``file:`` blocked and recorded, opens every page, finds none was made, checks MathJax drew
the formulas, and shows the lesson with the overfitting curve, whose screenshot goes to
``artifacts/docs/``. The build takes most of the time (about a minute: the four lessons run).

The fast tests check the README splitter and the benchmarks page on their own.

But: it does not judge the pages' accessibility (issue 29's axe-core tests will) nor that the
README's text reads well where it lands.
"""

from __future__ import annotations

import ast
import doctest
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from tests.test_browser import CHROMIUM_ARGS, find_chromium

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts" / "docs"
PLOT_LESSON = "lessons/03_real_text_overfitting.html"
# Attributes whose value the browser fetches (or, for <a>, navigates to).
URL_ATTRIBUTES = {"src", "href", "srcset", "poster", "data", "action", "formaction"}


def load(name: str):
    """One of docs/'s scripts as a module."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", ROOT / "docs" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


# --- fast: the pieces on their own --------------------------------------------------------------


@pytest.mark.parametrize("name", ["readme_guides", "bench_page", "lesson_pages"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(load(name))
    assert result.failed == 0


def test_every_readme_section_lands_on_a_page(tmp_path: Path) -> None:
    guides = load("readme_guides")
    blocks = guides.assigned_blocks()
    assert guides.unplaced(blocks) == [], "a README section no guide names: add it to GUIDES"
    pages = guides.guide_pages()
    for page, title, _ in guides.GUIDES:
        assert pages[page].startswith(f"# {title}\n"), page
    # Every line of the README outside the sections built elsewhere is on some page.
    text = "\n".join(pages.values())
    elsewhere = {b.title for b in blocks if b.page.startswith("-")}
    for block in blocks:
        if block.title in elsewhere or block.page.startswith("-"):
            continue
        for line in block.lines:
            if line.strip() and "](" not in line:
                assert line in text, line


def test_splitter_moves_headings_links_and_code(tmp_path: Path) -> None:
    guides = load("readme_guides")
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Title\n\nIntro, see [hub](#a-class-on-jupyterhub).\n\n"
        "## For students\n\nRead [the sandbox](#the-sandbox-and-the-threat-model) and "
        "[a file](tests/x.py) or [out](https://example.org).\n\n```\n# not a heading\n```\n\n"
        "## A class on JupyterHub\n\ntext\n\n### The sandbox and the threat model\n\nwalls\n\n"
        "### Deploying the hub for real\n\nsteps\n\n## Something new\n\nnew\n"
    )
    pages = guides.guide_pages(readme)
    assert "see [hub](hub.md#a-class-on-jupyterhub)" in pages["index"]
    students = pages["students"]
    assert "## For students" in students and "# not a heading" in students
    assert "[the sandbox](sandbox.md#the-sandbox-and-the-threat-model)" in students
    assert "a file (`tests/x.py`)" in students and "[out](https://example.org)" in students
    assert "## The sandbox and the threat model\n\nwalls" in pages["sandbox"]
    assert "### Deploying the hub for real" in pages["hub"] and "walls" not in pages["hub"]
    assert "## Something new" in pages["other"]
    assert guides.unplaced(guides.assigned_blocks(readme)) == ["Something new"]


def test_bench_page_from_records(tmp_path: Path) -> None:
    bench = load("bench_page")
    empty = bench.render(tmp_path / "none")
    assert "No bench has run" in empty and "make bench" in empty
    assert f"| cores | {os.cpu_count()} |" in empty
    records = tmp_path / "bench"
    records.mkdir()
    (records / "class.json").write_text(
        json.dumps({"students": 12, "grading_seconds": {"lean-2": 27.61}, "large_class": None})
    )
    page = bench.render(records)
    assert "Written by `bench/bench_class.py`" in page
    assert "| grading_seconds › lean-2 | 27.610 |" in page and "| students | 12 |" in page
    assert "No bench has run" not in page
    assert str(ROOT) not in page and str(tmp_path) not in page


# --- slow: one clean build ----------------------------------------------------------------------


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    return [name for name in listed if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def site() -> Path:
    """site/ as ``make docs`` builds it in a fresh copy of the course; the copy is removed
    afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-docs-"))
    try:
        for name in tracked_files():
            if name.startswith(("site/", ".docs-build/")):
                continue
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
        (folder / ".venv").symlink_to(ROOT / ".venv")
        built = (ROOT / ".venv" / ".installed").stat().st_mtime
        for name in ("requirements.txt", "pyproject.toml"):  # as after `make venv` there
            os.utime(folder / name, (built - 1, built - 1))
        start = time.perf_counter()
        run = subprocess.run(
            ["make", "docs"], cwd=folder, capture_output=True, text=True, timeout=600
        )
        seconds = time.perf_counter() - start
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        warnings = [
            line for line in run.stderr.splitlines() if "WARNING" in line and "Kernel" not in line
        ]
        assert warnings == [], "\n".join(warnings)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "make-docs.log").write_text(f"{seconds:.1f} s\n{run.stdout}\n{run.stderr}")
        assert not (folder / "jupyter_execute").exists(), "the build left a folder in the course"
        yield folder / "site"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Links(HTMLParser):
    """Every URL-valued attribute of a page, and every id it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in URL_ATTRIBUTES and value:
                values = (
                    [v.strip().split(" ")[0] for v in value.split(",")]
                    if name == "srcset"
                    else [value]
                )
                self.urls.extend((tag, name, v) for v in values if v)
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def parse(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text())
    return links


def pages_of(site: Path) -> list[Path]:
    # _static/ holds the theme's template pieces (webpack-macros.html), not pages.
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def is_remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme not in ("", "data", "file")


@pytest.mark.slow
def test_site_has_the_lessons_and_guides(site: Path) -> None:
    names = {str(p.relative_to(site)) for p in pages_of(site)}
    for lesson in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        assert f"lessons/{lesson.stem}.html" in names
    for guide in (
        "students",
        "instructors",
        "hub",
        "grading",
        "sandbox",
        "benchmarks",
        "architecture",
    ):
        assert f"{guide}.html" in names
    lesson_1 = (site / "lessons" / "01_bpe_by_hand.html").read_text()
    assert "bpe-still-widget" in lesson_1 and "move only in Jupyter" in lesson_1.replace("\n", " ")
    assert (site / "_static" / "mathjax" / "tex-svg.js").is_file()
    assert "make bench" in (site / "benchmarks.html").read_text()
    assert list(site.glob("_images/*.png")), "the lessons' plots"


@pytest.mark.slow
def test_every_relative_link_and_image_resolves(site: Path) -> None:
    missing = []
    ids: dict[Path, set[str]] = {}
    for page in pages_of(site):
        for tag, attribute, url in parse(page).urls:
            parts = urlsplit(url)
            if is_remote(url) or parts.scheme in ("data", "mailto"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                missing.append(f"{page.relative_to(site)}: <{tag} {attribute}={url!r}>")
                continue
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = parse(target).ids
                if unquote(parts.fragment) not in ids[target]:
                    missing.append(f"{page.relative_to(site)}: no id for {url!r}")
    assert missing == []


@pytest.mark.slow
def test_nothing_loads_from_the_network(site: Path) -> None:
    loads = []
    for page in pages_of(site):
        for tag, attribute, url in parse(page).urls:
            if is_remote(url) and not (tag == "a" and attribute == "href"):
                loads.append(f"{page.relative_to(site)}: <{tag} {attribute}={url!r}>")
    remote_css = re.compile(r"""(url\(\s*['"]?|@import\s+['"])(https?:)?//""")
    for sheet in site.rglob("*.css"):
        if remote_css.search(sheet.read_text(errors="replace")):
            loads.append(f"{sheet.relative_to(site)} imports from the network")
    assert loads == []


def secret_lines() -> set[str]:
    """Lines of the reference solutions and of the masters' solution and hidden-test blocks
    that the student notebooks do not have: none may reach a page."""
    public = set()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            public.update(line.strip() for line in cell.source.splitlines())
    secret = set()
    for path in (ROOT / "solutions").rglob("*.py"):
        tree = ast.parse(path.read_text())
        lines = path.read_text().splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                for statement in body:
                    span = lines[statement.lineno - 1 : statement.end_lineno]
                    secret.update(line.strip() for line in span)
    for path in (ROOT / "source").rglob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            inside = False
            for line in cell.source.splitlines():
                if re.search(r"### BEGIN (SOLUTION|HIDDEN TESTS)", line):
                    inside = True
                elif re.search(r"### END (SOLUTION|HIDDEN TESTS)", line):
                    inside = False
                elif inside:
                    secret.add(line.strip())
    return {line for line in secret - public if len(line) >= 24 and not line.startswith("#")}


@pytest.mark.slow
def test_no_solution_and_no_hidden_test_on_any_page(site: Path) -> None:
    secret = secret_lines()
    assert len(secret) > 20, "found too few reference lines to check against"
    found = []
    readme = (ROOT / "README.md").read_text()
    for page in pages_of(site):
        text = html.unescape("".join(parse(page).text))
        lesson = page.parent.name == "lessons"
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
            # A guide may name the markers as often as the README does when it explains the
            # masters' format; a lesson page never.
            allowed = 0 if lesson else readme.count(marker)
            if text.count(marker) > allowed:
                found.append(f"{page.relative_to(site)}: {marker} x{text.count(marker)}")
        lines = {line.strip() for line in text.splitlines()}
        found += [f"{page.relative_to(site)}: {line}" for line in sorted(secret & lines)]
    assert found == []


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright: make venv")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.mark.slow
@pytest.mark.browser
def test_pages_in_chromium_load_nothing_from_outside(site: Path, browser) -> None:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    outside, failed = [], []

    def route(request_route):
        url = request_route.request.url
        if url.startswith("file:"):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda request: failed.append(request.url))
    try:
        for html_page in pages_of(site):
            page.goto(html_page.as_uri())
            page.wait_for_load_state("networkidle")
        assert outside == [], "requests that left the site"
        assert failed == [], "files the pages asked for and did not find"

        page.goto((site / "lessons" / "01_bpe_by_hand.html").as_uri())
        page.wait_for_load_state("networkidle")
        assert page.locator("mjx-container").count() > 0, "MathJax rendered no formula"

        page.goto((site / PLOT_LESSON).as_uri())
        page.wait_for_load_state("networkidle")
        plot = page.locator(".cell_output img").first
        plot.scroll_into_view_if_needed()
        assert plot.evaluate("image => image.complete && image.naturalWidth > 300")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "lesson-03-plot.png"), animations="disabled")
        assert outside == [] and failed == []
    finally:
        context.close()
