"""Re-grade every answer out of the student's kernel, and make that score the grade.

For each exercise the answer's code (``nbgrader_steps.cells``) runs in the sandbox
(``isolation.sandbox``) on the hidden cases and the visible examples; only plain data comes
back, and this process, which never runs student code, judges it (``hidden_tests.judge``).
Where a test cell's verified score differs from nbgrader's it becomes the cell's
``manual_score``; ``artifacts/grading/verify.json`` records every verdict and why.

But: cells that did not run, unreadable notebooks and deleted test cells keep nbgrader's
verdict for a person, and it writes no feedback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.course import (
    ASSIGNMENT,
    EXERCISES,
    VERIFY_RECORD,
    class_db_path,
    find_students,
)
from autograder.hidden_tests.cases import EXAMPLES, cases
from autograder.hidden_tests.compare import agrees, reference
from autograder.hidden_tests.judge import judge
from autograder.hidden_tests.run import Outcome, run_case
from autograder.isolation.sandbox import DEFAULT_MEMORY_GB, DEFAULT_SECONDS, run_answers
from autograder.nbgrader_steps.cells import answer_statements, engine_uses, example_calls
from autograder.nbgrader_steps.guarded_execute import KERNEL_LOST
from autograder.reports import summary

GROUP_OF_CELL = {"examples": "examples", "hidden_core": "core", "hidden_random": "random"}


@dataclass
class CellVerdict:
    """One test cell: nbgrader's score, the verified one, and why they differ."""

    student: str
    notebook: str
    cell: str
    points: float
    nbgrader: float | None
    verified: float | None
    applied: bool
    why: str
    needs_person: str = ""  # why a person should look, for the summary's status
    note: str = ""  # worth knowing, but no reason to hold the grade


@dataclass(frozen=True)
class Exercise:
    """Where an exercise lives and what its test cells are worth, from the master notebook."""

    name: str
    notebook: str
    cells: dict[str, float]  # test cell grade_id -> points
    examples: list[tuple]
    master: Any = field(default=None, compare=False, repr=False)  # the master notebook


def exercises_of(course_root: Path, assignment: str = ASSIGNMENT) -> list[Exercise]:
    """The exercises of the assignment, read from the master notebooks in source/."""
    found = []
    for path in sorted((course_root / "source" / assignment).glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        metas = [(c, c.get("metadata", {}).get("nbgrader", {})) for c in notebook.cells]
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


def _group(cell: str, name: str) -> str | None:
    return GROUP_OF_CELL.get(cell.removeprefix(f"test_{name}_"))


def _lost_cells(notebook: nbformat.NotebookNode) -> set[str]:
    """Test cells that did not run because the kernel was lost (they keep their 0)."""
    lost = set()
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id and any(o.get("ename") == KERNEL_LOST for o in cell.get("outputs", [])):
            lost.add(grade_id)
    return lost


def _one_line(text: str, limit: int = 240) -> str:
    """A failure message on one line, for the summary table."""
    joined = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


_EXPECTED: dict[tuple[str, str], list[Outcome]] = {}


def expected_outcomes(name: str, group: str, calls: list[tuple] | None = None) -> list[Outcome]:
    """The reference's outcomes on a group's cases (or on ``calls``), computed once per
    process: a class of students is judged against the same answers."""
    key = (name, group if calls is None else repr(calls))
    if key not in _EXPECTED:
        args_list = cases(name, group) if calls is None else calls
        _EXPECTED[key] = [run_case(name, reference(name), args) for args in args_list]
    return _EXPECTED[key]


def _examples_verdict(name: str, calls: list[tuple], outcomes: list) -> str:
    for args, expected, got in zip(calls, expected_outcomes(name, "literal", calls), outcomes):
        if not agrees(name, expected, got):
            shown = got.error or repr(got.value)
            return f"example {name}{args!r} gave {shown[:150]}"
    return ""


def _any_core_case_passes(name: str, outcomes: list) -> bool:
    expected = expected_outcomes(name, "core")
    return any(agrees(name, e, o) for e, o in zip(expected, outcomes))


def _has_example_cases(name: str) -> bool:
    try:
        cases(name, EXAMPLES)
    except ValueError:
        return False
    return True


def _groups(exercise: Exercise) -> dict[str, list[tuple]]:
    name = exercise.name
    groups = {"core": cases(name, "core"), "random": cases(name, "random")}
    if exercise.examples:
        groups["examples"] = list(exercise.examples)
    elif _has_example_cases(name):  # stateful examples, rebuilt as cases
        groups["examples"] = cases(name, EXAMPLES)
    return groups


# Errors that mean the answer could not run on its own, outside the student's kernel.
_ALONE_ERRORS = ("NameError", "ImportError", "ModuleNotFoundError")


def cannot_run_alone(name: str, outcomes: dict[str, list[Outcome]]) -> str:
    """The error when every hidden case the answer gets wrong raised NameError or ImportError
    (it leans on something outside what verify runs; cases such as an empty corpus may never
    reach that name and pass), else ""."""
    wrong = [
        got
        for group in ("core", "random")
        for want, got in zip(expected_outcomes(name, group), outcomes.get(group, []))
        if not agrees(name, want, got)
    ]
    if wrong and all((o.error or "").split(":")[0] in _ALONE_ERRORS for o in wrong):
        return str(wrong[0].error)
    return ""


def _judge_exercise(exercise: Exercise, outcomes: dict[str, list]) -> dict[str, str | None]:
    name = exercise.name
    verdicts: dict[str, str | None] = {}
    for cell in exercise.cells:
        group = _group(cell, name)
        if group in ("core", "random"):
            expected = expected_outcomes(name, group)
            messages = judge(name, group, outcomes[group], expected)
            verdicts[cell] = messages[0] if messages else ""
        elif group == "examples" and exercise.examples:
            verdicts[cell] = _examples_verdict(name, exercise.examples, outcomes["examples"])
        elif group == "examples" and "examples" in outcomes:
            expected = expected_outcomes(name, EXAMPLES)
            messages = judge(name, EXAMPLES, outcomes["examples"], expected)
            verdicts[cell] = messages[0] if messages else ""
        elif group == "examples":
            # The examples cannot be re-run alone; a function that fails every hidden case
            # outside the kernel (an imported reference, a planted module) keeps nothing.
            fails_all = not _any_core_case_passes(name, outcomes["core"])
            verdicts[cell] = "fails every core case outside the kernel" if fails_all else None
    return verdicts


@dataclass
class Findings:
    """What verifying one notebook found besides the verdicts, per exercise."""

    alone: dict[str, str] = field(default_factory=dict)  # the error when it cannot run alone
    engine: dict[str, list[str]] = field(default_factory=dict)  # engine parts it refers to


def verify_notebook(
    student_notebook: nbformat.NotebookNode,
    exercises: list[Exercise],
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
    course_root: Path | None = None,
) -> tuple[dict[str, dict[str, str | None]], Findings]:
    """For each exercise of one notebook and each of its test cells: "" if it passes out of
    the kernel, else why not; None where nbgrader's verdict stands (visible examples too
    stateful to re-run alone, from a function that passes some hidden case outside the
    kernel); and what a person should know about each exercise. One sandbox process serves
    the whole notebook, as one kernel did."""
    verdicts: dict[str, dict[str, str | None]] = {}
    findings = Findings()
    jobs = []
    for exercise in exercises:
        statements = answer_statements(student_notebook, exercise.name, exercise.master)
        if statements is None:
            why = f"no answer cell with grade_id {exercise.name!r}"
            verdicts[exercise.name] = {cell: why for cell in exercise.cells}
        else:
            jobs.append((exercise.name, statements, _groups(exercise)))
            uses = engine_uses(student_notebook, exercise.name, exercise.master)
            if uses:
                findings.engine[exercise.name] = uses
    outcomes = run_answers(jobs, seconds, memory_gb, course_root) if jobs else {}
    for exercise in exercises:
        if exercise.name in outcomes:
            found = outcomes[exercise.name]
            verdicts[exercise.name] = _judge_exercise(exercise, found)
            alone = cannot_run_alone(exercise.name, found)
            if alone:
                findings.alone[exercise.name] = alone
            errors = [o.error or "" for group in found.values() for o in group]
            if any(error.startswith("EngineRefusedError") for error in errors):
                findings.engine.setdefault(exercise.name, ["the engine, when it ran"])
    return verdicts, findings


def verify_student(
    course_root: Path,
    student: str,
    exercises: list[Exercise],
    nbgrader_scores: dict[tuple[str, str], tuple[float | None, bool]],
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
) -> list[CellVerdict]:
    """Verified verdicts for every test cell of one student. ``nbgrader_scores`` maps
    (notebook, cell) to (auto_score, needs_manual_grade) from the gradebook."""
    out = []
    folder = course_root / "autograded" / student / ASSIGNMENT
    notebooks, found, findings = {}, {}, Findings()
    for name in sorted({e.notebook for e in exercises}):
        path = folder / f"{name}.ipynb"
        notebooks[name] = nbformat.read(path, as_version=4) if path.exists() else None
        if notebooks[name] is not None:
            mine = [e for e in exercises if e.notebook == name]
            verdicts, more = verify_notebook(notebooks[name], mine, seconds, memory_gb, course_root)
            found.update(verdicts)
            findings.alone.update(more.alone)
            findings.engine.update(more.engine)
    for exercise in exercises:
        notebook = notebooks[exercise.notebook]
        lost = _lost_cells(notebook) if notebook is not None else set()
        verdicts = found.get(exercise.name, {})
        first = len(out)
        for cell, points in exercise.cells.items():
            score, manual = nbgrader_scores.get((exercise.notebook, cell), (None, False))
            if notebook is None or score is None or manual:
                why = "not autograded (missing, unreadable or deleted cell): left to a person"
                out.append(
                    CellVerdict(student, exercise.notebook, cell, points, score, None, False, why)
                )
                continue
            if cell in lost:
                why = "did not run: the kernel was lost before this cell"
                out.append(
                    CellVerdict(student, exercise.notebook, cell, points, score, score, False, why)
                )
                continue
            if verdicts.get(cell) is None:  # nothing to re-run it on: nbgrader's verdict stands
                why = "examples not re-runnable outside the kernel; nbgrader's verdict stands"
                out.append(
                    CellVerdict(student, exercise.notebook, cell, points, score, score, False, why)
                )
                continue
            failure = verdicts[cell]
            verified = 0.0 if failure else points
            why = "" if verified == score else (_one_line(failure) or "passes out of the kernel")
            out.append(
                CellVerdict(student, exercise.notebook, cell, points, score, verified, True, why)
            )
        _flag_for_a_person(exercise.name, out[first:], findings)
    return out


def _flag_for_a_person(name: str, cells: list[CellVerdict], findings: Findings) -> None:
    """Say, on the exercise's first cell, what a person should look at (scores unchanged)."""
    if not cells:
        return
    applied = [c for c in cells if c.applied and c.verified is not None]
    nbgrader = sum(c.nbgrader or 0 for c in applied)
    verified = sum(c.verified or 0 for c in applied)
    alone = findings.alone.get(name)
    if alone and nbgrader > verified:
        cells[0].needs_person = (
            f"{name} cannot run outside the student's kernel ({_one_line(alone, 120)}); "
            f"nbgrader gave {nbgrader:g}, the verified {verified:g} stands until a person "
            "checks the notebook"
        )
    uses = findings.engine.get(name)
    if uses:
        cells[0].note = (
            f"{name} refers to the course's demonstration engine ({', '.join(uses)}), "
            "which earns nothing in the verified grade"
        )


def _gradebook_scores(db_url: str, student: str) -> dict[tuple[str, str], tuple[Any, bool]]:
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            submission = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return {}
        return {
            (nb.name, g.name): (g.auto_score, bool(g.needs_manual_grade))
            for nb in submission.notebooks
            for g in nb.grades
        }


def _write_scores(db_url: str, verdicts: list[CellVerdict]) -> int:
    """Put verified scores into the gradebook as manual scores; returns how many differ."""
    from nbgrader.api import Gradebook, MissingEntry

    changed = 0
    with Gradebook(db_url) as gb:
        for v in verdicts:
            if not v.applied:
                continue
            try:
                grade = gb.find_grade(v.cell, v.notebook, ASSIGNMENT, v.student)
            except MissingEntry:
                continue
            differs = v.verified != grade.auto_score
            grade.manual_score = v.verified if differs else None
            changed += differs
        gb.db.commit()
    return changed


def verify_class(
    course_root: Path,
    jobs: int = os.cpu_count() or 1,
    students: list[str] | None = None,
    seconds: float = DEFAULT_SECONDS,
    memory_gb: float = DEFAULT_MEMORY_GB,
    progress: bool = True,
) -> list[CellVerdict]:
    """Verify every autograded student (or ``students``), write the gradebook and the record."""
    from tqdm import tqdm

    course_root = course_root.resolve()
    db_url = f"sqlite:///{class_db_path(course_root)}"
    exercises = exercises_of(course_root)
    students = find_students(course_root) if students is None else students
    if not students or not class_db_path(course_root).exists():
        print("nothing to verify: grade the class first (make autograde)")
        return []
    start = time.perf_counter()

    def one(student: str) -> list[CellVerdict]:
        scores = _gradebook_scores(db_url, student)
        return verify_student(course_root, student, exercises, scores, seconds, memory_gb)

    verdicts: list[CellVerdict] = []
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        bar = tqdm(total=len(students), unit="student", desc="verify", disable=not progress)
        for found in pool.map(one, students):
            verdicts += found
            bar.update(1)
        bar.close()
    changed = _write_scores(db_url, verdicts)
    record = course_root / VERIFY_RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(record.read_text()) if record.exists() else []
    kept = [v for v in old if v["student"] not in set(students)]
    record.write_text(json.dumps(kept + [asdict(v) for v in verdicts], indent=1))
    seconds_taken = time.perf_counter() - start
    print(
        f"verified {len(students)} submission(s) out of the kernel in {seconds_taken:.1f} s; "
        f"{changed} test cell(s) where the verified score replaces nbgrader's"
    )
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="course root (default: .)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel sandboxes")
    parser.add_argument("--student", action="append", help="verify only this student (repeatable)")
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="time limit per group of cases"
    )
    parser.add_argument(
        "--memory-gb",
        type=float,
        default=DEFAULT_MEMORY_GB,
        help="address-space limit of the sandbox",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    verify_class(
        args.root, args.jobs, args.student, args.seconds, args.memory_gb, not args.no_progress
    )
    summary.report(args.root.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
