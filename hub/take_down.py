"""Take the class down: export the grades, then delete the accounts, the hub's folder and its
environment, and say what went.

    python -m hub.take_down --prefix bpe- --root /srv/bpe-course-hub --venv /opt/bpe-course-hub/venv
    make hub-down                          # the same; FORCE=1 adds --yes, OUT=dir names the folder

First, as the instructor, ``make export`` and ``make export-nbgrader`` in their course; the two
files are copied into a new folder that nothing below deletes (``--out``, default
``./class-grades-<UTC time>``). Then it lists what it will delete and asks (``--yes`` skips
the question; with no terminal to ask and no ``--yes`` it refuses before doing anything). Then
``hub.accounts.remove_accounts`` (every process of the accounts, the accounts, their homes),
the hub's folder (``--root``: state, passwords, the exchange, the log) and the environment
(``--venv``, with its parent folder when the venv is all that parent holds).

But: it refuses while the hub runs, deletes no folder that is a link or does not look like
the hub's, follows no link inside what it deletes, and stops if the grades cannot be
exported; it leaves this checkout (and ``hub/node_modules``) alone.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from hub import accounts
from hub.roles import role_environment

ANSWER = "delete the class"
EXPORTS = ("grades.csv", "grades-nbgrader.csv")
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"


class RefusedError(Exception):
    """A reason to delete nothing, for the person running the command."""


def hub_settings(root: Path) -> dict:
    """The settings ``make hub`` wrote (the instructor, the course, the venv), or {}."""
    path = root / "state" / "settings.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def hub_running(root: Path) -> bool:
    """Whether JupyterHub's pid file names a live process."""
    try:
        pid = int((root / "state" / "jupyterhub.pid").read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def check_folder(path: Path, marker: str) -> None:
    """Refuse a folder that is a link, too near ``/``, or lacks the file the hub put there."""
    if path.is_symlink():
        raise RefusedError(f"{path} is a link: deleting through it could reach anything")
    absolute = Path(os.path.abspath(path))
    if len(absolute.parts) < 3:  # "/" and "/srv" are never the hub's alone
        raise RefusedError(f"{absolute} is too near / to be the hub's own folder")
    if absolute.exists() and not (absolute / marker).exists():
        raise RefusedError(f"{absolute} has no {marker}: not a folder make hub made")


def environment_to_delete(venv: Path) -> Path:
    """The venv's parent when the venv is all it holds (``/opt/bpe-course-hub``), else the venv."""
    parent = venv.parent
    alone = venv.exists() and [entry.name for entry in parent.iterdir()] == [venv.name]
    if alone and len(Path(os.path.abspath(parent)).parts) >= 3 and not parent.is_symlink():
        return parent
    return venv


def inside(path: Path, folders: list[Path]) -> bool:
    """Whether ``path`` is one of ``folders`` or under one, links resolved."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(os.path.realpath(folder)) for folder in folders)


def export_grades(settings: dict, out: Path) -> list[Path]:
    """Run the two exports as the instructor, in their course; copy them into ``out``."""
    instructor, course = settings["instructor"], Path(settings["course_root"])
    home = Path(accounts.pwd.getpwnam(instructor).pw_dir)
    env = {"HOME": str(home), "USER": instructor, "LOGNAME": instructor, "LANG": "C.UTF-8"}
    env.update(role_environment(settings, instructor))
    command = [RUNUSER, "-u", instructor, "--", "make", "-s", "export", "export-nbgrader"]
    done = subprocess.run(
        command, cwd=course, env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        said = f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        raise RefusedError(f"the grades could not be exported:\n{said}")
    out.mkdir(parents=True, mode=0o700)
    return [copy_regular(course / name, out / name) for name in EXPORTS]


def copy_regular(source: Path, target: Path) -> Path:
    """Copy a regular file without following a link at its name (the instructor's folder)."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise RefusedError(f"{source} is not a regular file")
        target.write_bytes(file.read())
    target.chmod(0o600)
    return target


def plan(args: argparse.Namespace) -> tuple[list[str], list[Path]]:
    """The accounts and folders to delete, checked."""
    names = [entry.pw_name for entry in accounts.accounts_with_prefix(args.prefix)]
    check_folder(args.root, "state")
    check_folder(args.venv, "pyvenv.cfg")
    folders = [p for p in (args.root, environment_to_delete(args.venv)) if p.exists()]
    return names, folders


def confirmed(args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    try:
        return input(f"type {ANSWER!r} to go on: ").strip() == ANSWER
    except EOFError:
        return False


def take_down(args: argparse.Namespace) -> int:
    if not args.prefix:
        raise RefusedError("an empty --prefix would name every account on the machine")
    if not args.yes and not sys.stdin.isatty():
        raise RefusedError(
            "no terminal to ask: run it in one, or add --yes to delete without asking"
        )
    if hub_running(args.root):
        raise RefusedError("the hub is running: stop it first (Ctrl-C where make hub runs)")
    names, folders = plan(args)
    homes = [Path(accounts.pwd.getpwnam(name).pw_dir) for name in names]
    out = Path(os.path.abspath(args.out))
    if inside(out, [*folders, *homes]):
        raise RefusedError(f"{out} is inside what this deletes: give --out somewhere else")
    if out.exists() or out.is_symlink():
        raise RefusedError(f"{out} is already there: give --out a new folder")
    settings = hub_settings(args.root)
    if settings and settings.get("instructor") in names:
        saved = export_grades(settings, out)
        print("exported the grades first:", *[f"  {path}" for path in saved], sep="\n")
    else:
        print("no instructor's course to export grades from (nothing graded is lost)")
    print("this deletes, with everything in them:")
    print("".join(f"  account {name} (home {home})\n" for name, home in zip(names, homes)), end="")
    print("".join(f"  folder {folder}\n" for folder in folders), end="")
    if not confirmed(args):
        print("kept everything but the exported grades")
        return 1
    removed = accounts.remove_accounts(args.prefix) if names else []
    for folder in folders:
        shutil.rmtree(folder)  # removes links inside, never what they point to
    print("removed accounts:", " ".join(removed) or "none")
    print("removed folders:", " ".join(str(folder) for folder in folders) or "none")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", default="bpe-", help="the class's account prefix")
    parser.add_argument("--root", type=Path, default=Path("/srv/bpe-course-hub"))
    parser.add_argument("--venv", type=Path, default=Path("/opt/bpe-course-hub/venv"))
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    parser.add_argument("--out", type=Path, default=Path(f"class-grades-{stamp}"))
    parser.add_argument("--yes", action="store_true", help="delete without asking")
    args = parser.parse_args(argv)
    try:
        return take_down(args)
    except RefusedError as reason:
        print(f"take-down refused, nothing deleted: {reason}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
