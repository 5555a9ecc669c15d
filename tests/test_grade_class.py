"""Class grading end to end: bad submissions and tampering, through parallel nbgrader.

One scratch course, six synthetic students, graded by ``autograder.grading.grade_class`` with two
workers, lean as ``make autograde`` grades (one test grades ``good`` again with every lesson
cell run, as ``FULL=1`` does). Students who must keep full marks are graded with the production
limits (10 s a cell, 10 s a sandbox group); only the students whose cells loop or freeze get
short limits (3 s a cell, 2 s a sandbox group), in a run of their own. Each student carries
several problems that do not interfere with one another:

- ``good``: correct answers everywhere (the control);
- ``crashy``: an edited locked test cell and an extra file (01), a ``merge_pair`` that loops
  forever (01), a kernel killed by ``os._exit`` in the ``encode_bpe`` answer (02), and a
  ``merge_and_update`` that tries to allocate 6 GB, more than the 4 GB limit (04);
- ``broken``: notebook 01 not submitted, ``train_bpe`` renamed (02), notebook 04 not JSON;
- ``frozen``: a kernel that ignores interrupts in the ``merge_pair`` answer (01) and a deleted
  locked test cell (02);
- ``tamper``: wrong answers dressed up by tampering with the grading kernel: a planted
  ``autograder.hidden_tests.judge``, importing ``solutions``, reading the checker's globals, an
  object whose ``==`` always says yes, and a patched ``judge``. The hidden tests are judged
  outside the kernel, so none of it earns a point. The same cell also tries to delete the
  gradebook and another student's files, which the sandbox hides;
- ``delegate``: answers that hand the work to the course's demonstration engine
  (``course_fixtures.catalogue.DELEGATING``): right in the kernel, 0 when judged outside it.
"""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.hidden_tests.cases import cases
from course_fixtures.catalogue import CORRECT, DELEGATING
from tests.conftest import ROOT as CODE

pytestmark = pytest.mark.nbgrader

EXERCISE_POINTS = {
    "pair_counts": 3,
    "merge_pair": 3,
    "train_bpe": 5,
    "encode_bpe": 5,
    "merge_and_update": 5,
}
NB1, NB2, NB4 = "01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb", "04_making_it_fast.ipynb"


def _correct() -> dict[str, str]:
    # Any correct answer that also passes the visible examples' type checks.
    return {
        name: next(src for label, src in answers.items() if "Counter" not in src)
        for name, answers in CORRECT.items()
    }


def _edit(folder: Path, notebook: str, grade_id: str, source: str | None) -> None:
    """Replace (or, with None, delete) the cell with ``grade_id`` in a submitted notebook."""
    path = folder / notebook
    nb = nbformat.read(path, as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            if source is None:
                continue
            cell.source = source
        cells.append(cell)
    assert len(cells) != len(nb.cells) or source is not None
    nb.cells = cells
    nbformat.write(nb, path)


LOOP = "def merge_pair(symbols, pair):\n    while True:\n        pass\n"
DIE = "import os\n\nos._exit(1)\n"
BOMB = "def merge_and_update(words, counts, stats, where, pair):\n    return bytearray(6 * 2**30)\n"
FREEZE = "import signal\n\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n"
PLANT = """
import sys, types

def pair_counts(words):
    return {}

fake = types.ModuleType("autograder.hidden_tests.judge")
fake.check = lambda *args: None
sys.modules["autograder.hidden_tests.judge"] = fake
"""
IMPORT_REFERENCE = """
def merge_pair(symbols, pair):
    from solutions import merge_pair as reference
    return reference(symbols, pair)
"""
READ_CHECKER = """
import sys

def train_bpe(word_counts, num_merges):
    frame = sys._getframe(1)
    while "reference" not in frame.f_globals:  # up to the checker that knows the answers
        frame = frame.f_back
    return frame.f_globals["reference"]("train_bpe")(word_counts, num_merges)
"""
ALWAYS_EQUAL = """
class Yes(list):
    def __eq__(self, other):
        return True

def encode_bpe(word, merges):
    return Yes()
"""
# Appended to the tampering student's answer cell: try to harm the class (the grading kernel
# runs in a jail where none of this reaches the real files).
VANDAL = """
import os, shutil
ROOT = {root!r}
CODE = {code!r}
for harm in (
    lambda: os.remove(os.path.join(ROOT, "gradebook.db")),
    lambda: open(os.path.join(ROOT, "gradebook.db"), "wb").close(),
    lambda: shutil.rmtree(os.path.join(ROOT, "submitted", "good")),
    lambda: open(os.path.join(ROOT, "autograded", "good", "bpe", "PWNED"), "w").close(),
    lambda: open(os.path.join(ROOT, "PWNED"), "w").close(),
    lambda: open(os.path.join(CODE, "autograder", "PWNED"), "w").close(),
    lambda: open(os.path.join(CODE, "bpe_course", "PWNED"), "w").close(),
):
    try:
        harm()
    except Exception:
        pass
"""
PATCH_JUDGE = """
import autograder.hidden_tests.judge

autograder.hidden_tests.judge.judge = lambda *args, **kwargs: []

def merge_and_update(words, counts, stats, where, pair):
    return []
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory):
    from autograder.reports import summary
    from course_fixtures.scratch_course import make_scratch_course
    from course_fixtures.synthetic import write_submission

    root = make_scratch_course(tmp_path_factory.mktemp("class"))
    good = _correct()
    write_submission(root, "good", good)

    crashy = write_submission(root, "crashy", {**good, "merge_pair": LOOP}, [NB1, NB2, NB4])
    _edit(crashy, NB1, "test_pair_counts_examples", "pass  # edited by the student\n")
    (crashy / "scratch.txt").write_text("notes")
    _edit(crashy, NB2, "encode_bpe", good["encode_bpe"] + "\n" + DIE)
    _edit(crashy, NB4, "merge_and_update", BOMB)

    renamed = good["train_bpe"].replace("def train_bpe(", "def train(")
    two_books = {k: v for k, v in good.items() if k not in ("pair_counts", "merge_pair")}
    broken = write_submission(root, "broken", {**two_books, "train_bpe": renamed}, [NB2, NB4])
    (broken / NB4).write_text('{"cells": [ this is not JSON')

    frozen_answers = {k: v for k, v in good.items() if k != "merge_and_update"}
    frozen = write_submission(root, "frozen", frozen_answers, [NB1, NB2])
    _edit(frozen, NB1, "merge_pair", good["merge_pair"] + "\n" + FREEZE)
    _edit(frozen, NB2, "test_train_bpe_hidden_core", None)

    tampered = {
        "pair_counts": PLANT,
        "merge_pair": IMPORT_REFERENCE,
        "train_bpe": READ_CHECKER,
        "encode_bpe": ALWAYS_EQUAL + VANDAL.format(root=str(root), code=str(CODE)),
        "merge_and_update": PATCH_JUDGE,
    }
    write_submission(root, "tamper", tampered, [NB1, NB2, NB4])

    delegating = {name: next(iter(answers.values())) for name, answers in DELEGATING.items()}
    first_books = {k: v for k, v in good.items() if k != "merge_and_update"}
    write_submission(root, "delegate", {**first_books, **delegating}, [NB1, NB2])

    # Production limits for everyone who must keep marks; short ones only where cells loop.
    steady, looping = ["good", "broken", "tamper", "delegate"], ["crashy", "frozen"]
    for students, limits in ((steady, []), (looping, ["--timeout", "3"])):
        command = ["--root", str(root), "--jobs", "2", "--lean", "--no-progress", *limits]
        code = cli.main(["grade", *command, *[arg for s in students for arg in ("--student", s)]])
        assert code == 0
    rows = {row.student: row for row in summary.report(root, quiet=True)}
    return root, rows


def _grades(root: Path, student: str) -> dict[str, tuple]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        submission = gb.find_submission("bpe", student)
        return {
            g.name: (g.auto_score, g.manual_score, g.needs_manual_grade)
            for nb in submission.notebooks
            for g in nb.grades
        }


def _notes(row) -> str:
    return " | ".join([row.status, *row.notes, *row.disagreements])


def test_the_correct_student_gets_full_marks_and_no_disagreement(graded) -> None:
    _, rows = graded
    good = rows["good"]
    assert good.status == "graded"
    assert good.scores == {name: float(p) for name, p in EXERCISE_POINTS.items()}
    assert good.disagreements == []


def test_loop_dead_kernel_memory_bomb_and_edited_cell_each_cost_only_their_exercise(
    graded,
) -> None:
    root, rows = graded
    crashy = rows["crashy"]
    notes = _notes(crashy)
    # Edited locked cell: restored from the master, so the right pair_counts keeps its marks.
    assert crashy.scores["pair_counts"] == 3
    assert "locked cell edited, restored from the master: 01_bpe_by_hand: test_pair_counts" in notes
    assert "extra file: scratch.txt (ignored)" in notes
    # The loop: every merge_pair test cell timed out on its own, and the cells after it ran.
    assert crashy.scores["merge_pair"] == 0
    assert notes.count("cell timed out: 01_bpe_by_hand: test_merge_pair") == 3
    # os._exit: train_bpe ran before the kernel died and keeps its marks; encode_bpe scores 0.
    assert crashy.scores["train_bpe"] == 5
    assert crashy.scores["encode_bpe"] == 0
    assert "kernel lost: 02_encoding_by_rank: kernel died" in notes
    grades = _grades(root, "crashy")
    assert grades["test_encode_bpe_hidden_core"][0] == 0  # a zero, not a blank or full marks
    # 6 GB asked, 4 GB allowed: MemoryError in the kernel, the machine untouched.
    assert crashy.scores["merge_and_update"] == 0
    assert "memory limit reached: 04_making_it_fast" in notes
    assert crashy.status == "graded"


def test_missing_renamed_and_unreadable_notebooks_are_reported_not_silent_zeros(graded) -> None:
    root, rows = graded
    broken = rows["broken"]
    notes = _notes(broken)
    assert "missing notebook: 01_bpe_by_hand" in notes
    assert broken.scores["pair_counts"] == 0 and broken.scores["merge_pair"] == 0
    assert "train_bpe_examples: NameError: name 'train_bpe' is not defined" in notes
    assert broken.scores["train_bpe"] == 0 and broken.scores["encode_bpe"] == 5
    # Not JSON: left ungraded and flagged for a person, shown as "—" and not as 0.
    assert broken.scores["merge_and_update"] is None
    assert broken.total is None
    assert broken.status.startswith("needs manual grading")
    assert "not a readable notebook: 04_making_it_fast" in broken.status
    grades = _grades(root, "broken")
    assert grades["test_merge_and_update_hidden_core"] == (None, None, True)


def test_frozen_kernel_and_deleted_test_cell(graded) -> None:
    root, rows = graded
    frozen = rows["frozen"]
    notes = _notes(frozen)
    assert frozen.scores["pair_counts"] == 3
    assert frozen.scores["merge_pair"] == 0
    assert "kernel lost: 01_bpe_by_hand: kernel froze" in notes
    # The deleted hidden test is waiting for a person, not a silent 0.
    assert frozen.status.startswith("needs manual grading")
    assert "locked test cell deleted, needs manual grading: 02_encoding_by_rank" in frozen.status
    assert frozen.scores["train_bpe"] is None
    assert _grades(root, "frozen")["test_train_bpe_hidden_core"][2] is True


def test_every_tampering_attempt_gains_nothing(graded) -> None:
    root, rows = graded
    tamper = rows["tamper"]
    grades = _grades(root, "tamper")
    # The hidden tests never ran in the kernel, so planting, patching or reading the checker
    # there reached nothing: every cell's automatic score is the judged one, 0.
    assert tamper.scores == {name: 0.0 for name in EXERCISE_POINTS}
    for cell, (auto, manual, _) in grades.items():
        assert (auto, manual) == (0, None), cell
    # The hidden tests' cells say why, in the judge's words: the reference cannot be imported
    # outside the kernel, and an object that is not plain data is not an answer.
    notes = " | ".join(tamper.notes)
    no_reference = (
        "test_merge_pair_hidden_core: AssertionError: merge_pair raised ModuleNotFoundError: "
        "No module named 'solutions' on every input"
    )
    assert no_reference in notes
    core = len(cases("encode_bpe", "core"))
    assert (
        f"test_encode_bpe_hidden_core: AssertionError: encode_bpe is wrong on {core} of {core}"
        in (notes)
    )
    assert tamper.status == "graded" and tamper.total == 0


def test_delegating_to_the_demonstration_engine_earns_nothing(graded) -> None:
    root, rows = graded
    delegate = rows["delegate"]
    text = " | ".join(delegate.disagreements)
    for name in DELEGATING:
        assert f"test_{name}_examples: kernel 1, judged 0" in text, name  # the kernel was fooled
        assert delegate.scores[name] == 0, name  # ... the grade is not
    assert delegate.scores["pair_counts"] == 3
    notes = " | ".join(delegate.notes)
    for name in DELEGATING:
        assert f"{name} refers to the course's demonstration engine" in notes, notes
    assert "demonstration engine may not be used" in " | ".join(delegate.disagreements)


def test_a_student_kernel_cannot_touch_the_gradebook_or_other_students(graded) -> None:
    from autograder.sandbox import bwrap

    if not bwrap.available():
        pytest.skip("no mount namespaces here (unshare/setpriv): kernels run unconfined")
    root, rows = graded
    assert (root / "gradebook.db").stat().st_size > 10_000
    assert (root / "submitted" / "good" / "bpe" / NB1).exists()
    assert not (root / "autograded" / "good" / "bpe" / "PWNED").exists()
    # The course and the grading code are read-only to kernels: nobody can rewrite the
    # checker for the students after them, or for the judge.
    planted = [root / "PWNED", CODE / "autograder" / "PWNED", CODE / "bpe_course" / "PWNED"]
    found = [path for path in planted if path.exists()]
    for path in found:
        path.unlink()
    assert not found, f"a student's kernel wrote {found}"
    assert rows["good"].total == 21


def test_summary_csv_and_figure_never_show_ungraded_as_zero(graded) -> None:
    root, _ = graded
    with open(root / "artifacts" / "grading" / "summary.csv", newline="") as handle:
        table = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(table) == {"good", "crashy", "broken", "frozen", "tamper", "delegate"}
    assert table["good"]["total"] == "21"
    assert table["broken"]["merge_and_update"] == "" and table["broken"]["total"] == ""
    assert table["broken"]["status"].startswith("needs manual grading")
    assert table["tamper"]["total"] == "0" and table["tamper"]["nbgrader_total"] == "0"
    assert (root / "artifacts" / "grading" / "scores.png").stat().st_size > 1000


def test_lean_grading_gives_the_same_grades_as_running_lesson_demos(graded) -> None:
    import shutil

    from autograder.grading import grade_class
    from autograder.grading.options import GradingOptions

    root, rows = graded
    shutil.copytree(root / "submitted" / "good", root / "submitted" / "good-full")
    # Every lesson cell run whole (lesson 4's demonstrations alone take 3-7 s on a loaded
    # machine), with the production timeout. The other students' faults are all in their
    # own cells, which lean grading runs whole too.
    (result,) = grade_class.grade_class(GradingOptions(root, progress=False), ["good-full"])
    assert result.graded
    lean, whole = _grades(root, "good"), _grades(root, "good-full")
    assert {c: g[0] for c, g in lean.items()} == {c: g[0] for c, g in whole.items()}
    # Lean grading ran no demonstration cell of the lesson: no output under them.
    for student, ran in (("good", False), ("good-full", True)):
        notebook = nbformat.read(root / "autograded" / student / "bpe" / NB4, as_version=4)
        cells = notebook.cells
        lesson = [c for c in cells if c.cell_type == "code" and "nbgrader" not in c.metadata]
        assert lesson and any(c.outputs for c in lesson) == ran, student


def test_nbgrader_export_carries_the_judged_score(graded) -> None:
    import os
    import subprocess
    import sys

    root, _ = graded
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    command = [sys.executable, "-m", "nbgrader", "export", "--log-level=ERROR"]
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    with open(root / "grades.csv", newline="") as handle:
        exported = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    assert exported["good"] == 21
    assert exported["tamper"] == 0  # judged outside the kernel: no manual score needed


OWN_BEFORE = "STEP = 1  # the student's own cell\nprint('stride', STEP)\n"
OWN_PAIR_COUNTS = """
def pair_counts(words: dict[tuple[str, ...], int]) -> dict[Pair, int]:
    out = {}
    for symbols, n in words.items():
        for i in range(0, len(symbols) - 1, STEP):
            out[symbols[i], symbols[i + 1]] = out.get((symbols[i], symbols[i + 1]), 0) + n
    return out
"""
OWN_BETWEEN = """
def join_pair(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
"""


def _add_own_cells(folder: Path) -> None:
    """Student-added cells (new ids) in notebook 01: a constant and a type alias before the
    pair_counts answer, a helper between the merge_pair answer and its tests."""
    from nbformat.v4 import new_code_cell

    path = folder / NB1
    nb = nbformat.read(path, as_version=4)
    ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in nb.cells]
    merge_at = ids.index("merge_pair")
    nb.cells.insert(merge_at + 1, new_code_cell(OWN_BETWEEN, id="own-helper"))
    pairs_at = ids.index("pair_counts")
    own = OWN_BEFORE + "Pair = tuple[str, str]\n"
    nb.cells.insert(pairs_at, new_code_cell(own, id="own-constants"))
    nbformat.write(nb, path)


def test_lean_grading_and_the_judge_run_the_students_own_cells_whole(graded) -> None:
    from autograder.grading import grade_class
    from autograder.grading.options import GradingOptions
    from autograder.reports import summary
    from course_fixtures.synthetic import write_submission

    root, _ = graded
    answers = {
        "pair_counts": OWN_PAIR_COUNTS,
        "merge_pair": "def merge_pair(symbols, pair):\n    return join_pair(symbols, pair)\n",
    }
    _add_own_cells(write_submission(root, "own", answers, [NB1]))
    (result,) = grade_class.grade_class(GradingOptions(root, progress=False, lean=True), ["own"])
    assert result.graded
    grades = _grades(root, "own")
    for cell, (auto, _, _) in grades.items():
        if "_pair_counts_" in cell or "_merge_pair_" in cell:
            assert auto and auto > 0, cell  # the own cells ran whole, in the kernel and outside
    row = {r.student: r for r in summary.report(root, quiet=True)}["own"]
    assert row.scores["pair_counts"] == 3 and row.scores["merge_pair"] == 3
    assert row.disagreements == []


def test_make_autograde_is_lean_unless_full() -> None:
    import subprocess

    root = Path(__file__).resolve().parent.parent

    def recipe(*extra: str) -> str:
        command = ["make", "-n", "-s", "autograde", *extra]
        return subprocess.run(command, cwd=root, capture_output=True, text=True).stdout

    assert "-m autograder grade " in recipe() and "--lean" in recipe()
    assert "-m autograder grade " in recipe("FULL=1") and "--lean" not in recipe("FULL=1")


def test_make_export_leaves_scores_blank_where_a_person_must_decide(graded) -> None:

    root, rows = graded
    assert cli.main(["export", "--root", str(root), "--out", "status-grades.csv"]) == 0
    with open(root / "status-grades.csv", newline="") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert exported["good"]["status"] == "graded" and exported["good"]["total"] == "21"
    frozen = exported["frozen"]
    # nbgrader's own export would give frozen a partial sum with no flag.
    assert frozen["status"].startswith("needs manual grading: ")
    assert "locked test cell deleted" in frozen["status"]
    assert frozen["total"] == "" and frozen["train_bpe"] == ""
    assert frozen["pair_counts"] == "3" and frozen["merge_pair"] == "0"
    assert exported["broken"]["merge_and_update"] == "" and exported["broken"]["total"] == ""
    for student, row in rows.items():
        assert exported[student]["status"] == row.status


def test_every_formgrader_page_answers_for_every_notebook(graded, tmp_path) -> None:
    # Lesson 3 has no exercises, so it is not autograded: its grading view answered 500.
    from course_fixtures.jupyter_servers import formgrader_server
    from tests.support.formgrader_pages import answer_every_page, formgrader_pages

    root, _ = graded
    no_exercises = "03_real_text_overfitting"
    pages = formgrader_pages(root)
    assert ("grading view", "good", no_exercises) in pages
    server = formgrader_server(root, tmp_path, "every-page")
    base = next(server)
    try:
        seen = answer_every_page(base, "every-page", pages)
    finally:
        server.close()
    failed = {key: status for key, (status, _) in seen.items() if status not in (200, 404)}
    assert failed == {}, failed
    missing = {key for key, (status, _) in seen.items() if status == 404}
    # Only grading views of notebooks with no autograded copy are missing, and they say why.
    for kind, student, notebook in missing:
        assert kind == "grading view", (kind, student, notebook)
        assert not (root / "autograded" / student / "bpe" / f"{notebook}.ipynb").exists()
    for student in ("good", "crashy", "broken", "frozen", "tamper", "delegate"):
        status, text = seen[("grading view", student, no_exercises)]
        assert status == 404 and "has no graded cells" in text, (student, text[:500])
        assert seen[("grading view", student, "02_encoding_by_rank")][0] == 200, student
    status, text = seen[("grading view", "broken", NB1.removesuffix(".ipynb"))]
    assert status == 404 and "no autograded copy" in text


def test_hand_grades_survive_a_regrade_and_a_late_student_touches_no_one_else(graded) -> None:
    # Runs last: it regrades "good" after giving it a hand score and a comment.
    from nbgrader.api import Gradebook

    from autograder.grading import grade_class
    from autograder.grading.gradebook_rows import merge_student, student_rows
    from autograder.grading.options import GradingOptions
    from autograder.reports import summary

    root, _ = graded
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    book = NB1.removesuffix(".ipynb")
    # Handed in a day after the due date, with an extension of three: on time. The private
    # gradebook "good" is regraded into must hold it too, and the merge must keep it.
    (root / "submitted" / "good" / "bpe" / "timestamp.txt").write_text("2026-01-10 12:00:00 UTC")
    with Gradebook(db_url) as gb:
        gb.update_or_create_assignment("bpe", duedate="2026-01-09 12:00:00")
        gb.grant_extension("bpe", "good", days=3)
        gb.find_grade("test_merge_pair_hidden_core", book, "bpe", "good").manual_score = 0.5
        gb.find_comment("merge_pair", book, "bpe", "good").manual_comment = "tidy loop"
        gb.db.commit()
    others = ("crashy", "broken", "frozen", "tamper", "delegate")
    before = {s: student_rows(root / "gradebook.db", "bpe", s) for s in others}
    late = GradingOptions(root, progress=False, lean=True)
    grade_class.grade_class(late, ["good"])  # the late student
    with Gradebook(db_url) as gb:
        grade = gb.find_grade("test_merge_pair_hidden_core", book, "bpe", "good")
        assert (grade.auto_score, grade.manual_score) == (1.0, 0.5)
        assert gb.find_comment("merge_pair", book, "bpe", "good").manual_comment == "tidy loop"
        submission = gb.find_submission("bpe", "good")
        assert submission.extension == datetime.timedelta(days=3)
        assert submission.total_seconds_late == 0, submission.total_seconds_late
    # An extension changed while a grading ran (its rows carry the one read at its start):
    # the merge keeps the gradebook's, the person's latest word.
    stale = student_rows(root / "gradebook.db", "bpe", "good")
    with Gradebook(db_url) as gb:
        gb.grant_extension("bpe", "good", days=5)
    merge_student(root / "gradebook.db", "bpe", "good", stale)
    with Gradebook(db_url) as gb:
        assert gb.find_submission("bpe", "good").extension == datetime.timedelta(days=5)
    assert before == {s: student_rows(root / "gradebook.db", "bpe", s) for s in others}
    good = {r.student: r for r in summary.report(root, quiet=True)}["good"]
    assert good.scores["merge_pair"] == 2.5
    assert (
        "hand grade kept: 01_bpe_by_hand: test_merge_pair_hidden_core: by hand 0.5, automatic 1"
        in " | ".join(good.notes)
    )
