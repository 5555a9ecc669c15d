"""The hidden tests' checker: judge a student's outcomes on every case of a group.

- :func:`judge` compares outcomes (from ``bpe_course.outcomes.run_case``) with the
  reference's and returns failure messages, smallest failing input first, with the mistake
  by name only when the whole group's outcomes single it out (``bpe_course.mistakes.diagnose``).
- :func:`check` is what a master notebook's hidden test cell calls: run, judge, and raise
  ``AssertionError`` with the first message.
- :func:`shorten` keeps a message's own lines (its head, the one failing input, what was
  expected, the likely mistake) and, of the lines that show what came back (the value, its
  differences, an error, changed arguments), about ``CAME_BACK_LIMIT`` characters in all, so
  that a value is no channel; it says what type came back where that is not the expected one.

But: ``judge`` itself never runs student code, nothing here keeps scores, and ``shorten``
decides nothing about right or wrong; it does not hide the failing input, which is the one
case of the term (``cases.draw``) the message shows.

>>> from solutions import merge_pair
>>> outcomes = [run_case("merge_pair", merge_pair, args) for args in cases("merge_pair", "core")]
>>> judge("merge_pair", "core", outcomes)
[]

>>> from bpe_course.outcomes import Outcome
>>> from bpe_course.mistakes import Trial
>>> want, got = Outcome(("a",), None, ()), Outcome("x" * 999, None, ())
>>> text = shorten("wrong:\\n    f('a')\\nexpected: ('a',)\\ngot: '" + "x" * 999 + "'", Trial(
...     ("a",), want, got, False))
>>> print(text.replace("x" * 194, "x…"))
wrong:
    f('a')
expected: ('a',)
got: 'x… …
(what came back is cut to 200 characters)
what came back is a str, not a tuple
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from autograder.hidden_tests.cases import cases, reference, trials_of
from bpe_course.feedback import describe
from bpe_course.outcomes import Outcome, Unplain, run_case


def size(args: Sequence[Any]) -> int:
    """How big an input is, for putting the smallest failing input first."""
    return len(repr(args))


def judge(
    name: str,
    group: str,
    outcomes: Sequence[Outcome],
    expected: Sequence[Outcome] | None = None,
    secret: str | None = None,
) -> list[str]:
    """Failure messages for ``outcomes`` of ``cases(name, group, secret)``,
    smallest input first; an empty list means every case passed. Runs only our own code.
    ``expected``, the reference's outcomes on the same cases, saves running the reference
    again when judging many students."""
    all_args = cases(name, group, secret)
    if len(outcomes) != len(all_args):
        raise ValueError(
            f"{name}/{group} has {len(all_args)} cases but {len(outcomes)} outcomes were given"
        )
    if expected is None:
        expected = [run_case(name, reference(name), args) for args in all_args]
    if len(expected) != len(all_args):
        raise ValueError(f"{name}/{group} has {len(all_args)} cases but {len(expected)} expected")
    for got in outcomes:
        if type(got) is not Outcome:
            raise TypeError(f"judge takes Outcome objects, got {type(got).__name__}")
    trials = trials_of(name, all_args, outcomes, expected)
    return describe(name, trials, order=lambda trial: size(trial.args))


def check(name: str, group: str, func: Callable) -> None:
    """Run ``func`` on every case of ``name``/``group``; raise AssertionError if any fails."""
    if not callable(func):
        raise AssertionError(f"{name} should be a function, but it is a {type(func).__name__}")
    outcomes = [run_case(name, func, args) for args in cases(name, group)]
    messages = judge(name, group, outcomes)
    if messages:
        raise AssertionError(messages[0])


CAME_BACK_LIMIT = 200  # characters of an answer's own output that one message may show
TYPE_NAME_LIMIT = 40  # an answer's class name is its own text too
_CUT = " …"
_CUT_NOTE = f"(what came back is cut to {CAME_BACK_LIMIT} characters)"
# The lines a message writes from our side: the expected result, the likely mistake.
_OURS = re.compile(r"^(expected:|Likely mistake: |[\w ]+ should be: )")
_RAISED = re.compile(r"^(\w+ raised )(.*)(; [^;]*)$", re.DOTALL)


def _type_name(value: Any) -> str:
    name = value.type_name if type(value) is Unplain else type(value).__name__
    return name[:TYPE_NAME_LIMIT]


def _type_line(trial: Any) -> list[str]:
    want, got = trial.expected, trial.got
    if got.error is not None or want.error is not None or type(got.value) is type(want.value):
        return []
    return [f"what came back is a {_type_name(got.value)}, not a {_type_name(want.value)}"]


def _head(line: str) -> str:
    """A head that names an error raised on every input keeps a short error text."""
    raised = _RAISED.match(line)
    if raised is None or len(raised.group(2)) <= CAME_BACK_LIMIT:
        return line
    return raised.group(1) + raised.group(2)[:CAME_BACK_LIMIT] + _CUT + raised.group(3)


def shorten(message: str, trial: Any) -> str:
    """``message`` (about ``trial``, the smallest failing one) with at most about
    ``CAME_BACK_LIMIT`` characters of what came back, and the type of it where it differs."""
    head, *rest = message.split("\n")
    lines, left, cut = [_head(head)], CAME_BACK_LIMIT, False
    for n, line in enumerate(rest):
        if n == 0 or _OURS.match(line):  # the failing input, then our own lines
            lines.append(line)
        elif not cut and len(line) <= left:
            lines.append(line)
            left -= len(line)
        elif not cut:
            lines += [line[:left] + _CUT, _CUT_NOTE]
            cut = True
    if not rest:
        return lines[0]
    mistakes = [i for i, line in enumerate(lines) if line.startswith("Likely mistake: ")]
    at = mistakes[0] if mistakes else len(lines)
    return "\n".join([*lines[:at], *_type_line(trial), *lines[at:]])
