"""Write the failure messages a student reads: the smallest failing input, what was expected,
what came back, and the likely mistake with advice.

But: it decides nothing about right or wrong; it is handed the failures ``judge`` found.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autograder.hidden_tests.compare import where_problem
from autograder.hidden_tests.mistakes import diagnose_all
from autograder.hidden_tests.plain import same, to_plain

REPR_LIMIT = 400


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
        for k, label in ((0, "words"), (1, "counts"), (2, "stats")):
            if not same(expected.after[k], got.after[k]):
                lines += [
                    f"{label} afterwards should be: {_show(expected.after[k])}",
                    f"{label} afterwards is:        {_show(got.after[k])}",
                ]
        problem = where_problem(got.after, expected.after)
        if problem:
            lines.append(f"where afterwards: {problem}")
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


def describe_failures(name: str, failures: Sequence[tuple], total: int) -> list[str]:
    """One message per failure, in the given order (the judge puts the smallest first).

    The first line of the first message says it all in brief (how many inputs fail and the
    likely mistake), for summaries that show one line per test.
    """
    if failures and len(failures) == total and all(_unwritten(got) for *_, got in failures):
        return [
            f"{name} is not written yet: it raises NotImplementedError on every test input. "
            "Replace the stub in its answer cell with your code."
        ]
    named = diagnose_all(name, failures)
    same_error = _same_error_everywhere(failures, total)
    if same_error is not None and named[0] is None:
        return [f"{name} raised {same_error} on every input; {_error_advice(same_error)}"]
    messages = []
    for index, ((args, expected, got), mistake) in enumerate(zip(failures, named)):
        if index == 0:
            brief = f" (likely mistake: {mistake.name})" if mistake is not None else ""
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


def _show_call(name: str, args: tuple) -> str:
    text = call_text(name, args)
    return text if len(text) <= 2 * REPR_LIMIT else text[: 2 * REPR_LIMIT - 5] + " ...)"
