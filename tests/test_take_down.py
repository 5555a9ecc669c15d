"""The class's take-down, without a hub: it refuses with a message, never a traceback, and
deletes only folders that are the hub's, never through a link.

Each run names an account prefix no account has, a scratch hub folder and a scratch venv.
But: no account is made or exported here; ``tests/test_hub.py`` takes a real class down.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hub import accounts, take_down

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "bpe-nosuchclass-"


def scratch_hub(tmp_path: Path) -> tuple[Path, Path]:
    root, venv = tmp_path / "srv" / "hub", tmp_path / "opt" / "hub-env" / "venv"
    (root / "state").mkdir(parents=True)
    (root / "exchange" / "inbound").mkdir(parents=True)
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return root, venv


def run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "hub.take_down", "--prefix", PREFIX, *args]
    return subprocess.run(
        command, cwd=tmp_path, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
        input=stdin, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_without_a_terminal_or_yes_it_refuses_and_deletes_nothing(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), stdin="")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no terminal to ask" in done.stderr and "--yes" in done.stderr
    assert root.exists() and venv.exists()


def test_accounts_remove_without_stdin_refuses_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hub.accounts", "remove", "--prefix", "root"],
        cwd=ROOT, input="", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "kept everything" in done.stdout
    assert accounts.exists("root")


def test_with_yes_it_deletes_the_folders_and_the_venvs_parent_but_not_links(
    tmp_path: Path,
) -> None:
    root, venv = scratch_hub(tmp_path)
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the hub's\n")
    # A student's planted links in the exchange: removed as links, their targets kept.
    (root / "exchange" / "inbound" / "link").symlink_to(outside)
    (root / "exchange" / "inbound" / "file-link").symlink_to(outside / "keep.txt")
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not root.exists() and not venv.parent.exists()
    assert (outside / "keep.txt").read_text() == "not the hub's\n"
    assert f"removed folders: {root} {venv.parent}" in done.stdout


def test_a_linked_or_strange_folder_is_refused(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    link = tmp_path / "linked-root"
    link.symlink_to(root)
    done = run(tmp_path, "--root", str(link), "--venv", str(venv), "--yes")
    assert done.returncode == 2 and "is a link" in done.stderr
    other = tmp_path / "not-a-hub"
    other.mkdir()
    done = run(tmp_path, "--root", str(other), "--venv", str(venv), "--yes")
    assert done.returncode == 2 and "no state" in done.stderr
    done = run(tmp_path, "--root", "/srv", "--venv", str(venv), "--yes")
    assert done.returncode == 2 and "too near /" in done.stderr
    assert root.exists() and venv.exists() and other.exists()


def test_the_grades_folder_may_not_be_inside_what_goes(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    done = run(
        tmp_path, "--root", str(root), "--venv", str(venv), "--out", str(root / "g"), "--yes"
    )
    assert done.returncode == 2 and "inside what this deletes" in done.stderr
    assert root.exists()


def test_a_venv_sharing_its_parent_goes_alone(tmp_path: Path) -> None:
    _, venv = scratch_hub(tmp_path)
    (venv.parent / "other").mkdir()
    assert take_down.environment_to_delete(venv) == venv
    (venv.parent / "other").rmdir()
    assert take_down.environment_to_delete(venv) == venv.parent


def test_it_refuses_while_the_hub_runs(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    (root / "state" / "jupyterhub.pid").write_text(f"{os.getpid()}\n")  # a live process
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--yes")
    assert done.returncode == 2 and "the hub is running" in done.stderr
