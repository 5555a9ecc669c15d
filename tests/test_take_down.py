"""The class's take-down, without a hub: it refuses with a message, never a traceback, and
deletes only folders that are the hub's, never through a link.

Each run names an account prefix no account has, a scratch hub folder and a scratch venv.
But: no account is made or exported here; ``tests/test_hub.py`` takes a real class down.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from hub import accounts, classes, run_hub, take_down

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
    student = f"tdtest{os.getpid()}-student1"
    with throwaway_accounts(student):
        done = subprocess.run(
            [sys.executable, "-m", "hub.accounts", "remove", "--prefix", f"tdtest{os.getpid()}-"],
            cwd=ROOT, input="", capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "kept everything" in done.stdout and f"  {student}\n" in done.stdout
        assert accounts.exists(student)


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


# A second class beside the first: its own folder and prefix, the same environment.
OTHER = "bpe-nosuchclass-b-"


def second_class(tmp_path: Path, venv: Path) -> Path:
    other = tmp_path / "srv" / "hub-b"
    (other / "state").mkdir(parents=True)
    classes.mark_class(venv, other, OTHER)
    return other


def test_a_shared_venv_is_kept_until_the_last_class_using_it_goes(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    classes.mark_class(venv, root, PREFIX)
    other = second_class(tmp_path, venv)
    classes.mark_class(venv, tmp_path / "srv" / "gone", "bpe-gone-")  # its folder is gone
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not root.exists() and (venv / "pyvenv.cfg").exists()
    assert f"kept {venv}: the class in {other} (accounts {OTHER}…) still uses it" in done.stdout
    assert classes.class_marker(venv, root) is None
    assert classes.other_classes(venv, root) == [{"root": str(other), "prefix": OTHER}]
    done = subprocess.run(
        [sys.executable, "-m", "hub.take_down", "--prefix", OTHER, "--root", str(other),
         "--venv", str(venv), "--yes"],
        cwd=tmp_path, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not other.exists() and not venv.parent.exists()


def test_a_folder_of_another_class_is_refused(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    other = second_class(tmp_path, venv)
    done = run(tmp_path, "--root", str(other), "--venv", str(venv), "--yes")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{other} is the class with accounts {OTHER}…" in done.stderr
    (root / "state" / "settings.json").write_text(json.dumps({"prefix": OTHER}))
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--yes")
    assert done.returncode == 2 and f"{root} is the class with accounts {OTHER}…" in done.stderr
    assert root.exists() and other.exists() and venv.exists()


def test_refusals_name_makes_switches_too(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), stdin="")
    assert "add --yes (FORCE=1 with make hub-down)" in done.stderr, done.stderr
    taken = tmp_path / "taken"
    taken.mkdir()
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--out", str(taken), "--yes")
    assert "give --out a new folder (OUT=dir with make hub-down)" in done.stderr, done.stderr
    inner = str(root / "g")
    done = run(tmp_path, "--root", str(root), "--venv", str(venv), "--out", inner, "--yes")
    assert "(OUT=dir with make hub-down)" in done.stderr, done.stderr
    assert root.exists() and venv.exists()


def in_a_terminal(command: list[str], answer: str, cwd: Path) -> tuple[int, str]:
    """Run ``command`` with a pseudo-terminal as its stdin, type ``answer``, return its exit
    status and all it printed."""
    main, secondary = pty.openpty()
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=secondary, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    os.close(secondary)
    os.write(main, answer.encode() + b"\n")
    said, _ = process.communicate(timeout=120)
    os.close(main)
    return process.returncode, said


@contextlib.contextmanager
def throwaway_accounts(*names: str) -> Iterator[list[Path]]:
    """Real accounts (the machine runs the tests as root), removed however the test ends."""
    try:
        yield [accounts.ensure_account(name) for name in names]
    finally:
        for name in names:
            subprocess.run(["userdel", "--remove", name], capture_output=True, check=False)


FAKE_MAKEFILE = """\
export:
\tprintf 'student_id,total\\nx,1\\n' > grades.csv
export-nbgrader:
\tprintf 'student_id,score\\nx,1\\n' > grades-nbgrader.csv
"""
GRADING_FILES = (
    "canvas-import.csv", "moodle-import.csv", "regrade-20261204-010203.csv",
    "regrade-20261204-010203.md", "summary.csv",
)  # fmt: skip


def class_with_a_course(tmp_path: Path, prefix: str, home: Path) -> tuple[Path, Path]:
    """A hub folder whose settings name a real instructor with a course that exports fake
    grades (a Makefile) and has the grading reports an instructor's course may hold."""
    root, venv = scratch_hub(tmp_path)
    course = home / "course"
    (course / "artifacts" / "grading").mkdir(parents=True)
    (course / "Makefile").write_text(FAKE_MAKEFILE)
    for name in GRADING_FILES:
        (course / "artifacts" / "grading" / name).write_text(f"{name}\n")
    (course / "artifacts" / "grading" / "mistakes.csv").write_text("not exported\n")
    owner = home.stat()
    for path in [course, *course.rglob("*")]:
        os.chown(path, owner.st_uid, owner.st_gid)
    settings = {
        "prefix": prefix, "instructor": f"{prefix}instructor", "venv": str(venv),
        "course_root": str(course), "config_common": str(root / "config" / "common"),
        "config_student": str(root / "config" / "student"), "exchange": str(root / "exchange"),
    }  # fmt: skip
    (root / "state" / "settings.json").write_text(json.dumps(settings))
    return root, venv


def test_it_asks_before_exporting_and_a_wrong_answer_leaves_nothing(tmp_path: Path) -> None:
    prefix = f"tdtest{os.getpid()}-"
    with throwaway_accounts(f"{prefix}instructor", f"{prefix}student1") as homes:
        root, venv = class_with_a_course(tmp_path, prefix, homes[0])
        out = tmp_path / "grades"
        command = [
            sys.executable, "-m", "hub.take_down", "--prefix", prefix, "--root", str(root),
            "--venv", str(venv), "--out", str(out),
        ]  # fmt: skip
        status, said = in_a_terminal(command, "y", tmp_path)
        assert status == 1 and "type 'delete the class'" in said, said
        assert "'y' is not 'delete the class': kept everything" in said
        assert not out.exists() and root.exists() and venv.exists()
        assert accounts.exists(f"{prefix}student1")
        status, said = in_a_terminal(command, "delete the class", tmp_path)
        assert status == 0, said
        assert "exported the grades first" in said and "removed accounts:" in said
        assert sorted(p.name for p in out.iterdir()) == sorted(
            ["grades.csv", "grades-nbgrader.csv", *GRADING_FILES]
        )
        assert (out / "summary.csv").read_text() == "summary.csv\n"
        assert not root.exists() and not accounts.exists(f"{prefix}student1")


def test_accounts_of_a_class_with_a_longer_prefix_are_not_the_classs(tmp_path: Path) -> None:
    prefix = f"tdtest{os.getpid()}-"
    ours, theirs = f"{prefix}student1", [f"{prefix}b-student1", f"{prefix}b-instructor"]
    with throwaway_accounts(ours, *theirs):
        assert [entry.pw_name for entry in accounts.class_accounts(prefix)] == [ours]
        root, venv = scratch_hub(tmp_path)
        done = subprocess.run(
            [sys.executable, "-m", "hub.take_down", "--prefix", prefix, "--root", str(root),
             "--venv", str(venv), "--yes"],
            cwd=tmp_path, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"removed accounts: {ours}\n" in done.stdout
        assert not accounts.exists(ours) and all(accounts.exists(name) for name in theirs)
        accounts.ensure_account(ours)
        done = subprocess.run(
            [sys.executable, "-m", "hub.accounts", "remove", "--prefix", prefix, "--yes"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert not accounts.exists(ours) and all(accounts.exists(name) for name in theirs)


def test_a_failed_export_or_copy_deletes_nothing_and_leaves_no_out(tmp_path: Path) -> None:
    prefix = f"tdtest{os.getpid()}-"
    with throwaway_accounts(f"{prefix}instructor", f"{prefix}student1") as homes:
        root, venv = class_with_a_course(tmp_path, prefix, homes[0])
        course = homes[0] / "course"
        makefile = (course / "Makefile").read_text()
        (course / "Makefile").write_text("export:\n\t@echo no gradebook; exit 1\n")
        out = tmp_path / "grades"
        command = [
            "--prefix", prefix, "--root", str(root), "--venv", str(venv), "--out", str(out),
            "--yes",
        ]  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "hub.take_down", *command], cwd=tmp_path,
            env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "could not be exported" in done.stderr, done.stderr
        assert "no gradebook" in done.stderr and not out.exists() and root.exists()
        (course / "Makefile").write_text(makefile)
        # A report that is a link (to a file the instructor may not read) is not copied.
        (course / "artifacts" / "grading" / "regrade-x.csv").symlink_to("/etc/shadow")
        done = subprocess.run(
            [sys.executable, "-m", "hub.take_down", *command], cwd=tmp_path,
            env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "could not be copied" in done.stderr, done.stderr
        assert "regrade-x.csv is a link" in done.stderr
        assert not out.exists() and root.exists() and venv.exists()
        assert accounts.exists(f"{prefix}student1")


def test_make_hub_refuses_a_folder_that_holds_another_class(tmp_path: Path) -> None:
    root, venv = scratch_hub(tmp_path)
    other = second_class(tmp_path, venv)
    asked = argparse.Namespace(venv=venv, root=other, prefix=PREFIX)
    said = run_hub.other_class_here(asked)
    assert said and f"holds the class with accounts {OTHER}…" in said and "HUB_ROOT=" in said
    assert run_hub.other_class_here(argparse.Namespace(venv=venv, root=root, prefix=PREFIX)) is None
    (root / "state" / "settings.json").write_text(json.dumps({"instructor": f"{OTHER}instructor"}))
    said = run_hub.other_class_here(argparse.Namespace(venv=venv, root=root, prefix=PREFIX))
    assert said and "settings.json" in said
