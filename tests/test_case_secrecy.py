"""Hidden cases that buy nothing outside the grader: hostile answers against the cases' secrecy.

Every student of a term is graded on the same cases (the same answer, the same score); what
is kept from students is the term's cases, not one student's from another's.

- the repository and the released notebooks hold none of a term's cases: a lookup table of
  the cases the repository shows earns nothing in a term, and no released notebook holds a
  hidden test or the term's secret;
- a lookup table of one term's cases and answers earns nothing the next term;
- an answer that searches its own process (``gc.get_objects()``) finds only the inputs of
  the case it is running: no other case, group, exercise or expected result;
- a failure message shows one input and carries at most about 200 characters of a returned
  value into the feedback;
- forked children together hit the sandbox's memory limit, not each their own;
- a grading kernel that cannot import the course library refuses to grade, naming the
  sandbox's paths;
- the drawn cases keep their purpose: every catalogued answer is judged as before (right ones
  pass, wrong ones fail on their exercise, no mistake misnamed) under several term secrets,
  the same under any hash seed, and a where[pair] that a set iterates out of order still does.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys

import pytest

import solutions
from autograder.course import EXERCISES
from autograder.hidden_tests.cases import GROUPS, cases
from autograder.hidden_tests.judge import CAME_BACK_LIMIT, judge
from autograder.sandbox import bwrap
from autograder.sandbox.judge_answers import expected_outcomes, judge_notebook, run_answers
from bpe_course.feedback import named_mistake
from bpe_course.outcomes import run_case
from course_fixtures.catalogue import CORRECT, MORE_WRONG, WRONG
from tests.conftest import ROOT
from tests.test_checkers import load

TERMS = ["term-2026-autumn", "term-2027-spring", "term-2027-autumn"]
PURE = ("pair_counts", "merge_pair", "train_bpe", "encode_bpe")  # the value is the answer
needs_bwrap = pytest.mark.skipif(not bwrap.available(), reason="bubblewrap is missing")


def _failing_groups(name: str, func, secret: str | None) -> dict[str, str]:
    """Per hidden group, the first failure message of ``func`` ("" where it passes)."""
    found = {}
    for group in GROUPS:
        args = cases(name, group, secret)
        messages = judge(name, group, [run_case(name, func, a) for a in args], None, secret)
        found[group] = messages[0] if messages else ""
    return found


# ---- a lookup table built from one term's feedback ---------------------------------------


def lookup_answer(name: str, secret: str | None) -> str:
    """An answer that is only a table: every hidden case of ``secret``'s term (more than any
    feedback shows; None: the fixed cases the repository shows), keyed on the arguments,
    with the reference's answer."""
    table = {}
    for group in GROUPS:
        for args, want in zip(
            cases(name, group, secret), expected_outcomes(name, group, secret=secret)
        ):
            table[repr(tuple(args))] = want.value
    return (
        f"import copy\nTABLE = {table!r}\n"
        f"def {name}(*args):\n    return copy.deepcopy(TABLE.get(repr(args)))\n"
    )


@pytest.mark.parametrize("name", PURE)
def test_a_lookup_table_from_one_term_earns_nothing_the_next_term(name: str) -> None:
    first, second, _ = TERMS
    answer = load(lookup_answer(name, first), name)
    assert _failing_groups(name, answer, first) == dict.fromkeys(GROUPS, "")  # it works
    failing = _failing_groups(name, answer, second)
    assert all(failing.values()), (second, failing)


@pytest.mark.parametrize("name", PURE)
def test_a_lookup_table_of_the_repositorys_cases_earns_nothing_in_a_term(name: str) -> None:
    answer = load(lookup_answer(name, None), name)
    assert _failing_groups(name, answer, None) == dict.fromkeys(GROUPS, "")  # it works
    for secret in TERMS:
        failing = _failing_groups(name, answer, secret)
        assert all(failing.values()), (secret, failing)


def test_the_released_notebooks_hold_no_hidden_test_and_no_secret() -> None:
    from autograder.course import SECRET_FILE
    from bpe_course.selfcheck import BEGIN_HIDDEN

    released = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert len(released) == 4
    for path in released:
        text = path.read_text()
        assert BEGIN_HIDDEN not in text and "hidden_tests" not in text, path.name
    tracked = subprocess.run(
        ["git", "ls-files", SECRET_FILE], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    ignored = subprocess.run(["git", "check-ignore", "-q", SECRET_FILE], cwd=ROOT).returncode
    assert tracked == "" and ignored == 0  # the term's secret never reaches the repository


def test_a_regrade_draws_the_same_cases_and_the_next_term_other_ones() -> None:
    first, second, third = TERMS
    for name in EXERCISES:
        for group in GROUPS:
            drawn = repr(cases(name, group, first))
            assert drawn == repr(cases(name, group, first))
            assert drawn != repr(cases(name, group, second))
            assert drawn != repr(cases(name, group, third))
            assert drawn != repr(cases(name, group))  # nor the repository's own


def test_the_drawn_cases_are_the_same_under_any_hash_seed() -> None:
    code = (
        "from autograder.hidden_tests.cases import cases\n"
        "from autograder.course import EXERCISES\n"
        "print(repr([cases(n, g, 's') for n in EXERCISES for g in ('core', 'random')]))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(runs) == 1


def test_a_where_that_iterates_out_of_order_still_does_in_every_term() -> None:
    fixed = cases("merge_and_update", "core")
    disordered = [i for i, (*_, where, pair) in enumerate(fixed) if _out_of_order(where, pair)]
    assert len(disordered) >= 2  # the SPREAD cases
    for secret in [*TERMS, "term-2028-spring", "term-2028-autumn", "term-2029-spring"]:
        drawn = cases("merge_and_update", "core", secret)
        assert all(_out_of_order(drawn[i][3], drawn[i][4]) for i in disordered), secret


def _out_of_order(where: dict, pair: tuple) -> bool:
    held = where.get(pair, set())
    return list(held) != sorted(held)


def every_answer() -> list[tuple[str, str, str | None, str, bool]]:
    """(exercise, label, mistake, source, right) for every answer of the catalogue."""
    found = [(n, label, None, src, True) for n in CORRECT for label, src in CORRECT[n].items()]
    found += [(n, m, m, src, False) for n in WRONG for m, src in WRONG[n].items()]
    found += [
        (n, label, m, src, False) for n in MORE_WRONG for label, (m, src) in MORE_WRONG[n].items()
    ]
    return found


def _named(name: str, failing: dict[str, str]) -> set[str | None]:
    return {named_mistake(name, message) for message in failing.values() if message}


@functools.cache
def _named_on_fixed_cases(name: str, source: str) -> set[str | None]:
    return _named(name, _failing_groups(name, load(source, name), None))


@pytest.mark.parametrize("secret", TERMS)
def test_every_answer_of_the_catalogue_is_judged_as_before(secret: str) -> None:
    """Right answers pass, wrong ones fail on their exercise, no mistake is misnamed, and
    each mistake named on the fixed cases is named on the drawn ones too."""
    wrongly = []
    for name, label, mistake, source, right in every_answer():
        func = load(source, name)
        failing = _failing_groups(name, func, secret)
        if right == any(failing.values()):
            wrongly.append((name, label, "failed" if right else "passed"))
        named = _named(name, failing)
        if named - {None, mistake}:
            wrongly.append((name, label, f"named {named - {None}}"))
        if not right and (mistake in _named_on_fixed_cases(name, source)) != (mistake in named):
            wrongly.append((name, label, "named on the fixed cases only, or the drawn only"))
    assert wrongly == []


# ---- what the sandbox holds, and what comes out ------------------------------------------

SEARCHER = r"""
import gc
def {name}(*args):
    found = set()
    for obj in gc.get_objects():
        if type(obj) in (dict, list, tuple, set):
            for item in (obj.items() if type(obj) is dict else obj):
                for part in item if type(item) is tuple else (item,):
                    if type(part) is str and "CASE" in part:
                        found.add(part)
    marks = sorted(m for text in found for m in __import__("re").findall("CASE[a-z_]+[0-9]+", text))
    return {{("found", " ".join(sorted(set(marks)))): 1}} if "{name}" == "pair_counts" else marks
"""


def _marked(name: str) -> dict[str, list[tuple]]:
    if name == "pair_counts":
        return {g: [({(f"CASE{name}_{g}{i}", "b"): i + 1},) for i in range(3)] for g in GROUPS}
    return {g: [((f"CASE{name}_{g}{i}", "b"), ("a", "b")) for i in range(3)] for g in GROUPS}


@needs_bwrap
@pytest.mark.slow
def test_an_answer_that_searches_its_process_finds_only_its_own_cases_inputs() -> None:
    jobs = [(n, [SEARCHER.format(name=n)], _marked(n)) for n in ("pair_counts", "merge_pair")]
    outcomes = run_answers(jobs, seconds=10)
    for name in ("pair_counts", "merge_pair"):
        for group in GROUPS:
            for i, got in enumerate(outcomes[name][group]):
                assert got.error is None, got.error
                seen = list(got.value)[0][1].split() if name == "pair_counts" else got.value
                assert seen == [f"CASE{name}_{group}{i}"], (name, group, i, seen)


HOARDER = """
CALLS = []
def merge_pair(symbols, pair):
    CALLS.append((symbols, pair))
    return "LEAK" + repr(CALLS)
"""
TABLE_HOARDER = """
CALLS = []
def pair_counts(words):
    CALLS.append(words)
    return {("LEAK", repr(call)): 1 for call in CALLS}
"""


def _master_with(name: str, answer: str):
    import copy

    import nbformat

    from autograder.sandbox.judge_answers import exercises_of

    exercise = next(e for e in exercises_of(ROOT) if e.name == name)
    notebook = copy.deepcopy(exercise.master)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name:
            cell.source = answer
    return nbformat.from_dict(notebook), exercise


def _came_back(message: str) -> int:
    """Characters of the message that show the answer's own output: every line after the
    failing input that is not one of the message's own."""
    ours = re.compile(r"^(expected:|Likely mistake: |[\w ]+ should be: |\(what came back)")
    lines = message.split("\n")[2:]
    return sum(
        len(line) for line in lines if not ours.match(line) and "what came back is" not in line
    )


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "answer"), [("merge_pair", HOARDER), ("pair_counts", TABLE_HOARDER)]
)
def test_a_returned_value_carries_one_input_and_about_200_characters_out(
    name: str, answer: str
) -> None:
    notebook, exercise = _master_with(name, answer)
    verdicts, _ = judge_notebook(notebook, [exercise], "term", 10.0)
    for cell in ("test_" + name + "_hidden_core", "test_" + name + "_hidden_random"):
        message = verdicts[name][cell]
        assert message, cell
        assert message.count(f"{name}(") == 1, message  # one failing input, no more
        assert _came_back(message) <= CAME_BACK_LIMIT + 5, message
        assert message.count("LEAK") <= 2, message  # its value (a key of it), cut short


# ---- the sandbox's memory, over all its processes ----------------------------------------

FORKED = """
import os, time
def pair_counts(words):
    ready_r, ready_w = os.pipe()
    kids = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            block = bytearray(200 * 2**20)
            for i in range(0, len(block), 4096):
                block[i] = 1  # touched, so it is memory in use
            os.write(ready_w, b"x")
            time.sleep(3)
            os._exit(0)
        kids.append(pid)
    os.close(ready_w)
    held = 0
    while held < 3:
        chunk = os.read(ready_r, 3)
        if not chunk:
            break
        held += len(chunk)
    ends = [os.waitpid(pid, 0)[1] for pid in kids]
    return {("held at once", held): 1, ("killed", sum(end != 0 for end in ends)): 1}
"""


@needs_bwrap
@pytest.mark.slow
@pytest.mark.skipif(bwrap._memory_root() is None, reason="no memory cgroup can be made here")
def test_forked_children_together_hit_the_sandboxs_memory_limit() -> None:
    """Three children of 200 MB each, in a sandbox of 0.5 GB: each is under its own limit,
    together they are not, and one is stopped."""
    honest = ("merge_pair", [CORRECT["merge_pair"][next(iter(CORRECT["merge_pair"]))]])
    jobs = [
        ("pair_counts", [FORKED], {"core": [({("a", "b"): 1},)]}),
        (*honest, {"core": [(("a", "b"), ("a", "b"))]}),
    ]
    outcomes = run_answers(jobs, seconds=10, memory_gb=0.5)
    (got,) = outcomes["pair_counts"]["core"]
    # Stopped at the limit: a child killed (with swap the three may each have touched their
    # block before the kernel stops one, so "held at once" alone depends on timing).
    assert got.error is not None or ("killed", 0) not in got.value, got
    (fine,) = outcomes["merge_pair"]["core"]
    assert fine.value == solutions.merge_pair(("a", "b"), ("a", "b"))


# ---- a grading kernel that cannot import the course library ------------------------------


@needs_bwrap
@pytest.mark.slow
def test_a_kernel_that_cannot_import_the_library_refuses_naming_the_sandboxs_paths(
    monkeypatch,
) -> None:
    """As where the environment reaches bpe_course by a path the sandbox does not show (an
    editable install pointing elsewhere): the worker's proof fails and says what it shows."""
    from autograder.grading.on_dask import why_cannot_grade

    monkeypatch.setattr(bwrap, "_library_folder", lambda: None)
    monkeypatch.setattr("autograder.grading.on_dask.untrusted_entries", lambda: [])
    said = why_cannot_grade(ROOT, "the probe") or ""
    assert "the probe cannot grade" in said and "No module named 'bpe_course'" in said, said
    shown = ", ".join(str(p) for p in bwrap.python_and_library())
    assert f"the sandbox shows only {shown}" in said and "nothing was graded" in said


def test_graders_starting_together_share_one_secret_only_the_owner_reads(tmp_path) -> None:
    """Two Dask workers may grade a term's first students at once: each must draw from the
    same secret (one secret per term), and no other account may read it, even for a moment."""
    import concurrent.futures
    import os
    import stat

    from autograder.course import SECRET_FILE, term_secret

    secrets = set()
    for attempt in range(20):
        course = tmp_path / str(attempt)
        course.mkdir()
        with concurrent.futures.ProcessPoolExecutor(4) as pool:
            drawn = set(pool.map(term_secret, [course] * 8))
        assert len(drawn) == 1 and len(next(iter(drawn))) == 32, drawn
        secrets |= drawn
        path = course / SECRET_FILE
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert [p.name for p in course.iterdir()] == [SECRET_FILE]  # no draft left behind
    assert len(secrets) == 20  # each term its own
