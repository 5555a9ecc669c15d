"""Hostile answers against the judge's sandbox (bubblewrap): each harms nothing outside it.

Every attack runs next to an honest exercise in the same job, which must still be verified
right. Where it makes sense the same attack is run unconfined too, and there it works: the
test would see a sandbox that does nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.hidden_tests.cases import agrees
from autograder.sandbox import bwrap, judge_answers
from autograder.sandbox.judge_answers import run_answers
from bpe_course.outcomes import ERROR_LIMIT, TOO_LARGE, Outcome, Unplain
from tests.conftest import ROOT
from tests.support.attacks import FORK_LOOP, SEND_EVERYWHERE

pytestmark = [
    pytest.mark.slow,  # each attack runs in the sandbox, some until its time limit
    pytest.mark.skipif(
        not bwrap.available(), reason="bubblewrap is missing: apt-get install bubblewrap"
    ),
]

HONEST = ("merge_pair", ["def merge_pair(symbols, pair):\n    return tuple(symbols)"])
CASE = {"core": [(("a", "b"), ("x", "y"))]}


def _run(attack: str, name: str = "pair_counts", seconds: float = 3) -> dict:
    jobs = [(name, [attack], {"core": [({("a", "b"): 1},)]}), (*HONEST, CASE)]
    return run_answers(jobs, seconds=seconds)


def _honest_ok(outcomes: dict) -> bool:
    (got,) = outcomes["merge_pair"]["core"]
    return got.error is None and got.value == ("a", "b")


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


DETACHED = """
import subprocess
subprocess.Popen(["sleep", "{seconds}"], start_new_session=True)
def pair_counts(words):
    return {{}}
"""


@pytest.mark.parametrize("confined", [True, False])
def test_a_detached_process_does_not_outlive_the_run(confined: bool, monkeypatch) -> None:
    marker = "4321.5" if confined else "4321.25"
    monkeypatch.setattr(judge_answers, "confined", lambda: confined)
    try:
        outcomes = _run(DETACHED.format(seconds=marker))
        assert _honest_ok(outcomes)
        time.sleep(0.3)
        survivors = _processes_with(marker)
        assert (survivors == []) is confined  # unconfined, the sleeper outlives the run
    finally:
        for pid in _processes_with(marker):
            os.kill(pid, signal.SIGKILL)


PEEK = """
import os
PATHS = ("solutions/bpe.py", "source", ".git", "autograder/hidden_tests/cases.py",
         ".grading-secret", "bpe_course/display.py")
SEEN = [os.path.exists(os.path.join({root!r}, p)) for p in PATHS]
SEEN.append(os.path.getsize("/etc/shadow") if os.path.exists("/etc/shadow") else -1)
def pair_counts(words):
    return {{("seen", str(SEEN)): os.getuid()}}
"""


@pytest.mark.parametrize("confined", [True, False])
def test_the_reference_and_masters_are_invisible(confined: bool, monkeypatch) -> None:
    monkeypatch.setattr(judge_answers, "confined", lambda: confined)
    (got,) = _run(PEEK.format(root=str(ROOT)))["pair_counts"]["core"]
    ((key, uid),) = got.value.items()
    shadow = (Path("/etc/shadow").stat().st_size,) if Path("/etc/shadow").exists() else (-1,)
    if confined:  # only the library the lessons import, and none of the system's secrets
        seen = [False] * 5 + [True, -1]
        assert key == ("seen", str(seen)) and uid == bwrap.THROWAWAY_UID
    else:
        secret = (ROOT / ".grading-secret").exists()  # made when a class is first graded
        assert key == ("seen", str([True] * 4 + [secret, True, *shadow]))


# What a program inside finds in /etc: the entries, the clock's zone, the throwaway account.
ETC_INSIDE = """
import json, os, pwd, time
try:
    account = pwd.getpwuid(os.getuid()).pw_name
except KeyError:
    account = None
print(json.dumps([sorted(os.listdir("/etc")), time.localtime(0).tm_gmtoff, account]))
"""


def test_etc_inside_holds_only_the_listed_entries_and_they_work() -> None:
    import json
    import pwd

    sandbox = bwrap.Sandbox(visible=bwrap.python_and_library())
    with bwrap.opened() as fd:
        argv = sandbox.command([os.path.realpath(sys.executable), "-c", ETC_INSIDE], fd)
        done = subprocess.run(argv, capture_output=True, text=True, pass_fds=(fd,), timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    entries, offset, account = json.loads(done.stdout)
    assert set(entries) <= set(bwrap._ETC_SHOWN) and "passwd" in entries
    assert offset == time.localtime(0).tm_gmtoff  # the machine's zone, through its link
    try:
        expected = pwd.getpwuid(bwrap.THROWAWAY_UID).pw_name
    except KeyError:  # a machine without that account
        expected = None
    assert account == expected


# Says whether each file exists, waits for a line on stdin, says it again.
WATCH = """
import os, sys
print(*map(os.path.exists, sys.argv[1:]), flush=True)
sys.stdin.readline()
print(*map(os.path.exists, sys.argv[1:]), flush=True)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="writes files in /etc, as the account tools do")
def test_what_the_machine_puts_in_etc_stays_out_even_replaced_while_a_sandbox_runs() -> None:
    # The machine replacing /etc/shadow (useradd and userdel rename a new file over it, as the
    # hub tests' accounts do) detached an empty file bound over it in a running sandbox, whose
    # answer then saw the new one. A stand-in secret here, replaced the same way; and the
    # copy and lock useradd leaves for a moment, the lock gone before the sandbox starts.
    secret = Path("/etc") / f"bpe-course-test-secret-{os.getpid()}"
    copy, lock = secret.with_name(secret.name + "-shadow+"), secret.with_name(secret.name + ".lock")
    for made in (secret, copy, lock):
        made.write_text("user:$6$hash:19000:0:99999:7:::\n")
    try:
        sandbox = bwrap.Sandbox(visible=bwrap.python_and_library())
        with bwrap.opened() as fd:
            files = [str(secret), str(copy), str(lock), "/etc/passwd"]
            argv = sandbox.command([os.path.realpath(sys.executable), "-c", WATCH, *files], fd)
            lock.unlink()
            inside = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, pass_fds=(fd,)
            )
        try:
            before = inside.stdout.readline().split()
            copy.write_text("a new secret, longer than the old one\n")
            copy.rename(secret)
            out, _ = inside.communicate("go\n", timeout=30)
        finally:
            if inside.poll() is None:
                inside.kill()
    finally:
        for made in (secret, copy, lock):
            made.unlink(missing_ok=True)
    assert [before, out.split()] == [["False", "False", "False", "True"]] * 2


@pytest.mark.skipif(os.geteuid() != 0, reason="writes a file in /etc")
def test_a_shown_etc_entry_gone_before_the_start_is_left_out(monkeypatch) -> None:
    gone = Path("/etc") / f"bpe-course-test-{os.getpid()}.conf"
    monkeypatch.setattr(bwrap, "_ETC_SHOWN", (*bwrap._ETC_SHOWN, gone.name))
    gone.write_text("listed, then removed\n")
    try:
        sandbox = bwrap.Sandbox(visible=bwrap.python_and_library())
        with bwrap.opened() as fd:
            argv = sandbox.command([os.path.realpath(sys.executable), "-c", WATCH, str(gone)], fd)
            assert str(gone) in argv  # shown, had it stayed
            gone.unlink()
            done = subprocess.run(
                argv, input="\n", capture_output=True, text=True, pass_fds=(fd,), timeout=30
            )
    finally:
        gone.unlink(missing_ok=True)
    assert (done.returncode, done.stdout.split()) == (0, ["False", "False"]), done.stderr[-2000:]


def test_a_fork_bomb_is_contained_and_others_are_verified() -> None:
    bomb = "import os\nwhile True:\n try:\n  os.fork()\n except OSError:\n  pass\n"
    start = time.monotonic()
    outcomes = _run(bomb + "def pair_counts(words):\n    return {}\n")
    # The job's own limits end it after about 8 s (startup, one 3 s step); 30 s leaves room for
    # a loaded machine, and a bomb that got out of the cap would hold the job far longer.
    assert time.monotonic() - start < 30
    assert "while the answer cell was being defined" in outcomes["pair_counts"]["core"][0].error
    assert _honest_ok(outcomes)


FORKS = (
    FORK_LOOP
    + """
def pair_counts(words):
    return {("forked", str(forked)): 1}
"""
)


@pytest.mark.parametrize("confined", [True, False])
def test_forks_stop_at_the_cap(confined: bool, monkeypatch) -> None:
    monkeypatch.setattr(judge_answers, "confined", lambda: confined)
    (got,) = _run(FORKS, seconds=10)["pair_counts"]["core"]
    ((key, _),) = got.value.items()
    forked = int(key[1])
    assert forked < 64 if confined else forked == 400  # unconfined, nothing stops it


SHM = """
import os
path, written = "/dev/shm/bpe-attack-{marker}", 0
try:
    with open(path, "wb") as out:
        while written < 10 * 2**20:
            out.write(bytes(2**20))
            out.flush()
            written += 2**20
except OSError:
    pass
finally:
    if os.path.exists(path):
        os.remove(path)
try:
    open("/dev/planted", "w").close()
    planted = True
except OSError:
    planted = False
def pair_counts(words):
    return {{("shm", str(written)): int(planted)}}
"""


@pytest.mark.parametrize("confined", [True, False])
def test_dev_shm_is_capped_and_dev_is_read_only(confined: bool, monkeypatch) -> None:
    monkeypatch.setattr(judge_answers, "confined", lambda: confined)
    attack = SHM.format(marker=os.getpid())
    if not confined:  # never write into the machine's own /dev
        attack = attack.replace('open("/dev/planted", "w")', "open('/nonexistent/x', 'w')")
    (got,) = _run(attack)["pair_counts"]["core"]
    ((key, planted),) = got.value.items()
    written = int(key[1])
    if confined:
        assert written <= bwrap.SHM_BYTES and planted == 0
    else:
        assert written == 10 * 2**20  # the machine's /dev/shm takes it all


KILL = """
import os, signal
try:
    os.kill({pid}, signal.SIGKILL)
except OSError:
    pass
def pair_counts(words):
    return {{}}
"""


@pytest.mark.parametrize("confined", [True, False])
def test_a_process_outside_cannot_be_killed(confined: bool, monkeypatch) -> None:
    monkeypatch.setattr(judge_answers, "confined", lambda: confined)
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        assert _honest_ok(_run(KILL.format(pid=bystander.pid)))
        time.sleep(0.2)
        assert (bystander.poll() is None) is confined  # unconfined, it is gone
    finally:
        bystander.kill()
        bystander.wait()


def test_killing_the_parent_or_everyone_reaches_no_one() -> None:
    """Run in the sandbox only: unconfined, as root, kill(-1) would end this machine's tests."""
    attack = (
        "import os, signal\n"
        "for target in (os.getppid(), 1, -1):\n"
        "    try:\n        os.kill(target, signal.SIGKILL)\n    except OSError:\n        pass\n"
        "def pair_counts(words):\n    return {('ok', 'ok'): 1}\n"
    )
    outcomes = _run(attack)
    assert outcomes["pair_counts"]["core"][0].value == {("ok", "ok"): 1}
    assert _honest_ok(outcomes)


FORGER = (
    SEND_EVERYWHERE
    + """
LINES = [b"not json", b"[1, 2]", b'{"name": ["x"], "group": "core", "index": 0, "outcome": "1"}',
         b'{"start": 5}', b'{"name": "merge_pair", "group": "core", "index": "0", "outcome": 1}',
         b'{"name": "merge_pair", "group": "core", "index": 99, "outcome": "[1, null, []]"}',
         b'{"setup": "x", "name": "merge_pair", "group": "core", "index": "0", "outcome": "1"}',
         b'{"ready": true}', b'{"ready": false}', b'{"ready": null}', b'{"ready": [1]}']
for line in LINES:
    send(line)
def pair_counts(words):
    return {}
"""
)


def test_forged_result_lines_are_ignored_not_fatal() -> None:
    outcomes = _run(FORGER)
    assert outcomes["pair_counts"]["core"][0].value == {}
    assert _honest_ok(outcomes)


# Reads back, through /proc, every line the child has written and the parent has not yet
# read (its "setup" line among them), then stops as if the sandbox had never started.
TAKE_OWN_LINES_AND_STOP = """
import os
for fd in range(3, 40):
    try:
        taken = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK)
        os.read(taken, 1 << 16)
    except OSError:
        pass
os._exit(1)
"""


def test_an_answer_that_stops_as_if_the_sandbox_never_started_is_not_run_again() -> None:
    """A child stopped before its "ready" line ran no answer and is started again (twice: a
    person looks). An answer that hides its child's lines and stops cannot pass for that:
    the parent read "ready" before it sent the answer, so the stop is the answer's."""
    outcomes = _run(TAKE_OWN_LINES_AND_STOP)
    (got,) = outcomes["pair_counts"]["core"]
    assert got.error and got.error.startswith("SandboxStopped"), got
    assert _honest_ok(outcomes)


FORGED_ERROR = (
    SEND_EVERYWHERE
    + """
outcome = json.dumps({"list": [None, "E" * 100_000, {"list": [0]}]})
send({"name": "pair_counts", "group": "core", "index": 0, "outcome": outcome})
def pair_counts(words):
    return {}
"""
)


def test_an_error_text_is_capped_by_the_grader_not_the_child() -> None:
    """A forged outcome's error (here 100 KB, enough to carry every hidden case) is cut to
    the same length as any answer's error, so it cannot smuggle data into feedback."""
    (got,) = _run(FORGED_ERROR)["pair_counts"]["core"]
    assert got.error is not None and got.error.startswith("EEE")
    assert len(got.error) <= ERROR_LIMIT + len(" ...")


FORGED_TYPE_NAME = (
    SEND_EVERYWHERE
    + """
outcome = json.dumps({"list": [{"unplain": {"not": "a name"}}, None, {"list": [{"dict": []}]}]})
send({"name": "pair_counts", "group": "core", "index": 0, "outcome": outcome})
def pair_counts(words):
    return {}
"""
)


def test_a_forged_type_name_fails_the_answer_not_the_judge() -> None:
    """An "unplain" marker whose type name is not a str (a dict, unhashable) once reached the
    comparison and raised there, so the whole notebook read "the judge could not run"; it is
    now refused as data that is not plain, and only the forger's own case fails."""
    outcomes = _run(FORGED_TYPE_NAME)
    (got,) = outcomes["pair_counts"]["core"][:1]
    assert got.error is not None and "not plain data" in got.error
    expected = Outcome(value={}, error=None, after=({("a", "b"): 1},))
    assert agrees("pair_counts", expected, got) is False
    assert _honest_ok(outcomes)


FORGED_HUGE = (
    SEND_EVERYWHERE
    + """
outcome = json.dumps({"list": [{"list": [0] * 300_000}, None, {"list": [0]}]})
send({"name": "pair_counts", "group": "core", "index": 0, "outcome": outcome})
def pair_counts(words):
    return {}
"""
)


def test_a_forged_outcome_past_the_item_limit_is_kept_only_as_too_large() -> None:
    """The child's conversion keeps at most MAX_ITEMS real items, but a forged line holds what
    it likes, and each item costs the grader time to compare (12 µs, so 50 MB of zeros cost
    minutes): the grader keeps such a value only as "too large", which fails the case."""
    outcomes = _run(FORGED_HUGE)
    (got,) = outcomes["pair_counts"]["core"]
    assert got.value == Unplain(TOO_LARGE), type(got.value)
    assert _honest_ok(outcomes)


# The next group's start line, written while each case runs: during the group's last case it
# is the very line the judge expects next, which would give that case a fresh time limit.
EARLY_START = (
    SEND_EVERYWHERE
    + """
import time
def pair_counts(words):
    send({"start": ["pair_counts", "random"]})
    time.sleep(1.2)
    return {}
"""
)


def test_a_start_line_written_during_a_case_gives_it_no_fresh_limit() -> None:
    groups = {"core": [({("a", "b"): 1},), ({("b", "c"): 1},)], "random": [({},)]}
    outcomes = run_answers([("pair_counts", [EARLY_START], groups), (*HONEST, CASE)], seconds=2)
    first, last = outcomes["pair_counts"]["core"]
    assert first.error is None, first  # 1.2 s of the group's 2
    assert last.error is not None and "did not finish" in last.error, last  # 2.4 s
    assert _honest_ok(outcomes)


RESTARTS = (
    SEND_EVERYWHERE
    + """
import threading, time
def talk():
    n = 0
    while True:
        n += 1
        send({"start": ["pair_counts", f"forged-{n}"]})
        time.sleep(0.1)
threading.Thread(target=talk, daemon=True).start()
def pair_counts(words):
    while True:
        time.sleep(1)
"""
)


def test_new_step_lines_and_restarts_cannot_extend_the_whole_run() -> None:
    """Each fresh step name resets a step's limit and each stopped child hands the rest to a
    fresh one, but the whole call keeps one deadline: startup, then a step's time and a
    second for a restart, per step."""
    groups = {"core": [({("a", "b"): 1},)], "random": [({("b", "c"): 1},)], "big": [({},)]}
    jobs = [("pair_counts", [RESTARTS], groups), (*HONEST, CASE)]
    start = time.monotonic()
    outcomes = run_answers(jobs, seconds=2)
    steps = (1 + 3) + (1 + 1)
    # Twice the whole call's deadline: restarts that extended it would never end, and a loaded
    # machine may be slow to stop a child; a tighter bound measured the machine, not the code.
    assert time.monotonic() - start < 2 * (5 + (2 + 1) * steps)
    assert all(o.error for group in outcomes["pair_counts"].values() for o in group)
    assert _honest_ok(outcomes)


ENDLESS = (
    SEND_EVERYWHERE
    + """
import threading, time
def talk():
    while True:
        send({"start": ["pair_counts", "core"]})
        time.sleep(0.2)
threading.Thread(target=talk, daemon=True).start()
def pair_counts(words):
    while True:
        time.sleep(1)
"""
)


def test_a_stream_of_fresh_start_lines_cannot_extend_the_time_limit() -> None:
    start = time.monotonic()
    outcomes = _run(ENDLESS, seconds=2)
    # startup (5 s) and 2 s for each of the 4 steps is the most this job may take, twice over
    assert time.monotonic() - start < 2 * (5 + 2 * 4)
    assert "did not finish" in outcomes["pair_counts"]["core"][0].error
    assert _honest_ok(outcomes)


GREEDY = """
def pair_counts(words):
    block = bytearray(2**30)  # 1 GB
    return {("a", "b"): len(block)}
"""

FILL = """
def pair_counts(words):
    with open("/tmp/big", "wb") as f:
        f.write(b"x" * (11 * 2**20))  # 11 MB, in a 64 MB /tmp
    return {}
"""


@pytest.mark.parametrize("memory_gb", [0.5, 0])
def test_an_answer_gets_the_memory_the_judge_allows(memory_gb: float) -> None:
    """0.5 GB: a 1 GB block fails; 0 (no limit, the control): the same block is made."""
    jobs = [("pair_counts", [GREEDY], {"core": [({("a", "b"): 1},)]}), (*HONEST, CASE)]
    outcomes = run_answers(jobs, seconds=10, memory_gb=memory_gb)
    (got,) = outcomes["pair_counts"]["core"]
    if memory_gb:
        assert got.error is not None and "MemoryError" in got.error
    else:
        assert got.error is None and got.value == {("a", "b"): 2**30}
    assert _honest_ok(outcomes)


def test_a_file_of_more_than_10_mb_cannot_be_written() -> None:
    (got,) = _run(FILL)["pair_counts"]["core"]
    assert got.error is not None and "File too large" in got.error
