"""A class's hub, started by ``make hub``, and the pages its students load, timed while it runs.

``ClassHub`` runs the hub guide's ``make hub`` with ``students`` students, accounts of a prefix
of this run's (``bpebench<pid>-``, so the tests' ``bpehub…`` and ``bperush…`` are never
touched), its folder in the system's temporary folder (which every account can reach), a
free port, and the hub's grading service on or off. It logs the first student in as a
browser does (the login form with its ``_xsrf``), which starts their server, and waits until the
server answers; ``run_as`` runs a command as an account and
``hand_to`` gives a file to one. ``Pages`` then loads, each from a thread of its own at a
steady pace (every ``EVERY`` seconds, the threads staggered), what that student's browser
loads when they come back to the class:

- the hub's login page (``hub/login``), as a new visitor with no cookie;
- the hub's home (``hub/home``), logged in: where "Start My Server" is;
- the student's Lab page (``user/<name>/lab``), the HTML the server renders for Lab (its
  scripts and styles are the browser's cache's, not timed);
- the student's file list (``user/<name>/api/contents``), what Lab's file browser asks first.

Each load is timed from sending the request to its whole answer. One that fails (not 200, or
no answer in ``TIMEOUT`` seconds) is counted as failed and at ``TIMEOUT`` seconds in the
percentiles: a page that does not load is at least as bad as a slow one. ``during(start, end)``
gives each page's p50, p95, count and failures over the loads sent in a window.

When the hub cannot run (not root, not Linux, ``make hub`` fails), ``ClassHub.start`` raises
``HubUnavailableError`` with the reason, and the bench records that instead. Stopping (also on
Ctrl-C or SIGTERM, from the bench's ``finally``) sends the hub Ctrl-C as its terminal would,
then removes the accounts by their prefix (their processes ended by id first), the folder, and
the class's mark on the shared venv.

But: one student's pages, not a class's worth of browsers; no Chromium (the Lab's own
requests after its HTML are not timed) and no kernel is started. It grades nothing itself:
the bench files entries for the hub's own grading service.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import pwd
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from hub import accounts, classes
from hub.preflight import why_not
from hub.roles import role_environment

ROOT = Path(__file__).resolve().parent.parent
PREFIX_STEM = "bpebench"
EVERY = 2.0  # seconds between two loads of one page
TIMEOUT = 10.0  # a load slower than this is a failure
STARTED = "The class's hub is up"


class HubUnavailableError(Exception):
    """Why the hub's pages could not be measured (said in the record, with no folder named)."""


@dataclass
class Load:
    sent: float  # time.time() when the request went
    seconds: float
    ok: bool


@dataclass
class Page:
    name: str
    path: str  # after the hub's address, e.g. "hub/login"
    session: requests.Session | None  # None: a new visitor each time
    loads: list[Load] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def remove_left_over_runs() -> None:
    """The accounts of earlier bench runs that were killed (their process id is gone)."""
    for entry in accounts.accounts_with_prefix(PREFIX_STEM):
        found = re.fullmatch(rf"{PREFIX_STEM}(\d+)-.*", entry.pw_name)
        if found and not Path(f"/proc/{found.group(1)}").exists():
            accounts.remove_accounts(f"{PREFIX_STEM}{found.group(1)}-")


class ClassHub:
    """``make hub`` for one student, in a folder and with accounts of this run's."""

    def __init__(self, venv: Path, students: int = 1, grading: bool = False) -> None:
        self.venv, self.count, self.grading = venv, students, grading
        self.prefix = f"{PREFIX_STEM}{os.getpid()}-"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.root: Path | None = None
        self.process: subprocess.Popen | None = None
        self.student = ""  # the one whose pages are loaded
        self.settings: dict = {}
        self.why = ""  # why the pages could not be measured, once start has said so
        self.session = requests.Session()

    def start(self, output: Path) -> None:
        """Start the hub (its output, passwords included, into ``output``), log the student
        in and wait for their server; ``HubUnavailableError`` when any of it cannot be done."""
        reason = why_not(platform.system(), os.geteuid(), shutil.which("useradd") is not None)
        if reason:
            raise HubUnavailableError(reason.splitlines()[0])
        remove_left_over_runs()
        self.root = Path(tempfile.mkdtemp(prefix="bpe-hub-bench-", dir="/tmp"))
        command = [
            "make", "--no-print-directory", "hub", f"STUDENTS={self.count}",
            f"HUB_PREFIX={self.prefix}", f"HUB_ROOT={self.root}", "HUB_HOMES_INSIDE=1",
            f"HUB_PORT={self.port}", f"HUB_VENV={self.venv}",
            f"GRADING_SERVICE={'on' if self.grading else 'off'}",
        ]  # fmt: skip
        env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}  # nothing of make bench's own
        with output.open("wb") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C in the bench's terminal is the bench's
            )  # fmt: skip
        deadline = time.monotonic() + 300
        while STARTED not in output.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                print(output.read_text(errors="replace")[-3000:])
                raise HubUnavailableError(
                    "make hub did not start the hub (its output is printed above)"
                )
            time.sleep(0.5)
        self.settings = json.loads((self.root / "state" / "settings.json").read_text())
        passwords = json.loads((self.root / "state" / "passwords.json").read_text())
        self.student = self.settings["students"][0]
        self.log_in(passwords[self.student])

    @property
    def log(self) -> Path:
        """JupyterHub's log, where its managed service's output goes too."""
        return Path(self.settings["state"]) / "jupyterhub.log"

    def run_as(self, user: str, argv: list[str], cwd: Path) -> None:
        """Run a command as a class's account, with the environment its server gets."""
        env = {"HOME": pwd.getpwnam(user).pw_dir, "USER": user, "LOGNAME": user}
        env |= {"LANG": "C.UTF-8", **role_environment(self.settings, user)}
        runuser = shutil.which("runuser") or "/usr/sbin/runuser"
        done = subprocess.run(
            [runuser, "-u", user, "--", *argv], cwd=cwd, env=env, capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(
                f"{argv} as {user} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )

    def hand_to(self, path: Path, student: str) -> None:
        """Make ``path`` (and all in it) the student's, as their own submit leaves it."""
        entry = pwd.getpwnam(student)
        for part in [path, *path.rglob("*")]:
            os.chown(part, entry.pw_uid, entry.pw_gid, follow_symlinks=False)

    def log_in(self, password: str) -> None:
        """The login form, as a browser fills it; then wait for the student's server."""
        form = self.session.get(f"{self.url}/hub/login", timeout=30)
        found = re.search(r'name="_xsrf" value="([^"]+)"', form.text)
        data = {"username": self.student, "password": password}
        if found:
            data["_xsrf"] = found.group(1)
        self.session.post(f"{self.url}/hub/login", data=data, timeout=120)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with contextlib.suppress(requests.RequestException):
                answer = self.session.get(f"{self.url}/user/{self.student}/lab", timeout=30)
                if answer.status_code == 200 and answer.url.endswith("/lab"):
                    return
            time.sleep(1)
        raise HubUnavailableError(
            f"the student's server did not answer at {self.student}'s Lab page"
        )

    def pages(self) -> list[Page]:
        """The pages a student loads (``Pages`` times them), in the order they are started."""
        user = f"user/{self.student}"

        def own() -> requests.Session:  # a session a thread: requests' are not thread-safe
            session = requests.Session()
            session.cookies.update(self.session.cookies)
            return session

        return [
            Page("hub login page (hub/login)", "hub/login", None),
            Page("hub home, logged in (hub/home)", "hub/home", own()),
            Page("the student's Lab page (user/NAME/lab)", f"{user}/lab", own()),
            Page("the student's file list (user/NAME/api/contents)", f"{user}/api/contents",
                 own()),
        ]  # fmt: skip

    def stop(self) -> None:
        """Ctrl-C to the hub, as its terminal; then its accounts, folder and venv mark go."""
        try:
            if self.process is not None and self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGINT)
                try:
                    self.process.wait(timeout=90)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait()
        finally:
            if self.root is not None:
                accounts.remove_accounts(self.prefix)  # ends their processes by id first
                shutil.rmtree(self.root, ignore_errors=True)
                classes.unmark_class(self.venv, self.root)


class Pages:
    """Each page loaded every ``every`` seconds from a thread of its own, while in ``with``."""

    def __init__(self, url: str, pages: list[Page], every: float = EVERY) -> None:
        self.url, self.pages, self.every = url, pages, every
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(target=self.keep_loading, args=(page, k * every / len(pages)),
                             daemon=True, name=f"page {page.path}")
            for k, page in enumerate(pages)
        ]  # fmt: skip

    def __enter__(self) -> Pages:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=TIMEOUT + 5)

    def keep_loading(self, page: Page, offset: float) -> None:
        # A steady pace from a fixed start: a slow load delays only its own page's next one.
        next_at = time.monotonic() + offset
        while not self.stopping.wait(max(0.0, next_at - time.monotonic())):
            page.loads.append(self.load(page))
            next_at = max(next_at + self.every, time.monotonic())

    def load(self, page: Page) -> Load:
        sent, start = time.time(), time.perf_counter()
        try:
            answer = (page.session or requests).get(
                f"{self.url}/{page.path}", timeout=TIMEOUT, allow_redirects=False
            )
            ok = answer.status_code == 200
        except requests.RequestException:
            ok = False
        seconds = time.perf_counter() - start
        return Load(sent, seconds if ok else max(seconds, TIMEOUT), ok)

    def during(self, start: float, end: float) -> dict[str, dict[str, float]]:
        """Each page's p50, p95 (seconds), count and failures over loads sent in the window."""
        figures = {}
        for page in self.pages:
            loads = [load for load in page.loads if start <= load.sent <= end]
            seconds = sorted(load.seconds for load in loads)
            figures[page.name] = {
                "p50": round(statistics.median(seconds), 3) if seconds else None,
                "p95": round(p95(seconds), 3) if seconds else None,
                "count": len(loads),
                "failed": sum(not load.ok for load in loads),
            }
        return figures


def p95(seconds: list[float]) -> float:
    """The 95th percentile (inclusive); one value is its own."""
    if len(seconds) < 2:
        return seconds[0]
    return statistics.quantiles(seconds, n=20, method="inclusive")[-1]
