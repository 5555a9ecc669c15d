"""Before anyone is graded: do this term's core cases catch every known mistake?

``uncaught(secret)`` runs each wrong version of our own (the variants of
``bpe_course.mistakes.MISTAKES``) on the core cases ``secret`` draws for its exercise and
lists each (exercise, mistake) whose variant passes all of them. A mistake that only the
random group catches is caught by the luck of a draw; every student of a term meets the same
cases, so the core group is where each known mistake must be caught, whatever the secret.
``why_unfair(secret)`` says so in words an instructor can act on, or returns "".

But: a mistake recognised by a test on the outcome alone (wrong types, a changed argument,
a loop over all words, a token for the empty word, the shortest segmentation) has no wrong
version to run and is not checked here; the tests check those on the catalogue of answers.

>>> uncaught("term-2026-autumn")
[]
"""

from __future__ import annotations

from collections.abc import Callable

from autograder.course import EXERCISES
from autograder.hidden_tests.cases import cases
from autograder.hidden_tests.compare import agrees, reference
from bpe_course.mistakes import MISTAKES
from bpe_course.outcomes import Outcome, run_case

CASES_FILE = "autograder/hidden_tests/cases.py"


def uncaught(secret: str | None) -> list[tuple[str, str]]:
    """(exercise, mistake) for each known mistake with a variant that passes every core case
    of the term ``secret`` (None: the fixed cases)."""
    found = []
    for name in EXERCISES:
        group = cases(name, "core", secret)
        expected = [run_case(name, reference(name), args) for args in group]
        for mistake in MISTAKES.get(name, []):
            if any(_passes(name, v, group, expected) for v in mistake.variants):
                found.append((name, mistake.name))
    return found


def _passes(name: str, answer: Callable, group: list[tuple], expected: list[Outcome]) -> bool:
    return all(agrees(name, want, run_case(name, answer, a)) for a, want in zip(group, expected))


def why_unfair(secret: str | None) -> str:
    """Why grading must not start with this term's cases, or "" when every known mistake is
    caught by the core group."""
    missed = uncaught(secret)
    if not missed:
        return ""
    listed = "; ".join(f"{name}: {mistake!r}" for name, mistake in missed)
    return (
        f"refusing to grade: this term's core hidden cases do not catch {listed}. Such an "
        "answer would lose points only where the random cases happen to catch it. Add a core "
        f"case it fails to {CASES_FILE} (or undo the change to the hidden cases), then grade "
        "again. Nothing was graded."
    )
