"""The grading service's hourly limit on one student's gradings when feedback goes out at once.

The queue test's course folder (``tests/test_grading_service_queue.py``: the course's settings,
an empty gradebook, an exchange), with ``GradingService.feedback = 'at once'``. The service's
own ``step`` runs each look at inbound, its clock set by the test; gradings go to a cluster
that never ends them by itself (``NoCluster``), and the test ends each as the service's merge
would record it, so nothing is graded for real. Then: once a student's gradings within the
hour reach ``gradings_per_hour``, the next entry is held, its reason names the limit and the
time, and the student's own ``nbgrader fetch_feedback`` brings a page saying it waits and
until when; a newer entry supersedes the held one (whose page then says it will not be
graded); a restarted service keeps it held; once the hour has passed by the service's clock
it is queued and graded at the next look. Entries forged in a classmate's name (refused by
the collect) spend none of the classmate's allowance. With feedback 'when released' no
entry is held.

But: no grading runs and no feedback of a grading is generated (``test_grading_service``
releases real feedback at once).
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default.fetch_feedback import ExchangeFetchFeedback
from nbgrader.utils import notebook_hash
from traitlets.config import Config

from autograder.grading.service import (
    GRADED,
    GRADING,
    HELD,
    HOUR,
    QUEUED,
    REFUSED,
    SUPERSEDED,
    Service,
    clock_text,
    entry_parts,
    notice_page,
    status,
    status_line,
)
from tests import test_grading_service_queue as queue
from tests.test_grading_service_queue import COURSE_ID, file_entry, service

pytestmark = pytest.mark.nbgrader  # nbgrader's collect and fetch_feedback, in this process

START = 2_000_000_000.0  # the service's clock at the first look (2033), whatever the date is
NOTEBOOK = "01_bpe_by_hand"
# The queue test's fixtures: a course folder with the course's settings, a gradebook, inbound.
empty_gradebook, root = queue.empty_gradebook, queue.root


class NeverDone:
    """A grading that never ends by itself: the test ends it (``end_gradings``)."""

    def add_done_callback(self, callback: object) -> None:
        pass

    def done(self) -> bool:
        return False

    def cancel(self) -> None:
        pass


class NoCluster:
    """A Dask client stand-in: every grading handed to it runs until the test ends it."""

    def submit(self, *args: object, **kwargs: object) -> NeverDone:
        return NeverDone()


def limited(root: Path, per_hour: int, clock: list[float]) -> Service:
    """The service's steps on ``root`` with feedback at once, ``per_hour`` gradings an hour,
    and ``clock[0]`` as its clock."""
    run = service(root, gradings_per_hour=per_hour)
    run.settings.feedback = "at once"
    run.clock = lambda: clock[0]
    return run


def step(run: Service) -> dict[str, tuple[str, str]]:
    """One look at inbound, as the service takes it; each entry's state and reason."""
    # Made at the first grading (the course here holds no source/: nothing to wait for).
    run.step(NoCluster(), run.root.parent / "template.db")  # type: ignore[arg-type]
    return {e.name: (e.state, e.reason) for e in run.store.entries()}


def end_gradings(run: Service) -> list[str]:
    """End every grading under way as the service's merge records it; the entries ended."""
    ended = list(run.running.values())
    for name in ended:
        run.store.graded(name, GRADED, "")
    run.running.clear()
    return ended


def fetched_page(tmp_path: Path, root: Path, name: str) -> str:
    """The page the student's own ``nbgrader fetch_feedback bpe`` brings for entry ``name``:
    its cache holds its copy of the entry, as nbgrader's submit leaves one."""
    student, assignment, stamp = entry_parts(name)  # type: ignore[misc]
    cache = tmp_path / "student-cache"
    home = tmp_path / "student-home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    shutil.copytree(inbound / name, cache / COURSE_ID / f"{student}+{assignment}+{stamp}")
    config = Config()
    config.Exchange.root = str(root / ".exchange")
    config.Exchange.cache = str(cache)
    config.Exchange.assignment_dir = str(home)
    config.CourseDirectory.course_id = COURSE_ID
    fetch = ExchangeFetchFeedback(
        coursedir=CourseDirectory(config=config, assignment_id=assignment),
        authenticator=Authenticator(config=config),
        config=config,
    )
    fetch.start()
    return (home / assignment / "feedback" / stamp / f"{NOTEBOOK}.html").read_text()


def test_past_the_limit_an_entry_is_held_told_superseded_kept_and_graded_in_time(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = [START]
    run = limited(root, 2, clock)
    first = file_entry(root, "ada", 50, '{"v": 1}', secret="s1")
    assert step(run)[first][0] == GRADING
    assert end_gradings(run) == [first]
    clock[0] += 60
    second = file_entry(root, "ada", 40, '{"v": 2}', secret="s2")
    assert step(run)[second][0] == GRADING
    end_gradings(run)

    # The third within the hour: held until the first grading is an hour old.
    clock[0] += 60
    third = file_entry(root, "ada", 30, '{"v": 3}', secret="s3")
    states = step(run)
    until = clock_text(START + HOUR)
    assert states[third][0] == HELD, states
    assert "GradingService.gradings_per_hour" in states[third][1], states
    assert f"held until {until}" in states[third][1], states
    assert not run.running
    page = fetched_page(tmp_path, root, third)
    assert "Your submission waits to be graded" in page and f"after {until}" in page, page
    assert "2 of your submissions have already been graded in the last hour" in page, page
    assert "<script" not in page and 'v": 3' not in page, page
    key = notebook_hash(secret="s3", notebook_id=NOTEBOOK)
    assert run.store.notices(third) == [key]
    assert "held" in status_line(run.store) and "1 held" in status_line(run.store)

    # A newer entry supersedes the held one, which is told so; the newer is held in turn.
    clock[0] += 60
    fourth = file_entry(root, "ada", 20, '{"v": 4}', secret="s4")
    states = step(run)
    assert states[third][0] == SUPERSEDED and fourth in states[third][1], states
    assert states[fourth][0] == HELD, states
    assert "This submission will not be graded" in fetched_page(tmp_path, root, third)
    assert "waits to be graded" in fetched_page(tmp_path, root, fourth)
    copy = root / "submitted" / "ada" / "bpe" / f"{NOTEBOOK}.ipynb"
    assert copy.read_text() == '{"v": 4}'

    # Stopped and started again: still held, by the store's starts, not the service's memory.
    run.store.close()
    clock[0] = START + HOUR - 1
    run = limited(root, 2, clock)
    run.resume()
    assert step(run)[fourth][0] == HELD
    assert "1 held" in status_line(run.store)
    status(root)  # make grading-status lists the held entry with until when
    assert f"held: {fourth}: " in capsys.readouterr().out

    # The first grading is an hour old by the service's clock: graded at the next look.
    clock[0] = START + HOUR
    states = step(run)
    assert states[fourth][0] == GRADING, states
    assert end_gradings(run) == [fourth]
    assert run.held_until("ada") == START + 60 + HOUR  # the second grading's hour next
    assert [e.gradings for e in run.store.entries(GRADED)] == [1, 1, 1]


def own(path: Path, account: str) -> None:
    """Give ``path`` and everything in it to ``account``, as that account's submit leaves it."""
    uid = pwd.getpwnam(account).pw_uid
    for part in [path, *path.rglob("*")]:
        os.lchown(part, uid, uid)


def test_entries_forged_in_a_classmates_name_spend_none_of_the_classmates_gradings(
    root: Path,
) -> None:
    """On one machine an account named like the student owns the student's entries: this
    service's own account files three in the name of ``nobody`` (an account of every machine),
    newer than nobody's own, with a limit of one grading an hour."""
    clock = [START]
    run = limited(root, 1, clock)
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    own_entry = file_entry(root, "nobody", 30, '{"v": 1}', secret="n1")
    own(inbound / own_entry, "nobody")
    forged = [file_entry(root, "nobody", 20 - i, f'{{"forged": {i}}}') for i in range(3)]
    states = step(run)
    for name in forged:
        assert states[name][0] == REFUSED and "another student's name" in states[name][1]
    assert states[own_entry][0] == GRADING, states  # not held: the forged ones cost nothing
    assert run.store.starts("nobody", START - HOUR) == [START]
    end_gradings(run)

    # More forged entries, then nobody's own again: the limit counts nobody's one grading.
    clock[0] += 60
    file_entry(root, "nobody", 5, '{"forged": 9}')
    again = file_entry(root, "nobody", 8, '{"v": 2}', secret="n2")
    own(inbound / again, "nobody")
    states = step(run)
    assert states[again][0] == HELD and "1 gradings of nobody" in states[again][1], states

    # With feedback when released nothing reaches a student early: no entry is held.
    run.settings.feedback = "when released"
    states = step(run)
    assert states[again][0] == GRADING, states
    assert run.held_until("nobody") is None
    assert [e.name for e in run.store.entries(QUEUED, HELD)] == []


def test_a_notice_page_is_plain_text() -> None:
    page = notice_page("<b>held</b>", ['<script>alert("x")</script>', "a & b"])
    assert "<script" not in page and "<b>" not in page, page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page and "a &amp; b" in page


def test_a_notebook_name_no_encoding_writes_neither_stops_the_service_nor_lists_feedback(
    root: Path,
) -> None:
    """A held entry holding a notebook whose name is no text is still told (under the keys of
    its other notebooks), the feedback folder the notice makes cannot be listed by students,
    a held entry alone leaves the service idle (the summary is written) but not done, and a
    held entry freed and superseded in the same look is told it will not be graded."""
    clock = [START]
    run = limited(root, 1, clock)
    inbound = root / ".exchange" / COURSE_ID / "inbound"
    feedback = inbound.parent / "feedback"
    shutil.rmtree(feedback, ignore_errors=True)  # made by the first notice, as nbgrader would
    first = file_entry(root, "ada", 50, '{"v": 1}', secret="s1")
    assert step(run)[first][0] == GRADING
    end_gradings(run)
    clock[0] += 60
    second = file_entry(root, "ada", 40, '{"v": 2}', secret="s2")
    with open(os.fsencode(inbound / second) + b"/\xff.ipynb", "w") as planted:
        planted.write("{}")
    assert step(run)[second][0] == HELD
    key = notebook_hash(secret="s2", notebook_id=NOTEBOOK)
    assert run.store.notices(second) == [key]
    assert "waits to be graded" in (feedback / f"{key}.html").read_text()
    assert feedback.stat().st_mode & 0o777 == 0o711
    assert run.idle() and not run.done()

    # The hour allows it at this look, which also finds a newer entry: the held one gives way.
    clock[0] = START + HOUR
    third = file_entry(root, "ada", 30, '{"v": 3}', secret="s3")
    states = step(run)
    assert states[second][0] == SUPERSEDED and states[third][0] == GRADING, states
    assert "will not be graded" in (feedback / f"{key}.html").read_text()


def test_a_store_that_cannot_be_read_is_said_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograder.grading.service import queue_path

    path = queue_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 100)
    assert status(tmp_path) == 1
    said = capsys.readouterr().err
    assert "cannot be read" in said and "gradebook" in said and "Traceback" not in said, said
