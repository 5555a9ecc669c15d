"""The class-of-1,000 bench without grading anyone: its class, its commands, its verdicts.

``bench/bench_thousand.py`` is opt-in: run with no ``--sizes`` it writes nothing and says
how to run it. Its class cycles through every catalogued right and wrong answer and the
hostile kinds, each a safe student id; each step's command parses with the course's one
command line (``autograder.cli``), so a renamed flag fails here rather than 40 minutes into
a run. Its verdicts are judged on made-up rows: each step's cost a student at the largest size
against the smallest, at most 1.25x met, more MISSED, an unmeasurable cost MISSED; feedback
on one worker against two, at least 1.7x met; each Formgrader list's worst load by the
page's own clock, within 2 s met, a list never loaded MISSED. The record it writes holds the
machine, the targets and the steps, and the benchmarks page draws the steps' cost a student
against the class size, each step in a style of its own, with alt text that says so.

But: nothing here times or grades a class (``make bench BENCH_THOUSAND=1`` does).
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.roster import is_safe_id
from course_fixtures.catalogue import CORRECT, DELEGATING, WRONG
from tests.conftest import ROOT


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


thousand = _load(ROOT / "bench" / "bench_thousand.py", "bench_thousand")
PAGES = _load(ROOT / "bench" / "bench_formgrader.py", "bench_formgrader").PAGES
bench_page = _load(ROOT / "docs" / "bench_page.py", "docs_bench_page_thousand")
STEPS = ("grade", "feedback", "grades.csv")


def fake_rows(costs: dict[str, tuple[float, float]], sizes=(100, 1000)) -> list[dict]:
    """Rows as the bench writes them: each step's seconds a student at the two sizes."""
    rows = []
    for size, at in zip(sizes, (0, 1)):
        for step, cost in costs.items():
            wall = cost[at] * size
            rows.append(
                {
                    "students": size,
                    "step": step,
                    "wall (s)": wall,
                    "CPU (s)": wall / 2,
                    "peak memory (MB)": 300.0 + size / 10,
                    "s a student": cost[at],
                    "CPU s a student": cost[at] / 2,
                }
            )
    return rows


def test_docstring_examples() -> None:
    result = doctest.testmod(thousand)
    assert result.failed == 0 and result.attempted > 0


def test_it_is_opt_in_and_writes_nothing_without_sizes(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_RECORDS": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_thousand.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "opt-in" in done.stdout and "BENCH_THOUSAND=1" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_make_bench_passes_the_sizes_only_when_asked() -> None:
    def bench_recipe(*variables: str) -> str:
        done = subprocess.run(
            ["make", "-n", "bench", *variables], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "--sizes 100,1000" in bench_recipe("BENCH_THOUSAND=1")
    assert "--sizes" not in bench_recipe()


def test_the_class_mixes_every_catalogued_answer_with_hostile_ones() -> None:
    kinds = thousand.kinds()
    labels = [kind.label for kind in kinds]
    assert all(is_safe_id(f"s0001-{label}") for label in labels)
    answers = [code for kind in kinds for code in kind.answers.values()]
    for catalogue in (CORRECT, WRONG, DELEGATING):
        for exercise in catalogue.values():
            for code in exercise.values():
                assert code in answers
    assert {"stub", "markup", "bad-json", "bad-missing", "bad-exit"} <= set(labels)
    assert {kind.breakage for kind in kinds} == {"", "json", "missing", "exit"}
    # Spread through the cycle: the first tenth of it already holds a right, a wrong and a
    # hostile answer, so a small class is a sample of a large one.
    first = {label.split("-")[0] for label in labels[: len(labels) // 10 + 3]}
    assert {"correct", "wrong"} <= first and first & {"delegating", "markup", "bad"}


def test_each_step_is_a_command_the_course_takes(tmp_path: Path) -> None:
    (tmp_path / "canvas-export.csv").write_text("Student,ID\n")  # the file must be there
    commands = thousand.steps(tmp_path, one_worker_too=True)
    assert list(commands)[0].startswith("grade") and len(commands) == 8
    assert list(thousand.steps(tmp_path, one_worker_too=False)) == [
        step for step in commands if step != thousand.FEEDBACK_ONE
    ]
    parsed = {}
    for step, command in commands.items():
        if command[1:3] == ["-m", "autograder"]:
            parsed[step] = cli.parser().parse_args(command[3:])  # exits on an unknown flag
            assert parsed[step].root == tmp_path.resolve(), step
    grade, feedback = parsed["grade (2 workers, lean)"], parsed["feedback (2 workers)"]
    assert grade.command == "grade" and grade.lean and grade.jobs == 2
    assert not grade.unconfined and not grade.in_process  # in the sandbox, on Dask
    assert feedback.command == "feedback" and feedback.jobs == 2 and not feedback.in_process
    one = parsed[thousand.FEEDBACK_ONE]  # the same pages, on a local cluster of one worker
    assert one.command == "feedback" and one.jobs == 1 and not one.in_process
    assert list(commands).index(thousand.FEEDBACK_ONE) + 1 == list(commands).index(
        thousand.FEEDBACK_TWO
    )
    assert {args.command for args in parsed.values()} == {
        *("grade", "feedback", "export", "canvas", "moodle")
    }
    assert "export" in commands["nbgrader export"]


def test_a_step_within_1_25x_is_met_and_one_beyond_is_missed() -> None:
    rows = fake_rows({"grade": (1.4, 1.3), "feedback": (0.5, 0.62), "grades.csv": (0.02, 0.04)})
    run = thousand.record.Run("thousand", ROOT / "bench" / "bench_thousand.py", ["--sizes", "1"])
    judged = thousand.judge(run, rows)
    assert [(t["goal"], t["verdict"]) for t in judged] == [
        ("grade: s a student at 1000 / at 100", "met"),
        ("feedback: s a student at 1000 / at 100", "met"),  # 1.24x
        ("grades.csv: s a student at 1000 / at 100", "MISSED"),  # 2x: grows as the square
    ]
    assert judged[1]["measured"] == pytest.approx(1.24) and judged[1]["limit"] == 1.25
    assert run.targets == judged


def test_the_second_workers_speed_up_and_the_formgraders_loads_are_judged_in_the_run() -> None:
    rows = fake_rows({thousand.FEEDBACK_TWO: (0.6, 0.6)})
    one = {**rows[0], "step": thousand.FEEDBACK_ONE, "wall (s)": rows[0]["wall (s)"] * 1.65}
    assignments, students, submissions = PAGES  # bench_formgrader's three lists
    loads = {  # judged by the page's own clock; the wall time from Python is kept beside it
        students: {"page clock (s)": [0.4, 0.6], "wall (s)": [2.5, 2.6]},
        submissions: {"page clock (s)": [1.1, 2.3], "wall (s)": [1.2, 2.4]},
    }
    run = thousand.record.Run("thousand", ROOT / "bench" / "bench_thousand.py", ["--sizes", "1"])
    judged = thousand.judge(run, [one, *rows], loads)
    assert [(t["goal"], t["verdict"]) for t in judged] == [
        ("feedback (2 workers): s a student at 1000 / at 100", "met"),
        ("feedback at 100: 1 worker's wall s / 2 workers'", "MISSED"),  # 1.65x, under 1.7
        (f"Formgrader at 1000, {assignments}: worst load (s)", "MISSED"),  # never loaded
        (f"Formgrader at 1000, {students}: worst load (s)", "met"),
        (f"Formgrader at 1000, {submissions}: worst load (s)", "MISSED"),  # its worst, not best
    ]
    assert judged[1]["measured"] == pytest.approx(1.65) and judged[1]["bound"] == "at least"
    assert [t["measured"] for t in judged[2:]] == [None, 0.6, 2.3]
    one["wall (s)"] = rows[0]["wall (s)"] * 1.75
    assert thousand.judge(run, [one, *rows])[1]["verdict"] == "met"


def test_a_cost_that_could_not_be_measured_misses() -> None:
    rows = fake_rows({"grade": (0.0, 1.0)})
    run = thousand.record.Run("thousand", ROOT / "bench" / "bench_thousand.py", [])
    assert [t["verdict"] for t in thousand.judge(run, rows)] == ["MISSED"]
    # One size alone compares nothing: no goal is judged.
    assert thousand.judge(run, fake_rows({"grade": (1, 1)}, sizes=(10, 10))) == []


def test_the_record_holds_the_steps_and_the_page_draws_them(tmp_path: Path) -> None:
    rows = fake_rows({name: (1.0, 1.1) for name in STEPS})
    run = thousand.record.Run("thousand", ROOT / "bench" / "bench_thousand.py", ["--sizes", "2"])
    thousand.judge(run, rows)
    out = run.write({"sizes": [100, 1000], "steps": rows}, tmp_path)
    data = json.loads(out.read_text())
    assert list(data)[:4] == ["script", "command", "machine", "targets"]
    assert [t["verdict"] for t in data["targets"]] == ["met"] * 3
    assert data["steps"] == rows
    assert bench_page.draws(data["steps"]) == bench_page.PER_STUDENT
    page = bench_page.render(tmp_path)
    alt = page[page.index('alt="') :].split('"')[1]
    assert "wall seconds a student" in alt and "one line per step" in alt
    assert "grade (blue, solid line, circles): 100 students, 1 s a student and 310 MB" in alt
    assert "| students | step | wall (s) |" in page


def test_each_step_the_bench_writes_has_a_line_of_its_own_on_the_page(tmp_path: Path) -> None:
    names = list(thousand.steps(tmp_path, one_worker_too=True))
    rows = fake_rows({name: (1.0, 1.1) for name in names if name != thousand.FEEDBACK_ONE})
    rows.insert(2, {**rows[0], "step": thousand.FEEDBACK_ONE})  # at the smallest size only
    run = thousand.record.Run("thousand", ROOT / "bench" / "bench_thousand.py", ["--sizes", "2"])
    run.write({"sizes": [100, 1000], "steps": rows}, tmp_path)
    page = bench_page.render(tmp_path)
    alt = page[page.index('alt="') :].split('"')[1]
    styles = [alt.split(f"{name} (", 1)[1].split(")", 1)[0] for name in names]
    assert len(set(styles)) == len(names) == 8, styles  # colour, dashes and marker together
    assert len({style.split(", ", 1)[1] for style in styles}) == 8  # without the colour too
