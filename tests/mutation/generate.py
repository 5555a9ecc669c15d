"""mutmut's mutants of the reference answers, made in memory by mutmut's own generator: each
mutant's name (as ``mutmut run`` names it), the lines it changes, and the module's source with
that one mutant applied, ready to run without mutmut's trampolines.

But: it runs no test; ``kill`` judges, ``run_mutants`` runs mutmut itself.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.mutation.kill import ROOT

# The modules mutmut mutates, as mutmut names them, and their files.
MODULES = {
    "solutions.bpe": ROOT / "solutions" / "bpe.py",
    "solutions.fast": ROOT / "solutions" / "fast.py",
}
MUTMUT_CONFIG = "[mutmut]\nsource_paths = solutions/\n"


@contextlib.contextmanager
def mutmut_config() -> Iterator[None]:
    """mutmut reads its settings from the working folder when first imported: give it one."""
    with tempfile.TemporaryDirectory(prefix="bpe-mutmut-") as folder:
        Path(folder, "setup.cfg").write_text(MUTMUT_CONFIG)
        with contextlib.chdir(folder):
            yield


@dataclass(frozen=True)
class Mutant:
    """One mutant: its mutmut name, the lines it removes and adds, the mutated module."""

    name: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    source: str

    @property
    def change(self) -> str:
        """The change on one line: ``old -> new`` (several lines joined with `` / ``)."""
        return f"{' / '.join(self.before)}  ->  {' / '.join(self.after)}"


def diff_lines(diff: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The removed and the added lines of a unified diff, stripped of indentation.

    >>> diff_lines("--- a\\n+++ a\\n@@ -1 +1 @@\\n-    x = 1\\n+    x = 2\\n     y")
    (('x = 1',), ('x = 2',))
    """
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    before = tuple(line[1:].strip() for line in lines if line.startswith("-"))
    after = tuple(line[1:].strip() for line in lines if line.startswith("+"))
    return before, after


@cache
def mutants(module: str) -> dict[str, Mutant]:
    """Every mutant mutmut makes of ``module`` ("solutions.bpe" or "solutions.fast")."""
    path = MODULES[module]
    code = path.read_text(encoding="utf-8")
    relative = str(path.relative_to(ROOT))
    with mutmut_config():
        from mutmut.mutation.file_mutation import mutate_file_contents

        mutated = mutate_file_contents(relative, code)
    originals, generated = _functions(code), _functions(mutated.code)
    lines = code.split("\n")
    found = {}
    for short in mutated.mutant_names:
        function = short.partition("__mutmut_")[0].removeprefix("x_")
        texts = [
            _renamed(generated[key][2], key, function)
            for key in (f"{short.partition('__mutmut_')[0]}__mutmut_orig", short)
        ]
        before, after = diff_lines("\n".join(difflib.unified_diff(*texts, lineterm="")))
        first, last, _ = originals[function]
        source = "\n".join([*lines[: first - 1], *texts[1], *lines[last:]])
        found[f"{module}.{short}"] = Mutant(f"{module}.{short}", before, after, source)
    return found


def _functions(code: str) -> dict[str, tuple[int, int, list[str]]]:
    """Each top-level function of ``code``: its first and last line (decorators included)
    and its lines."""
    lines = code.split("\n")
    found = {}
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found[node.name] = (first, node.end_lineno, lines[first - 1 : node.end_lineno])
    return found


def _renamed(lines: list[str], generated: str, name: str) -> list[str]:
    return [line.replace(f"def {generated}(", f"def {name}(", 1) for line in lines]


def all_mutants() -> dict[str, Mutant]:
    """The mutants of every mutated module, by name."""
    return {name: m for module in MODULES for name, m in mutants(module).items()}
