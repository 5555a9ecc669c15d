"""The course's collect against entries students forge in the exchange's shared inbound.

Real Unix accounts (``bpexchtest-victim``, ``-mallory``, ``-eve``, made and removed here) make
entries in an exchange laid out by ``hub.layout`` (inbound mode 3733), each with plain
``mkdir``/``ln`` run through runuser:

- the victim submits; mallory files an entry in the victim's name, and one of her own whose
  lesson 1 is a link to the instructor's master (she cannot read it herself), after an
  honest one; eve's whole entry is a link to the masters' folder;
- a student id with no account (the single-machine case) has an honest entry and one dated
  2099, both made by root.

Then ``nbgrader collect`` runs, as root standing in for the instructor, from a course holding
a copy of the repository's ``nbgrader_config.py``: once as configured (``OwnedCollect``), once
with nbgrader's stock ``ExchangeCollect`` (the control, where every attack works). Skipped
without root and useradd. An entry whose time does not read is skipped, where the stock collect
fails for the whole class. The copy itself is also tried without accounts: links, a fifo, a
foreign owner and the size cap.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default.collect import ExchangeCollect

from autograder.plugins.owned_collect import OwnedCollect, UntrustedEntryError, copy_plain
from hub import accounts
from hub.layout import HubFolder, make_exchange
from hub.preflight import why_not

pytestmark = pytest.mark.nbgrader

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "bpexchtest-"
VICTIM, MALLORY, EVE = (f"{PREFIX}{name}" for name in ("victim", "mallory", "eve"))
GHOST = f"{PREFIX}ghost"  # a student id with no account
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"
COURSE_ID = "bpe-from-scratch"
LESSON = "01_bpe_by_hand.ipynb"
STOCK = "nbgrader.exchange.default.collect.ExchangeCollect"


def stamp(minutes_ago: float) -> str:
    """A time as nbgrader submit writes it."""
    now = datetime.datetime.now(datetime.UTC)
    return (now - datetime.timedelta(minutes=minutes_ago)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@dataclass
class Class:
    root: Path
    inbound: Path
    master: Path
    stamps: dict[str, str]
    collected: dict[str, subprocess.CompletedProcess]  # "owned" / "stock": collect's output

    def submitted(self, course: str, student: str) -> Path:
        return self.root / course / "submitted" / student / "bpe"


def as_user(user: str, script: str, *args: str) -> subprocess.CompletedProcess:
    command = [RUNUSER, "-u", user, "--", "/bin/sh", "-c", script, "sh", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd="/tmp", timeout=60)


MAKE_ENTRY = 'umask 022 && mkdir "$1" && printf %s "$2" > "$1/timestamp.txt"'


def make_entry(user: str, folder: Path, when: str, notebook: str | None) -> None:
    """An entry as ``user``: its timestamp and, unless None, lesson 1 holding ``notebook``."""
    script = MAKE_ENTRY + (' && printf %s "$3" > "$1/' + LESSON + '"' if notebook else "")
    done = as_user(user, script, str(folder), when, notebook or "")
    assert done.returncode == 0, done.stderr


def collect(course: Path, exchange: Path, *extra: str) -> subprocess.CompletedProcess:
    """``nbgrader collect bpe`` with the course's configuration, in a new course folder."""
    course.mkdir()
    return run_collect(course, exchange, *extra)


def run_collect(course: Path, exchange: Path, *extra: str) -> subprocess.CompletedProcess:
    """``nbgrader collect bpe`` with the course's configuration, in the folder ``course``."""
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]  # alembic
    env = dict(os.environ, PATH=path, PYTHONPATH=str(ROOT), BPE_EXCHANGE=str(exchange))
    command = [sys.executable, "-m", "nbgrader", "collect", "bpe", *extra]
    return subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def forged() -> Iterator[Class]:
    reason = why_not(platform.system(), os.geteuid(), shutil.which("useradd") is not None)
    if reason:
        pytest.skip(f"these tests make Unix accounts: {reason.splitlines()[0]}")
    accounts.remove_accounts(PREFIX)  # what a killed run may have left
    root = Path(tempfile.mkdtemp(prefix="bpe-exchange-test-", dir="/tmp"))
    try:
        root.chmod(0o755)
        for name in (VICTIM, MALLORY, EVE):
            accounts.ensure_account(name, root / "homes")
        # The instructor's course, closed to students (root stands in for the instructor).
        course = root / "instructor"
        (course / "source" / "bpe").mkdir(parents=True)
        master = course / "source" / "bpe" / LESSON
        shutil.copy(ROOT / "source" / "bpe" / LESSON, master)
        course.chmod(0o700)
        exchange = HubFolder(root).exchange
        inbound = make_exchange(HubFolder(root), COURSE_ID, 0, 0) / "inbound"
        stamps = {
            "victim": stamp(60),
            "forged": stamp(10),
            "mallory": stamp(120),
            "link": stamp(30),
            "ghost": stamp(60),
        }
        late = "2099-01-01 00:00:00.000000 UTC"
        for maker, named, key, text in (
            (VICTIM, VICTIM, "victim", "victim's answers"),
            (MALLORY, MALLORY, "mallory", "mallory's answers"),
            (MALLORY, VICTIM, "forged", "planted by mallory"),
        ):
            make_entry(maker, inbound / f"{named}+bpe+{stamps[key]}+{key}", stamps[key], text)
        linked = inbound / f"{MALLORY}+bpe+{stamps['link']}+cccc"
        make_entry(MALLORY, linked, stamps["link"], None)
        made = as_user(MALLORY, 'ln -s "$1" "$2"', str(master), str(linked / LESSON))
        assert made.returncode == 0, made.stderr
        whole = inbound / f"{EVE}+bpe+{stamps['link']}+dddd"
        assert as_user(EVE, 'ln -s "$1" "$2"', str(master.parent), str(whole)).returncode == 0
        # No account of that name: made by root, as an instructor on one machine would.
        for when, text in ((stamps["ghost"], "ghost's answers"), (late, "ghost from the future")):
            entry = inbound / f"{GHOST}+bpe+{when}+{len(text):04d}"
            entry.mkdir()
            (entry / "timestamp.txt").write_text(when)
            (entry / LESSON).write_text(text)
        # The students cannot read the master themselves: the links are their only way.
        assert as_user(MALLORY, 'cat "$1"', str(master)).returncode != 0
        collected = {
            "owned": collect(root / "owned", exchange),
            "stock": collect(root / "stock", exchange, f"--ExchangeFactory.collect={STOCK}"),
        }
        yield Class(root, inbound, master, stamps, collected)
    finally:
        accounts.remove_accounts(PREFIX)
        shutil.rmtree(root, ignore_errors=True)


def output(forged: Class, course: str) -> str:
    """What collect said; ours exits 1 after collecting the others, naming the refused."""
    done = forged.collected[course]
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == (1 if course == "owned" else 0), said
    if course == "owned":
        assert "collected the others, refused 4 entries of inbound" in said, said
    return said


def test_an_entry_in_a_classmates_name_is_skipped_and_theirs_collected(forged: Class) -> None:
    said = output(forged, "owned")
    assert f"named for student '{VICTIM}' but owned by account '{MALLORY}'" in said, said
    victim = forged.submitted("owned", VICTIM)
    assert (victim / LESSON).read_text() == "victim's answers"
    assert (victim / "timestamp.txt").read_text() == forged.stamps["victim"]


def test_links_to_the_masters_are_refused_and_never_followed(forged: Class) -> None:
    said = output(forged, "owned")
    assert f"'{LESSON}' is a symbolic link, which collect neither follows nor copies" in said
    assert f"{EVE}+bpe+{forged.stamps['link']}+dddd': it is a symbolic link, not a folder" in said
    mallory = forged.submitted("owned", MALLORY)  # her earlier, honest entry instead
    assert not (mallory / LESSON).is_symlink()
    assert (mallory / LESSON).read_text() == "mallory's answers"
    assert not forged.submitted("owned", EVE).exists()
    master_text = forged.master.read_text()
    for path in (forged.root / "owned" / "submitted").rglob("*"):
        assert path.is_dir() or path.read_text() != master_text, path


def test_an_entry_dated_in_the_future_is_refused(forged: Class) -> None:
    said = output(forged, "owned")
    assert "it is dated 2099-01-01 00:00:00 UTC, later than the collect's clock allows" in said
    ghost = forged.submitted("owned", GHOST)
    assert (ghost / "timestamp.txt").read_text() == forged.stamps["ghost"]


def test_without_an_account_the_owner_is_not_checked_as_nbgrader_does(forged: Class) -> None:
    """The ghost's entries are root's: collected, with a warning that says so."""
    said = output(forged, "owned")
    assert f"{GHOST}: no account of that name, so its owner is not checked" in said
    assert (forged.submitted("owned", GHOST) / LESSON).read_text() == "ghost's answers"


def test_with_nbgraders_stock_collect_every_attack_succeeds(forged: Class) -> None:
    said = output(forged, "stock")
    assert "Not collecting" not in said
    assert (forged.submitted("stock", VICTIM) / LESSON).read_text() == "planted by mallory"
    master_text = forged.master.read_text()
    for student in (MALLORY, EVE):
        copied = forged.submitted("stock", student) / LESSON
        assert not copied.is_symlink() and copied.read_text() == master_text, student
        assert "### BEGIN SOLUTION" in master_text
    late = (forged.submitted("stock", GHOST) / "timestamp.txt").read_text()
    assert late.startswith("2099")


def test_the_inbound_entries_are_all_still_there(forged: Class) -> None:
    """Refusing deletes nothing: every entry made stays in inbound."""
    assert len(list(forged.inbound.iterdir())) == 7


def test_one_unreadable_name_does_not_stop_the_class_collect(tmp_path: Path) -> None:
    """nbgrader's collect fails whole on a name whose time does not read (one student could
    block everyone's); here that entry alone is skipped."""
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    (inbound / "anyone+bpe+garbage+x").mkdir()
    honest = inbound / f"{GHOST}+bpe+{stamp(5)}+y"
    honest.mkdir()
    (honest / "timestamp.txt").write_text(stamp(5))
    owned = collect(tmp_path / "owned", tmp_path / "exchange")
    said = " ".join((owned.stdout + owned.stderr).split())
    assert owned.returncode == 1 and "refused 1 entry of inbound" in said, said
    assert "Not collecting 'anyone+bpe+garbage+x': its time 'garbage' does not read" in said
    assert (tmp_path / "owned" / "submitted" / GHOST / "bpe" / "timestamp.txt").exists()
    stock = collect(tmp_path / "stock", tmp_path / "exchange", f"--ExchangeFactory.collect={STOCK}")
    assert stock.returncode != 0 and "Unknown string format: garbage" in stock.stderr


def test_an_entry_dated_on_time_but_made_after_the_due_date_waits_for_a_person(
    tmp_path, monkeypatch
) -> None:
    """No account can set a ctime back: an entry dated before the due date whose files
    changed well after it is collected as nbgrader would, said, and kept for a person until
    the student's next copy; one finished within a minute of its date (a slow submit) is not,
    and an entry with no time of its own is dated by its name."""
    from nbgrader.api import Gradebook

    from autograder.course import FILED_LATE_RECORD, NEEDS_PERSON
    from autograder.reports import summary

    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    names = ("backdated", "undated", "quick", "late")
    backdated, undated, quick, late = (f"{PREFIX}{name}" for name in names)
    dated = {backdated: stamp(30), undated: stamp(30), quick: stamp(0.5), late: stamp(0.05)}
    for student, when in dated.items():
        entry = inbound / f"{student}+bpe+{when}+x"
        entry.mkdir()
        if student != undated:  # it leaves timestamp.txt out
            (entry / "timestamp.txt").write_text(when)
    course = tmp_path / "course"
    due = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    due -= datetime.timedelta(seconds=20)
    course.mkdir()
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_assignment("bpe", duedate=due)
    done = run_collect(course, tmp_path / "exchange")
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0, said
    for student in (backdated, undated):
        assert f"{student}: its entry is dated" in said and "after the due date" in said
    assert f"{quick}: its entry is dated" not in said and f"{late}: its entry" not in said
    record = course / FILED_LATE_RECORD
    assert sorted(json.loads(record.read_text())) == [backdated, undated]
    # The copy carries its name's time, so nbgrader counts it late by that time.
    copy_time = (course / "submitted" / undated / "bpe" / "timestamp.txt").read_text()
    assert copy_time == dated[undated]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in (backdated, quick):
            gb.update_or_create_student(student)
            gb.add_submission("bpe", student)
    rows = {row.student: row for row in summary.collect(course)}
    assert rows[backdated].state.kind == NEEDS_PERSON
    assert "backdated, or inbound was copied since" in " ".join(rows[backdated].state.reasons)
    assert rows[quick].state.kind != NEEDS_PERSON
    # The student hands in again, late and honest: the doubt goes with the copy it was about.
    again = inbound / f"{backdated}+bpe+{stamp(0)}+y"
    again.mkdir()
    (again / "timestamp.txt").write_text(stamp(0))
    assert run_collect(course, tmp_path / "exchange").returncode == 0
    assert list(json.loads(record.read_text())) == [undated]


def test_overlapping_collects_lose_no_doubt(tmp_path) -> None:
    """The record of doubts is changed under a lock and replaced whole: writers at once keep
    every student's, and a record that does not read is set aside, said, not lost."""
    import multiprocessing

    from autograder.course import FILED_LATE_RECORD
    from autograder.plugins.owned_collect import record_filed_late

    students = [f"s{i:02d}" for i in range(24)]
    with multiprocessing.get_context("fork").Pool(6) as pool:
        pool.starmap(record_filed_late, [(tmp_path, s, f"why {s}") for s in students])
    record = tmp_path / FILED_LATE_RECORD
    assert json.loads(record.read_text()) == {s: f"why {s}" for s in students}
    record.write_text("{not json")
    said = record_filed_late(tmp_path, "s00", None)
    assert said and "set aside" in said
    assert json.loads(record.read_text()) == {}
    aside = [p.read_text() for p in record.parent.glob("filed-late.json.unreadable-*")]
    assert aside == ["{not json"]


@pytest.mark.parametrize("asked", [True, False], ids=["asked", "nbgrader parses alone"])
def test_only_entries_this_collect_checked_are_chosen(tmp_path, monkeypatch, asked) -> None:
    """nbgrader's init_src makes the records it chooses from through _path_to_record; were a
    later nbgrader to make them itself, nothing unchecked is collected."""
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    (inbound / f"{GHOST}+bpe+{stamp(5)}+y").mkdir(parents=True)
    if not asked:
        monkeypatch.setattr(OwnedCollect, "_path_to_record", ExchangeCollect._path_to_record)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    (tmp_path / "course").mkdir()
    course = CourseDirectory(root=str(tmp_path / "course"), course_id=COURSE_ID)
    course.assignment_id = "bpe"
    collector = OwnedCollect(coursedir=course, root=str(tmp_path / "exchange"))
    collector.init_src()
    assert [r["username"] for r in collector.src_records] == ([GHOST] if asked else [])


# --- the copy alone, without accounts -----------------------------------------------------


def small_tree(root: Path) -> Path:
    entry = root / "entry"
    (entry / "sub").mkdir(parents=True)
    (entry / "a.ipynb").write_text("answers")
    (entry / "sub" / "b.txt").write_bytes(b"\x00\x01 bytes")
    (entry / "a.ipynb").chmod(0o640)
    return entry


def test_a_plain_entry_is_copied_whole(tmp_path: Path) -> None:
    entry = small_tree(tmp_path)
    used = copy_plain(str(entry), str(tmp_path / "copy"), os.getuid(), 10_000)
    assert used == len("answers") + len(b"\x00\x01 bytes")
    assert (tmp_path / "copy" / "a.ipynb").read_text() == "answers"
    assert (tmp_path / "copy" / "sub" / "b.txt").read_bytes() == b"\x00\x01 bytes"
    assert (tmp_path / "copy" / "a.ipynb").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "copy" / "a.ipynb").stat().st_mtime == (entry / "a.ipynb").stat().st_mtime


@pytest.mark.parametrize(
    "plant, said",
    [
        (lambda e: (e / "sub" / "c.ipynb").symlink_to("/etc/hostname"), "symbolic link"),
        (lambda e: (e / "linked").symlink_to(e.parent, target_is_directory=True), "symbolic"),
        (lambda e: os.mkfifo(e / "sub" / "pipe"), "fifo"),
        (lambda e: (e / "big").write_bytes(b"x" * 20_000), "size cap"),
    ],
    ids=["a linked file", "a linked folder", "a fifo", "too large"],
)
def test_an_entry_holding_what_cannot_be_trusted_is_refused(tmp_path, plant, said) -> None:
    entry = small_tree(tmp_path)
    plant(entry)
    for into in (None, str(tmp_path / "copy")):
        with pytest.raises(UntrustedEntryError, match=said):
            copy_plain(str(entry), into, None, 10_000)


def test_a_part_owned_by_another_account_is_refused(tmp_path: Path) -> None:
    entry = small_tree(tmp_path)
    with pytest.raises(UntrustedEntryError, match="the entry is owned by"):
        copy_plain(str(entry), None, os.getuid() + 1, 10_000)
    if os.geteuid() == 0:  # only root can give a file away
        os.chown(entry / "sub" / "b.txt", 65534, 65534)
        with pytest.raises(UntrustedEntryError, match=r"'sub/b.txt' is owned by"):
            copy_plain(str(entry), None, os.getuid(), 10_000)
