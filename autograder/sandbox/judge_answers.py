"""Judge one notebook's answers outside the student's kernel: run them in the sandbox, judge here.

``exercises_of`` reads the masters: each exercise's notebook, test cells and points, and the
literal calls of its visible examples. ``judge_notebook`` runs each answer's code
(``cells.answer_statements``) on this term's hidden cases, the same for every student, and on
the examples, and judges what came back against the reference's outcomes, computed here
(``hidden_tests.judge``): per test cell "" (passed), the failure message, or None (examples
too stateful to re-run alone: the kernel's verdict stands).

``run_answers`` runs ``judge_child.py``'s text with ``python -I`` in an empty folder, a bare
environment, its own session and its own limits and, where bubblewrap works, a sandbox that
shows it Python and the course library only (not the reference, the graders, a submission or
the gradebook), under the syscall filter and caps on its processes and memory together. The
cases go in one at a time, so the child never holds another case, group or expected result;
each group of cases has a time limit, the whole call one deadline. Only ``outcomes.loads``
data comes back.

But: it never runs student code in this process; it writes no notebook and no gradebook
(``hidden_tests_outside`` puts its verdicts into the notebook nbgrader scores).

>>> code = ["def merge_pair(symbols, pair):\\n    return list(symbols)"]
>>> outs = run_answers([("merge_pair", code, {"core": [(("a",), ("a", "a"))]})])
>>> outs["merge_pair"]["core"][0].value, outs["merge_pair"]["core"][0].error
(['a'], None)
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.cells import answer_statements, engine_uses, example_calls
from autograder.course import ASSIGNMENT, CODE_ROOT, ENGINE_MODULES, ENGINE_PARTS, EXERCISES
from autograder.hidden_tests.cases import EXAMPLES, agrees, cases, reference, trials_of
from autograder.hidden_tests.judge import judge, shorten, size
from autograder.sandbox import bwrap
from autograder.sandbox.bwrap import GradingSandbox, Sandbox, python_and_library
from bpe_course.lesson_cells import nbgrader_meta
from bpe_course.outcomes import (
    ERROR_LIMIT,
    TOO_LARGE,
    Outcome,
    Unplain,
    dumps,
    fits,
    loads,
    run_case,
)

CHILD = Path(__file__).resolve().parent / "judge_child.py"
OUTCOMES = CODE_ROOT / "bpe_course" / "outcomes.py"  # the judge's child loads its text
DEFAULT_SECONDS = 10.0  # per group of cases, like nbgrader's per-cell timeout
DEFAULT_MEMORY_GB = GradingSandbox.judge_memory_gb.default_value  # for callers outside grading
_STARTUP_SECONDS = 5.0  # Python's own start, on a busy machine
_RESTART_SECONDS = 1.0  # a fresh child's start, allowed once per step
_MAX_OUTPUT = 50 * 2**20
_MAX_PROCESSES = 64  # a fork bomb stops here


def _answer_sandbox() -> Sandbox:
    """The sandbox for answers: Python and the course library, whose engine modules are
    blanked (the child serves stand-ins that refuse; blank files cannot be read and run)."""
    visible = python_and_library()
    library = visible[-1]
    stems = [name.rsplit(".", 1)[1] for name in ENGINE_MODULES]
    engine = [library / f"{stem}.py" for stem in stems]
    engine += [p for stem in stems for p in library.glob(f"__pycache__/{stem}.*")]
    return Sandbox(
        visible=visible,
        blank=tuple(p for p in engine if p.is_file()),
        cwd=Path("/tmp"),
        max_processes=_MAX_PROCESSES,
    )


def confined() -> bool:
    """True when answers can run inside bubblewrap here; else only in a limited process."""
    return bwrap.available()


def _failed(args: tuple, why: str) -> Outcome:
    return Outcome(value=None, error=why, after=tuple(args))


def _decode(text: str, args: tuple) -> Outcome:
    """An Outcome from the child's line; anything that is not [value, error, after] with a
    str-or-None error and one entry per argument becomes an error outcome."""
    try:
        value, error, after = loads(text)
    except Exception:
        return _failed(args, "the sandbox sent back something that is not plain data")
    bad_error = error is not None and type(error) is not str
    if bad_error or type(after) is not list or len(after) != len(args):
        return _failed(args, "the sandbox sent back a malformed result")
    if error is not None and len(error) > ERROR_LIMIT:  # the child's own cap is the student's
        error = error[:ERROR_LIMIT] + " ..."
    # The child's conversion spends at most MAX_ITEMS on real items, but a line the answer
    # wrote itself holds what it likes, and comparing costs time by the item: past the
    # limit a value is no answer (no expected one is that large), only its size is kept.
    value, after = _checkable(value), [_checkable(part) for part in after]
    return Outcome(value=value, error=error, after=tuple(after))


def _checkable(value: Any) -> Any:
    return value if fits(value) else Unplain(TOO_LARGE)


class JudgeUnavailableError(RuntimeError):
    """The sandbox failed twice to start (stopped or hung before it was ready, so before it
    was sent any answer): not the student's doing."""


def _run_child(
    job: dict, plan: list, seconds: float, memory_gb: float, sandbox: Sandbox | None, until: float
) -> tuple[list[dict], str, str]:
    """Run one child on ``job`` and the cases of ``plan``; return the lines it wrote, why it
    did not finish cleanly ("" if it did) and the end of what it said on stderr before any
    answer ran. Without ``sandbox``, only its own limits hold."""
    with tempfile.TemporaryDirectory(prefix="judge-sandbox-") as home, contextlib.ExitStack() as on:
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home}
        # The child's own file is in a folder the child cannot see: pass its text instead. It
        # sets its limits before it reads the job, so before any student code runs.
        memory = bwrap.memory_bytes(memory_gb)
        command = [sys.executable, "-I", "-c", CHILD.read_text(), str(memory or 0)]
        cap: tuple = ()
        fds: tuple[int, ...] = ()
        if sandbox is not None:
            env.update(HOME="/tmp", TMPDIR="/tmp")
            caps = bwrap.sandbox_cap(f"judge-{os.getpid()}", _MAX_PROCESSES, memory)
            cap, fds = on.enter_context(caps), (on.enter_context(bwrap.opened()),)
            command = sandbox.command(command, fds[0])
        child = subprocess.Popen(
            bwrap.in_cap(cap, command),
            cwd=home,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=fds,
        )
        try:
            lines, timed_out = _read_lines(child, json.dumps(job).encode(), plan, seconds, until)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            said = _what_is_there(child.stderr)
    code = child.returncode
    if timed_out:
        return lines, f"TimeLimit: did not finish within {seconds:.0f} s", said
    if code < 0:
        killed = signal.Signals(-code).name
        return lines, f"SandboxStopped: the process was killed by signal {killed}", said
    return lines, f"SandboxStopped: the process exited with status {code}" if code else "", said


def _what_is_there(pipe: Any) -> str:
    """The end of what is in ``pipe`` now, without waiting for more; the pipe is closed. The
    child sends stderr to /dev/null before any answer runs, so nothing here is a student's."""
    fd = pipe.fileno()
    os.set_blocking(fd, False)
    with contextlib.suppress(BlockingIOError), pipe:
        return " ".join(os.read(fd, 1 << 16).decode(errors="replace").split())[-300:]
    return ""


def _read_lines(
    child: subprocess.Popen, job: bytes, plan: list, seconds: float, until: float
) -> tuple[list[dict], bool]:
    """Send the job, then collect JSON lines until EOF, until a step (defining an exercise, a
    group of its cases) has run ``seconds``, or until ``until``, whatever the child writes."""
    assert child.stdin is not None and child.stdout is not None
    feed = _Feed(child.stdin.fileno(), job + b"\n", plan)
    fd = child.stdout.fileno()
    deadline = time.monotonic() + _STARTUP_SECONDS + seconds
    # The unended line so far. Only each new read is split: splitting the whole line again
    # at every read would cost time that grows as the square of a line an answer never ends.
    # One growing buffer, not a list of reads: an answer can make every read a byte long.
    unended = bytearray()
    lines: list[dict] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = min(deadline, until) - time.monotonic()
            if left <= 0:
                return lines, True
            feed.watch(selector)
            ready = {key.fd for key, _ in selector.select(timeout=left)}
            if feed.fd in ready:
                feed.write()
            if fd not in ready:
                continue
            chunk = os.read(fd, 1 << 16)
            size += len(chunk)
            if not chunk or size > _MAX_OUTPUT:
                return lines, False
            *complete, rest = chunk.split(b"\n")
            if complete and unended:
                unended += complete[0]
                complete[0] = bytes(unended)
                unended.clear()
            unended += rest
            for raw in complete:
                line = _parse_line(raw)
                if line is None or not feed.heard(line):
                    continue
                if "start" in line or "setup" in line:  # the step that comes next: a fresh limit
                    deadline = time.monotonic() + seconds
                lines.append(line)


READY = {"ready": True}  # the child's first line: it has started, and waits for its job


class _Feed:
    """The child's stdin: the job's line once the child says it is ready (so a child that
    stopped before that line never had an answer to run), then each case of the plan when its
    turn comes: once the line before it (its group's step line, or the previous case's
    outcome) has come, so the child never holds more than the case it runs."""

    def __init__(self, fd: int, job: bytes, plan: list) -> None:
        self.fd, self.out, self.job, self.plan = fd, b"", job, iter(plan)
        self.next = next(self.plan, None)
        self.running: tuple | None = None  # (name, group, index) of the case sent last
        self.watched = self.gone = False
        os.set_blocking(fd, False)

    def heard(self, line: dict) -> bool:
        """False for a step line other than the one that comes next (the answer wrote it): it
        is dropped. Every other line is heard, and may let the next case go (see the class)."""
        if "ready" in line:  # once, to the letter: the answers' code comes with the job
            if line != READY or not self.job:
                return False
            self.out, self.job = self.job, b""
            self.write()
            return True
        if "start" in line or "setup" in line:
            # The child writes a step line only after the last case's outcome: one that comes
            # while a case runs is the answer's, which would take a fresh limit for that case.
            # (An answer that first forges the running case's outcome line frees it, but the
            # first outcome of a case is the one run_answers keeps: the time buys nothing.)
            if line != self.next or self.running is not None:
                return False
            self.next = next(self.plan, None)
        elif (line["name"], line["group"], line["index"]) == self.running:
            self.running = None
        else:
            return True
        if type(self.next) is tuple:
            name, group, index, text = self.next
            self.running = (name, group, index)
            self.out += text + b"\n"
            self.next = next(self.plan, None)
        self.write()
        return True

    def write(self) -> None:
        if not self.out or self.gone:
            return
        try:
            with contextlib.suppress(BlockingIOError):
                self.out = self.out[os.write(self.fd, self.out) :]
        except OSError:  # the child is gone; its end of the output ends the reading
            self.out, self.gone = b"", True

    def watch(self, selector: selectors.BaseSelector) -> None:
        """Wait for room in the pipe only while there is something to send."""
        wanted = bool(self.out) and not self.gone
        if wanted and not self.watched:
            selector.register(self.fd, selectors.EVENT_WRITE)
        elif self.watched and not wanted:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(self.fd)
        self.watched = wanted


def _plan(job: dict, cases: dict) -> list:
    """The step lines the child writes for ``job`` and the cases it is sent, in order: per
    exercise its setup line, then per group its start line and the text of each case."""
    plan: list = []
    for exercise in job["exercises"]:
        name = exercise["name"]
        plan.append({"setup": name})
        for group, indices in exercise["groups"]:
            plan.append({"start": [name, group]})
            for i in indices:
                plan.append((name, group, i, dumps(tuple(cases[name][group][i])).encode()))
    return plan


def _parse_line(raw: bytes) -> dict | None:
    """A line of the child's as a dict whose keys the parent reads hold the right types, or
    None: student code may write anything there, and only well-formed lines are looked at."""
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):  # "[[[[..." nests past the parser's depth
        return None
    if type(line) is not dict:
        return None
    # A step's line keeps only its own key (other keys of it would go unchecked), and
    # _Feed.heard takes it only where it is, to the letter, the step line the plan expects.
    for step in ("ready", "setup", "start"):
        if step in line:
            return {step: line[step]}
    typed = {"name": str, "group": str, "index": int, "outcome": str}
    return line if all(type(line.get(key)) is t for key, t in typed.items()) else None


def run_answers(
    exercises: list[tuple[str, list[str], dict[str, list[tuple]]]],
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
    unconfined: bool = False,
) -> dict[str, dict[str, list[Outcome]]]:
    """For each ``(name, statements, groups)``: define the student's code from ``statements``
    (each exercise in a fresh namespace), call ``name`` on every case of every group, and return
    one Outcome per case, in order. One process serves them all until something stops it; the
    step that was running then loses its remaining cases and the rest go to a fresh process.
    ``unconfined`` (or a machine without bubblewrap): no sandbox, only the process's limits."""
    sandbox = _answer_sandbox() if not unconfined and confined() else None
    tools = {
        "outcomes_src": OUTCOMES.read_text(),
        "engine_modules": list(ENGINE_MODULES),
        "engine_parts": list(ENGINE_PARTS),
    }
    code = {name: statements for name, statements, _ in exercises}
    cases = {name: groups for name, _, groups in exercises}
    results = {
        name: {g: [None] * len(c) for g, c in groups.items()} for name, groups in cases.items()
    }

    def pending(name: str) -> list[str]:
        return [g for g, outs in results[name].items() if None in outs]

    todo = [name for name in code if pending(name)]
    # One deadline for the whole call: a child stopped early hands its rest to a fresh one,
    # which gets only the time left, so no restart and no line written extends the total.
    # Each step may cost a restart (at most one each): a second for its Python to start.
    steps = sum(1 + len(pending(name)) for name in todo)
    start = time.monotonic()
    until = start + _STARTUP_SECONDS + (seconds + _RESTART_SECONDS) * steps
    failed_start = ""  # what a child that failed before it was ready said, or why it failed
    while todo:
        job = dict(tools)
        job["exercises"] = [
            {
                "name": name,
                "statements": code[name],
                "groups": [
                    [g, [i for i, out in enumerate(results[name][g]) if out is None]]
                    for g in pending(name)
                ],
            }
            for name in todo
        ]
        if time.monotonic() >= until:
            reason = f"TimeLimit: judging these answers took all of its {until - start:.0f} s"
            for name in todo:
                _fail_rest(results, cases, name, pending(name), reason)
            break
        began = time.monotonic()
        lines, why, said = _run_child(job, _plan(job, cases), seconds, memory_gb, sandbox, until)
        # Stopped, or stuck past its own start's time, before it was ready, so before it was
        # sent any answer: not the student's doing. (Cut off by the whole call's deadline is
        # left to the rule below: the student's earlier answers may have used the time up.)
        own_deadline_first = began + _STARTUP_SECONDS + seconds < until
        if why and READY not in lines and ("Stopped" in why or own_deadline_first):
            if failed_start:
                said = said or failed_start
                raise JudgeUnavailableError(f"it failed twice to start, before any answer: {said}")
            failed_start = said or why
            until += time.monotonic() - began  # every second of it was the sandbox's, not theirs
            continue
        started: set[str] = set()
        for line in lines:
            name, group, index = line.get("name"), line.get("group"), line.get("index")
            if "start" in line:
                started.add(line["start"][0])
            if name not in results or group not in results[name]:
                continue
            if 0 <= index < len(cases[name][group]) and results[name][group][index] is None:
                args = tuple(cases[name][group][index])
                results[name][group][index] = _decode(line["outcome"], args)
        stopped = next((name for name in todo if pending(name)), None)
        if stopped is None:
            break
        reason = why or "SandboxStopped: the sandbox stopped before this case"
        # Stopped while defining the answer: every case of it fails. Else only the rest of the
        # group that was running.
        groups = pending(stopped) if stopped not in started else pending(stopped)[:1]
        if stopped not in started:
            reason += " (while the answer cell was being defined)"
        _fail_rest(results, cases, stopped, groups, reason)
        todo = [name for name in todo if pending(name)]
    return {
        name: {g: [o for o in outs if o is not None] for g, outs in groups.items()}
        for name, groups in results.items()
    }


def _fail_rest(results: dict, cases: dict, name: str, groups: list[str], reason: str) -> None:
    """Every case of ``name``'s ``groups`` still without an outcome fails with ``reason``."""
    for g in groups:
        results[name][g] = [
            out if out is not None else _failed(tuple(cases[name][g][i]), reason)
            for i, out in enumerate(results[name][g])
        ]


GROUP_OF_CELL = {"examples": "examples", "hidden_core": "core", "hidden_random": "random"}
# Errors that mean the answer could not run on its own, outside the student's kernel.
_ALONE_ERRORS = ("NameError", "ImportError", "ModuleNotFoundError")


@dataclass(frozen=True)
class Exercise:
    """Where an exercise lives and what its test cells are worth, from the master notebook."""

    name: str
    notebook: str
    cells: dict[str, float]  # test cell grade_id -> points
    examples: list[tuple]
    master: Any = field(default=None, compare=False, repr=False)  # the master notebook


@dataclass
class Findings:
    """What judging one notebook found besides the verdicts, per exercise."""

    alone: dict[str, str] = field(default_factory=dict)  # the error when it cannot run alone
    engine: dict[str, list[str]] = field(default_factory=dict)  # engine parts it refers to


def exercises_of(course_root: Path, assignment: str = ASSIGNMENT) -> list[Exercise]:
    """The exercises of the assignment, read from the master notebooks in source/."""
    found = []
    for path in sorted((course_root / "source" / assignment).glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        metas = [(c, nbgrader_meta(c)) for c in notebook.cells]
        for name in EXERCISES:
            if not any(m.get("solution") and m.get("grade_id") == name for _, m in metas):
                continue
            tests = {
                m["grade_id"]: float(m.get("points", 0))
                for _, m in metas
                if m.get("grade") and str(m.get("grade_id", "")).startswith(f"test_{name}_")
            }
            shown = [c.source for c, m in metas if m.get("grade_id") == f"test_{name}_examples"]
            examples = example_calls(shown[0], name) if shown else []
            found.append(Exercise(name, path.stem, tests, examples, notebook))
    return found


_EXPECTED: dict[tuple, list[Outcome]] = {}
_KEPT = 256  # groups of expected outcomes kept: a term's, and examples' literal calls


def expected_outcomes(
    name: str, group: str, calls: list[tuple] | None = None, secret: str | None = None
) -> list[Outcome]:
    """The reference's outcomes on a group's cases of the term (or on ``calls``), computed
    here, outside the sandbox, once per process."""
    key = (name, group, secret) if calls is None else (name, repr(calls))
    if key not in _EXPECTED:
        if len(_EXPECTED) >= _KEPT:
            _EXPECTED.clear()
        args_list = cases(name, group, secret) if calls is None else calls
        _EXPECTED[key] = [run_case(name, reference(name), args) for args in args_list]
    return _EXPECTED[key]


def _groups(exercise: Exercise, secret: str | None) -> dict[str, list[tuple]]:
    name = exercise.name
    groups = {g: cases(name, g, secret) for g in ("core", "random")}
    if exercise.examples:
        groups["examples"] = list(exercise.examples)
    else:
        with contextlib.suppress(ValueError):  # stateful examples, rebuilt as cases if they can be
            groups["examples"] = cases(name, EXAMPLES)
    return groups


def cannot_run_alone(name: str, outcomes: dict[str, list[Outcome]], secret: str | None) -> str:
    """The error when every hidden case the answer gets wrong raised NameError or ImportError
    (it leans on something outside what the sandbox runs; cases such as an empty corpus may
    never reach that name and pass), else ""."""
    wrong = [
        got
        for group in ("core", "random")
        for want, got in zip(expected_outcomes(name, group, secret=secret), outcomes.get(group, []))
        if not agrees(name, want, got)
    ]
    if wrong and all((o.error or "").split(":")[0] in _ALONE_ERRORS for o in wrong):
        return str(wrong[0].error)
    return ""


def _examples_verdict(name: str, calls: list[tuple], outcomes: list) -> str:
    for args, expected, got in zip(calls, expected_outcomes(name, "literal", calls), outcomes):
        if not agrees(name, expected, got):
            shown = got.error or repr(got.value)
            return f"example {name}{args!r} gave {shown[:150]}"
    return ""


def verdict(name: str, group: str, outcomes: list[Outcome], secret: str | None = None) -> str:
    """The empty string when every case of the group passed, else the message about the
    smallest failing one, with about 200 characters of what came back (``judge.shorten``)."""
    expected = expected_outcomes(name, group, secret=secret)
    messages = judge(name, group, outcomes, expected, secret)
    if not messages:
        return ""
    trials = trials_of(name, cases(name, group, secret), outcomes, expected)
    smallest = min((t for t in trials if not t.passed), key=lambda t: size(t.args))
    return shorten(messages[0], smallest)


def _judge_exercise(
    exercise: Exercise, outcomes: dict[str, list], secret: str | None
) -> dict[str, str | None]:
    name = exercise.name
    verdicts: dict[str, str | None] = {}
    for cell in exercise.cells:
        group = GROUP_OF_CELL.get(cell.removeprefix(f"test_{name}_"))
        if group == "examples" and exercise.examples:
            verdicts[cell] = _examples_verdict(name, exercise.examples, outcomes["examples"])
        elif group in outcomes:  # core, random, or the examples rebuilt as cases (_groups)
            verdicts[cell] = verdict(name, group, outcomes[group], secret)
        elif group == "examples":
            # Not re-runnable alone; a function that fails every hidden case outside the
            # kernel (an imported reference, a planted module) keeps nothing.
            core = expected_outcomes(name, "core", secret=secret)
            passes_some = any(agrees(name, e, o) for e, o in zip(core, outcomes["core"]))
            verdicts[cell] = None if passes_some else "fails every core case outside the kernel"
    return verdicts


def judge_notebook(
    notebook: nbformat.NotebookNode,
    exercises: list[Exercise],
    secret: str | None = None,
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
    unconfined: bool = False,
) -> tuple[dict[str, dict[str, str | None]], Findings]:
    """For each exercise of one notebook and each of its test cells: "" if it passes outside
    the kernel, else why not; None where the kernel's verdict stands; and what a person
    should know about each exercise (``Findings``). The cases are this term's (``secret``)."""
    verdicts: dict[str, dict[str, str | None]] = {}
    findings = Findings()
    jobs = []
    for exercise in exercises:
        statements = answer_statements(notebook, exercise.name, exercise.master)
        if statements is None:
            why = f"no answer cell with grade_id {exercise.name!r}"
            verdicts[exercise.name] = {cell: why for cell in exercise.cells}
        else:
            jobs.append((exercise.name, statements, _groups(exercise, secret)))
            if uses := engine_uses(notebook, exercise.name, exercise.master):
                findings.engine[exercise.name] = uses
    outcomes = run_answers(jobs, seconds, memory_gb, unconfined) if jobs else {}
    for exercise in exercises:
        if exercise.name in outcomes:
            found = outcomes[exercise.name]
            verdicts[exercise.name] = _judge_exercise(exercise, found, secret)
            if alone := cannot_run_alone(exercise.name, found, secret):
                findings.alone[exercise.name] = alone
            errors = [o.error or "" for group in found.values() for o in group]
            if any(error.startswith("EngineRefusedError") for error in errors):
                findings.engine.setdefault(exercise.name, ["the engine, when it ran"])
    return verdicts, findings
