"""The hub's folder: its private state, nbgrader's exchange, each role's Jupyter settings, and
the instructor's own copy of the course.

    <hub root>/state/            root only: the hub's database, cookie secret, passwords
    <hub root>/exchange/         nbgrader's exchange, laid out with nbgrader's own modes
    <hub root>/config/common/    read by every account: the course id, the exchange and the
                                 course's submit for nbgrader (its code in ``python/``, on
                                 every account's PYTHONPATH: ``hub.roles``), Lab's news and
                                 update checks off, the terminals' shell (``terminal.bashrc``),
                                 the Assignment List's CSS
    <hub root>/config/student/   the instructor's tools (Formgrader, Create Assignment,
                                 Course List) switched off
    <instructor's home>/course/  the course (masters, solutions, grading code), theirs alone

Each account's server finds its role's folders through ``JUPYTER_CONFIG_PATH``, set by
``hub/jupyterhub_config.py``; nobody's own ``~/.jupyter`` is written.

But: it makes no account (``hub.accounts``) and starts nothing (``hub.run_hub``); it never
overwrites an instructor's course that is already there.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from autograder.course import SOLUTIONS, course_config
from autograder.plugins import private_submit

# What the instructor's copy holds: enough to generate, release, grade and give feedback with
# the course's own tools (make autograde, make feedback, make export).
COURSE_FILES = (
    "autograder",
    "bpe_course",
    "solutions",
    "source",
    "Makefile",
    "README.md",
    "nbgrader_config.py",
    "pyproject.toml",
    "requirements.txt",
)
# nbgrader's exchange, as its release and feedback steps make it (non-group-shared): the
# instructor owns the course folder; students read what is released, may drop submissions
# into inbound without listing it, and may open only feedback whose name they know. Inbound
# also has the sticky bit (nbgrader's has not): no account renames or removes another's entry.
EXCHANGE_MODES = {"": 0o755, "outbound": 0o755, "inbound": 0o3733, "feedback": 0o711}
# The course's submit (its entries private), as every account's server imports it.
SUBMIT_MODULE = "bpe_private_submit"
# The exchange's root is open to all, as nbgrader requires; the sticky bit keeps one account
# from renaming or deleting another's entries there (nbgrader checks only the low nine bits).
EXCHANGE_ROOT_MODE = 0o1777
NEWS_OFF = "@jupyterlab/apputils-extension:announcements"
# Lab's terminals: a non-login bash (a login shell runs /etc/profile, which resets PATH) whose
# rc file runs the account's own ~/.bashrc, then puts the course's Python back in front.
TERMINAL_RC = (
    "# Lab's terminals on the course's hub (written by hub/layout.py).\n"
    "[ -f /etc/bash.bashrc ] && . /etc/bash.bashrc\n"
    '[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n'
    '[ -n "$BPE_PATH_FIRST" ] && PATH="$BPE_PATH_FIRST:$PATH" && export PATH\n'
)
# nbgrader's Assignment List draws Submit on every fetched assignment, the released solutions
# too, and has no setting against it; Lab's custom CSS (every account's) hides that one button
# and says why. It is only what a student sees: collect refuses the solutions whatever is sent.
ASSIGNMENT_LIST_CSS = (
    "/* The course's hub (written by hub/layout.py): no Submit on the released solutions. */\n"
    f"#nbgrader-assignment-list .col-md-12:has(> .item_name a[aria-controls$='-{SOLUTIONS}'])"
    " > .item_status > button { display: none; }\n"
    f"#nbgrader-assignment-list .col-md-12:has(> .item_name a[aria-controls$='-{SOLUTIONS}'])"
    " > .item_status::after { content: 'for reading, not submitted'; }\n"
)
INSTRUCTOR_LAB_PLUGINS = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
)
INSTRUCTOR_SERVER_EXTENSIONS = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
    # The course's escaping for the Formgrader, imported from the instructor's course copy
    # (on their server's PYTHONPATH, hub/roles.py); never installed into the hub's venv.
    "autograder.formgrader",
)


@dataclass(frozen=True)
class HubFolder:
    """The paths of one hub's folder."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    @property
    def common(self) -> Path:
        return self.root / "config" / "common"

    @property
    def student(self) -> Path:
        return self.root / "config" / "student"

    @property
    def passwords(self) -> Path:
        return self.state / "passwords.json"

    @property
    def settings(self) -> Path:
        return self.state / "settings.json"

    @property
    def proxy_pid(self) -> Path:
        """Where JupyterHub writes its proxy's id while the proxy runs."""
        return self.state / "jupyterhub-proxy.pid"


def course_settings(course_root: Path) -> tuple[str, str]:
    """The course id and the gradebook's URL that the course's own ``nbgrader_config.py``
    sets (one place for them)."""
    config = course_config(course_root)
    return str(config.CourseDirectory.course_id), str(config.CourseDirectory.db_url)


# Run as the instructor in their course: each student in the gradebook, with the names
# roster.csv gives (autograder.roster reads it; a blank name leaves the gradebook's as it is).
ENROLL = """\
import sys
from pathlib import Path
from nbgrader.api import Gradebook
from autograder.roster import read_roster
roster = read_roster(Path.cwd()) or {}
with Gradebook(sys.argv[1]) as gradebook:
    for student in sys.argv[2:]:
        row = roster.get(student)
        names = {"first_name": row.first_name, "last_name": row.last_name} if row else {}
        gradebook.update_or_create_student(student, **{k: v for k, v in names.items() if v})
"""


def enroll(students: list[str], course: Path, instructor: str, venv: Path) -> None:
    """Put every student in the instructor's gradebook, so one who never submits is listed
    as such, named as ``roster.csv`` names them (the Formgrader and nbgrader's export show
    it); run as the instructor, whose gradebook it is."""
    _, db_url = course_settings(course)
    code = ENROLL
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    command = [runuser, "-u", instructor, "--", str(venv / "bin" / "python"), "-c", code]
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(course.parent)}
    subprocess.run([*command, db_url, *students], cwd=course, env=env, check=True)


def write_roster(
    students: list[str],
    course: Path,
    uid: int,
    gid: int,
    names: dict[str, tuple[str, str]] | None = None,
) -> Path:
    """The course's ``roster.csv`` (``autograder.roster``) listing the hub's students, so
    collect and autograde take no one else, with first and last names where ``names`` has
    them (from the accounts); kept if the instructor already wrote one."""
    roster = course / "roster.csv"
    if not roster.exists():
        rows = [["student_id", "first_name", "last_name"]]
        for name in students:
            first, last = (names or {}).get(name, ("", ""))
            rows.append([name, _plain(first), _plain(last)])
        with open(roster, "w", newline="") as file:
            csv.writer(file, lineterminator="\n").writerows(rows)
        os.chown(roster, uid, gid)
        roster.chmod(0o600)
    return roster


def _plain(text: str) -> str:
    """A name as a spreadsheet shows it as text: no formula (OWASP's CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def make_state(folder: HubFolder) -> None:
    folder.root.mkdir(parents=True, exist_ok=True)
    folder.root.chmod(0o755)  # every account reaches exchange/ and config/ through it
    folder.state.mkdir(exist_ok=True)
    folder.state.chmod(0o700)


def make_exchange(folder: HubFolder, course_id: str, instructor_uid: int, gid: int) -> Path:
    """Lay out the course's part of the exchange, owned by the instructor, so that no student
    can claim the course's name first; returns the course's folder in the exchange."""
    folder.exchange.mkdir(parents=True, exist_ok=True)
    folder.exchange.chmod(EXCHANGE_ROOT_MODE)
    course = folder.exchange / course_id
    for name, mode in EXCHANGE_MODES.items():
        path = course / name if name else course
        path.mkdir(exist_ok=True)
        os.chown(path, instructor_uid, gid)
        path.chmod(mode)
    return course


def write_role_settings(folder: HubFolder, course_id: str) -> None:
    """The Jupyter settings every account reads, and the students' extra ones."""
    nbgrader = (
        '"""nbgrader settings of every account on this hub (written by hub/layout.py)."""\n\n'
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {str(folder.exchange)!r}\n"
        "# An entry no other account can write: nbgrader's own submit leaves it mode 0777.\n"
        f'c.ExchangeFactory.submit = "{SUBMIT_MODULE}.PrivateSubmit"\n'
        "# Every student of this hub has an account: an entry named for no account is made up.\n"
        "c.OwnedCollect.require_account = True\n"
    )
    folder.common.mkdir(parents=True, exist_ok=True)
    (folder.common / "nbgrader_config.py").write_text(nbgrader)
    (folder.common / "python").mkdir(exist_ok=True)
    code = Path(private_submit.__file__).read_text()
    (folder.common / "python" / f"{SUBMIT_MODULE}.py").write_text(code)
    # Lab asks about Jupyter news and looks for updates online; the class is offline.
    write_json(
        folder.common / "labconfig" / "page_config.json", {"disabledExtensions": {NEWS_OFF: True}}
    )
    rc = folder.common / "terminal.bashrc"
    rc.write_text(TERMINAL_RC)
    shell = ["/bin/bash", "--rcfile", str(rc), "-i"]
    custom = folder.common / "custom"
    custom.mkdir(exist_ok=True)
    (custom / "custom.css").write_text(ASSIGNMENT_LIST_CSS)
    lab = {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"}
    server = {
        "LabApp": {**lab, "custom_css": True},
        # On for the instructor; the students' settings below turn it off with the Formgrader.
        "ServerApp": {
            "jpserver_extensions": {"autograder.formgrader": True},
            "terminado_settings": {"shell_command": shell},
            # Root's folder, read-only to the accounts, in place of each one's ~/.jupyter/custom
            # (ServerApp.static_custom_path is no setting; the web app's settings take it).
            "tornado_settings": {"static_custom_path": [str(custom)]},
        },
    }
    write_json(folder.common / "jupyter_server_config.json", server)
    off = {name: True for name in INSTRUCTOR_LAB_PLUGINS}
    write_json(folder.student / "labconfig" / "page_config.json", {"disabledExtensions": off})
    extensions = {name: False for name in INSTRUCTOR_SERVER_EXTENSIONS}
    write_json(
        folder.student / "jupyter_server_config.json",
        {"ServerApp": {"jpserver_extensions": extensions}},
    )
    for path in folder.root.joinpath("config").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def copy_course(repo: Path, home: Path, uid: int, gid: int, venv: Path) -> Path:
    """Copy the course into ``home/course`` for the instructor (kept if already there), with
    ``.venv`` pointing at the hub's environment so the course's make targets run there."""
    course = home / "course"
    if course.exists():
        return course
    course.mkdir()
    for name in COURSE_FILES:
        source = repo / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(source, course / name, ignore=ignore, copy_function=shutil.copy2)
        else:
            shutil.copy2(source, course / name)
    (course / ".venv").symlink_to(venv)
    # The copy's make targets must never try to rebuild the hub's venv (root's, built just
    # before by make hub-venv): its recipe files count as no newer than the venv's stamp.
    stamp = venv / ".installed"
    if stamp.exists():
        built = stamp.stat().st_mtime
        for name in ("requirements.txt", "pyproject.toml"):
            if (course / name).stat().st_mtime > built:
                os.utime(course / name, (built, built))
    for path in [course, *course.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)
    return course
