"""Take the class down: ask, export the grades, then delete the class's accounts, the hub's
folder and, unless another class uses it, its environment, and say what went.

    python -m hub.take_down --prefix bpe- --root /srv/bpe-course-hub --venv /opt/bpe-course-hub/venv
    make hub-down                          # the same; FORCE=1 adds --yes, OUT=dir names the folder

First it checks: the hub is stopped, the folders are a hub's and the venv's, and ``--root`` is
this class's (neither its ``state/settings.json`` nor the venv's marker, ``hub.classes``, names
another prefix). Then it lists what it will export and delete and asks for the phrase
``delete the class`` (``--yes`` skips the question; with no terminal to ask and no ``--yes`` it
refuses); any other answer keeps everything and exports nothing. Then, as the instructor,
``make export`` and ``make export-nbgrader`` in their course, and the two files, with the
grading reports of its ``artifacts/grading`` (summary, Canvas and Moodle imports, regrade
reports), are copied flat into a new folder that nothing below deletes (``--out``, default
``./class-grades-<UTC time>``). Then ``hub.accounts.remove_entries`` on the class's accounts
(exactly ``<prefix>instructor`` and ``<prefix>student<digits>``: every process, the accounts,
their homes), the hub's folder (``--root``: state, passwords, the exchange, the log) and the
environment (``--venv``, with its parent folder when the venv is all that parent holds), which
is kept, with only this class's marker removed, while another class's folder still exists.

But: it refuses while the hub runs, deletes no folder that is a link or does not look like
the hub's, follows no link inside what it deletes, and stops if the grades cannot be
exported; it leaves this checkout (and ``hub/node_modules``) alone.
"""

from __future__ import annotations

import argparse
import datetime
import errno
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hub import accounts, classes
from hub.roles import role_environment

ANSWER = "delete the class"
EXPORTS = ("grades.csv", "grades-nbgrader.csv")  # made by make export, make export-nbgrader
GRADING = Path("artifacts") / "grading"  # in the course: what grading and its reports wrote
REPORTS = ("summary.csv", "canvas-import.csv", "moodle-import.csv")
REGRADES = ("regrade-*.csv", "regrade-*.md")
MAKE_YES = "add --yes (FORCE=1 with make hub-down)"
MAKE_OUT = "(OUT=dir with make hub-down)"
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"


class RefusedError(Exception):
    """A reason to delete nothing, for the person running the command."""


def hub_settings(root: Path) -> dict:
    """The settings ``make hub`` wrote (the instructor, the course, the venv), or {}."""
    path = root / "state" / "settings.json"
    if not path.is_file():
        return {}
    try:
        settings = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        raise RefusedError(f"{path} is not the JSON make hub writes: is {root} a hub's?") from None
    return settings if isinstance(settings, dict) else {}


def check_class(args: argparse.Namespace) -> None:
    """Refuse a folder that is another class's: its settings or the venv's marker for it name
    another prefix than ``--prefix``."""
    for named, source in classes.claims(args.venv, args.root):
        if named != args.prefix:
            raise RefusedError(
                f"{os.path.abspath(args.root)} is the class with accounts {named}… ({source}), "
                f"not {args.prefix}…: give --prefix {named} (HUB_PREFIX={named} with make "
                "hub-down) if that is the class to take down"
            )


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


def grading_reports(course: Path) -> list[Path]:
    """The reports in the course's ``artifacts/grading`` worth keeping after the term: the
    class summary, the Canvas and Moodle imports and every regrade report."""
    grading = course / GRADING
    if any(part.is_symlink() for part in (course / GRADING.parent, grading)):
        raise RefusedError(f"{grading} goes through a link: copy its reports by hand first")
    if not grading.is_dir():
        return []
    named = [grading / name for name in REPORTS]
    regrades = sorted(p for pattern in REGRADES for p in grading.glob(pattern))
    return [path for path in [*named, *regrades] if path.is_file() or path.is_symlink()]


def run_exports(settings: dict) -> None:
    """``make export export-nbgrader`` as the instructor, in their course."""
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


def export_grades(settings: dict, out: Path) -> list[Path]:
    """Run the two exports, then copy them and the grading reports flat into ``out`` (a new
    folder, removed again if a copy fails)."""
    run_exports(settings)
    course = Path(settings["course_root"])
    sources = [course / name for name in EXPORTS] + grading_reports(course)
    out.mkdir(parents=True, mode=0o700)
    try:
        return [copy_regular(source, out / source.name) for source in sources]
    except (OSError, RefusedError) as error:
        shutil.rmtree(out)
        raise RefusedError(f"the grades could not be copied ({error})") from None


def copy_regular(source: Path, target: Path) -> Path:
    """Copy a regular file without following a link at its name (the instructor's folder)."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise RefusedError(f"{source} is a link: copy what it names by hand") from None
        raise
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise RefusedError(f"{source} is not a regular file")
        target.write_bytes(file.read())
    target.chmod(0o600)
    return target


@dataclass
class Plan:
    """What the take-down exports, deletes and keeps, checked before anyone is asked."""

    accounts: list[pwd.struct_passwd]
    folders: list[Path]
    sharing: list[dict] = field(default_factory=list)  # other classes on the venv: it stays
    exports: list[Path] = field(default_factory=list)  # in the instructor's course


def plan(args: argparse.Namespace, settings: dict) -> Plan:
    """The accounts and folders to delete and the files to export, checked."""
    check_folder(args.root, "state")
    check_folder(args.venv, "pyvenv.cfg")
    sharing = classes.other_classes(args.venv, args.root) if args.venv.is_dir() else []
    environment = [] if sharing else [environment_to_delete(args.venv)]
    folders = [p for p in (args.root, *environment) if p.exists()]
    entries = accounts.class_accounts(args.prefix)
    exports: list[Path] = []
    if settings.get("instructor") in [entry.pw_name for entry in entries]:
        if not isinstance(settings.get("course_root"), str):
            raise RefusedError(f"{args.root}/state/settings.json names no instructor's course")
        course = Path(settings["course_root"])
        exports = [course / name for name in EXPORTS] + grading_reports(course)
    return Plan(entries, folders, sharing, exports)


def describe(plan: Plan, args: argparse.Namespace, out: Path) -> str:
    """What it will export, delete and keep, one line each."""
    if plan.exports:
        lines = [f"first this exports, into {out} (make export and make export-nbgrader):"]
        lines += [f"  {path}" for path in plan.exports]
    else:
        lines = ["no instructor's course to export grades from (nothing graded is lost)"]
    lines.append("then it deletes, with everything in them:")
    lines += [f"  account {entry.pw_name} (home {entry.pw_dir})" for entry in plan.accounts]
    lines += [f"  folder {folder}" for folder in plan.folders]
    lines += [f"and it keeps {args.venv}: {still_used(mark)}" for mark in plan.sharing]
    return "\n".join(lines)


def still_used(mark: dict) -> str:
    return f"the class in {mark['root']} (accounts {mark['prefix']}…) still uses it"


def answer() -> str | None:
    """What the person typed at the question, or None when the input ended first."""
    try:
        return input(f"type {ANSWER!r} to go on (anything else keeps everything): ").strip()
    except EOFError:
        return None


def checked(args: argparse.Namespace) -> tuple[dict, Plan, Path]:
    """The class's settings, the plan and the grades' folder, once every refusal is past."""
    if not args.prefix:
        raise RefusedError("an empty --prefix would name every account on the machine")
    if not args.yes and not sys.stdin.isatty():
        raise RefusedError(f"no terminal to ask: run it in one, or {MAKE_YES} to go on unasked")
    if hub_running(args.root):
        raise RefusedError("the hub is running: stop it first (Ctrl-C where make hub runs)")
    settings = hub_settings(args.root)
    check_class(args)
    planned = plan(args, settings)
    homes = [Path(entry.pw_dir) for entry in planned.accounts]
    out = Path(os.path.abspath(args.out))
    if inside(out, [*planned.folders, *homes]):
        raise RefusedError(f"{out} is inside what this deletes: give --out another {MAKE_OUT}")
    if out.exists() or out.is_symlink():
        raise RefusedError(f"{out} is already there: give --out a new folder {MAKE_OUT}")
    return settings, planned, out


def take_down(args: argparse.Namespace) -> int:
    """Check, say what goes, ask, export, delete; the command's exit status."""
    settings, planned, out = checked(args)
    print(describe(planned, args, out), flush=True)
    if not args.yes:
        typed = answer()
        if typed != ANSWER:
            said = "no answer" if typed is None else f"{typed!r} is not {ANSWER!r}"
            print(f"{said}: kept everything, exported nothing")
            return 1
    if planned.exports:
        saved = export_grades(settings, out)
        print("exported the grades first:", *[f"  copied {path}" for path in saved], sep="\n")
    removed = accounts.remove_entries(planned.accounts)
    for folder in planned.folders:
        shutil.rmtree(folder)  # removes links inside, never what they point to
    if planned.sharing:
        classes.unmark_class(args.venv, args.root)
    print("removed accounts:", " ".join(removed) or "none")
    print("removed folders:", " ".join(str(folder) for folder in planned.folders) or "none")
    for mark in planned.sharing:
        print(f"kept {args.venv}: {still_used(mark)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", default="bpe-", help="the class's account prefix")
    parser.add_argument("--root", type=Path, default=Path("/srv/bpe-course-hub"))
    parser.add_argument("--venv", type=Path, default=Path("/opt/bpe-course-hub/venv"))
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    parser.add_argument("--out", type=Path, default=Path(f"class-grades-{stamp}"))
    parser.add_argument(
        "--yes", action="store_true", help="delete without asking (FORCE=1 with make hub-down)"
    )
    args = parser.parse_args(argv)
    try:
        return take_down(args)
    except RefusedError as reason:
        print(f"take-down refused, nothing deleted: {reason}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
