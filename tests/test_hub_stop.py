"""``make hub``'s stop ends the hub's proxy, which JupyterHub only signals, and nothing else.

JupyterHub starts configurable-http-proxy in a session of its own, and on its way out signals
it, deletes its pid file and exits without waiting; a hub killed outright does none of that.
A stand-in hub here does the same with stand-in proxies that take their time over SIGTERM or
ignore it, so each case happens every time, without root or JupyterHub (tests/test_hub.py
stops the real one).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hub import layout, run_hub

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="make hub runs on Linux alone"),
]

# A proxy's command line as JupyterHub gives it; it listens on its API port, then on SIGTERM
# holds the port 1.5 s longer ("slow") or goes on as if nothing happened ("stubborn").
PROXY = textwrap.dedent(
    """
    import signal, socket, sys, time
    server = socket.socket()
    server.bind(("127.0.0.1", int(sys.argv[3])))
    server.listen()
    def slow(signum, frame):
        time.sleep(1.5)
        sys.exit(0)
    signal.signal(signal.SIGTERM, slow if sys.argv[4] == "slow" else signal.SIG_IGN)
    print("ready", flush=True)
    while True:
        time.sleep(0.1)
    """
)

# What JupyterHub does with its proxy: a session of its own and a pid file; on SIGTERM it
# signals the proxy, deletes the file and exits at once.
HUB = textwrap.dedent(
    """
    import json, os, subprocess, sys, time, signal
    proxy = json.loads(os.environ["STAND_IN_PROXY"])  # not in argv, where it would look a proxy
    process = subprocess.Popen(
        [sys.executable, "-c", *proxy], start_new_session=True, stdout=subprocess.PIPE
    )
    process.stdout.readline()
    with open(sys.argv[1], "w") as file:
        file.write(str(process.pid))
    def end(signum, frame):
        process.terminate()
        os.remove(sys.argv[1])
        os._exit(0)
    signal.signal(signal.SIGTERM, end)
    print("ready", flush=True)
    while True:
        time.sleep(0.1)
    """
)


def proxy_command(api_port: int, manner: str) -> list[str]:
    return [PROXY, str(run_hub.PROXY), "--api-port", str(api_port), manner]


def answers(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Class:
    hub: subprocess.Popen
    folder: layout.HubFolder
    api_port: int
    other_port: int  # another class's proxy, from the same checkout


Starter = Callable[[str], Class]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Starter]:
    """Starts another class's proxy and a hub whose proxy behaves in the ``manner`` given;
    ends all of them, by id, whatever the test did."""
    api_port, other_port = run_hub.free_port(), run_hub.free_port()
    started: list[subprocess.Popen] = []

    def starter(manner: str) -> Class:
        folder = layout.HubFolder(tmp_path)
        folder.state.mkdir()
        started.append(
            subprocess.Popen(
                [sys.executable, "-c", *proxy_command(other_port, "slow")],
                start_new_session=True,
                stdout=subprocess.PIPE,
            )  # fmt: skip
        )
        started.append(
            subprocess.Popen(
                [sys.executable, "-c", HUB, str(folder.proxy_pid)],
                start_new_session=True,
                stdout=subprocess.PIPE,
                env=dict(os.environ, STAND_IN_PROXY=json.dumps(proxy_command(api_port, manner))),
            )  # fmt: skip
        )
        for process in started:
            assert process.stdout.readline() == b"ready\n"
            process.stdout.close()
        return Class(started[-1], folder, api_port, other_port)

    yield starter
    for pid in run_hub.proxies_serving(api_port) + run_hub.proxies_serving(other_port):
        os.kill(pid, signal.SIGKILL)
    for process in started:
        process.kill()
        process.wait()


def test_the_stop_returns_once_the_proxy_has_closed_its_port(start: Starter) -> None:
    one = start("slow")
    [proxy] = run_hub.proxies_serving(one.api_port)
    assert int(one.folder.proxy_pid.read_text()) == proxy and answers(one.api_port)
    assert run_hub.shut_down(one.hub, set(), one.folder, one.api_port)
    assert not answers(one.api_port), "the proxy still listens after the hub said it stopped"
    assert run_hub.proxies_serving(one.api_port) == []
    assert answers(one.other_port), "another class's proxy was stopped too"


def test_the_proxy_of_a_hub_killed_outright_is_ended_and_its_pid_file_removed(
    start: Starter,
) -> None:
    one = start("slow")
    one.hub.kill()  # no signal reaches the proxy and the pid file stays
    one.hub.wait()
    assert run_hub.proxies_serving(one.api_port) and one.folder.proxy_pid.exists()
    assert run_hub.shut_down(one.hub, set(), one.folder, one.api_port)
    assert not answers(one.api_port)
    # JupyterHub's next start would signal whatever then held the id the file names.
    assert not one.folder.proxy_pid.exists()
    assert answers(one.other_port)


def test_a_proxy_deaf_to_sigterm_is_killed_after_its_grace(
    start: Starter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_hub, "PROXY_GRACE", 0.5)
    one = start("stubborn")
    assert run_hub.shut_down(one.hub, set(), one.folder, one.api_port)
    assert not answers(one.api_port)
    assert answers(one.other_port)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to start a process as another user")
def test_another_accounts_look_alike_is_no_proxy_of_the_hub() -> None:
    """A student can give a process of their own the proxy's command line; the stop, run as
    root, must neither wait on it nor count it."""
    api_port = run_hub.free_port()
    command = ["sh", "-c", "sleep 60", str(run_hub.PROXY), "--api-port", str(api_port)]
    mine = subprocess.Popen(command)
    theirs = subprocess.Popen(command, user=65534, group=65534)
    try:
        assert run_hub.proxies_serving(api_port) == [mine.pid]
    finally:
        for process in (mine, theirs):
            process.kill()
            process.wait()
