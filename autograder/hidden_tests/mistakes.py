"""Name the mistake behind a wrong answer in the hidden tests, with the same catalogue and the
same rule the notebooks' visible tests use (``bpe_course.mistakes``): a mistake is named only
when the evidence of a whole group singles it out.

But: student code is never run here, only plain-data outcomes compared; the message a
student reads is written by ``bpe_course.feedback``.

>>> from bpe_course.outcomes import run_case
>>> from autograder.hidden_tests.variants import encode_leftmost
>>> from autograder.hidden_tests.cases import cases
>>> group = cases("encode_bpe", "core")
>>> diagnose("encode_bpe", group, [run_case("encode_bpe", encode_leftmost, a) for a in group]).name
'leftmost pair instead of lowest rank'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autograder.hidden_tests.compare import agrees, reference
from bpe_course.mistakes import MISTAKES, Mistake, Trial, mistake_names
from bpe_course.mistakes import diagnose as diagnose_trials
from bpe_course.outcomes import run_case

__all__ = ["MISTAKES", "Mistake", "Trial", "diagnose", "mistake_names", "trials_of"]


def trials_of(
    name: str, all_args: Sequence[tuple], outcomes: Sequence[Any], expected: Sequence[Any]
) -> list[Trial]:
    """The group's trials: each case with the reference's and the answer's outcome, and
    whether the answer agrees with the reference there."""
    return [
        Trial(tuple(args), want, got, agrees(name, want, got))
        for args, want, got in zip(all_args, expected, outcomes)
    ]


def diagnose(
    name: str, all_args: Sequence[tuple], outcomes: Sequence[Any], expected: Sequence[Any] = ()
) -> Mistake | None:
    """The known mistake that the outcomes of a whole group single out, or None. ``expected``
    (the reference's outcomes) is computed when not given."""
    if not expected:
        expected = [run_case(name, reference(name), args) for args in all_args]
    return diagnose_trials(name, trials_of(name, all_args, outcomes, expected))
