"""The course on a real JupyterHub, played by a class in headless Chromium, then attacked.

One hub for the module, started by the hub guide's ``make hub GRADING_SERVICE=off`` as written
(the grading service off, so that the instructor collects by hand), with accounts of a prefix
of its own (an instructor and four students), its folder, the students' homes and the
instructor's fresh copy of the course under a scratch folder. In order:

- the instructor generates and releases ``bpe`` from the Formgrader; students see none of the
  instructor's tools, and nobody is asked about Jupyter news;
- two students fetch it from the Assignment List, type their answers into the notebooks, save
  and submit (one right, one with a classic mistake); the right one runs the notebook's own
  self-check cell, and ``python -m bpe_course.selfcheck`` in a Lab terminal; a third never
  submits; a fourth submits from the command line (with a mistake), then the instructor sets
  the due date in the Formgrader's Edit dialog, typed with a zone name (``Europe/Paris``);
- the instructor collects in a Lab terminal (``nbgrader collect bpe``) and grades with the
  course's own ``make autograde`` (the sandbox): the fourth student's work is graded on time;
  after the due date that student submits again, the same ``nbgrader collect bpe`` takes the
  newer entry, and the second ``make autograde``, ``make feedback`` and ``make export`` grade
  it; feedback is released; the late student is marked late in the summary, ``grades.csv`` and the
  Formgrader's submissions list, the Formgrader shows the students' names; each student
  fetches their feedback in the browser and reads their score and, for the mistake, its name;
- the guide's mid-term fix (``make notebooks``, ``make regrade``) runs in the hub's course
  copy, then the solutions are released and fetched (the Assignment List draws no Submit
  for them);
- each permission is attempted as a student's Unix user, then loosened to see the same
  attempt succeed, then restored;
- Ctrl-C stops the hub and leaves no process behind (and its log shows no service was
  started all term); the guide's ``make hub HUB_IP=0.0.0.0``
  restarts it in a network namespace of its own, listening on every interface there; beside
  a second class's folder, marker and account, this class is taken down (``make hub-down``),
  leaving the exported grades and the second class with the venv they share, which goes
  when that class is taken down in turn.

Accounts, folders and processes are removed at the end, even after a failure. Screenshots
of each step go to ``artifacts/hub/``. Skipped, with the reason, without root or Chromium.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import json
import os
import platform
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import zoneinfo
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from course_fixtures.catalogue import CORRECT, WRONG
from course_fixtures.scratch_course import SCRATCH_SECRET
from course_fixtures.synthetic import answer_cells
from hub import accounts, classes, layout, run_hub
from hub.preflight import why_not
from hub.roles import role_environment
from tests import test_browser as lab
from tests.support import doc_text

browser = lab.browser  # the same Chromium as the other browser tests (skips without it)

# The first test may build the hub's venv (up to 1200 s) and starts the hub and its accounts.
pytestmark = [pytest.mark.browser, pytest.mark.nbgrader, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts" / "hub"
# Accounts of this run alone: two runs at once (two checkouts) must not end each other's.
PREFIX = f"bpehub{os.getpid()}-"
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"
HUB_VENV = Path(os.environ.get("HUB_VENV", "/opt/bpe-course-hub/venv"))
MISTAKE = "string replacement missing back-to-back pairs"
# The guides whose commands the term runs as written.
HUB_GUIDE, TERM_GUIDE = "docs/guides/hub.md", "docs/guides/instructors.md"
NOTEBOOKS = ("01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb", "04_making_it_fast.ipynb")
RIGHT = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
WITH_MISTAKE = dict(RIGHT, merge_pair=WRONG["merge_pair"][MISTAKE])


@dataclass
class Hub:
    url: str
    root: Path
    settings: dict
    passwords: dict[str, str]
    process: subprocess.Popen
    output: Path
    log: dict = field(default_factory=dict)  # what the steps found, for the later checks

    @property
    def instructor(self) -> str:
        return self.settings["instructor"]

    @property
    def students(self) -> list[str]:
        return self.settings["students"]

    @property
    def course(self) -> Path:
        return Path(self.settings["course_root"])

    @property
    def exchange_course(self) -> Path:
        return Path(self.settings["exchange"]) / "bpe-from-scratch"

    def home(self, user: str) -> Path:
        return Path(pwd.getpwnam(user).pw_dir)

    def run_as(self, user: str, argv: list[str], cwd: Path | None = None, timeout: float = 600):
        """Run a command as the account, with the environment its hub server gets."""
        home = self.home(user)
        env = {"HOME": str(home), "USER": user, "LOGNAME": user, "LANG": "C.UTF-8"}
        env.update(role_environment(self.settings, user))
        return subprocess.run(
            [RUNUSER, "-u", user, "--", *argv], cwd=cwd or home, env=env,
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def must_run_as(self, user: str, argv: list[str], cwd: Path | None = None):
        done = self.run_as(user, argv, cwd)
        assert done.returncode == 0, (
            f"{argv} as {user}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
        return done


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prefixed_uids() -> set[int]:
    return {entry.pw_uid for entry in accounts.accounts_with_prefix(PREFIX)}


def remove_left_over_runs() -> None:
    """The accounts of earlier runs of this module that were killed (their pid is gone)."""
    for entry in accounts.accounts_with_prefix("bpehub"):
        found = re.fullmatch(r"bpehub(\d+)-.*", entry.pw_name)
        if found and not Path(f"/proc/{found.group(1)}").exists():
            accounts.remove_accounts(f"bpehub{found.group(1)}-")


def start_hub(command: list[str], output: Path) -> subprocess.Popen:
    """``command`` (a ``make hub`` line) started in a session of its own, as from a terminal,
    once it says the hub is up; its output, passwords included, goes to ``output``."""
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    # A terminal's job takes Ctrl-C by default. An ignored SIGINT passes on through exec, and a
    # kernel started in this process earlier (ipykernel ignores it) would leave make deaf to it.
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)  # SIG_DFL after exec
    try:
        with open(output, "wb") as out:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, kept)
    deadline = time.monotonic() + 240
    while "The class's hub is up" not in output.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_hub(process)
            pytest.fail(f"{' '.join(command)} did not start the hub:\n{output.read_text()}")
        time.sleep(0.5)
    return process


def stop_hub(process: subprocess.Popen) -> None:
    """Ctrl-C, as in the hub's terminal; then, should it hang, kill."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def running_hub(
    command: list[str], output: Path, root: Path, prefix: str, port: int
) -> Iterator[Hub]:
    """The hub a ``make hub`` line starts in ``root`` on ``port``; at the end, even after a
    failure, it is stopped and its accounts (``prefix``), folder and mark on the venv go."""
    process = None
    try:
        process = start_hub(command, output)
        state = root / "state"
        settings = json.loads((state / "settings.json").read_text())
        passwords = json.loads((state / "passwords.json").read_text())
        yield Hub(f"http://127.0.0.1:{port}", root, settings, passwords, process, output)
    finally:
        if process is not None:
            stop_hub(process)
        accounts.remove_accounts(prefix)
        shutil.rmtree(root, ignore_errors=True)
        classes.unmark_class(HUB_VENV, root)  # make hub marked the shared venv for this class


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    reason = why_not(platform.system(), os.geteuid(), shutil.which("useradd") is not None)
    if reason:
        pytest.skip(f"the hub tests make Unix accounts: {reason.splitlines()[0]}")
    lab.find_chromium()  # skip before making anything when the class cannot be played
    made = subprocess.run(
        ["make", "--no-print-directory", "hub-venv", "hub/node_modules/.package-lock.json",
         f"HUB_VENV={HUB_VENV}"],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert made.returncode == 0, (
        f"make hub-venv failed:\n{made.stdout[-2000:]}{made.stderr[-2000:]}"
    )
    remove_left_over_runs()
    root = Path(tempfile.mkdtemp(prefix="bpe-hub-test-", dir="/tmp"))
    output = tmp_path_factory.mktemp("hub") / "run_hub.out"  # it prints passwords: root only
    port = free_port()
    # The guide's own command without the grading service (the term collects by hand), with
    # this run's accounts, folder and port.
    command = [
        *doc_text.command(HUB_GUIDE, "make hub GRADING_SERVICE=").split(),
        "STUDENTS=4", f"HUB_PREFIX={PREFIX}", f"HUB_ROOT={root}", "HUB_HOMES_INSIDE=1",
        f"HUB_PORT={port}", f"HUB_VENV={HUB_VENV}",
    ]  # fmt: skip
    assert command[:2] == ["make", "hub"], command
    with running_hub(command, output, root, PREFIX, port) as hub:
        # A fixed term secret, so the random hidden cases are the same in every run.
        secret = hub.course / ".grading-secret"
        secret.write_text(SCRATCH_SECRET + "\n")
        owner = pwd.getpwnam(hub.instructor)
        os.chown(secret, owner.pw_uid, owner.pw_gid)
        secret.chmod(0o600)
        yield hub


@pytest.fixture(scope="module")
def log_in(browser, hub: Hub) -> Iterator[Callable]:
    """``log_in(user)``: that account's page in its own browser context, kept for the module."""
    from playwright.sync_api import expect

    pages: dict = {}

    def open_session(user: str):
        if user in pages:
            return pages[user]
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{hub.url}/hub/login")
        page.fill("#username_input", user)
        page.fill("#password_input", hub.passwords[user])
        page.click("#login_submit")
        page.wait_for_url(f"**/user/{user}/lab**", timeout=120_000)
        expect(page.locator("#jp-main-dock-panel")).to_be_visible(timeout=120_000)
        pages[user] = page
        return page

    try:
        yield open_session
    finally:
        for page in pages.values():
            page.context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.mouse.move(0, 0)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


def nbgrader_menu(page) -> list[str]:
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").first.click()
    # What a person sees: nbgrader hides an entry with Lumino's class, not by removing it.
    items = page.locator(".lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel").all_inner_texts()
    page.keyboard.press("Escape")
    return [item for item in items if item.strip()]


def run_in_lab_terminal(hub: Hub, page, user: str, command: str, out: str) -> str:
    """Open a terminal from Lab's launcher, type ``command`` there with its output going to
    ``~/out``, and return that output once the shell has written its exit status."""
    from playwright.sync_api import expect

    result = hub.home(user) / out
    result.unlink(missing_ok=True)
    page.goto(f"{hub.url}/user/{user}/lab?reset")
    page.locator(".jp-LauncherCard", has_text="Terminal").first.click()
    terminal = page.locator(".jp-Terminal").first
    expect(terminal).to_be_visible(timeout=60_000)
    time.sleep(2)  # the shell reads its rc file before it reads input
    terminal.click()
    page.keyboard.type(f'{{ {command}; }} > ~/{out} 2>&1; echo "exit=$?" >> ~/{out}\n')
    deadline = time.monotonic() + 300
    while "exit=" not in (result.read_text() if result.exists() else ""):
        assert time.monotonic() < deadline, f"{command!r} never finished in {user}'s terminal"
        time.sleep(0.5)
    shot(page, f"terminal_{user}_{out.split('.')[0]}")
    return result.read_text()


def open_assignment_list(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    return page.locator("#nbgrader-assignment-list")


# --- the class -------------------------------------------------------------------------------


def test_each_role_sees_its_own_tools_and_no_news_prompt(hub: Hub, log_in) -> None:
    teacher = log_in(hub.instructor)
    student = log_in(hub.students[0])
    time.sleep(3)  # the news prompt, where it is on, shows a second or two after Lab starts
    menu = nbgrader_menu(teacher)
    assert {"Assignment List", "Formgrader", "Create assignment"} <= set(menu)
    assert menu.count("Formgrader") == 1 and "Formgrader (local)" not in menu, menu  # one entry
    assert nbgrader_menu(student) == ["Assignment List"]
    for page in (teacher, student):
        assert "Jupyter news" not in page.locator("body").inner_text()
    shot(student, "01_student_lab")


def test_instructor_generates_and_releases_bpe_from_the_formgrader(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    page = log_in(hub.instructor)
    page.goto(f"{hub.url}/user/{hub.instructor}/formgrader/manage_assignments")
    row = page.locator("tr", has=page.locator("td.name", has_text="bpe")).first
    expect(row).to_contain_text("draft", timeout=60_000)
    row.locator("td.assign a").click()  # Generate
    done = page.locator("#success-modal")
    expect(done).to_contain_text("Successfully created the student version", timeout=300_000)
    shot(page, "02_formgrader_generated")
    done.locator(".modal-footer button").click()
    expect(done).to_have_count(0)
    row.locator("td.release a").click()
    expect(done).to_contain_text("Successfully released", timeout=120_000)
    done.locator(".modal-footer button").click()
    expect(row).to_contain_text("released", timeout=30_000)
    shot(page, "03_formgrader_released")
    released = hub.exchange_course / "outbound" / "bpe"
    assert sorted(path.name for path in released.glob("*.ipynb")) == sorted(
        path.name for path in (ROOT / "source" / "bpe").glob("*.ipynb")
    )


def answer_in_lab(hub: Hub, page, student: str, answers: dict[str, str]) -> None:
    """Open each fetched notebook in Lab, type the answers over the stubs and save."""
    from playwright.sync_api import expect

    for notebook in NOTEBOOKS:
        path = hub.home(student) / "bpe" / notebook
        order = list(answer_cells(nbformat.read(path, as_version=4)))
        page.goto(f"{hub.url}/user/{student}/lab/tree/bpe/{notebook}")
        stubs = page.locator(".jp-CodeCell .cm-content", has_text="raise NotImplementedError()")
        expect(stubs).to_have_count(len(order), timeout=60_000)
        for name in order:
            stub = stubs.first
            stub.scroll_into_view_if_needed()
            stub.click()
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(answers[name])
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 30
        while True:  # saved when the file on disk holds every answer
            try:
                saved = answer_cells(nbformat.read(path, as_version=4))
            except nbformat.reader.NotJSONError:  # read while Lab was writing it
                saved = {}
            if saved and all(saved[name].source.strip() == answers[name].strip() for name in order):
                break
            assert time.monotonic() < deadline, f"{notebook} was not saved with the answers"
            time.sleep(0.5)
        if notebook == NOTEBOOKS[0]:
            shot(page, f"05_{student}_answered")


def test_students_fetch_answer_and_submit_in_the_browser(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    right, wrong = hub.students[0], hub.students[1]
    for student, answers in ((right, RIGHT), (wrong, WITH_MISTAKE)):
        page = log_in(student)
        widget = open_assignment_list(page)
        expect(widget.get_by_text("bpe").first).to_be_visible(timeout=60_000)
        shot(page, f"04_{student}_assignment_list")
        widget.get_by_role("button", name="Fetch").click()
        expect(widget.get_by_role("button", name="Submit")).to_be_visible(timeout=60_000)
        answer_in_lab(hub, page, student, answers)
        widget = open_assignment_list(page)
        widget.get_by_role("button", name="Submit").click()
        inbound = hub.exchange_course / "inbound"
        deadline = time.monotonic() + 60
        while not list(inbound.glob(f"{student}+bpe+*")):
            assert time.monotonic() < deadline, f"{student}'s submission never reached inbound"
            time.sleep(0.5)
        shot(page, f"06_{student}_submitted")


def test_a_student_runs_the_notebooks_own_self_check_on_the_hub(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    student = hub.students[0]
    page = log_in(student)
    page.goto(f"{hub.url}/user/{student}/lab/tree/bpe/{NOTEBOOKS[0]}")
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=60_000)
    cell = page.locator(".jp-CodeCell", has_text='check("01_bpe_by_hand.ipynb")').first
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    output = cell.locator(".jp-OutputArea-output")
    expect(output).to_contain_text("all 2 visible tests pass", timeout=120_000)
    text = output.inner_text()
    assert "pass    test_merge_pair_examples" in text and "fail" not in text, text
    shot(page, "07_self_check_on_the_hub")


def test_a_student_runs_the_self_check_in_a_lab_terminal(hub: Hub, log_in) -> None:
    """The lesson's own command, typed in Lab's terminal: the hub's Python comes first
    whatever /etc/profile does, and it imports bpe_course."""
    student = hub.students[0]
    command = f"command -v python; python -m bpe_course.selfcheck bpe/{NOTEBOOKS[0]}"
    said = run_in_lab_terminal(hub, log_in(student), student, command, "selfcheck.out")
    assert said.splitlines()[0] == str(HUB_VENV / "bin" / "python"), said
    assert "all 2 visible tests pass" in said and said.rstrip().endswith("exit=0"), said


def submit_from_a_terminal(hub: Hub, student: str, answers: dict[str, str]) -> None:
    """What a student does in the hub's terminal: edit the fetched notebooks, nbgrader submit."""
    owner = pwd.getpwnam(student)
    for notebook in NOTEBOOKS:
        path = hub.home(student) / "bpe" / notebook
        book = nbformat.read(path, as_version=4)
        for name, cell in answer_cells(book).items():
            cell.source = answers[name]
        nbformat.write(book, path)
        os.chown(path, owner.pw_uid, owner.pw_gid)
    hub.must_run_as(student, ["nbgrader", "submit", "bpe"])


def submissions_of(hub: Hub, student: str) -> list[Path]:
    return sorted((hub.exchange_course / "inbound").glob(f"{student}+bpe+*"))


def set_due_date_in_the_formgrader(hub: Hub, page, due: datetime.datetime) -> None:
    """Manage Assignments, the pencil beside bpe, the due date typed as a clock in Paris shows
    it, with the zone's name (the instructors' guide's example), Save; the list shows it in UTC."""
    from playwright.sync_api import expect

    zone = "Europe/Paris"
    assert f"`{zone}`" in doc_text.section(TERM_GUIDE, "**Due date and late work.**")[:400]
    in_paris = due.replace(tzinfo=datetime.UTC).astimezone(zoneinfo.ZoneInfo(zone))
    page.goto(f"{hub.url}/user/{hub.instructor}/formgrader/manage_assignments")
    row = page.locator("tr", has=page.locator("td.name", has_text="bpe")).first
    row.locator("td.edit a").click()
    dialog = page.locator("#edit-assignment-modal")
    dialog.locator("input.modal-duedate").fill(in_paris.strftime("%Y-%m-%dT%H:%M"))
    dialog.locator("input.modal-timezone").fill(zone)
    dialog.locator("button.save").click()
    expect(dialog).to_have_count(0, timeout=30_000)
    expect(row.locator("td.duedate")).to_contain_text(due.strftime("%Y-%m-%d %H:%M"))
    shot(page, "11_formgrader_due_date")


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)  # as the gradebook keeps it


def test_a_student_submits_on_time_from_a_terminal(hub: Hub, log_in) -> None:
    """The fourth student submits (with a mistake) from a terminal; then the instructor sets
    the due date, a minute ahead, in the Formgrader: that submission is on time."""
    late = hub.students[3]
    hub.must_run_as(late, ["nbgrader", "fetch_assignment", "bpe"])
    submit_from_a_terminal(hub, late, WITH_MISTAKE)
    due = utc_now().replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
    set_due_date_in_the_formgrader(hub, log_in(hub.instructor), due)
    hub.log["due"] = due


def test_instructor_collects_in_a_lab_terminal(hub: Hub, log_in) -> None:
    """``nbgrader collect bpe`` as the hub guide types it, in a terminal of the instructor's Lab,
    in ~/course: the course's .venv/bin comes first."""
    teacher = hub.instructor
    collect = doc_text.section(HUB_GUIDE, "# A class on JupyterHub").split("`nbgrader collect bpe`")
    assert len(collect) > 1, "the hub guide's term no longer collects with nbgrader collect bpe"
    command = "cd ~/course && command -v python nbgrader && nbgrader collect bpe"
    said = run_in_lab_terminal(hub, log_in(teacher), teacher, command, "collect.out")
    lines = said.splitlines()
    assert lines[:2] == [str(hub.course / ".venv" / "bin" / n) for n in ("python", "nbgrader")]
    assert said.rstrip().endswith("exit=0"), said
    for student in (hub.students[0], hub.students[1], hub.students[3]):
        assert (hub.course / "submitted" / student / "bpe" / NOTEBOOKS[0]).exists(), said


def grades(hub: Hub) -> dict[str, dict[str, str]]:
    with open(hub.course / "grades.csv") as file:
        return {row["student_id"]: row for row in csv.DictReader(file)}


def test_the_first_grading_takes_the_on_time_submission(hub: Hub) -> None:
    """``make autograde`` and ``make export`` after the first collect: the fourth student's
    submission with the mistake is graded, on time."""
    late = hub.students[3]
    hub.must_run_as(hub.instructor, ["make", "autograde", "JOBS=2"], cwd=hub.course)
    hub.must_run_as(hub.instructor, ["make", "export"], cwd=hub.course)
    row = grades(hub)[late]
    full = points(list(CORRECT))
    assert row["status"] == "graded" and row["late"] == "", row
    assert float(row["merge_pair"]) < full["merge_pair"], row
    hub.log["first grading"] = row


def test_a_resubmission_after_the_first_collect_is_collected(hub: Hub) -> None:
    """After the due date the student submits the right answers; the same ``nbgrader collect
    bpe`` the guide shows takes the newer entry and says so, keeping the replaced copy."""
    late = hub.students[3]
    while utc_now() < hub.log["due"] + datetime.timedelta(seconds=2):
        time.sleep(0.5)
    submit_from_a_terminal(hub, late, RIGHT)
    first, second = submissions_of(hub, late)
    assert (first / "timestamp.txt").read_text() < (second / "timestamp.txt").read_text()
    hub.log["late"] = {"first": first, "second": second}
    said = hub.must_run_as(hub.instructor, ["nbgrader", "collect", "bpe"], cwd=hub.course)
    told = said.stdout + said.stderr
    assert f"Updating submission: {late}" in told and "No newer submission" not in told, told
    (replaced,) = (hub.course / "submitted" / late / ".replaced" / "bpe").iterdir()
    kept = answer_cells(nbformat.read(replaced / NOTEBOOKS[0], as_version=4))
    assert kept["merge_pair"].source.strip() == WITH_MISTAKE["merge_pair"].strip()


def test_instructor_collects_grades_and_releases_feedback(hub: Hub) -> None:
    teacher, course = hub.instructor, hub.course
    graded = hub.must_run_as(teacher, ["make", "autograde", "JOBS=2"], cwd=course)
    (hub.root / "autograde.out").write_text(graded.stdout)
    hub.must_run_as(teacher, ["make", "feedback"], cwd=course)
    hub.must_run_as(teacher, ["make", "export"], cwd=course)
    released = hub.must_run_as(teacher, ["nbgrader", "release_feedback", "bpe"], cwd=course)
    # What the instructors' guide says of its log: it names the "-tmp.html" copy, renamed to
    # "<hash>.html" before it ends; none is left behind.
    guide = " ".join(doc_text.text(TERM_GUIDE).split())
    assert "renames that copy to `<hash>.html`" in guide
    assert "-tmp.html" in released.stdout + released.stderr
    pages = [p.name for p in (hub.exchange_course / "feedback").iterdir()]
    assert pages and all(re.fullmatch(r"[0-9a-f]{32}\.html", name) for name in pages), pages
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(course / "grades.csv", ARTIFACTS / "grades.csv")
    (ARTIFACTS / "autograde.txt").write_text(graded.stdout)


def points(cell_names: list[str]) -> dict[str, float]:
    """Each exercise's maximum, from the master notebooks' test cells."""
    found: dict[str, float] = {}
    for path in sorted((ROOT / "source" / "bpe").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and not meta.get("solution"):
                name = next(n for n in cell_names if meta["grade_id"].startswith(f"test_{n}_"))
                found[name] = found.get(name, 0) + meta["points"]
    return found


def test_the_grades_are_right_in_grades_csv_and_the_gradebook(hub: Hub) -> None:
    right, wrong, absent, late = hub.students
    with open(hub.course / "grades.csv") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file)}
    full = points(list(CORRECT))
    total = sum(full.values())
    assert rows[right]["status"] == "graded" and float(rows[right]["total"]) == total
    assert float(rows[right]["max"]) == total
    assert rows[wrong]["status"] == "graded"
    assert float(rows[wrong]["merge_pair"]) < full["merge_pair"]
    for name in set(full) - {"merge_pair"}:
        assert float(rows[wrong][name]) == full[name], name
    assert float(rows[wrong]["total"]) == total - full["merge_pair"] + float(
        rows[wrong]["merge_pair"]
    )
    assert rows[absent]["status"] == "no submission" and rows[absent]["total"] == ""
    # The late student's second submission is the one graded: the right answers.
    assert rows[late]["status"] == "graded" and float(rows[late]["total"]) == total

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{hub.course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_submission("bpe", right).score == total
        assert gradebook.find_submission("bpe", wrong).score < total
        lateness = {
            s: gradebook.find_submission("bpe", s).total_seconds_late for s in (right, wrong, late)
        }
    assert lateness[right] == 0 and lateness[wrong] == 0
    assert lateness[late] > 0, "the submission after the due date was not recorded late"


def test_the_late_student_is_marked_late_with_how_late(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    right, wrong, absent, late = hub.students
    with open(hub.course / "grades.csv") as file:
        grades = {row["student_id"]: row for row in csv.DictReader(file)}
    with open(hub.course / "artifacts" / "grading" / "summary.csv") as file:
        summary = {row["student"]: row for row in csv.DictReader(file)}
    assert grades[absent]["late"] == "" and absent not in summary  # the summary: submissions
    for table in (grades, summary):
        assert table[late]["late"].startswith("late by "), table[late]
        assert table[right]["late"] == table[wrong]["late"] == ""
    printed = (hub.root / "autograde.out").read_text().splitlines()
    assert "(late by " in next(line for line in printed if line.startswith(late))
    # And where the instructor grades: the Formgrader's list of the assignment's submissions.
    page = log_in(hub.instructor)
    page.goto(f"{hub.url}/user/{hub.instructor}/formgrader/manage_submissions/bpe")
    rows = page.get_by_role("row")
    expect(rows.filter(has_text=late)).to_contain_text("late by ", timeout=60_000)
    for on_time in (right, wrong):
        expect(rows.filter(has_text=on_time)).to_be_visible()
        expect(rows.filter(has_text=on_time)).not_to_contain_text("late by")
    shot(page, "12_formgrader_late_marked")


def test_the_formgrader_and_the_exports_name_the_students(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    page = log_in(hub.instructor)
    page.goto(f"{hub.url}/user/{hub.instructor}/formgrader/manage_students")
    for k, student in enumerate(hub.students, start=1):
        row = page.locator("tr", has_text=student).first
        expect(row).to_contain_text(f"Student {k}", timeout=60_000)  # as the guide names them
    assert "None" not in page.locator("#main-table").inner_text()  # no name or email "None"
    shot(page, "12_formgrader_students_named")
    hub.must_run_as(hub.instructor, ["make", "export-nbgrader"], cwd=hub.course)
    with open(hub.course / "grades-nbgrader.csv") as file:
        exported = {row["student_id"]: row for row in csv.DictReader(file)}
    first = exported[hub.students[0]]
    assert (first["first_name"], first["last_name"]) == ("Student", "1")


def test_students_fetch_their_feedback_and_read_it(hub: Hub, log_in) -> None:
    from playwright.sync_api import expect

    for k, student in enumerate(hub.students[:2]):
        page = log_in(student)
        page.goto(f"{hub.url}/user/{student}/lab")
        widget = open_assignment_list(page)
        widget.get_by_role("button", name="Fetch Feedback").click()
        feedback_dir = hub.home(student) / "bpe" / "feedback"
        deadline = time.monotonic() + 60
        while not list(feedback_dir.glob("*/01_bpe_by_hand.html")):
            assert time.monotonic() < deadline, f"{student} got no feedback"
            time.sleep(0.5)
        shot(page, f"08_{student}_feedback_fetched")
        html = next(feedback_dir.glob("*/01_bpe_by_hand.html")).relative_to(hub.home(student))
        page.goto(f"{hub.url}/user/{student}/files/{html}")
        body = page.locator("body")
        expect(body).to_contain_text("Score", timeout=30_000)
        shot(page, f"09_{student}_feedback_page")
        text = " ".join(body.inner_text().split())
        full = points(list(CORRECT))
        lesson = full["pair_counts"] + full["merge_pair"]  # the exercises of lesson 1
        if k == 0:
            assert f"(Score: {lesson:.1f} / {lesson:.1f})" in text
            assert "Likely mistake" not in text
        else:
            assert f"(Score: {lesson - full['merge_pair']:.1f} / {lesson:.1f})" in text
            assert f"Likely mistake: {MISTAKE}" in text
            page.locator(".output_error").last.scroll_into_view_if_needed()
            shot(page, f"10_{student}_feedback_names_the_mistake")


def test_the_midterm_fix_runs_in_the_hubs_course_copy(hub: Hub) -> None:
    """The guide's recipe for a test found wrong mid-term, as written, in the hub's copy of
    the course: no notebooks/ there and no git, yet nothing refuses or stops half-way, and
    the fix (a hidden test now worth 2 points, not 1) moves exactly the grades it should."""
    from nbgrader.api import Gradebook

    block = doc_text.section(TERM_GUIDE, "**A test found wrong mid-term**").split("```")[1]
    commands = [line.split("#")[0].split() for line in block.splitlines()]
    commands = [command for command in commands if command]
    assert commands == [["make", "notebooks"], ["make", "regrade"]]
    assert not (hub.course / "notebooks").exists() and not (hub.course / ".git").exists()
    lesson, fixed = NOTEBOOKS[0].removesuffix(".ipynb"), "test_merge_pair_hidden_core"
    right, wrong, absent, late = hub.students
    with Gradebook(f"sqlite:///{hub.course / 'gradebook.db'}") as gradebook:
        scores = {
            s: gradebook.find_grade(fixed, lesson, "bpe", s).score for s in (right, wrong, late)
        }
    passed = {student for student, score in scores.items() if score == 1}
    assert {right, late} <= passed, scores  # their answers are right
    master = hub.course / "source" / "bpe" / NOTEBOOKS[0]  # kept the instructor's own
    notebook = nbformat.read(master, as_version=4)
    (cell,) = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == fixed]
    cell.metadata["nbgrader"]["points"] = 2
    master.write_text(nbformat.writes(notebook) + "\n")
    for command in commands:
        hub.must_run_as(hub.instructor, command, cwd=hub.course)
    assert sorted(p.name for p in (hub.course / "notebooks").glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "source" / "bpe").glob("*.ipynb")
    )
    (report,) = (hub.course / "artifacts" / "grading").glob("regrade-*.csv")
    with report.open(newline="") as handle:
        moved = {row["student"]: row["test cells that moved"] for row in csv.DictReader(handle)}
    assert moved == dict.fromkeys(passed, f"{fixed} 1 → 2"), moved


def test_solutions_are_released_and_fetched_on_the_hub(hub: Hub, log_in) -> None:
    """Released as the guide says; one student fetches from a terminal, another from the
    Assignment List, where the solutions' row has no Submit (bpe's, a control, still has)."""
    from playwright.sync_api import expect

    text = doc_text.section(TERM_GUIDE, "**Solutions after the deadline.**")
    assert "`make release-solutions`" in text
    fetch = text.split("`nbgrader fetch_assignment ")[1].split("`")[0]
    hub.must_run_as(hub.instructor, ["make", "release-solutions"], cwd=hub.course)
    student = hub.students[2]
    hub.must_run_as(student, ["nbgrader", "fetch_assignment", *fetch.split()])
    fetched = hub.home(student) / "bpe-solutions"
    assert sorted(p.name for p in fetched.glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "source" / "bpe").glob("*.ipynb")
    )
    student = hub.students[0]
    page = log_in(student)
    page.goto(f"{hub.url}/user/{student}/lab?reset")
    widget = open_assignment_list(page)
    released = widget.locator("#released_assignments_list .list_item", has_text="bpe-solutions")
    released.get_by_role("button", name="Fetch").click()
    rows = widget.locator("#fetched_assignments_list > .list_item")

    def row(name: str):
        return rows.filter(has=page.locator(".item_name a", has_text=re.compile(f"^{name}$")))

    expect(row("bpe-solutions")).to_have_count(1, timeout=60_000)
    expect(row("bpe").get_by_role("button", name="Submit")).to_be_visible()
    expect(row("bpe-solutions").get_by_role("button", name="Submit")).to_have_count(0)
    status = row("bpe-solutions").locator(".item_status").first
    said = status.evaluate("element => getComputedStyle(element, '::after').content")
    assert "for reading, not submitted" in said
    shot(page, "11_solutions_fetched_no_submit")
    assert (hub.home(student) / "bpe-solutions").is_dir()


# --- attacks, as a student's Unix user --------------------------------------------------------


def attempt(hub: Hub, student: str, code: str) -> str:
    """Run Python as the student and return what it printed: 'allowed' or 'denied: …'."""
    wrapped = (
        f"try:\n{_indent(code)}\n    print('allowed')\n"
        "except OSError as error:\n    print('denied:', error)\n"
    )
    done = hub.run_as(student, ["python", "-c", wrapped], cwd=Path("/tmp"))
    return (done.stdout + done.stderr).strip()


def _indent(code: str) -> str:
    return "\n".join("    " + line for line in code.splitlines())


@dataclass
class Attack:
    """One thing a student must not be able to do, and the mode that stops it."""

    name: str
    code: Callable[[Hub], str]  # Python the attacker runs
    guard: Callable[[Hub], Path]  # the file or folder whose mode stops it
    loosened: int  # bits that, added to the guard's mode, let the attack through


ATTACKS = [
    Attack(
        "list the exchange's inbound to find other students' submissions",
        lambda hub: f"import os; os.listdir({str(hub.exchange_course / 'inbound')!r})",
        lambda hub: hub.exchange_course / "inbound",
        0o004,
    ),
    Attack(
        "list the exchange's feedback to find other students' feedback",
        lambda hub: f"import os; os.listdir({str(hub.exchange_course / 'feedback')!r})",
        lambda hub: hub.exchange_course / "feedback",
        0o004,
    ),
    Attack(
        "read another student's notebook in their home",
        lambda hub: f"open({str(hub.home(hub.students[0]) / 'bpe' / NOTEBOOKS[0])!r}).read()",
        lambda hub: hub.home(hub.students[0]),
        0o005,
    ),
    Attack(
        "read another student's fetched feedback in their home",
        lambda hub: "open({!r}).read()".format(
            str(next((hub.home(hub.students[1]) / "bpe" / "feedback").glob("*/*.html")))
        ),
        lambda hub: hub.home(hub.students[1]),
        0o005,
    ),
    Attack(
        "read another student's collected submission",
        lambda hub: "open({!r}).read()".format(
            str(hub.course / "submitted" / hub.students[0] / "bpe" / NOTEBOOKS[0])
        ),
        lambda hub: hub.home(hub.instructor),
        0o005,
    ),
    Attack(
        "read the instructor's masters in source/",
        lambda hub: f"open({str(hub.course / 'source' / 'bpe' / NOTEBOOKS[0])!r}).read()",
        lambda hub: hub.home(hub.instructor),
        0o005,
    ),
    Attack(
        "read the reference answers in solutions/",
        lambda hub: "open({!r}).read()".format(str(next((hub.course / "solutions").glob("*.py")))),
        lambda hub: hub.home(hub.instructor),
        0o005,
    ),
    Attack(
        "read the hidden cases in autograder/",
        lambda hub: (
            f"open({str(hub.course / 'autograder' / 'hidden_tests' / 'cases.py')!r}).read()"
        ),
        lambda hub: hub.home(hub.instructor),
        0o005,
    ),
    Attack(
        "open the gradebook",
        lambda hub: f"open({str(hub.course / 'gradebook.db')!r}, 'rb').read()",
        lambda hub: hub.home(hub.instructor),
        0o005,
    ),
    Attack(
        "write a notebook into the released assignment (outbound)",
        lambda hub: f"open({str(hub.exchange_course / 'outbound' / 'bpe' / 'trap.ipynb')!r}, 'w')",
        lambda hub: hub.exchange_course / "outbound" / "bpe",
        0o002,
    ),
    Attack(
        "add an assignment to outbound",
        lambda hub: f"import os; os.mkdir({str(hub.exchange_course / 'outbound' / 'fake')!r})",
        lambda hub: hub.exchange_course / "outbound",
        0o002,
    ),
    Attack(
        "rename (so remove) a classmate's entry in inbound, knowing its name",
        lambda hub: "import os; os.rename({!r}, {!r})".format(
            str(victims_entry(hub)), str(victims_entry(hub)) + "-moved"
        ),
        lambda hub: hub.exchange_course / "inbound",
        -0o1000,  # loosened by taking the sticky bit away
    ),
    Attack(
        "add or rename a file inside a classmate's entry",
        lambda hub: f"open({str(victims_entry(hub) / 'planted.ipynb')!r}, 'x')",
        lambda hub: victims_entry(hub),
        0o022,  # as nbgrader's own submit leaves an entry (0777)
    ),
    Attack(
        "change a notebook inside a classmate's entry",
        lambda hub: f"open({str(victims_entry(hub) / NOTEBOOKS[0])!r}, 'a')",
        lambda hub: victims_entry(hub) / NOTEBOOKS[0],
        0o022,
    ),
    Attack(
        "move the instructor's course aside in the exchange and put a fake in its place",
        lambda hub: "import os; os.rename({!r}, {!r})".format(
            str(hub.exchange_course), str(hub.exchange_course) + "-moved"
        ),
        lambda hub: Path(hub.settings["exchange"]),
        -0o1000,  # loosened by taking the sticky bit away
    ),
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_a_student_cannot(hub: Hub, attack: Attack) -> None:
    """The attack fails as the attacker; it succeeds once its one guard is loosened (so the
    check can fail); it fails again once the guard is put back."""
    if "feedback" in attack.name or "collected" in attack.name:
        assert (hub.course / "submitted").exists(), "needs the class graded (earlier tests)"
    attacker = hub.students[2]
    code = attack.code(hub)
    guard = attack.guard(hub)
    mode = guard.stat().st_mode & 0o7777
    assert attempt(hub, attacker, code).startswith("denied"), attack.name
    guard.chmod(mode + attack.loosened if attack.loosened < 0 else mode | attack.loosened)
    try:
        outcome = attempt(hub, attacker, code)
        assert outcome == "allowed", f"loosened, the attack still failed: {outcome}"
    finally:
        moved = Path(str(hub.exchange_course) + "-moved")
        if moved.exists():
            moved.rename(hub.exchange_course)
        entry = victims_entry(hub)
        if Path(f"{entry}-moved").exists():
            Path(f"{entry}-moved").rename(entry)
        for made in (
            hub.exchange_course / "outbound" / "fake",
            hub.exchange_course / "outbound" / "bpe" / "trap.ipynb",
            entry / "planted.ipynb",
        ):
            if made.is_dir():
                made.rmdir()
            elif made.exists():
                made.unlink()
        guard.chmod(mode)
    assert attempt(hub, attacker, code).startswith("denied")


def victims_entry(hub: Hub) -> Path:
    """The first entry the first student submitted (in the browser), or where it was moved."""
    return min(submissions_of(hub, hub.students[0]), key=lambda p: p.name.removesuffix("-moved"))


def test_inbound_is_sticky_and_every_entry_private(hub: Hub) -> None:
    """``make hub`` gives inbound the sticky bit; the course's submit, from the Assignment List
    and from a terminal alike, leaves no entry (nor anything in one) another account can
    write, and nothing of its own making behind in inbound."""
    inbound = hub.exchange_course / "inbound"
    assert inbound.stat().st_mode & 0o7777 == 0o3733
    entries = sorted(inbound.iterdir())
    submitted = {hub.students[0], hub.students[1], hub.students[3]}
    assert {p.name.split("+")[0] for p in entries} >= submitted, entries
    assert all(p.name.count("+") == 3 for p in entries), entries  # no private folder left
    for entry in entries:
        assert entry.stat().st_uid == pwd.getpwnam(entry.name.split("+")[0]).pw_uid
        for path in [entry, *entry.rglob("*")]:
            assert not path.stat().st_mode & 0o022, (path, oct(path.stat().st_mode))


def test_submission_names_cannot_be_guessed(hub: Hub) -> None:
    """Inbound cannot be listed, and nbgrader adds a random part to each submission's name,
    so knowing a classmate's name and the time is not enough to open their submission."""
    for path in submissions_of(hub, hub.students[0]):
        student, assignment, timestamp, random = path.name.split("+")
        assert (student, assignment) == (hub.students[0], "bpe") and len(random) >= 12


def test_a_second_submission_replaces_the_first_only_when_collected(hub: Hub) -> None:
    """nbgrader keeps both submissions in inbound, each under its own time; collect takes the
    newer one into submitted/, whose notebooks hold the second submission's answers."""
    late = hub.students[3]
    first, second = hub.log["late"]["first"], hub.log["late"]["second"]
    assert first.exists() and second.exists()
    collected = hub.course / "submitted" / late / "bpe"
    assert (collected / "timestamp.txt").read_text() == (second / "timestamp.txt").read_text()
    cells = answer_cells(nbformat.read(collected / NOTEBOOKS[0], as_version=4))
    assert cells["merge_pair"].source.strip() == RIGHT["merge_pair"].strip()
    first_cells = answer_cells(nbformat.read(first / NOTEBOOKS[0], as_version=4))
    assert first_cells["merge_pair"].source.strip() == WITH_MISTAKE["merge_pair"].strip()


def test_ctrl_c_stops_the_hub_and_leaves_nothing_running(hub: Hub) -> None:
    assert accounts.processes_of(prefixed_uids()), "the class's servers should be running now"
    api_port = hub.settings["proxy_api_port"]
    pid_file = layout.HubFolder(hub.root).proxy_pid
    # The proxy run_hub looks for is the one JupyterHub started, its pid file where we said.
    assert run_hub.proxies_serving(api_port) == [int(pid_file.read_text())]
    os.killpg(hub.process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals make and its child
    hub.process.wait(timeout=90)
    said = hub.output.read_text()
    # make passes the interrupt on as its own end (a shell's 130); the hub's script says more.
    assert hub.process.returncode in (-signal.SIGINT, 130), said[-2000:]
    assert "stopped: no server, kernel or proxy of the hub is running" in said
    # The guide's GRADING_SERVICE=off is what kept JupyterHub from starting the service.
    log = (hub.root / "state" / "jupyterhub.log").read_text()
    assert "JupyterHub is now running" in log and "Starting service" not in log, log[-2000:]
    assert accounts.processes_of(prefixed_uids()) == []
    assert run_hub.proxies_serving(api_port) == []  # JupyterHub only signals it
    assert not pid_file.exists()
    for port in (
        hub.settings["hub_port"],
        api_port,
        int(hub.url.rsplit(":", 1)[1]),
    ):
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, f"port {port} still answers"


def listening(pid: int) -> str:
    """What listens for TCP in the network namespace of process ``pid`` (``ss``'s own lines)."""
    done = subprocess.run(
        ["nsenter", f"--net=/proc/{pid}/ns/net", "ss", "-Hltn"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_room_network_hub_listens_on_every_interface(hub: Hub, tmp_path: Path) -> None:
    """The guide's ``make hub HUB_IP=0.0.0.0`` as written, restarting this class's hub in a
    network namespace of its own, so "every interface" is that namespace's loopback alone and
    nothing of this machine's network is served."""
    if not (shutil.which("unshare") and shutil.which("nsenter") and shutil.which("ip")):
        pytest.skip("needs util-linux's unshare and nsenter and iproute2's ip (.ci/run installs)")
    assert hub.process.poll() is not None, "needs the hub stopped (the Ctrl-C test)"
    asked = doc_text.inline(HUB_GUIDE, "make hub HUB_IP=").split()
    port = free_port()
    ours = [
        "STUDENTS=4", f"HUB_PREFIX={PREFIX}", f"HUB_ROOT={hub.root}", "HUB_HOMES_INSIDE=1",
        f"HUB_PORT={port}", f"HUB_VENV={HUB_VENV}", "GRADING_SERVICE=off",
    ]  # fmt: skip
    room = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    output = tmp_path / "run_hub.out"
    process = start_hub([*room, *asked, *ours], output)
    try:
        inside = listening(process.pid)
        assert f"0.0.0.0:{port} " in inside, inside
        with socket.socket() as sock:  # this machine's own loopback is not the room's
            assert sock.connect_ex(("127.0.0.1", port)) != 0
        answered = subprocess.run(
            ["nsenter", f"--net=/proc/{process.pid}/ns/net", str(HUB_VENV / "bin" / "python"),
             "-c", f"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}"
             "/hub/login').status)"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert answered.stdout.strip() == "200", answered.stderr
    finally:
        stop_hub(process)
    assert "stopped: no server, kernel or proxy of the hub is running" in output.read_text()
    assert accounts.processes_of(prefixed_uids()) == []


def test_removing_only_the_accounts_lists_them_and_keeps_them_without_a_terminal(
    hub: Hub,
) -> None:
    """The hub guide's accounts-only removal, with this hub's prefix, run with no terminal."""
    asked = doc_text.inline(HUB_GUIDE, ".venv/bin/python -m hub.accounts remove")
    assert asked.endswith("--prefix bpe-"), asked
    done = subprocess.run(
        [*asked.split()[:-1], PREFIX], cwd=ROOT, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "no terminal to ask: kept everything" in done.stdout
    assert all(f"  {name}\n" in done.stdout for name in [hub.instructor, *hub.students])
    assert {pwd.getpwnam(name).pw_uid for name in hub.students} <= prefixed_uids()


def make_second_class(tmp_path: Path, venv: Path) -> tuple[str, Path, str]:
    """Beside the test hub, what a second ``make hub`` with its own HUB_PREFIX and HUB_ROOT on
    the same venv leaves: its folder (state/settings.json), its marker in the venv and a
    student account whose name starts with this hub's prefix too (``<prefix>b-student1``)."""
    prefix = f"{PREFIX}b-"
    root = tmp_path / "second-class"
    (root / "state").mkdir(parents=True)
    (root / "state" / "settings.json").write_text(json.dumps({"prefix": prefix}))
    classes.mark_class(venv, root, prefix)
    student = f"{prefix}student1"
    subprocess.run(["useradd", "--no-create-home", student], check=True)
    return prefix, root, student


def test_one_of_two_classes_is_taken_down_leaving_only_the_exported_grades(
    hub: Hub, tmp_path: Path
) -> None:
    """The hub guide's take-down, with this hub's prefix and folder and a stand-in for the
    venv it shares with a second class (the real venv serves the other hub tests): refused
    without a terminal, then done with FORCE=1; the second class's account, folder and venv
    stay; then that class is taken down too, and the venv goes with the last class."""
    assert hub.process.poll() is not None, "needs the hub stopped (the Ctrl-C test)"
    keep = ("PATH", "HOME", "LANG")  # and pyenv's, should python3 be its shim
    env = {k: v for k, v in os.environ.items() if k in keep or k.startswith("PYENV")}
    stand_in = tmp_path / "opt" / "bpe-course-hub" / "venv"
    (stand_in / "bin").mkdir(parents=True)
    (stand_in / "pyvenv.cfg").write_text("home = /usr/bin\n")
    classes.mark_class(stand_in, hub.root, PREFIX)  # as make hub marked the real one
    other_prefix, other_root, other_student = make_second_class(tmp_path, stand_in)
    try:
        ours = {
            "--prefix bpe-": f"--prefix {PREFIX}",
            "--root /srv/bpe-course-hub": f"--root {hub.root}",
            "--venv /opt/bpe-course-hub/venv": f"--venv {stand_in}",
        }
        asked = doc_text.command(HUB_GUIDE, "python3 -m hub.take_down")
        for written, here in ours.items():
            assert written in asked
            asked = asked.replace(written, here)
        done = subprocess.run(
            asked.split(), cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "no terminal to ask" in done.stderr, done.stderr
        assert "FORCE=1" in done.stderr, done.stderr  # make's switch, for make's users
        assert "Traceback" not in done.stderr and hub.root.exists() and prefixed_uids()
        down = doc_text.command(HUB_GUIDE, "make hub-down").split()
        out = tmp_path / "grades"
        variables = [
            f"HUB_PREFIX={PREFIX}", f"HUB_ROOT={hub.root}", f"HUB_VENV={stand_in}",
            f"OUT={out}", "FORCE=1",
        ]  # fmt: skip
        done = subprocess.run(
            [*down, *variables], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        assert "exported the grades first" in said and "removed accounts:" in said
        exported = {p.name for p in out.iterdir()}
        # The grades, nbgrader's export, the summary and the mid-term regrade's report.
        assert {"grades.csv", "grades-nbgrader.csv", "summary.csv"} <= exported, exported
        assert any(re.fullmatch(r"regrade-.*\.(csv|md)", name) for name in exported), exported
        with open(out / "grades.csv") as file:
            assert {row["student_id"] for row in csv.DictReader(file)} == set(hub.students)
        assert not hub.root.exists() and classes.class_marker(stand_in, hub.root) is None
        assert prefixed_uids() == {pwd.getpwnam(other_student).pw_uid}
        # The second class keeps its account, its folder and the venv, and is named as its user.
        assert other_root.exists() and stand_in.exists() and HUB_VENV.exists()
        assert f"kept {stand_in}: the class in {other_root}" in said, said
        done = subprocess.run(
            [*down, f"HUB_PREFIX={other_prefix}", f"HUB_ROOT={other_root}",
             f"HUB_VENV={stand_in}", f"OUT={tmp_path / 'second-grades'}", "FORCE=1"],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert not other_root.exists() and not stand_in.parent.exists()
        assert prefixed_uids() == set()
    finally:
        if accounts.exists(other_student):
            subprocess.run(["userdel", other_student], check=False)


def test_make_hub_says_why_not_and_what_to_do_instead() -> None:
    """Without Linux or root, make hub stops before touching anything and names the way on."""
    mac = why_not("Darwin", 501, False)
    user = why_not("Linux", 1000, True)
    assert mac.startswith("make hub needs Linux") and "make lab" in mac
    assert user.startswith("make hub needs root") and "sudo make hub" in user
    assert why_not("Linux", 0, True) is None
    if os.geteuid() != 0:  # then the real command must refuse, with that reason
        done = subprocess.run(["make", "hub"], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode != 0 and "make hub needs root" in done.stderr
