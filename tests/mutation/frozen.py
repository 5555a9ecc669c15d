"""Judge mutants against a frozen reference: the mutated ``solutions`` is loaded first and
its exercise functions kept, then ``solutions`` is swapped for an unmutated copy before the
checker is imported, so a mutant never changes the answers it is judged against (nor the
cases built with ``train_bpe`` and ``merge_and_update``).

But: it must run before anything imports ``autograder.hidden_tests``; it refuses otherwise.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from tests.mutation.kill import EXERCISES


def _forget_solutions() -> None:
    for module in [m for m in sys.modules if m == "solutions" or m.startswith("solutions.")]:
        del sys.modules[module]


def freeze(frozen_root: Path) -> dict[str, Callable]:
    """The exercise functions of the ``solutions`` that ``sys.path`` finds now (mutmut's
    mutated copy); afterwards ``import solutions`` gives ``frozen_root/solutions``, and the
    hidden checker is imported against it."""
    early = [m for m in sys.modules if m.startswith("autograder.hidden_tests")]
    if early:
        raise RuntimeError(f"the checker was imported before the reference was frozen: {early}")
    mutated_package = importlib.import_module("solutions")
    mutated = {name: getattr(mutated_package, name) for name in EXERCISES}
    _forget_solutions()
    sys.path.insert(0, str(frozen_root))
    try:
        frozen = importlib.import_module("solutions")
    finally:
        sys.path.remove(str(frozen_root))
    where = Path(frozen.__file__).resolve().parent
    if where != (frozen_root / "solutions").resolve():
        raise RuntimeError(f"the frozen reference came from {where}, not {frozen_root}")
    from autograder.hidden_tests import cases

    for name in EXERCISES:
        if cases.reference(name) is not getattr(frozen, name):
            raise RuntimeError(f"the checker's reference of {name} is not the frozen one")
    # The diagnosis's variants are built on bpe_course's engine, which mutmut never touches.
    if cases.train_bpe is not frozen.train_bpe:
        raise RuntimeError("the cases do not use the frozen reference")
    return mutated
