"""A refused submission reaches the gradebook, nbgrader's export and the Formgrader, for a person.

One scratch class graded as ``make autograde`` does (Dask, two workers, lean), of four
students: ``a-honest`` (correct answers everywhere); ``b-linker``, whose first notebook is a
symbolic link to a-honest's, whose ``notes.txt`` links to a file outside the course standing for
``solutions/bpe.py`` (a unique marker in it) and whose second notebook is their own; and
``c-piper``, whose last notebook is a FIFO (nbgrader would block on it) and whose first is their
own; and ``d-crowd``, whose own first notebook sits beside 60,000 empty files (over
``safe_walk.MAX_ENTRIES``: set aside unopened past the bound, ``test_submission_bounds``
counts how far). Each refused student has a student row and a submission in
``gradebook.db``, with the regular-file notebooks recorded and shown in ``autograded/``, every
automatic score unset and every cell flagged for a person; nbgrader's export lists them (0,
the README's policy) and ``grades.csv`` and the summary leave their scores blank with the
reason. A Jupyter server with
nbgrader's formgrader and the course's extension lists them through the Formgrader's HTTP API,
the reason in each answer's comment. No link was followed: the outside file's marker is nowhere
in the course folder, nor a-honest's answers in b-linker's files. a-honest's grades and feedback
are those of a-honest graded alone. A regrade keeps a score given by hand and moves no grade.
Last, ``refused.safe_copy`` alone copies neither a link, nor a FIFO named ``timestamp.txt``,
nor a file over its limit, nor anything through a student folder that is a link.

But: the Formgrader's pages are not opened in a browser (its JSON API is read);
tests/test_formgrader_markup.py covers what they show.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder import cli
from course_fixtures.catalogue import CORRECT
from course_fixtures.jupyter_servers import formgrader_server
from course_fixtures.scratch_course import make_scratch_course
from course_fixtures.synthetic import write_submission
from tests.test_browser import ROOT

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.slow,
    pytest.mark.timeout(900),  # two classes graded, feedback, a server and a regrade
    pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
]

NB1, NB2, NB4 = "01_bpe_by_hand.ipynb", "02_encoding_by_rank.ipynb", "04_making_it_fast.ipynb"
OUTSIDE_MARK = "OUTSIDE-SOLUTIONS-7f3c9e1a-never-read"
HONEST_MARK = "HONEST-ANSWER-5d21b0c4"
REFUSED = ("b-linker", "c-piper")
CROWDED, CROWD = "d-crowd", 60_000
TOKEN = "refused-submission-test"
ENV = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def _answers() -> dict[str, str]:
    good = {name: next(iter(answers.values())) for name, answers in CORRECT.items()}
    good["pair_counts"] += f"\n# {HONEST_MARK}\n"
    return good


def _grade(root: Path, *students: str) -> int:

    chosen = [arg for student in students for arg in ("--student", student)]
    command = ["--root", str(root), "--jobs", "2", "--no-progress", "--lean", *chosen]
    return cli.main(["grade", *command])


def _nbgrader(root: Path, *args: str) -> None:
    command = [sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR"]
    env = dict(ENV, PYTHONPATH=str(ROOT))
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)


def _make_class(root: Path, outside: Path) -> None:
    good = _answers()
    write_submission(root, "a-honest", good)
    solutions = outside / "solutions" / "bpe.py"
    solutions.parent.mkdir(parents=True)
    solutions.write_text(f"# {OUTSIDE_MARK}\ndef pair_counts(words):\n    return {{}}\n")
    two = {k: good[k] for k in ("train_bpe", "encode_bpe")}
    linker = write_submission(root, "b-linker", two, [NB2])
    (linker / NB1).symlink_to(root / "submitted" / "a-honest" / "bpe" / NB1)
    (linker / "notes.txt").symlink_to(solutions)
    one = {k: good[k] for k in ("pair_counts", "merge_pair")}
    piper = write_submission(root, "c-piper", one, [NB1])
    os.mkfifo(piper / NB4)
    crowd = write_submission(root, CROWDED, one, [NB1])
    for n in range(CROWD):
        os.close(os.open(crowd / f"f{n:05d}", os.O_CREAT | os.O_WRONLY, 0o644))
    for student in ("a-honest", "b-linker", "c-piper", CROWDED):
        stamp = root / "submitted" / student / "bpe" / "timestamp.txt"
        stamp.write_text("2026-12-01 10:00:00.000000 UTC")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from autograder.reports import summary

    base = tmp_path_factory.mktemp("refused")
    root = make_scratch_course(base / "course")
    _make_class(root, base / "outside")
    assert _grade(root) == 0
    _nbgrader(root, "generate_feedback", "bpe", "--force")
    _nbgrader(root, "export", "--to=grades-nbgrader.csv")
    alone = make_scratch_course(base / "alone")
    write_submission(alone, "a-honest", _answers())
    (alone / "submitted" / "a-honest" / "bpe" / "timestamp.txt").write_text(
        "2026-12-01 10:00:00.000000 UTC"
    )
    assert _grade(alone, "a-honest") == 0
    _nbgrader(alone, "generate_feedback", "bpe", "--force")
    rows = {row.student: row for row in summary.collect(root)}
    return {"root": root, "alone": alone, "outside": base / "outside", "rows": rows}


def _grades(root: Path, student: str) -> dict[tuple[str, str], tuple]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        submission = gb.find_submission("bpe", student)
        return {
            (nb.name, g.name): (g.auto_score, g.manual_score, g.needs_manual_grade)
            for nb in submission.notebooks
            for g in nb.grades
        }


def test_each_refused_student_is_in_the_gradebook_for_a_person(graded) -> None:
    root = graded["root"]
    for student in REFUSED:
        grades = _grades(root, student)
        assert grades, f"{student} has no grades in gradebook.db"
        assert all(auto is None and hand is None and flag for auto, hand, flag in grades.values())
    autograded = root / "autograded"
    assert sorted(p.name for p in (autograded / "b-linker" / "bpe").glob("*.ipynb")) == [NB2]
    assert sorted(p.name for p in (autograded / "c-piper" / "bpe").glob("*.ipynb")) == [NB1]
    for path in (autograded / "b-linker" / "bpe", autograded / "c-piper" / "bpe"):
        assert not any(p.is_symlink() or not (p.is_file() or p.is_dir()) for p in path.rglob("*"))


def test_no_link_was_followed(graded) -> None:
    root = graded["root"]
    for path in root.rglob("*"):
        if path.parent.name == "bpe" and path.name.startswith("f") and CROWDED in path.parts:
            continue  # d-crowd's empty files, none of them a link
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        assert OUTSIDE_MARK.encode() not in data, f"{path} holds the outside file's marker"
        if "b-linker" in path.parts and "submitted" not in path.parts:
            assert HONEST_MARK.encode() not in data, f"{path} holds a-honest's answer"
    with open(root / "artifacts" / "grading" / "results.json") as handle:
        results = {r["student"]: r for r in json.load(handle)}
    assert HONEST_MARK not in json.dumps(results["b-linker"])


def test_exports_and_summary_list_every_refused_student(graded) -> None:
    from autograder.grading.grade_class import snapshot, total

    root, rows = graded["root"], graded["rows"]
    with open(root / "grades-nbgrader.csv", newline="") as handle:
        nbgrader_export = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(nbgrader_export["a-honest"]["raw_score"]) == 21
    assert cli.main(["export", "--root", str(root), "--out", "grades.csv"]) == 0
    with open(root / "grades.csv", newline="") as handle:
        ours = {row["student_id"]: row for row in csv.DictReader(handle)}
    after = snapshot(root)
    for student in REFUSED:
        assert float(nbgrader_export[student]["raw_score"]) == 0  # the README's policy
        status = rows[student].status
        assert status.startswith("needs manual grading: a link or special file"), status
        assert ours[student]["status"] == status and ours[student]["total"] == ""
        assert all(ours[student][name] == "" for name in rows[student].scores)
        assert rows[student].total is None and after[student] and total(after[student]) is None
    assert "01_bpe_by_hand.ipynb" in rows["b-linker"].status
    assert "notes.txt" in rows["b-linker"].status
    assert "04_making_it_fast.ipynb" in rows["c-piper"].status
    assert ours["a-honest"]["status"] == "graded" and ours["a-honest"]["total"] == "21"


def test_a_crowded_submission_waits_for_a_person_unopened(graded) -> None:

    root, rows = graded["root"], graded["rows"]
    assert rows[CROWDED].status == "needs manual grading: too many files (more than 200)"
    grades = _grades(root, CROWDED)
    assert grades and all(a is None and h is None and flag for a, h, flag in grades.values())
    assert [p.name for p in (root / "autograded" / CROWDED / "bpe").glob("*.ipynb")] == [NB1]
    assert cli.main(["export", "--root", str(root), "--out", "grades.csv"]) == 0
    with open(root / "grades.csv", newline="") as handle:
        ours = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert ours[CROWDED]["status"] == rows[CROWDED].status and ours[CROWDED]["total"] == ""


def test_the_honest_classmate_is_graded_as_if_alone(graded) -> None:
    root, alone = graded["root"], graded["alone"]
    assert _grades(root, "a-honest") == _grades(alone, "a-honest")
    pages = sorted((alone / "feedback" / "a-honest" / "bpe").glob("*.html"))
    assert pages
    for page in pages:
        ours = (root / "feedback" / "a-honest" / "bpe" / page.name).read_text()
        assert ours.replace(str(root), "") == page.read_text().replace(str(alone), "")


@pytest.fixture(scope="module")
def formgrader(graded, tmp_path_factory) -> Iterator[str]:
    root, tmp = graded["root"], tmp_path_factory.mktemp("server")
    for base in formgrader_server(root, tmp, TOKEN):
        yield base + "formgrader/api/"


def _get(base: str, path: str, **query: str) -> object:
    address = base + "/".join(urllib.parse.quote(part, safe="") for part in path.split("/"))
    if query:
        address += "?" + urllib.parse.urlencode(query)
    request = urllib.request.Request(address, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_formgrader_lists_each_refused_submission_with_the_reason(graded, formgrader) -> None:
    submissions = {s["student"]: s for s in _get(formgrader, "submissions/bpe")}
    assert submissions["a-honest"]["autograded"] and submissions["a-honest"]["score"] == 21
    for student, refused, kept in (("b-linker", NB1, NB2), ("c-piper", NB4, NB1)):
        listed = submissions[student]
        assert listed["autograded"] and listed["needs_manual_grade"], listed
        notebooks = {
            n["name"]: n for n in _get(formgrader, f"student_notebook_submissions/{student}/bpe")
        }
        shown = notebooks[kept.removesuffix(".ipynb")]
        assert shown["id"] and shown["needs_manual_grade"] and shown["flagged"], shown
        page = formgrader.replace("/api/", f"/submissions/{shown['id']}/")
        request = urllib.request.Request(page, headers={"Authorization": f"token {TOKEN}"})
        with urllib.request.urlopen(request, timeout=30) as response:  # the grading view
            assert (
                response.status == 200 and kept.removesuffix(".ipynb") in response.read().decode()
            )
        comments = _get(formgrader, "comments", submission_id=shown["id"])
        assert comments
        for comment in comments:
            reason = comment["auto_comment"] or ""
            assert "link or special file" in reason and refused in reason, reason
    linker = _get(formgrader, "student_notebook_submissions/b-linker/bpe")
    comments = _get(formgrader, "comments", submission_id=[n for n in linker if n["id"]][0]["id"])
    assert "notes.txt" in comments[0]["auto_comment"]


def test_a_hand_grade_on_a_refused_submission_survives_a_regrade(graded) -> None:
    from nbgrader.api import Gradebook

    root = graded["root"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        grade = gb.find_grade("test_train_bpe_examples", "02_encoding_by_rank", "bpe", "b-linker")
        grade.manual_score = 1.0
        gb.db.commit()
    command = ["--root", str(root), "--jobs", "2", "--no-progress", "--lean"]
    assert cli.main(["regrade", *command]) == 0
    report = sorted((root / "artifacts" / "grading").glob("regrade-*.md"))[-1].read_text()
    assert "0 of 4 students' grades moved" in report
    auto, hand, _ = _grades(root, "b-linker")[("02_encoding_by_rank", "test_train_bpe_examples")]
    assert (auto, hand) == (None, 1.0)


def test_safe_copy_reads_regular_files_only(tmp_path: Path) -> None:
    from autograder.sandbox.safe_walk import safe_copy

    outside = tmp_path / "outside.txt"
    outside.write_text(OUTSIDE_MARK)
    folder = tmp_path / "submitted" / "ada" / "bpe"
    folder.mkdir(parents=True)
    (folder / "own.ipynb").write_text("{}")
    (folder / "big.ipynb").write_text("x" * 100)
    (folder / "linked.ipynb").symlink_to(outside)
    os.mkfifo(folder / "timestamp.txt")  # opening it for reading would block
    limits = {"own.ipynb": 10, "big.ipynb": 10, "linked.ipynb": 10, "timestamp.txt": 10}
    copied = safe_copy(tmp_path / "submitted", "ada", "bpe", limits, tmp_path / "copy")
    assert copied == ["own.ipynb"]
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["own.ipynb"]
    (tmp_path / "submitted" / "bob").symlink_to(tmp_path / "submitted" / "ada")
    assert safe_copy(tmp_path / "submitted", "bob", "bpe", limits, tmp_path / "bob") == []
