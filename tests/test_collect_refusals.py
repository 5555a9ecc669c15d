"""One student's entry never stops the class's collect, and no made-up id gets in.

Real accounts (an instructor and three students, ``bpecolltest-*``, made and removed here)
share an exchange laid out by ``hub.layout``; the instructor is an ordinary account (as root,
a folder of mode 0444 would still open), running the hub's environment's nbgrader on a copy of
the grading code, with a roster of the three students. As students, with plain shell commands:

- an honest entry each, and beside them: a folder of mode 0444 in a student's newer entry; a
  ``timestamp.txt`` that reads ``not a time`` in a student's own entry; the same under the
  made-up id ``0``; an entry under an id that is markup;
- then, as if from before these checks, a poisoned ``submitted/<id>/bpe/timestamp.txt``, and a
  newer entry of that student and of a classmate, collected with ``--update``.

Each bad entry is refused alone, with its reason; every classmate is collected; collect exits
non-zero naming the refused. nbgrader's stock collect, the control, stops for the whole class.
``grade_class`` refuses ``submitted/`` folders of ids that are no student of the class.
Skipped without root, useradd or the hub's environment (``make hub-venv``).
"""

from __future__ import annotations

import os
import platform
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hub import accounts
from hub.layout import HubFolder, make_exchange
from hub.preflight import why_not
from tests.conftest import ROOT
from tests.test_exchange_collect import as_user, stamp

pytestmark = pytest.mark.nbgrader

PREFIX = "bpecolltest-"
TEACHER, ADA, BOB, CY = (f"{PREFIX}{name}" for name in ("teacher", "ada", "bob", "cy"))
HUB_VENV = Path(os.environ.get("HUB_VENV", "/opt/bpe-course-hub/venv"))
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"
COURSE_ID = "bpe-from-scratch"
STOCK = "nbgrader.exchange.default.collect.ExchangeCollect"
MARKUP = '<img src=x onerror="alert(1)">'


MAKE_ENTRY = (
    'umask 022 && mkdir "$1" && printf %s "$2" > "$1/timestamp.txt" '
    '&& printf %s "$3" > "$1/01.ipynb"'
)


def entry(user: str, inbound: Path, named: str, when: str, text: str = "answers") -> Path:
    """An entry made by ``user`` in the name of ``named``, dated ``when`` in its name and its
    ``timestamp.txt`` (or, for a ``when`` that is no time, dated now with ``when`` as the
    file's text), holding one notebook of ``text``."""
    dated = when if when[:2] == "20" else stamp(2)
    folder = inbound / f"{named}+bpe+{dated}+{len(os.listdir(inbound))}"
    done = as_user(user, MAKE_ENTRY, str(folder), when, text)
    assert done.returncode == 0, done.stderr
    return folder


@dataclass
class Term:
    root: Path
    course: Path
    inbound: Path

    def collect(self, *extra: str) -> tuple[int, str]:
        """``nbgrader collect bpe`` as the instructor, in a clean environment."""
        env = [f"PATH={HUB_VENV / 'bin'}:/usr/bin:/bin", f"PYTHONPATH={self.course}"]
        env += [f"HOME={self.root}", f"BPE_EXCHANGE={self.root / 'exchange'}", "LANG=C.UTF-8"]
        command = [
            RUNUSER,
            "-u",
            TEACHER,
            "--",
            "env",
            "-i",
            *env,
            str(HUB_VENV / "bin" / "python"),
        ]
        done = subprocess.run(
            [*command, "-m", "nbgrader", "collect", "bpe", *extra],
            cwd=self.course, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        return done.returncode, " ".join((done.stdout + done.stderr).split())

    def submitted(self, student: str) -> Path:
        return self.course / "submitted" / student / "bpe"


@pytest.fixture
def term() -> Iterator[Term]:
    reason = why_not(platform.system(), os.geteuid(), shutil.which("useradd") is not None)
    if reason:
        pytest.skip(f"these tests make Unix accounts: {reason.splitlines()[0]}")
    if not (HUB_VENV / "bin" / "python").exists():
        pytest.skip(f"the instructor runs the hub's environment: `make hub-venv` ({HUB_VENV})")
    accounts.remove_accounts(PREFIX)
    root = Path(tempfile.mkdtemp(prefix="bpe-collect-test-", dir="/tmp"))
    try:
        root.chmod(0o755)
        for name in (TEACHER, ADA, BOB, CY):
            accounts.ensure_account(name, root / "homes")
        teacher = pwd.getpwnam(TEACHER)
        course = root / "course"
        course.mkdir()
        shutil.copytree(ROOT / "autograder", course / "autograder")
        shutil.copy(ROOT / "nbgrader_config.py", course)
        (course / "roster.csv").write_text(f"student_id\n{ADA}\n{BOB}\n{CY}\n")
        for path in [course, *course.rglob("*")]:
            os.chown(path, teacher.pw_uid, teacher.pw_gid)
        course.chmod(0o700)
        os.chown(root, teacher.pw_uid, teacher.pw_gid)  # its HOME: nbgrader's own files
        inbound = make_exchange(HubFolder(root), COURSE_ID, teacher.pw_uid, teacher.pw_gid)
        yield Term(root, course, inbound / "inbound")
    finally:
        accounts.remove_accounts(PREFIX)
        shutil.rmtree(root, ignore_errors=True)


def test_each_bad_entry_is_refused_alone_and_every_classmate_collected(term: Term) -> None:
    for student in (ADA, BOB):
        entry(student, term.inbound, student, stamp(60), f"{student}'s answers")
    stuck = entry(BOB, term.inbound, BOB, stamp(5), "bob's newer answers")
    lock = 'mkdir "$1/locked" && touch "$1/locked/a" && chmod 444 "$1/locked"'
    assert as_user(BOB, lock, str(stuck)).returncode == 0
    entry(CY, term.inbound, CY, "not a time")
    entry(BOB, term.inbound, "0", "not a time")
    entry(BOB, term.inbound, MARKUP, stamp(1))
    code, said = term.collect()
    assert code != 0, said
    assert "refused 4 entries of inbound" in said, said
    assert "Permission denied" in said and "locked" not in os.listdir(term.submitted(BOB)), said
    assert "its timestamp.txt reads 'not a time', not a time" in said, said
    assert "'0' is not in roster.csv, so it is no student of the class" in said, said
    assert "is not a safe student id" in said, said
    assert (term.submitted(ADA) / "01.ipynb").read_text() == f"{ADA}'s answers"
    assert (term.submitted(BOB) / "01.ipynb").read_text() == f"{BOB}'s answers"
    assert not term.submitted(CY).exists() and not term.submitted("0").exists()
    assert sorted(os.listdir(term.course / "submitted")) == [ADA, BOB]


def test_a_poisoned_submission_from_before_refuses_only_its_student(term: Term) -> None:
    for student in (ADA, CY):
        entry(student, term.inbound, student, stamp(60), "first")
    code, said = term.collect()
    assert code == 0, said
    poisoned = term.submitted(ADA) / "timestamp.txt"
    poisoned.write_text("not a time")  # as an earlier collect, before these checks, left it
    for student in (ADA, CY):
        entry(student, term.inbound, student, stamp(1), "second")
    stock_code, stock_said = term.collect("--update", f"--ExchangeFactory.collect={STOCK}")
    # The control: nbgrader's collect stops on it (whether a classmate came before it in the
    # listing, and was collected, is the file system's order).
    assert stock_code != 0 and "has no attribute 'fail'" in stock_said, stock_said
    code, said = term.collect("--update")
    assert code != 0 and "refused 1 entry of inbound" in said, said
    assert f"the submission already in {term.submitted(ADA)} is unreadable" in said, said
    assert (term.submitted(CY) / "01.ipynb").read_text() == "second"
    assert (term.submitted(ADA) / "01.ipynb").read_text() == "first", "nothing lost"


def test_autograde_refuses_folders_of_no_student_and_writes_no_gradebook(tmp_path: Path) -> None:
    """Made-up ids in submitted/ (markup, a formula, one not in the roster) are refused by
    name before anything is graded."""
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    (tmp_path / "roster.csv").write_text("student_id\nada\n")
    for made_up in (MARKUP, "=1+1", "mallory"):
        (tmp_path / "submitted" / made_up / "bpe").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--root", str(tmp_path)],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "refused submitted/mallory: 'mallory' is not in roster.csv" in said, said
    refused = [line for line in said.splitlines() if line.startswith("refused submitted/")]
    assert len(refused) == 3 and sum("not a safe student id" in r for r in refused) == 2, said
    assert "check: in submitted/" in said, "the check lists them with what to do"
    assert "nothing to grade" in said and not (tmp_path / "gradebook.db").exists()


def test_grades_csv_marks_folders_of_no_student_with_no_score(tmp_path: Path) -> None:
    """Folders from before the roster (a stock collect, a copy by hand) keep a line in
    grades.csv, with no score and why, never a grade."""
    from autograder.reports.export_grades import write_grades
    from course_fixtures.scratch_course import make_scratch_course

    course = make_scratch_course(tmp_path / "course")
    (course / "roster.csv").write_text("student_id\nada\n")
    for folder in ("mallory", '=HYPERLINK("http:x")'):
        (course / "submitted" / folder / "bpe").mkdir(parents=True)
    lines = {line["student_id"]: line for line in write_grades(course, course / "grades.csv")}
    assert lines["mallory"]["status"].startswith("not a student of the class: 'mallory'")
    assert lines["mallory"]["total"] == "" and lines["mallory"]["pair_counts"] == ""
    assert "not a safe student id" in lines['=HYPERLINK("http:x")']["status"]
    written = (course / "grades.csv").read_text()
    assert "\n=" not in written and "'=HYPERLINK" in written  # neutralized, as every cell
