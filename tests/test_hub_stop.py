"""``make hub``'s stop waits for the proxy, which JupyterHub only asks to stop.

JupyterHub starts configurable-http-proxy in a session of its own, and on its way out signals
it, deletes its pid file and exits without waiting. A stand-in hub here does the same with a
stand-in proxy that takes a moment to close its port, so the test is deterministic and needs
neither root nor JupyterHub (tests/test_hub.py stops the real one).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub import layout, run_hub

# Listens, says its port, and on SIGTERM holds the port a while longer before it exits.
SLOW_PROXY = textwrap.dedent(
    """
    import signal, socket, sys, time
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    def end(signum, frame):
        time.sleep(1.5)
        sys.exit(0)
    signal.signal(signal.SIGTERM, end)
    print(server.getsockname()[1], flush=True)
    while True:
        time.sleep(0.1)
    """
)

# What JupyterHub does with its proxy: a session of its own, a pid file; on SIGTERM, signal
# the proxy, delete the file and exit at once.
HUB = textwrap.dedent(
    """
    import os, signal, subprocess, sys, time
    pid_file, proxy_code, proxy_path = sys.argv[1:]
    proxy = subprocess.Popen(
        [sys.executable, "-c", proxy_code, proxy_path], start_new_session=True,
        stdout=subprocess.PIPE, text=True,
    )
    port = proxy.stdout.readline().strip()
    with open(pid_file, "w") as file:
        file.write(str(proxy.pid))
    def end(signum, frame):
        proxy.terminate()
        os.remove(pid_file)
        os._exit(0)
    signal.signal(signal.SIGTERM, end)
    print(port, flush=True)
    while True:
        time.sleep(0.1)
    """
)


def answers(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[subprocess.Popen, int, layout.HubFolder]]:
    folder = layout.HubFolder(tmp_path)
    folder.state.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", HUB, str(folder.proxy_pid), SLOW_PROXY, str(run_hub.PROXY)],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    port = int(process.stdout.readline())
    proxy = int(folder.proxy_pid.read_text())
    try:
        yield process, port, folder
    finally:
        if run_hub.is_proxy(proxy):
            os.kill(proxy, signal.SIGKILL)
        process.kill()
        process.wait()


def test_the_stop_returns_only_when_the_proxy_has_closed_its_port(hub) -> None:
    process, port, folder = hub
    proxy = run_hub.proxy_of(folder)
    assert proxy is not None and answers(port)
    assert run_hub.shut_down(process, set(), folder)
    assert not answers(port), "the proxy still listens after the hub said it stopped"
    assert not run_hub.is_proxy(proxy)


def test_a_pid_file_naming_another_program_names_no_proxy(tmp_path: Path) -> None:
    folder = layout.HubFolder(tmp_path)
    folder.state.mkdir()
    other = subprocess.Popen(["sleep", "60"])
    try:
        folder.proxy_pid.write_text(str(other.pid))
        assert run_hub.proxy_of(folder) is None  # an id the system gave to something else
        folder.proxy_pid.write_text("not a number")
        assert run_hub.proxy_of(folder) is None
    finally:
        other.kill()
        other.wait()
