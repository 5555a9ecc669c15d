"""Write the failure messages a student reads: the smallest failing input, what was expected,
what came back, and the likely mistake with advice.

But: it decides nothing about right or wrong; it is handed the failures ``judge`` found.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autograder.hidden_tests.compare import where_gaps, where_problem
from autograder.hidden_tests.mistakes import MISTAKES, diagnose_all
from autograder.hidden_tests.plain import same, to_plain

REPR_LIMIT = 400
# How a message names what it found; ``named_mistake`` and ``not_written`` read them back.
_LIKELY = " (likely mistake: {})"
_NOT_WRITTEN = "{} is not written yet"


def call_text(name: str, args: Sequence[Any]) -> str:
    return f"{name}({', '.join(repr(arg) for arg in args)})"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 5] + " ...)"


def _result_lines(name: str, args: tuple, expected: Any, got: Any) -> list[str]:
    if got.error is not None:
        return [f"expected: {_show(expected.value)}", f"got:      an error, {got.error}"]
    lines = []
    if not same(expected.value, got.value):
        lines += [f"expected: {_show(expected.value)}", f"got:      {_show(got.value)}"]
    if name == "merge_and_update":
        lines += _state_lines(args, expected, got)
    else:
        original = to_plain(args)
        for k, (before, after) in enumerate(zip(original, got.after)):
            if not same(before, after):
                lines += [
                    f"argument {k + 1} was changed from: {_show(before)}",
                    f"                             to: {_show(after)}",
                ]
    if not lines:
        lines.append("(the answer differs from the expected one only in its types)")
    return lines


# At most this many differing words or pairs are listed, so a message stays readable.
SHOWN = 12


def _state_lines(args: tuple, expected: Any, got: Any) -> list[str]:
    """What merge_and_update left wrong in words, counts, stats and where: only the words and
    pairs that differ, and the words where misses."""
    lines: list[str] = []
    want_words, got_words = expected.after[0], got.after[0]
    if not same(want_words, got_words):
        if type(got_words) is list and len(got_words) == len(want_words):
            wrong = [i for i, (w, g) in enumerate(zip(want_words, got_words)) if not same(w, g)]
            lines.append(f"words afterwards: {_count(len(wrong), 'word')} {_differ(wrong)}:")
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
    if not same(to_plain(args[1]), got.after[1]):
        lines.append(f"counts was changed to {_show(got.after[1])}; leave it as it was")
    lines += _stats_lines(expected.after[2], got.after[2])
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


def _stats_lines(want: Any, got: Any) -> list[str]:
    """The pairs whose counts differ, as ``pair: expected -> got``."""
    if same(want, got):
        return []
    if type(got) is not dict or type(want) is not dict:
        return [f"stats afterwards should be: {_show(want)}", f"stats afterwards is: {_show(got)}"]
    pairs = sorted(set(want) | set(got), key=repr)
    differ = [p for p in pairs if p not in want or p not in got or not same(want[p], got[p])]
    lines = [
        f"stats afterwards: {_count(len(differ), 'pair')} {_differ(differ)} "
        "(pair: expected -> got; 'absent' means no key):"
    ]
    for p in differ[:SHOWN]:
        lines.append(f"    {p!r}: {_entry(want, p)} -> {_entry(got, p)}")
    return lines + _more(len(differ))


def _entry(table: dict, key: Any) -> str:
    return _show(table[key]) if key in table else "absent"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _words(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"word {indices[0]}, which holds the pair now"
    return f"words {', '.join(map(str, indices))}, which hold the pair now"


def _differ(items: list) -> str:
    return "differs" if len(items) == 1 else "differ"


def _more(n: int) -> list[str]:
    return [f"    ... and {n - SHOWN} more"] if n > SHOWN else []


def describe_failures(name: str, failures: Sequence[tuple], total: int) -> list[str]:
    """One message per failure, in the given order (the judge puts the smallest first).

    The first line of the first message says it all in brief (how many inputs fail and the
    likely mistake), for summaries that show one line per test.
    """
    if failures and len(failures) == total and all(_unwritten(got) for *_, got in failures):
        return [
            _NOT_WRITTEN.format(name) + ": it raises NotImplementedError on every test input. "
            "Replace the stub in its answer cell with your code."
        ]
    named = diagnose_all(name, failures)
    same_error = _same_error_everywhere(failures, total)
    if same_error is not None and named[0] is None:
        return [f"{name} raised {same_error} on every input; {_error_advice(same_error)}"]
    messages = []
    for index, ((args, expected, got), mistake) in enumerate(zip(failures, named)):
        if index == 0:
            brief = _LIKELY.format(mistake.name) if mistake is not None else ""
            head = (
                f"{name} is wrong on {len(failures)} of {total} test inputs{brief}. The smallest:"
            )
        else:
            head = f"{name} is also wrong on:"
        lines = [head, "    " + _show_call(name, args)]
        lines += _result_lines(name, args, expected, got)
        if mistake is not None:
            lines.append(f"Likely mistake: {mistake.name}. {mistake.advice}")
        messages.append("\n".join(lines))
    return messages


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


def _same_error_everywhere(failures: Sequence[tuple], total: int) -> str | None:
    """The error text of the smallest failing input when every input raised the same type
    of error, else None."""
    if not failures or len(failures) != total:
        return None
    kinds = {_error_type(got) for *_, got in failures}
    if len(kinds) != 1 or None in kinds:
        return None
    return failures[0][2].error


def _error_advice(error: str) -> str:
    kind = error.split(":")[0]
    return ERROR_ADVICE.get(kind, GENERIC_ADVICE)


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
