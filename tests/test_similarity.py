"""The similarity report (``python -m autograder similarity``) on a made-up class.

Sixteen honest students, each answer written on its own in a style of its own and checked
right against the reference on the hidden cases; two students who copied a classmate's
answer (names changed, comments changed, lines reordered) and one who pasted a public-style
answer the instructor put in ``similarity-references/``. Each copy is the top pair of its
exercise and no honest pair is listed at the default threshold. The report escapes what
students wrote and their names, runs no script, reads no link and is its owner's alone; its
CSV holds no formula.

But: the class is written as files (what ``collect`` leaves in ``submitted/``), not collected
or graded; the page's accessibility is checked in ``test_accessibility``.
"""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.course import RECORDS
from autograder.hidden_tests.cases import agrees, cases, reference
from autograder.reports import safe_csv, similarity
from autograder.sandbox import safe_walk
from bpe_course.outcomes import run_case
from course_fixtures import similarity_class as made_up
from course_fixtures.synthetic import write_submission
from tests.support import doc_text
from tests.support.course_copy import course_copy

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"  # the released notebooks, as make notebooks copies them


def rows_of(root: Path) -> list[dict[str, str]]:
    with (root / RECORDS / "similarity.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def made_class(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    root = tmp_path_factory.mktemp("similarity") / "course"
    expected = made_up.build_class(root, NOTEBOOKS)
    assert cli.main(["similarity", "--root", str(root)]) == 0
    return root, expected


def right(name: str, source: str) -> bool:
    """Whether ``source`` (our own test data) agrees with the reference on the hidden cases."""
    namespace: dict = {}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)  # our own answers
    for group in ("core", "random"):
        for args in cases(name, group):
            want = run_case(name, reference(name), args)
            if not agrees(name, want, run_case(name, namespace[name], args)):
                return False
    return True


@pytest.mark.parametrize("exercise", list(made_up.HONEST))
def test_every_answer_of_the_made_up_class_is_right(exercise: str) -> None:
    answers = list(made_up.HONEST[exercise])
    answers += [copy for name, _, copy in made_up.COPIES if name == exercise]
    answers += [made_up.PASTED[1]] if made_up.PASTED[0] == exercise else []
    assert len(set(made_up.HONEST[exercise])) >= 15
    assert [i for i, answer in enumerate(answers) if not right(exercise, answer)] == []


def test_each_copy_is_the_top_pair_and_no_honest_pair_is_listed(made_class) -> None:
    root, expected = made_class
    rows = rows_of(root)
    tops = {row["exercise"]: {row["student"], row["other"]} for row in rows if row["rank"] == "1"}
    assert tops == expected
    # Nothing else is listed: no pair of honest students, none with the course's solutions.
    assert len(rows) == len(expected)
    html = (root / RECORDS / "similarity.html").read_text()
    assert "No pair of pair_counts stands out" in html
    assert "Too short to compare" in html  # the copiers' untouched stubs of other exercises


def test_a_lower_threshold_lists_more_and_the_copies_stay_on_top(
    made_class, tmp_path: Path
) -> None:
    root, expected = made_class
    assert cli.main(["similarity", "--root", str(root), "--threshold", "2"]) == 0
    try:
        rows = rows_of(root)
        assert len(rows) > len(expected)
        tops = {r["exercise"]: {r["student"], r["other"]} for r in rows if r["rank"] == "1"}
        assert {name: tops[name] for name in expected} == expected
    finally:
        assert cli.main(["similarity", "--root", str(root)]) == 0


def test_the_report_is_private_and_runs_no_script(made_class) -> None:
    root, _ = made_class
    for name in ("similarity.html", "similarity.csv"):
        assert stat.S_IMODE((root / RECORDS / name).stat().st_mode) == 0o600
    html = (root / RECORDS / "similarity.html").read_text()
    assert "<script" not in html.lower() and "javascript:" not in html.lower()
    assert "default-src 'none'" in html  # and the page says so to the browser
    assert "<mark>" in html  # the shared passages are marked
    assert not (root / "feedback").exists()


MARKUP = '</pre><script>alert(1)</script><img src=x onerror="alert(2)">'
FORMULA_NAMES = ("=HYPERLINK(1)", "@SUM(A1)<b>x")


def test_markup_in_answers_is_escaped_and_no_unsafe_id_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "course"
    made_up.build_class(root, NOTEBOOKS)
    # An answer carrying markup and script in a comment and a string, and a classmate who
    # copied it (so both are shown side by side).
    answer = made_up.HONEST["merge_pair"][5].replace(
        "def merge_pair(symbols, pair):",
        f"def merge_pair(symbols, pair):\n    # {MARKUP}\n    note = {MARKUP!r}",
    )
    write_submission(root, "marked-up", {"merge_pair": answer})
    write_submission(root, "copied-it", {"merge_pair": answer.replace("left", "lhs")})
    # Folders named like formulas and markup are no student's, for grading and here alike.
    for name in FORMULA_NAMES:
        write_submission(root, name, {"merge_pair": answer})
    assert cli.main(["similarity", "--root", str(root)]) == 0
    assert "2 folder(s) of submitted/ are no student of the class" in capsys.readouterr().out
    html = (root / RECORDS / "similarity.html").read_text()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "HYPERLINK" not in html and "SUM(A1)" not in html
    merge = [row for row in rows_of(root) if row["exercise"] == "merge_pair"]
    # The pair first, then each with the honest classmate whose answer both start from.
    assert {merge[0]["student"], merge[0]["other"]} == {"marked-up", "copied-it"}
    assert all({"marked-up", "copied-it"} & {row["student"], row["other"]} for row in merge)
    for path in (root / RECORDS).glob("*.csv"):
        for row in csv.reader(path.open(newline="", encoding="utf-8")):
            assert not any(safe_csv.is_formula(cell) for cell in row), row


def test_a_roster_limits_the_class_as_grading_does(tmp_path: Path) -> None:
    root = tmp_path / "course"
    expected = made_up.build_class(root, NOTEBOOKS)
    copier, holder = sorted(expected["train_bpe"])
    everyone = [p.name for p in (root / "submitted").iterdir() if p.name != copier]
    (root / "roster.csv").write_text("student_id\n" + "\n".join(everyone) + "\n")
    assert cli.main(["similarity", "--root", str(root)]) == 0
    assert "train_bpe" not in {row["exercise"] for row in rows_of(root)}


def test_no_link_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "course"
    made_up.build_class(root, NOTEBOOKS)
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = made_up.COPIES[0][2].replace("chosen", "secret_name")
    (outside / "stolen.py").write_text(secret)
    # A student folder that is a link, a notebook that is a link, a reference that is a link.
    os.symlink(root / "submitted" / "copier-1", root / "submitted" / "linked")
    notebooks = root / "submitted" / "copier-2" / "bpe"
    target = notebooks / "04_making_it_fast.ipynb"
    os.rename(target, tmp_path / "moved.ipynb")
    os.symlink(tmp_path / "moved.ipynb", target)
    os.symlink(outside / "stolen.py", root / "similarity-references" / "stolen.py")
    assert cli.main(["similarity", "--root", str(root)]) == 0
    html = (root / RECORDS / "similarity.html").read_text()
    assert "linked" not in html and "stolen" not in html and "secret_name" not in html
    listed = {name for row in rows_of(root) for name in (row["student"], row["other"])}
    assert "copier-2" not in listed  # its one answer was behind the link


def test_bad_settings_and_a_missing_class_are_refused_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["similarity", "--root", str(tmp_path), "--threshold", "0"])
    assert stopped.value.code == 2
    assert "give a number above 0" in capsys.readouterr().err
    assert cli.main(["similarity", "--root", str(tmp_path)]) == 1
    assert "make notebooks" in capsys.readouterr().err
    (tmp_path / "release" / "bpe").mkdir(parents=True)
    assert cli.main(["similarity", "--root", str(tmp_path)]) == 1
    assert "no submissions in submitted/" in capsys.readouterr().err
    assert not (tmp_path / RECORDS).exists()


def test_the_report_is_the_same_under_any_hash_seed(made_class) -> None:
    # copydetect's own fingerprints use Python's seeded hash(); the report's must not.
    root, _ = made_class
    written = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
        command = [sys.executable, "-m", "autograder", "similarity", "--root", str(root)]
        subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
        written.append(
            [(root / RECORDS / n).read_bytes() for n in ("similarity.html", "similarity.csv")]
        )
    assert written[0] == written[1]


GUIDE = "docs/guides/instructors.md"


@pytest.mark.slow  # a copy of the course, and make
def test_the_guides_commands_run_as_written(tmp_path: Path) -> None:
    lines = doc_text.commands(GUIDE, "## Who copied from whom")
    assert lines == ["make similarity", "make similarity THRESHOLD=4"]
    course = course_copy(tmp_path / "course", generate=False)
    expected = made_up.build_class(course, NOTEBOOKS)
    listed = []
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=course, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "readable by you alone" in done.stdout
        rows = rows_of(course)
        tops = {r["exercise"]: {r["student"], r["other"]} for r in rows if r["rank"] == "1"}
        assert {name: tops[name] for name in expected} == expected
        listed.append(len(rows))
    assert listed[1] >= listed[0]


def test_an_answer_pasted_from_the_course_solutions_is_listed_against_them(
    tmp_path: Path,
) -> None:
    root = tmp_path / "course"
    made_up.build_class(root, NOTEBOOKS)
    pasted = similarity.course_solutions()["merge_pair"]
    write_submission(root, "leaked", {"merge_pair": pasted.replace("merged", "out")})
    assert cli.main(["similarity", "--root", str(root)]) == 0
    rows = [row for row in rows_of(root) if row["exercise"] == "merge_pair"]
    assert [{row["student"], row["other"]} for row in rows] == [
        {"leaked", "course solution (merge_pair)"}
    ]


def test_a_copy_behind_padding_or_a_decoy_cell_is_still_read(tmp_path: Path) -> None:
    """Grading keeps the last definition and the last cell of an exercise's id: the report
    reads the same, so a first, honest-looking definition and a screen of padding before the
    pasted one hide nothing."""
    import json

    root = tmp_path / "course"
    made_up.build_class(root, NOTEBOOKS)
    pasted = similarity.course_solutions()["merge_pair"].replace("merged", "out")
    decoy = "def merge_pair(symbols, pair):\n    return symbols\n"
    padded = decoy + "#\n" * (similarity.MAX_ANSWER_CHARS // 2) + pasted
    folder = write_submission(root, "hidden", {"merge_pair": padded})
    book = folder / "01_bpe_by_hand.ipynb"
    notebook = json.loads(book.read_text())
    answer = next(
        c
        for c in notebook["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "merge_pair"
    )
    notebook["cells"].insert(0, {**answer, "source": decoy})  # an earlier cell, same id
    book.write_text(json.dumps(notebook))
    assert similarity.answers_in(book.read_bytes())["merge_pair"].endswith(pasted)
    assert cli.main(["similarity", "--root", str(root)]) == 0
    rows = [row for row in rows_of(root) if row["exercise"] == "merge_pair"]
    assert [{row["student"], row["other"]} for row in rows] == [
        {"hidden", "course solution (merge_pair)"}
    ]


def test_a_large_class_is_tokenized_in_processes_with_the_same_fingerprints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = [(name, code) for name, codes in made_up.HONEST.items() for code in codes]
    commons = {name: similarity.boilerplate_hashes([]) for name in made_up.HONEST}
    alone = similarity.fingerprints(tasks, commons)
    monkeypatch.setattr(similarity, "PER_PROCESS", 8)  # two processes for these 80 texts
    shared = similarity.fingerprints(tasks, commons)
    assert [p.hash_idx for p in shared] == [p.hash_idx for p in alone]


def test_a_crowded_references_folder_is_said_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "course"
    made_up.build_class(root, NOTEBOOKS)
    references = root / "similarity-references"
    for number in range(safe_walk.MAX_ENTRIES + 1):
        (references / f"answer{number:03d}.py").write_text("x = 1\n")
    (references / "broken.ipynb").write_text("{not json")
    assert cli.main(["similarity", "--root", str(root)]) == 0
    said = capsys.readouterr().err
    assert "similarity-references/ was not read whole (too many files" in said
    assert "keep at most 200 files and folders there" in said
    for number in range(safe_walk.MAX_ENTRIES + 1):
        (references / f"answer{number:03d}.py").unlink()
    assert cli.main(["similarity", "--root", str(root)]) == 0
    said = capsys.readouterr().err
    assert "broken.ipynb is not UTF-8 text or a notebook: skipped" in said
