"""Does a mutant of the reference fail an exercise's hidden tests, or its visible tests?

- :func:`hidden_failure` runs the hidden checker (``judge.check``, both groups) on a function;
- :func:`visible_failure` runs the master notebook's ``test_<name>_examples`` cell with the
  function in its namespace, as nbgrader would;
- :data:`OWNER` says which exercise each mutated function belongs to, so a mutant is judged
  only by its own exercise's tests (a ``pair_counts`` mutant also breaks ``train_bpe``, which
  calls it, but that is not what ``pair_counts``'s tests are measured on).

But: it never imports ``solutions`` itself; whoever calls it decides which reference the
checker sees (``tests.mutation.frozen``).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MASTERS = ROOT / "source" / "bpe"
EXERCISES = ("pair_counts", "merge_pair", "train_bpe", "encode_bpe", "merge_and_update")
# mutmut's name of each mutated function (module.x_function) -> the exercise it belongs to.
# fast.py's trainer (train_bpe_fast, _train, _collector_paused) is no exercise: not listed.
OWNER = {
    "solutions.bpe.x_pair_counts": "pair_counts",
    "solutions.bpe.x_merge_pair": "merge_pair",
    "solutions.bpe.x_train_bpe": "train_bpe",
    "solutions.bpe.x_encode_bpe": "encode_bpe",
    "solutions.fast.x_merge_and_update": "merge_and_update",
    "solutions.fast.x__join_in_word": "merge_and_update",
}
KINDS = ("hidden", "visible")


def owner(mutant: str) -> str | None:
    """The exercise a mutant's function belongs to, e.g. ``solutions.bpe.x_merge_pair__mutmut_3``
    -> ``merge_pair``; None for a function outside the five exercises.

    >>> owner("solutions.fast.x__join_in_word__mutmut_12")
    'merge_and_update'
    >>> owner("solutions.fast.x__train__mutmut_1") is None
    True
    """
    return OWNER.get(mutant.partition("__mutmut_")[0])


def hidden_failure(name: str, func: Callable) -> str | None:
    """The hidden checker's first message for ``func`` (core, then random cases), or None."""
    from autograder.hidden_tests.judge import check

    for group in ("core", "random"):
        try:
            check(name, group, func)
        except AssertionError as error:
            return f"{group}: {error}"
    return None


@cache
def visible_cell(name: str) -> str:
    """The source of exercise ``name``'s visible test cell in its master notebook."""
    for path in sorted(MASTERS.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade_id") == f"test_{name}_examples":
                return "".join(cell["source"])
    raise LookupError(f"no test_{name}_examples cell in {MASTERS}")


def visible_failure(name: str, func: Callable) -> str | None:
    """What the visible test cell raises with ``func`` as the answer, or None if it passes."""
    namespace = {"__name__": "__main__", name: func}
    code = compile(visible_cell(name), f"<test_{name}_examples>", "exec")
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)  # the course's own test cell
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def failure(kind: str, name: str, func: Callable) -> str | None:
    """:func:`hidden_failure` or :func:`visible_failure`, by ``kind``."""
    if kind == "hidden":
        return hidden_failure(name, func)
    if kind == "visible":
        return visible_failure(name, func)
    raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
