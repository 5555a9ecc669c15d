"""The widget in a real browser: JupyterLab running the student notebook, and the Voila page.

Each test starts its own server on 127.0.0.1 in its own process group with fresh Jupyter
folders under the test's tmp folder, drives headless Chromium (Debian's ``chromium``)
through Playwright, clicks Next merge three times and compares the page with an independent
run of the engine's trainer. Screenshots go to ``artifacts/browser/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bpe_course.display import show_pair, visible
from bpe_course.engine import Encoder, Trainer
from bpe_course.pretokenize import chunk_counts
from bpe_course.widget import DEFAULT_TEXT
from course_fixtures.jupyter_servers import (  # noqa: F401 (other tests use them as lab.*)
    CHROMIUM_ARGS,
    answers,
    find_chromium,
    free_port,
    headless_chromium,
    jupyter_env,
    port_open,
    start,
    stop,
    wait_until,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
STUDENT_NOTEBOOK = ROOT / "notebooks" / "01_bpe_by_hand.ipynb"
VOILA_NOTEBOOK = ROOT / "bpe_course" / "watch_it_learn.ipynb"
ARTIFACTS = ROOT / "artifacts" / "browser"
CLICKS = 3


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


# --- servers --------------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path) -> Iterator:
    """A function that starts a server and registers it to be stopped after the test."""
    started: list[subprocess.Popen] = []

    def run(command: list[str], cwd: Path, log_name: str) -> tuple[subprocess.Popen, Path]:
        log = tmp_path / log_name
        process = start(command, cwd, jupyter_env(tmp_path / "jupyter"), log)
        started.append(process)
        return process, log

    try:
        yield run
    finally:
        for process in started:
            stop(process)


# --- what the page must show ----------------------------------------------------------------


def expected_after(clicks: int) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Segmentation tokens and merge-table rows (newest first) as the widget draws them, from
    the trainer."""
    trainer = Trainer(chunk_counts(DEFAULT_TEXT))
    merges = [trainer.step() for _ in range(clicks)]
    tokens = Encoder([m.pair for m in merges]).encode(DEFAULT_TEXT)
    rows = [(str(m.rank), show_pair(m.pair), str(m.count)) for m in reversed(merges)]
    return [visible(token) for token in tokens], rows


def click_next_and_check(page, widget, name: str) -> None:
    from playwright.sync_api import expect

    expect(widget.locator(".bpe-token").first).to_be_visible(timeout=30_000)
    expect(widget.locator(".bpe-token")).to_have_count(len(DEFAULT_TEXT))
    next_button = widget.get_by_role("button", name="Next merge")
    for k in range(1, CLICKS + 1):
        next_button.click()
        expect(widget.locator(".bpe-merge-row")).to_have_count(k)
    tokens, rows = expected_after(CLICKS)
    expect(widget.locator(".bpe-status")).to_contain_text(f"After {CLICKS} of")
    assert widget.locator(".bpe-token").all_inner_texts() == tokens
    shown_rows = [
        tuple(row.locator("td").all_inner_texts()[:3])
        for row in widget.locator(".bpe-merge-row").all()
    ]
    assert shown_rows == rows
    assert widget.locator(".bpe-winner").count() == 1
    widget.get_by_role("button", name="Back").click()
    expect(widget.locator(".bpe-merge-row")).to_have_count(CLICKS - 1)
    expect(widget.locator(".bpe-status")).to_contain_text(f"After {CLICKS - 1} of")
    next_button.click()
    expect(widget.locator(".bpe-merge-row")).to_have_count(CLICKS)
    assert widget.locator(".bpe-token").all_inner_texts() == tokens
    page.mouse.move(0, 0)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    widget.screenshot(path=ARTIFACTS / f"{name}.png", animations="disabled")
    page.screenshot(path=ARTIFACTS / f"{name}_page.png", animations="disabled")


# --- the tests ------------------------------------------------------------------------------


def start_lab(server, root_dir: Path, tmp_path: Path, token: str) -> str:
    """Start JupyterLab on ``root_dir`` (no news, no update check, a workspace of its own)
    with the ``server`` fixture, wait until it answers, and return its base URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}", "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        f"--LabApp.workspaces_dir={tmp_path / 'jupyter' / 'workspaces'}",
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.append("--allow-root")
    process, log = server(command, root_dir, "lab.log")
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{base}/api/status?token={token}"), process, log, "JupyterLab")
    return base


def test_widget_in_jupyterlab_student_notebook(page, server, tmp_path):
    if not STUDENT_NOTEBOOK.exists():
        pytest.fail(f"{STUDENT_NOTEBOOK.relative_to(ROOT)} is missing; run `make notebooks`")
    notebooks = tmp_path / "lab"
    notebooks.mkdir()
    # A copy, so that Lab's autosave never writes outputs into the repository's notebook.
    shutil.copy(STUDENT_NOTEBOOK, notebooks / STUDENT_NOTEBOOK.name)
    token = "browser-test-token"
    base = start_lab(server, notebooks, tmp_path, token)

    page.goto(f"{base}/lab/tree/{STUDENT_NOTEBOOK.name}?reset&token={token}")
    from playwright.sync_api import expect

    # The kernel indicator says idle before the kernel exists; the status bar text does not.
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=60_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator('[data-command="runmenu:run-all"]').click()
    widget = page.locator(".jp-OutputArea .bpe-watch-it-learn")
    try:
        expect(widget).to_be_visible(timeout=60_000)
    except AssertionError:
        errors = page.locator(".jp-OutputArea-output[data-mime-type*='stderr']").all_inner_texts()
        pytest.fail(f"the widget never appeared; error outputs on the page: {errors[:2]}")
    widget.scroll_into_view_if_needed()
    click_next_and_check(page, widget, "jupyterlab_watch_it_learn")


def test_widget_on_the_voila_page(page, server, tmp_path):
    port = free_port()
    command = [
        sys.executable, "-m", "voila", "--no-browser", f"--port={port}",
        "--Voila.ip=127.0.0.1", str(VOILA_NOTEBOOK),
    ]  # fmt: skip
    process, log = server(command, VOILA_NOTEBOOK.parent, "voila.log")
    # Wait for the port, not for GET /: a GET runs the whole notebook.
    wait_until(lambda: port_open(port), process, log, "Voila")
    page.goto(f"http://127.0.0.1:{port}/", timeout=60_000)
    widget = page.locator(".bpe-watch-it-learn")
    from playwright.sync_api import expect

    expect(widget).to_be_visible(timeout=60_000)
    click_next_and_check(page, widget, "voila_watch_it_learn")
    # A new text takes effect when the box loses focus: back to zero merges, on that text.
    widget.locator("textarea").fill("banana bandana")
    widget.locator("textarea").press("Tab")
    expect(widget.locator(".bpe-status")).to_contain_text("After 0 of")
    expect(widget.locator(".bpe-token")).to_have_count(len("banana bandana"))
    expect(widget.locator(".bpe-merge-row")).to_have_count(0)
