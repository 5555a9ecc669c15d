"""Landlock as grading kernels use it: writes only in the folders named, sockets only in the
socket folder and, after a second layer, not even those; a child cannot lift it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import landlock
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.slow,  # starts restricted processes
    pytest.mark.skipif(landlock.abi_version() == 0, reason="this Linux kernel has no Landlock"),
]

PROBE = """
import json, os, socket, subprocess, sys
from autograder.sandbox import landlock
writable, sockets, elsewhere = sys.argv[1:4]
landlock.restrict([writable], ["/dev"], [sockets])

def tried(action):
    try:
        action()
        return "done"
    except PermissionError:
        return "refused"

def write(path):
    with open(path, "w") as out:
        out.write("x")

later = [sys.executable, "-c", f"open({os.path.join(sockets, 'child')!r}, 'w')"]
print(json.dumps({
    "file in writable": tried(lambda: write(os.path.join(writable, "a"))),
    "folder in writable": tried(lambda: os.makedirs(os.path.join(writable, "d", "e"))),
    "file in sockets": tried(lambda: write(os.path.join(sockets, "a"))),
    "folder in sockets": tried(lambda: os.mkdir(os.path.join(sockets, "d"))),
    "socket in sockets": tried(lambda: socket.socket(socket.AF_UNIX).bind(
        os.path.join(sockets, "s"))),
    "file elsewhere": tried(lambda: write(os.path.join(elsewhere, "a"))),
    "/dev/null": tried(lambda: write("/dev/null")),
    "file from a child": "refused" if subprocess.run(later).returncode else "done",
}))
landlock.restrict([writable], ["/dev"], [])  # a second layer, as once the kernel is up
print(json.dumps({
    "socket in sockets, then": tried(lambda: socket.socket(socket.AF_UNIX).bind(
        os.path.join(sockets, "t"))),
    "file in writable, then": tried(lambda: write(os.path.join(writable, "b"))),
}))
"""


def test_a_restricted_process_writes_only_where_it_may(tmp_path: Path) -> None:
    folders = [tmp_path / name for name in ("writable", "sockets", "elsewhere")]
    for folder in folders:
        folder.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, folders)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    first, second = map(json.loads, done.stdout.splitlines())
    assert first == {
        "file in writable": "done",
        "folder in writable": "done",
        "file in sockets": "refused",
        "folder in sockets": "refused",
        "socket in sockets": "done",
        "file elsewhere": "refused",
        "/dev/null": "done",
        "file from a child": "refused",
    }
    assert second == {"socket in sockets, then": "refused", "file in writable, then": "done"}
    assert sorted(p.name for p in folders[1].iterdir()) == ["s"]
