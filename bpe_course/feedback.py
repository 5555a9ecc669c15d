"""Write the failure messages a student reads, in the notebook and in the graded feedback
alike: the smallest failing input, what was expected, what came back, what differs in plain
words, and the mistake by name when the evidence singles one out (``mistakes.diagnose``).

But: it decides nothing about right or wrong; it is handed the trials and which failed.

>>> from bpe_course.outcomes import Outcome
>>> print(table_lines("stats afterwards", {("a", "b"): 2}, {("a", "t"): 12, ("a", "b"): 2}))
['stats afterwards: 1 pair differs:', "    ('a', 't'): should be gone (count 0), is 12"]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bpe_course.mistakes import CHANGED_INPUT, MISTAKES, Mistake, Trial, diagnose
from bpe_course.outcomes import same, where_gaps, where_problem

REPR_LIMIT = 400
# At most this many differing words or pairs are listed, so a message stays readable.
SHOWN = 12
# How a message names what it found; ``named_mistake`` and ``not_written`` read them back.
_LIKELY = " (likely mistake: {})"
_NOT_WRONG_ON = "{name} is wrong on {failed} of {total} {inputs}{brief}. The smallest:"
_NOT_WRITTEN = "{} is not written yet"


def call_text(name: str, args: Sequence[Any]) -> str:
    return f"{name}({', '.join(repr(arg) for arg in args)})"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 5] + " ...)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _differ(n: int) -> str:
    return "differs" if n == 1 else "differ"


def _more(n: int) -> list[str]:
    return [f"    ... and {n - SHOWN} more"] if n > SHOWN else []


def table_lines(label: str, want: Any, got: Any) -> list[str]:
    """The pairs whose counts differ between two tables, in plain words."""
    if same(want, got):
        return []
    if type(got) is not dict or type(want) is not dict:
        return [f"{label} should be: {_show(want)}", f"{label} is:        {_show(got)}"]
    pairs = sorted(set(want) | set(got), key=repr)
    differ = [p for p in pairs if p not in want or p not in got or not same(want[p], got[p])]
    lines = [f"{label}: {_count(len(differ), 'pair')} {_differ(len(differ))}:"]
    for p in differ[:SHOWN]:
        lines.append(f"    {p!r}: {_entry(want, got, p)}")
    return lines + _more(len(differ))


def _entry(want: dict, got: dict, key: Any) -> str:
    if key not in want:
        return f"should be gone (count 0), is {_show(got[key])}"
    if key not in got:
        return f"should be {_show(want[key])}, is missing"
    return f"should be {_show(want[key])}, is {_show(got[key])}"


def _changed_lines(name: str, args: tuple, got: Any) -> list[str]:
    """The arguments the answer changed, which it was told to leave alone."""
    if name == "merge_and_update":  # words, stats and where are meant to change
        lines = []
        if len(got.after) > 1 and not same(args[1], got.after[1]):
            lines.append(f"counts was changed to {_show(got.after[1])}; leave it as it was")
        if len(got.after) > 4 and not same(args[4], got.after[4]):
            lines.append(f"pair was changed to {_show(got.after[4])}; leave it as it was")
        return lines
    lines = []
    for k, (before, after) in enumerate(zip(args, got.after)):
        if not same(before, after):
            lines += [
                f"argument {k + 1} was changed from: {_show(before)}",
                f"                             to: {_show(after)}",
            ]
    return lines


def _value_lines(name: str, args: tuple, expected: Any, got: Any) -> list[str]:
    if same(expected.value, got.value):
        return []
    lines = [f"expected: {_show(expected.value)}", f"got:      {_show(got.value)}"]
    if type(expected.value) is dict and type(got.value) is dict:
        lines += table_lines("that is", expected.value, got.value)
    return lines


def _result_lines(name: str, args: tuple, expected: Any, got: Any) -> list[str]:
    lines = _changed_lines(name, args, got)  # a changed argument is told first
    if got.error is not None:
        return [*lines, f"expected: {_show(expected.value)}", f"got:      an error, {got.error}"]
    lines += _value_lines(name, args, expected, got)
    if name == "merge_and_update":
        lines += _state_lines(expected, got)
    if not lines:
        lines.append("(the answer differs from the expected one only in its types)")
    return lines


def _state_lines(expected: Any, got: Any) -> list[str]:
    """What merge_and_update left wrong in words, stats and where: only the words and pairs
    that differ, and the words where misses."""
    lines: list[str] = []
    want_words, got_words = expected.after[0], got.after[0]
    if not same(want_words, got_words):
        if type(got_words) is list and len(got_words) == len(want_words):
            wrong = [i for i, (w, g) in enumerate(zip(want_words, got_words)) if not same(w, g)]
            lines.append(f"words afterwards: {_count(len(wrong), 'word')} {_differ(len(wrong))}:")
            lines += [
                f"    words[{i}] should be {_show(want_words[i])}, is {_show(got_words[i])}"
                for i in wrong[:SHOWN]
            ]
            lines += _more(len(wrong))
        else:
            lines += [
                f"words afterwards should be: {_show(want_words)}",
                f"words afterwards is:        {_show(got_words)}",
            ]
    lines += table_lines("stats afterwards", expected.after[2], got.after[2])
    gaps = where_gaps(got.after, expected.after)
    if gaps:
        lines.append(f"where afterwards misses words for {_count(len(gaps), 'pair')}:")
        lines += [f"    where[{pair!r}] lacks {_words(missing)}" for pair, missing in gaps[:SHOWN]]
        lines += _more(len(gaps))
    else:
        problem = where_problem(got.after, expected.after)
        if problem:
            lines.append(f"where afterwards: {problem}")
    return lines


def _words(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"word {indices[0]}, which holds the pair now"
    return f"words {', '.join(map(str, indices))}, which hold the pair now"


def describe(
    name: str, trials: Sequence[Trial], inputs: str = "test inputs", order: Any = None
) -> list[str]:
    """One message per failed trial, smallest input first (or in ``order``'s key order); an
    empty list when every trial passed.

    The first line of the first message says it all in brief (how many inputs fail and the
    mistake, when one is singled out), for summaries that show one line per test.
    """
    failures = sorted((t for t in trials if not t.passed), key=order or (lambda t: 0))
    total = len(trials)
    if not failures:
        return []
    if len(failures) == total and all(_unwritten(t.got) for t in failures):
        return [
            _NOT_WRITTEN.format(name) + ": it is still the stub, raising NotImplementedError on "
            f"every one of its {inputs}. Replace the stub in its answer cell with your code."
        ]
    mistake = diagnose(name, trials)
    same_error = _same_error_everywhere(failures, total)
    if same_error is not None and mistake is None:
        return [f"{name} raised {same_error} on every input; {_error_advice(same_error)}"]
    return [
        _message(name, t, i, len(failures), total, inputs, mistake) for i, t in enumerate(failures)
    ]


def _message(
    name: str,
    trial: Trial,
    index: int,
    failed: int,
    total: int,
    inputs: str,
    mistake: Mistake | None,
) -> str:
    if index == 0:
        brief = _LIKELY.format(mistake.name) if mistake is not None else ""
        head = _NOT_WRONG_ON.format(
            name=name, failed=failed, total=total, inputs=inputs, brief=brief
        )
    else:
        head = f"{name} is also wrong on:"
    lines = [head, "    " + _show_call(name, trial.args)]
    lines += _result_lines(name, trial.args, trial.expected, trial.got)
    if mistake is not None and (
        mistake.name != CHANGED_INPUT or _changed_lines(name, trial.args, trial.got)
    ):
        lines.append(f"Likely mistake: {mistake.name}. {mistake.advice}")
    return "\n".join(lines)


def named_mistake(name: str, message: str) -> str | None:
    """The known mistake of exercise ``name`` that a failure message names, if any.

    >>> named_mistake("merge_pair", "merge_pair is wrong on 2 of 9 test inputs (likely "
    ...     "mistake: overlapping merges). The smallest: ...")
    'overlapping merges'
    """
    for mistake in MISTAKES.get(name, []):
        if _LIKELY.format(mistake.name) in message:
            return mistake.name
    return None


def not_written(name: str, message: str) -> bool:
    """True when a failure message says the answer is still the released stub."""
    return message.startswith(_NOT_WRITTEN.format(name))


# What to do when every input raises the same error, by the error's type.
ERROR_ADVICE = {
    "NameError": "a name your answer uses is not defined when the answer runs alone. Define "
    "it (or import it) in the answer cell, or in a cell of your own before the tests, and "
    "check the spelling of the function's name.",
    "SyntaxError": "the answer cell is not valid Python; fix the line the error points to.",
    "IndentationError": "the answer cell is not valid Python; fix the indentation of the "
    "line the error points to.",
    "ImportError": "import only the standard library (and bpe_course where a lesson says so).",
    "ModuleNotFoundError": "import only the standard library (and bpe_course where a lesson "
    "says so).",
    "EngineRefusedError": "only code you wrote yourself earns marks.",
    "TimeLimit": "look for a loop that never ends.",
}
GENERIC_ADVICE = (
    "run it on the lesson's examples in your notebook and read the traceback to find the line."
)


def _error_type(got: Any) -> str | None:
    return None if got.error is None else got.error.split(":")[0]


def _same_error_everywhere(failures: Sequence[Trial], total: int) -> str | None:
    """The error text of the smallest failing input when every input raised the same type
    of error, else None."""
    if not failures or len(failures) != total:
        return None
    kinds = {_error_type(t.got) for t in failures}
    if len(kinds) != 1 or None in kinds:
        return None
    return failures[0].got.error


def _error_advice(error: str) -> str:
    return ERROR_ADVICE.get(error.split(":")[0], GENERIC_ADVICE)


def _unwritten(got: Any) -> bool:
    return got.error is not None and got.error.split(":")[0] == "NotImplementedError"


# merge_and_update's arguments, shown one per line: its calls are long.
STATE_NAMES = ("words", "counts", "stats", "where", "pair")


def _show_call(name: str, args: tuple) -> str:
    if name == "merge_and_update" and len(args) == len(STATE_NAMES):
        shown = (f"    {label} = {_show(arg)}" for label, arg in zip(STATE_NAMES, args))
        return "merge_and_update(words, counts, stats, where, pair) with\n" + "\n".join(shown)
    text = call_text(name, args)
    return text if len(text) <= 2 * REPR_LIMIT else text[: 2 * REPR_LIMIT - 5] + " ...)"
