"""A hostile student graded beside honest ones, with two workers: in the sandbox nothing works.

The class (graded with ``grade_class``, 2 workers, so the attacker runs beside an honest
student): ``a-honest`` and ``z-honest`` (correct answers, graded before and after the
attacker), ``m-attacker`` and ``q-linker``. The attacker's answer cell starts a process in a
session of its own that, for 20 s, kills the kernels of the honest student graded beside it
and plants an IPython startup file in that student's fresh home, and overwrites the other
honest student's submitted and autograded notebooks, noting each success in a file beside the
course. The cell
also links the name of its next notebook to the course's ``grades.csv``, fills its home 5 MB
at a time up to 100 MB, writes 50 MB and binds 1,000 sockets (two more from ipykernel's own
threads) in the folder of its kernel's sockets (on the grading machine's disk), prints 300 KB,
asks for the reference's source, and forks up to 400 processes. The linker's submission holds
a notes file linked to the reference and a notebook linked to an honest student's.

In the sandbox: the honest students keep full marks and their files, the gradebook is whole,
the attacker earns nothing, no process of theirs survives, the linker is refused for a
person (its own notebook recorded unscored, nothing linked read), and no feedback page
shows a hidden test or the reference. The same class graded with ``unconfined=True`` shows
each attack working, so each check can fail.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import cli
from autograder.sandbox import bwrap, landlock
from course_fixtures.catalogue import CORRECT
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.conftest import ROOT
from tests.support.attacks import FORGED_RESULT, FORK_LOOP
from tests.support.syscall_probe import NUMBERED_ON, PROBE, denied_calls, read_probe

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.timeout(1200),  # the class is graded in one fixture (and again unconfined)
    pytest.mark.skipif(not bwrap.available(), reason="bubblewrap is missing"),
]
MARK = "hostile-7f3a"  # in the detached process's command line, to find it afterwards
HONEST = ("a-honest", "z-honest")
FORGER = "f-forger"  # in the sandboxed class only
UNWRITABLE = "s-surrogate"  # likewise: a notebook nbgrader cannot write back
ATTACK = '''
import os, subprocess, sys
ROOT = {root!r}
LATER = """
import glob, os, signal, time
def done(what):  # evidence for the test, in a folder the sandbox does not show
    try:
        with open(EVIDENCE, "a") as out:
            out.write(what + "\\\\n")
    except OSError:
        pass
end = time.time() + 20
while time.time() < end:
    # The honest student graded beside the attacker has its kernels killed and startup
    # files planted in its home, in that order (a planted file ends a kernel at its start);
    # the one graded later has its notebooks overwritten (its grading then starts no kernel).
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = open(f"/proc/{{pid}}/environ", "rb").read()
            cmd = open(f"/proc/{{pid}}/cmdline", "rb").read()
            if b"HOME=/tmp/grading-home-a-honest" in env and b"ipykernel" in cmd:
                os.kill(int(pid), signal.SIGKILL)
                done("killed")
        except (OSError, ValueError):
            pass
    for home in glob.glob("/tmp/grading-home-a-honest*"):
        startup = os.path.join(home, ".ipython", "profile_default", "startup")
        try:
            os.makedirs(startup, exist_ok=True)
            with open(os.path.join(startup, "00-blank.py"), "w") as out:
                out.write("raise SystemExit")
            done("planted")
        except OSError:
            pass
    for path in glob.glob(os.path.join(ROOT, "*", "z-honest", "bpe", "*.ipynb")):
        try:
            with open(path, "w") as out:
                out.write("{{}}")
            done("overwrote")
        except OSError:
            pass
    time.sleep(0.02)
time.sleep(120)  # then idle, alive: the test looks for it once the class is graded, and kills it
"""
START = f"ROOT, EVIDENCE = {{ROOT!r}}, {evidence!r}"
subprocess.Popen([sys.executable, "-c", START + LATER, "{mark}"], start_new_session=True)
{probe}
print("syscall probe:", json.dumps(syscall_results()))  # the system calls the kernel may make
try:  # nbgrader writes the next notebook here: through a link, into the course's files?
    os.remove("02_encoding_by_rank.ipynb")
except OSError:
    pass
try:
    os.symlink(os.path.join(ROOT, "grades.csv"), "02_encoding_by_rank.ipynb")
except OSError:
    pass
filled = 0  # the home, 5 MB at a time: is there a floor to the disk?
try:
    while filled < 100:
        with open(os.path.expanduser(f"~/fill-{{filled}}"), "wb") as out:
            out.write(bytes(5 * 2**20))
        filled += 5
except OSError:
    pass
print(f"filled {{filled}} MB")
sockets = 0  # the folder of the kernel's sockets, on the grading machine's own disk
try:
    while sockets < 50:
        runtime = os.environ["JUPYTER_RUNTIME_DIR"]
        with open(os.path.join(runtime, f"fill-{{sockets}}"), "wb") as out:
            out.write(bytes(5 * 2**20))
        sockets += 5
except (OSError, KeyError):
    pass
print(f"sockets {{sockets}} MB")
bound = 0  # sockets take no bytes, but each is one more inode of that disk
try:
    import socket
    while bound < 1000:
        place = os.path.join(os.environ["JUPYTER_RUNTIME_DIR"], f"s-{{bound}}")
        socket.socket(socket.AF_UNIX).bind(place)
        bound += 1
except (OSError, KeyError):
    pass
print(f"bound {{bound}} sockets")
import threading  # the kernel's own threads, started before any student code ran
kernel, bound_there = get_ipython().kernel, []
def bind_on(schedule, name):
    done = threading.Event()
    def bind():
        try:
            place = os.path.join(os.environ["JUPYTER_RUNTIME_DIR"], f"t-{{name}}")
            socket.socket(socket.AF_UNIX).bind(place)
            bound_there.append(name)
        except (OSError, KeyError):
            pass
        done.set()
    schedule(bind)
    done.wait(5)
bind_on(kernel.iopub_thread.schedule, "iopub")
bind_on(kernel.control_thread.io_loop.add_callback, "control")
print(f"threads bound {{len(bound_there)}}")
try:
    import inspect
    import solutions
    print(inspect.getsource(solutions))
except Exception as error:
    print("no reference:", type(error).__name__)
print("token:", os.environ.get("BPE_INSTRUCTOR_TOKEN"))  # the grader's own environment
try:
    print("grades:", open(os.path.join(ROOT, "grades.csv")).read())
except OSError as error:
    print("no grades:", type(error).__name__)
for fd in map(int, os.listdir("/proc/self/fd")):  # inherited files: the grader's logs?
    try:
        if fd > 2 and os.path.isfile(os.readlink(f"/proc/self/fd/{{fd}}")):
            os.write(fd, b"L" * 2**20)
    except OSError:
        pass
from IPython.display import HTML, display
display(HTML("<script>document.title = 'owned'</script>"))
print("x" * 300_000)

def pair_counts(words):
    from solutions import pair_counts as reference
    return reference(words)
'''
# In the next answer cell, so the outputs above are kept if the kernel does not survive it.
SECOND = """
import os, subprocess, sys
{bomb}

def merge_pair(symbols, pair):
    return symbols

def _forge(lines):  # every later cell, tests included, shows 'ok' and raises nothing
    return ["'ok'\\n"]

get_ipython().input_transformers_post.append(_forge)
"""
# The loop runs as a program the kernel starts; it prints how many children it made.
BOMB = (
    f"FORK = {FORK_LOOP + 'print(forked)'!r}"
    + """
bomb = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True, timeout=30)
print("forked", bomb.stdout.strip())
"""
)


GRADES = "student_id,total\nsomeone,21 SECRET-GRADES\n"
TOKEN = "instructor-token-5678"


def _evidence(root: Path) -> Path:
    """What the attacker's detached process managed, written beside (not in) the course."""
    return root.parent / "evidence.txt"


def _attacker_output(root: Path, word: str) -> int:
    """The number the attacker's cells printed after ``word`` (as in ``forked 63``)."""
    notebook = root / "autograded" / "m-attacker" / "bpe" / "01_bpe_by_hand.ipynb"
    # A number must follow the word: the lesson's own prose may use it too ("filled from").
    return int(re.search(rf"\b{word} (\d+)", notebook.read_text()).group(1))


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _survivors() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if MARK.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def _make_class(root: Path) -> dict[str, dict[str, str]]:
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    (root / "grades.csv").write_text(GRADES)
    for student in HONEST:
        write_submission(root, student, good)
    evidence = str(_evidence(root))
    attack = ATTACK.format(root=str(root), mark=MARK, evidence=evidence, probe=PROBE)
    answers = {"pair_counts": attack, "merge_pair": SECOND.format(bomb=BOMB)}
    attacker = ["01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb"]  # 02 left unanswered
    write_submission(root, "m-attacker", answers, attacker)
    two = {k: good[k] for k in ("train_bpe", "encode_bpe")}
    linker = write_submission(root, "q-linker", two, ["02_encoding_by_rank.ipynb"])
    (linker / "notes.txt").symlink_to(ROOT / "solutions" / "bpe.py")
    honest_nb = root / "submitted" / "a-honest" / "bpe" / "01_bpe_by_hand.ipynb"
    (linker / "01_bpe_by_hand.ipynb").symlink_to(honest_nb)
    return {s: _digest(root / "submitted" / s / "bpe") for s in HONEST}


def _add_forger(root: Path) -> None:
    """A student whose notebook 04 forges a kernel message; every answer is right."""
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    good["merge_and_update"] = FORGED_RESULT + good["merge_and_update"]
    write_submission(root, FORGER, good)


def _add_unwritable(root: Path) -> None:
    """A student whose notebook 02 holds a lone surrogate (a JSON escape UTF-8 cannot
    write), in a markdown cell of their own; every answer is right."""
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    folder = write_submission(root, UNWRITABLE, good)
    path = folder / "02_encoding_by_rank.ipynb"
    notebook = json.loads(path.read_text())
    notebook["cells"].insert(1, {"cell_type": "markdown", "id": "own-notes", "metadata": {},
                                 "source": "my notes \ud800"})  # fmt: skip
    path.write_text(json.dumps(notebook))  # ASCII: the surrogate stays an escape


def _grade(root: Path, confined: bool) -> dict:
    from autograder.grading import grade_class
    from autograder.grading.options import GradingOptions
    from autograder.reports import summary

    start = time.monotonic()
    os.environ["BPE_INSTRUCTOR_TOKEN"] = TOKEN  # as a hub sets JUPYTERHUB_API_TOKEN
    try:
        options = GradingOptions(root, jobs=2, progress=False, lean=True, unconfined=not confined)
        status = grade_class.run(options)  # what `make autograde` runs, with its exit status
    finally:
        del os.environ["BPE_INSTRUCTOR_TOKEN"]
    seconds = time.monotonic() - start
    rows = {row.student: row for row in summary.report(root, quiet=True)}
    return {"rows": rows, "seconds": seconds, "status": status}


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = make_scratch_course(tmp_path_factory.mktemp("hostile"))
    before = _make_class(root)
    _add_forger(root)
    _add_unwritable(root)
    graded = _grade(root, confined=True)
    time.sleep(1)
    graded.update(root=root, before=before, survivors=_survivors())
    for pid in graded["survivors"]:
        os.kill(pid, signal.SIGKILL)
    return graded


def test_honest_students_keep_full_marks_and_their_files(sandboxed) -> None:
    rows, root = sandboxed["rows"], sandboxed["root"]
    for student in HONEST:
        assert rows[student].status == "graded", rows[student].status
        assert rows[student].total == 21, (student, rows[student].scores)
        assert _digest(root / "submitted" / student / "bpe") == sandboxed["before"][student]
    # The whole class took about 60 s here (2 cores, other jobs running): the bound catches an
    # attacker who stalls the class, with four times that as room for a slower machine.
    assert sandboxed["seconds"] < 240


def test_the_attacker_earns_nothing_and_leaves_nothing_running(sandboxed) -> None:
    rows = sandboxed["rows"]
    attacker = rows["m-attacker"]
    assert attacker.scores["pair_counts"] == 0 and attacker.scores["merge_pair"] == 0
    assert attacker.total == 0
    assert sandboxed["survivors"] == []
    notebook = sandboxed["root"] / "autograded" / "m-attacker" / "bpe" / "01_bpe_by_hand.ipynb"
    text = notebook.read_text()
    assert "no reference: " in text  # solutions/ is not there to read
    assert "no grades: " in text and "SECRET-GRADES" not in text  # nor the course's files
    assert "token: None" in text and TOKEN not in text  # nor the grader's environment
    outputs = json.dumps([c.get("outputs", []) for c in json.loads(text)["cells"]])
    assert "<script" not in outputs  # HTML and script outputs are kept as text only
    log = sandboxed["root"] / "artifacts" / "grading" / "workers.log"
    assert not log.exists() or log.stat().st_size < 2**20  # no inherited file to write to
    assert _attacker_output(sandboxed["root"], "forked") < 300  # the cap, not its 400
    assert _attacker_output(sandboxed["root"], "filled") <= 64  # its home holds 64 MB
    if landlock.abi_version():  # sockets, and not a byte of files, in its socket folder
        assert _attacker_output(sandboxed["root"], "sockets") == 0
        assert _attacker_output(sandboxed["root"], "bound") == 0
        assert _attacker_output(sandboxed["root"], "threads bound") == 0
    assert notebook.stat().st_size < 200_000  # 300 KB printed, at most 20 KB kept per cell
    assert (sandboxed["root"] / "grades.csv").read_text() == GRADES  # not written through a link
    if os.uname().machine == NUMBERED_ON:  # the syscall filter: a denied call is refused
        probed = read_probe(text)
        assert probed["seccomp"] == "2", probed
        assert set(denied_calls(probed).values()) == {"PermissionError"}, probed
    assert not _evidence(sandboxed["root"]).exists()  # nor anything outside the sandbox


def test_a_submission_with_links_is_refused_for_a_person(sandboxed) -> None:

    root = sandboxed["root"]
    linker = sandboxed["rows"]["q-linker"]
    assert linker.status.startswith("needs manual grading: a link or special file")
    assert "notes.txt" in linker.status and "01_bpe_by_hand.ipynb" in linker.status
    # Recorded for a person: only its own regular notebook reached autograded/, unscored.
    kept = sorted(p.name for p in (root / "autograded" / "q-linker" / "bpe").glob("*.ipynb"))
    assert kept == ["02_encoding_by_rank.ipynb"] and linker.total is None
    assert cli.main(["export", "--root", str(root), "--out", "linked.csv"]) == 0
    with open(root / "linked.csv", newline="") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert exported["q-linker"]["status"] == linker.status and exported["q-linker"]["total"] == ""


def test_a_forged_kernel_message_is_the_students_and_the_rest_is_graded(sandboxed) -> None:

    root, forger = sandboxed["root"], sandboxed["rows"][FORGER]
    # A person looks at the notebook that forged; the class's run did not fail.
    assert forger.status.startswith("needs manual grading: 04_making_it_fast: "), forger.status
    assert sandboxed["status"] == 0
    full = {"pair_counts": 3, "merge_pair": 3, "train_bpe": 5, "encode_bpe": 5}
    assert {name: forger.scores[name] for name in full} == full  # the other notebooks
    notebook = json.loads(
        (root / "autograded" / FORGER / "bpe" / "04_making_it_fast.ipynb").read_text()
    )
    counts = [c.get("execution_count") for c in notebook["cells"] if c["cell_type"] == "code"]
    assert all(isinstance(n, (int, type(None))) for n in counts)
    outputs = json.dumps([c.get("outputs", []) for c in notebook["cells"]])
    assert "[grader] output this cell's kernel sent was not well-formed" in outputs
    assert "<b>x</b>" not in outputs  # only the cell's source holds it
    errors = root / "artifacts" / "grading" / "errors.log"
    assert not errors.exists() or FORGER not in errors.read_text()  # not the grader's fault
    assert cli.main(["export", "--root", str(root), "--out", "forged.csv"]) == 0
    with open(root / "forged.csv", newline="") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert exported[FORGER]["status"] == forger.status and exported[FORGER]["train_bpe"] == "5"


def test_a_notebook_nbgrader_cannot_write_is_left_for_a_person_alone(sandboxed) -> None:
    root, student = sandboxed["root"], sandboxed["rows"][UNWRITABLE]
    why = "needs manual grading: 02_encoding_by_rank: could not be graded: UnicodeEncodeError"
    assert student.status.startswith(why), student.status
    assert sandboxed["status"] == 0  # the student's problem, not the grader's
    full = {"pair_counts": 3, "merge_pair": 3, "merge_and_update": 5}
    assert {name: student.scores[name] for name in full} == full  # notebooks 01 and 04
    assert student.scores["train_bpe"] is None and student.scores["encode_bpe"] is None
    errors = root / "artifacts" / "grading" / "errors.log"
    assert not errors.exists() or UNWRITABLE not in errors.read_text()


def test_no_feedback_shows_a_hidden_test_or_the_reference(sandboxed) -> None:
    root = sandboxed["root"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    command = [sys.executable, "-m", "nbgrader", "generate_feedback", "bpe", "--force"]
    subprocess.run([*command, "--log-level=ERROR"], cwd=root, env=env, check=True, timeout=600)
    pages = sorted((root / "feedback").rglob("*.html"))
    students = {"a-honest", "z-honest", "m-attacker", "q-linker", FORGER, UNWRITABLE}
    assert {p.parts[-3] for p in pages} == students
    reference = (ROOT / "solutions" / "bpe.py").read_text()
    secret_lines = [line for line in reference.splitlines() if line.startswith("def ")]
    for page in pages:
        text = page.read_text()
        assert "BEGIN HIDDEN TESTS" not in text and "autograder.hidden_tests" not in text
        assert not any(line in text for line in secret_lines), page


def test_unconfined_the_same_attack_works(tmp_path: Path) -> None:
    """The control: without the sandbox the attacker reaches the honest students."""
    root = make_scratch_course(tmp_path / "course")
    before = _make_class(root)
    try:
        graded = _grade(root, confined=False)
        # Under load the detached process may take a while to show: look for up to 20 s.
        deadline = time.monotonic() + 20
        while not (survivors := _survivors()) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        for pid in _survivors():
            os.kill(pid, signal.SIGKILL)
    assert survivors, "the detached process should outlive the attacker's kernel"
    harmed = [s for s in HONEST if _digest(root / "submitted" / s / "bpe") != before[s]]
    hurt = [s for s in HONEST if graded["rows"][s].total != 21]
    assert harmed and hurt, (harmed, {s: graded["rows"][s].status for s in HONEST})
    # The probes find what the sandbox hides: the reference's source and the class's grades.
    notebook = root / "autograded" / "m-attacker" / "bpe" / "01_bpe_by_hand.ipynb"
    outputs = json.dumps([c.get("outputs", []) for c in json.loads(notebook.read_text())["cells"]])
    assert "no reference:" not in outputs and "no grades:" not in outputs
    assert "SECRET-GRADES" in outputs and TOKEN in outputs
    probed = read_probe(notebook.read_text())  # no syscall filter: the calls go through
    assert probed["seccomp"] == "0", probed
    assert [what for what, seen in denied_calls(probed).items() if seen != "PermissionError"]
    # Each attack the sandbox stops, one by one: the detached process reached the honest
    # students' homes, kernels and notebooks; nbgrader wrote through the planted link; the
    # fork loop and the home had no floor.
    evidence = set(_evidence(root).read_text().split())
    assert evidence == {"planted", "killed", "overwrote"}, evidence
    assert (root / "grades.csv").read_text() != GRADES
    assert _attacker_output(root, "forked") == 400
    assert _attacker_output(root, "filled") == 100
    assert _attacker_output(root, "sockets") == 50
    assert _attacker_output(root, "bound") == 1000
    assert _attacker_output(root, "threads bound") == 2
