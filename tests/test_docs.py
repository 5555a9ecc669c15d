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

The fast tests check the written docs themselves: the README is at most 200 lines and links
every guide, every link of the README and the guides resolves in the repository (file and
heading), every Python example they show runs as written, and the benchmarks page is built
from records alone.

But: it does not judge the pages' accessibility (issue 29's axe-core tests will) nor that the
README's text reads well where it lands.
"""

from __future__ import annotations

import ast
import base64
import doctest
import html
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from course_fixtures.jupyter_servers import headless_chromium

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


@pytest.mark.parametrize("name", ["guide_pages", "bench_page", "lesson_pages"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(load(name))
    assert result.failed == 0 and result.attempted > 0


WRITTEN = ["README.md", *(f"docs/guides/{name}.md" for name in load("guide_pages").GUIDES)]
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
LINK = re.compile(r"(?<!!)\[[^\]]+\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def outside_code(text: str) -> list[str]:
    """The lines of a Markdown text that are not in a fenced code block."""
    lines, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors GitHub and MyST give a Markdown file's headings."""
    found = set()
    for line in outside_code(path.read_text()):
        if heading := HEADING.match(line):
            title = re.sub(r"<[^>]+>|`", "", heading.group(1)).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_readme_is_an_on_ramp_into_every_guide() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    guides = load("guide_pages")
    assert guides.unlisted() == [], "a guide the site leaves out: add it to GUIDES"
    for name in guides.GUIDES:
        assert f"](docs/guides/{name}.md)" in readme, f"the README does not link {name}"


@pytest.mark.parametrize("doc", WRITTEN)
def test_every_link_of_the_written_docs_resolves_in_the_repository(doc: str) -> None:
    """As a reader on a code host or in a clone follows them (the site has its own test)."""
    here = ROOT / doc
    broken = []
    for line in outside_code(here.read_text()):
        for match in LINK.finditer(line):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (here.parent / path).resolve() if path else here
            if not file.exists() or (
                anchor and file.suffix == ".md" and anchor not in anchors(file)
            ):
                broken.append(target)
    assert broken == []


def python_examples() -> list[tuple[str, str]]:
    """(doc, code) of every ```python block of the README and the guides that is not marked
    ``<!-- not run: why -->`` on the line before it."""
    found = []
    for doc in WRITTEN:
        text = (ROOT / doc).read_text()
        for block in re.finditer(r"(?:^|\n)(.*)\n```python\n(.*?)```", text, re.DOTALL):
            if "<!-- not run:" not in block.group(1):
                found.append((doc, block.group(2)))
    return found


@pytest.mark.parametrize(("doc", "code"), python_examples(), ids=lambda v: v[:24])
def test_every_python_example_runs_as_written(doc: str, code: str, tmp_path: Path) -> None:
    """In a fresh interpreter in an empty folder, with a text file for the examples that read
    one of the reader's own (``my_notes.txt``)."""
    from bpe_course.texts import COURSE_TEXT

    (tmp_path / "my_notes.txt").write_text(COURSE_TEXT)
    env = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=str(tmp_path / "mpl"))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{doc}:\n{code}\n{done.stderr[-2000:]}"


def test_bench_page_from_records(tmp_path: Path) -> None:
    bench = load("bench_page")
    empty = bench.render(tmp_path / "none")
    assert "No bench has run" in empty and "make bench" in empty
    assert f"| cores | {os.cpu_count()} |" in empty
    records = tmp_path / "bench"
    records.mkdir()
    # A record from before bench/record.py: no machine, no targets, named by its writer.
    (records / "class.json").write_text(
        json.dumps({"students": 12, "grading_seconds": {"lean-2": 27.61}, "large_class": None})
    )
    page = bench.render(records)
    assert "Written by `bench/bench_class.py` (part of `make bench`)" in page
    assert "| grading_seconds › lean-2 | 27.610 |" in page and "| students | 12 |" in page
    assert "has no `targets` list" in page and "does not describe its machine" in page
    assert "No bench has run" not in page
    assert str(ROOT) not in page and str(tmp_path) not in page


def _widget_record(**changes: object) -> dict:
    """A record as bench/record.py writes it, from another machine than this one."""
    record = {
        "script": "bench/bench_widget.py",
        "command": "make bench",
        "machine": {
            "cores": 96,
            "system": "Plan9 sparc64",
            "Python": "3.99.1",
            "numpy": "9.9.9",
            "load average (1 min)": {"start": 0.5, "end": 1.25},
            "started (UTC)": "2031-01-02 03:04:05",
            "ended (UTC)": "2031-01-02 03:05:06",
        },
        "targets": [
            {
                "goal": "Next merge, worst click (ms)",
                "measured": 12.5,
                "limit": 50,
                "bound": "at most",
                "verdict": "met",
            },
            {
                "goal": "speedup from 1 to 2 workers",
                "measured": 1.2,
                "limit": 1.66,
                "bound": "at least",
                "verdict": "MISSED",
            },
        ],
        "clicks": 300,
        "Next click (ms)": {"median": 7.25, "worst": 12.5},
        "runs": [{"text (MB)": 25, "wall (s)": 2.5}, {"text (MB)": 50, "wall (s)": 4.0}],
    }
    record.update(changes)
    return record


def test_bench_page_shows_targets_first_then_the_records_machine(tmp_path: Path) -> None:
    bench = load("bench_page")
    (tmp_path / "widget.json").write_text(json.dumps(_widget_record()))
    page = bench.render(tmp_path)
    section = page[page.index("## `widget.json`") : page.index("## What each bench measures")]
    assert "Written by `make bench` (its `bench/bench_widget.py`) at 2031-01-02 03:05 UTC." in (
        section
    )
    assert "| goal | measured | limit | met or MISSED |" in section
    assert "| Next merge, worst click (ms) | 12.500 | at most 50 | met |" in section
    assert "| speedup from 1 to 2 workers | 1.200 | at least 1.660 | MISSED |" in section
    # The record's own machine, not the one building the page.
    assert "as the record says" in section and "does not describe its machine" not in section
    assert "| cores | 96 |" in section and "| Python | 3.99.1 |" in section
    assert "| load average (1 min) › end | 1.250 |" in section
    assert f"| Python | {platform.python_version()} |" not in section
    assert "| Next click (ms) › worst | 12.500 |" in section and "| clicks | 300 |" in section
    # Targets first, then the machine, then the figures; the headed entries only once.
    order = [section.index(s) for s in ("| goal |", "| machine |", "| figure |")]
    assert order == sorted(order)
    assert "| targets" not in section and "| script |" not in section
    # A list of like rows is the table the bench printed, after the other figures.
    assert "runs:\n\n| text (MB) | wall (s) |\n|---|---|\n| 25 | 2.500 |\n| 50 | 4.000 |" in section


def test_bench_page_says_when_a_record_is_not_make_benchs_defaults(tmp_path: Path) -> None:
    bench = load("bench_page")
    line = "PYTHONPATH=. .venv/bin/python bench/bench_widget.py"
    (tmp_path / "widget.json").write_text(json.dumps(_widget_record(command=line)))
    (tmp_path / "scale.json").write_text(
        json.dumps(
            _widget_record(script="bench/bench_scale.py", command=f"{line[:-9]}scale.py --sizes 1")
        )
    )
    page = bench.render(tmp_path)
    assert f"Written by `{line}` (the defaults `make bench` runs it with)" in page
    assert "bench_scale.py --sizes 1` (not `make bench`'s defaults)" in page


def test_bench_page_names_no_folder_even_from_a_record_that_does(tmp_path: Path) -> None:
    bench = load("bench_page")
    leaky = _widget_record(
        command=f"{sys.executable} bench/bench_widget.py",
        corpus=str(tmp_path / "corpus.txt"),
        note=f"built in {ROOT}",
        machine={"cores": 96, "home": str(Path.home()), "venv": sys.prefix},
    )
    (tmp_path / "widget.json").write_text(json.dumps(leaky))
    (tmp_path / "broken.json").write_text("{ not json")
    page = bench.render(tmp_path)
    for folder in (ROOT, tmp_path, Path.home(), Path(sys.prefix), Path(tempfile.gettempdir())):
        assert str(folder) not in page, folder
    assert "left out" in page and "| cores | 96 |" in page
    assert "## `broken.json`" in page and "could not be read" in page


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


def built_site() -> Iterator[Path]:
    """site/ as ``make docs`` builds it in a fresh copy of the course; the copy is removed
    afterwards. conftest.py's ``site`` fixture builds it once for every module that reads it."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-docs-"))
    try:
        for name in tracked_files():
            if name.startswith(("site/", ".docs-build/")):
                continue
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
        (folder / ".venv").symlink_to(ROOT / ".venv")
        built = (ROOT / ".venv" / ".installed").stat().st_mtime
        # as after `make venv` there
        for name in ("requirements.txt", "requirements-student.txt", "pyproject.toml"):
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
    written = "".join((ROOT / doc).read_text() for doc in WRITTEN)
    for page in pages_of(site):
        text = html.unescape("".join(parse(page).text))
        lesson = page.parent.name == "lessons"
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
            # A guide may name the markers as often as the written docs do when they explain
            # the masters' format; a lesson page never.
            allowed = 0 if lesson else written.count(marker)
            if text.count(marker) > allowed:
                found.append(f"{page.relative_to(site)}: {marker} x{text.count(marker)}")
        lines = {line.strip() for line in text.splitlines()}
        found += [f"{page.relative_to(site)}: {line}" for line in sorted(secret & lines)]
    assert found == []


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as chromium:
        yield chromium


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


def _scale_rows(hf_wall_at_1000: float = 140.0) -> list[dict]:
    rows = []
    for mb, scale in ((30, 1.0), (1000, 30.0)):
        for trainer, wall, memory in (
            ("ours, 2 workers", 4.0, 120.0),
            ("HF, 2 threads", 5.0, 190.0),
        ):
            rows.append(
                {
                    "text (MB)": mb,
                    "trainer": trainer,
                    "wall (s)": hf_wall_at_1000
                    if (mb, trainer[0]) == (1000, "H")
                    else wall * scale,
                    "peak memory (MB)": memory * scale**0.5,
                }
            )
    return rows


def _scale_figure(page: str) -> tuple[str, str]:
    """The scale figure's SVG and alt text, from the one image on the page."""
    found = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]+)"', page)
    assert len(found) == 1, page[:2000]
    data, alt = found[0]
    return base64.b64decode(data).decode("utf-8"), alt


def test_the_bench_page_draws_time_and_memory_against_size(tmp_path: Path) -> None:
    bench = load("bench_page")
    (tmp_path / "scale.json").write_text(
        json.dumps({**_widget_record(), "training": _scale_rows()})
    )
    page = bench.render(tmp_path)
    svg, alt = _scale_figure(page)
    assert "<svg" in svg and "wall time (s)" in svg and "peak memory (MB)" in svg
    # The alt text says what is drawn, tells the lines apart without colour, gives the points;
    # the table after the figure keeps every number.
    assert alt.startswith("Two line charts, both axes logarithmic: wall time")
    assert "ours, 2 workers (blue, solid line, circles): 30 MB in 4 s and 120 MB" in alt
    assert "HF, 2 threads (vermillion, dashed line, squares): 30 MB in 5 s" in alt
    assert "1000 MB in 140 s" in alt
    after = page[page.index("data:image/svg") :]
    assert "| text (MB) | trainer | wall (s) | peak memory (MB) |" in after
    assert "| 1000 | HF, 2 threads | 140.000 |" in after
    # Made from the record: another figure in it makes another picture, the same one the same.
    assert _scale_figure(bench.render(tmp_path)) == (svg, alt)
    (tmp_path / "scale.json").write_text(
        json.dumps({**_widget_record(), "training": _scale_rows(hf_wall_at_1000=600.0)})
    )
    changed_svg, changed_alt = _scale_figure(bench.render(tmp_path))
    assert changed_svg != svg and "1000 MB in 600 s" in changed_alt
    # A table of runs with no trainer column (the widget's) stays a table, with no figure.
    (tmp_path / "scale.json").unlink()
    (tmp_path / "widget.json").write_text(json.dumps(_widget_record()))
    assert "data:image/svg" not in bench.render(tmp_path)


def test_a_record_cannot_put_markup_or_a_folder_on_the_bench_page(tmp_path: Path) -> None:
    """A record is a file anyone may have edited: a trainer's name that ends the image's HTML
    block with a newline, or names a folder, shows as text in the figure, alt text and table."""
    bench = load("bench_page")
    rows = _scale_rows()
    rows[0]["trainer"] = rows[2]["trainer"] = 'ours\n\n<script>alert("x")</script>'
    rows[1]["trainer"] = rows[3]["trainer"] = "HF in /home/alice/hf"
    (tmp_path / "scale.json").write_text(json.dumps({**_widget_record(), "training": rows}))
    page = bench.render(tmp_path)
    assert "<script" not in page
    _, alt = _scale_figure(page)
    assert "&lt;script&gt;" in alt and "alice" not in alt
    assert "/home/alice" not in page
