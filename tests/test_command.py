"""``python -m autograder``: one parser for every grading command, and every make recipe on it.

The listing and the refusals run as a user runs them, in a child process: each subcommand's
``--help`` exits 0, a wrong subcommand or value exits 2 with a line naming it and no
traceback, before anything is read. ``make -n`` shows that each recipe that runs grading
code is one call of the one command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from tests.conftest import ROOT

SUBCOMMANDS = (
    "grade",
    "regrade",
    "serve",
    "grading-status",
    "feedback",
    "export",
    "canvas",
    "moodle",
    "similarity",
    "check-class",
    "scheduler",
    "worker",
    "bundle",
    "solutions",
)


def autograder(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "autograder", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_lists_every_grading_command() -> None:
    done = autograder("--help")
    assert done.returncode == 0, done.stderr
    for name in SUBCOMMANDS:
        assert f"\n    {name} " in done.stdout or f"\n    {name}\n" in done.stdout, name
    assert sorted(cli.COMMANDS) == sorted(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_command_says_what_it_takes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main([name, "--help"])
    said = capsys.readouterr().out
    assert stop.value.code == 0
    assert said.startswith(f"usage: python -m autograder {name}"), said
    assert "say what this command does" in said and "show this help message" not in said


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["grde"], "invalid choice: 'grde'"),
        (["grade", "--jobs", "0"], "argument --jobs: 0 worker processes: give 1 or more"),
        (["regrade", "--jobs", "two"], "'two' is not a whole number of worker processes"),
        (["feedback", "--jobs", "0"], "argument --jobs: 0 worker processes: give 1 or more"),
        (["grade", "--memory-gb", "-1"], "-1 GB: give 0 (no limit) or more"),
        (["grade", "--judge-memory-gb", "nan"], "nan GB: give 0 (no limit) or more"),
        (["serve", "--memory-gb", "inf"], "inf GB: give 0 (no limit) or more"),
        (["canvas", "no-such-export.csv"], "download the gradebook from Canvas"),
        (["worker", "127.0.0.1:8786"], "must start with tls:// (got '127.0.0.1:8786')"),
        (["moodle", "--identifier", "name"], "argument --identifier: invalid choice: 'name'"),
        (["similarity", "--threshold", "-1"], "-1 spreads: give a number above 0"),
        (["similarity", "--threshold", "six"], "'six' is not a number of spreads"),
    ],
)
def test_a_wrong_command_or_value_is_named_exit_2_no_traceback(
    argv: list[str], named: str, tmp_path: Path
) -> None:
    done = autograder(*argv, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert named in done.stderr and "--help` lists what it takes" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == [], "a refused command wrote something"


def test_regrade_still_refuses_some_students(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["regrade", "--student", "ada"]) == 2
    assert "to grade some students, use make autograde STUDENT=a,b" in capsys.readouterr().err


# Each recipe that runs grading code, with what it needs to run, and its subcommand.
RECIPES = {
    "autograde": ([], "grade"),
    "regrade": ([], "regrade"),
    "grading-service": (["IDLE_EXIT=5"], "serve"),
    "grading-status": ([], "grading-status"),
    "feedback": ([], "feedback"),
    "export": ([], "export"),
    "canvas": (["CANVAS=export.csv"], "canvas"),
    "moodle": ([], "moodle"),
    "check-class": ([], "check-class"),
    "similarity": ([], "similarity"),
    "scheduler": ([], "scheduler"),
    "worker": (["SCHEDULER=tls://127.0.0.1:8786"], "worker"),
    "student-bundle": ([], "bundle"),
    "solutions": ([], "solutions"),
}


@pytest.mark.parametrize("target", RECIPES)
def test_each_grading_recipe_is_one_call_of_the_command(target: str) -> None:
    extra, name = RECIPES[target]
    done = subprocess.run(
        ["make", "-n", "-s", "--no-print-directory", "-o", ".venv/.installed", target, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if "python" in line]
    assert len(lines) == 1, done.stdout + done.stderr
    assert f"/python -m autograder {name}" in lines[0], lines[0]
