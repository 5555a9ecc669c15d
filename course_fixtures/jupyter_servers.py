"""Jupyter servers and headless Chromium for the tests and the benches that drive a browser.

``find_chromium`` finds Debian's Chromium (a skip saying how to install it when it is missing),
``CHROMIUM_ARGS`` are the flags every run passes it and ``headless_chromium`` launches it;
``start`` and ``stop`` run a server in a process group of its own, stopped by its id;
``jupyter_env`` points Jupyter's folders at a temporary one; ``wait_until`` and ``answers``
wait for a server to answer.
``formgrader_server`` starts ``jupyter_server`` on 127.0.0.1 and a free port with nbgrader's
formgrader, the course's escaping extension (``autograder.formgrader``) unless told not to,
and nothing else (no Lab, no Voila), its Jupyter folders under ``tmp``; it yields the server's
base URL once ``/api/status`` answers and stops the server by its process id. With
``lab_too=True`` it also loads what ``make lab``'s server loads (JupyterLab, Notebook 7 and
Voila's server extension), with no news and no update check.

But: it makes no course and grades nothing; the token is the caller's. Shared by ``tests/``
and ``bench/`` (which may not import ``tests/``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def find_chromium() -> str:
    """Debian's Chromium, or a skip that says how to get it (never a silent pass)."""
    path = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if path is None:
        how = (
            "run `.ci/run` (it installs it) or `apt-get install -y chromium`"
            if os.geteuid() == 0
            else "ask an administrator to `apt-get install -y chromium`, then re-run"
        )
        pytest.skip(f"browser tests need Chromium at /usr/bin/chromium; {how}")
    return path


@contextlib.contextmanager
def headless_chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright with ``CHROMIUM_ARGS``, closed on exit; a skip
    saying how to get either when it is missing."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="browser tests need playwright: run `make venv`"
    )
    executable = find_chromium()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def jupyter_env(tmp: Path) -> dict[str, str]:
    """Fresh config, data-free runtime and workspace folders, with JupyterLab's news off."""
    env = dict(os.environ)
    for name in ("config", "runtime", "workspaces"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    env["JUPYTER_CONFIG_DIR"] = str(tmp / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp / "runtime")
    labconfig = tmp / "config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    page_config = {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
    (labconfig / "page_config.json").write_text(json.dumps(page_config))
    return env


def start(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    """Start a server in its own process group, so stopping it stops its kernels too."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def stop(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_until(ready, process: subprocess.Popen, log: Path, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited with code {process.returncode}:\n{log.read_text()[-3000:]}")
        if ready():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} was not ready after {timeout} s:\n{log.read_text()[-3000:]}")


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def formgrader_server(
    root: Path, tmp: Path, token: str, guarded: bool = True, lab_too: bool = False
) -> Iterator[str]:
    """Serve ``root``'s Formgrader; yields ``http://127.0.0.1:PORT/``."""
    port = free_port()
    extensions = {
        "nbgrader.server_extensions.formgrader": True,
        "autograder.formgrader": guarded,
        "jupyterlab": lab_too,
        "voila.server_extension": lab_too,
        "jupyter_lsp": False,
        "notebook": lab_too,
        "notebook_shim": lab_too,
    }
    command = [
        *(sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}"),
        *("--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"),
        *(f"--ServerApp.root_dir={root}", "--allow-root"),
        *[f"--ServerApp.jpserver_extensions={name}={on}" for name, on in extensions.items()],
    ]
    if lab_too:
        command += ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly"]
        command += ["--LabApp.check_for_updates_class=jupyterNeverCheckForUpdate"]
        command.append(f"--LabApp.workspaces_dir={tmp / 'jupyter' / 'workspaces'}")
    env = jupyter_env(tmp / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(tmp / "jupyter" / "data")
    env["PYTHONPATH"] = str(REPO)
    log = tmp / "server.log"
    process = start(command, root, env, log)
    try:
        status = f"http://127.0.0.1:{port}/api/status?token={token}"
        wait_until(lambda: answers(status), process, log, "the Jupyter server")
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop(process)
