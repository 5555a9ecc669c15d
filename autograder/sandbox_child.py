"""The program that runs inside the verify sandbox: it defines a student's answer and calls it.

``autograder.sandbox`` runs this file's text as ``python -I -c <text>`` in an empty temporary
folder with a bare environment, so neither ``solutions`` nor ``autograder`` can be imported
from here. Everything it needs arrives as one JSON job on stdin:

- ``plain_src`` and ``checks_src``: the text of ``autograder/plain.py`` and
  ``autograder/checks.py``. They are loaded under private names, with empty stand-ins for
  ``solutions`` and ``autograder.cases`` while ``checks`` loads, so this process calls the very
  same ``run_case`` the notebooks' hidden tests call and holds no reference answer;
- ``exercises``: for each, the ``name`` of the function to call, the student's code as
  ``statements`` (run one by one in a fresh namespace; a failing statement is noted and the
  rest still run, as in a notebook) and ``cases``, ``[group, index, args]`` triples with the
  arguments in ``plain.dumps`` form.

It writes ``{"setup": name}`` before defining an exercise and ``{"start": [name, group]}``
before each group (the parent times each step from there), and one JSON line per case,
``{"name", "group", "index", "outcome"}``, where ``outcome`` is
``plain.dumps([value, error, after])``, on a copy of stdout made before any student code ran;
the student's own prints go nowhere. Nothing here judges an answer: whatever this process
says, the parent re-checks it against the reference in a process that never runs student code.

Before any student code runs, ``bpe_course.engine`` (the course's demonstration engine) is
replaced by a stand-in whose ``Trainer``, ``Encoder``, ``ChunkTable``, ``learn_merges`` and
``_join`` raise ``EngineRefusedError``: an answer must do the work itself, not hand it to the
library the lessons use for their demonstrations. Importing the rest of ``bpe_course`` still
works. (``autograder.sandbox`` also hides the engine's file where Linux allows.)

Only the standard library is used, on purpose.
"""

import importlib.abc
import importlib.machinery
import json
import os
import sys
import types

_STUB_ROOTS = ("solutions", "autograder")
ENGINE = "bpe_course.engine"
ENGINE_NAMES = ("Trainer", "Encoder", "ChunkTable", "learn_merges", "_join")
ENGINE_REFUSAL = "the course's demonstration engine may not be used in an answer; write it yourself"


class EngineRefusedError(RuntimeError):
    """Raised by every part of the stand-in engine."""


def _refuse(*args: object, **kwargs: object) -> None:
    raise EngineRefusedError(ENGINE_REFUSAL)


def _other_part(name: str) -> object:
    if name.startswith("__"):  # the import system and tools probe dunders: say "not here"
        raise AttributeError(name)
    return _refuse


class _RefusedClass:
    def __new__(cls, *args: object, **kwargs: object) -> "_RefusedClass":
        raise EngineRefusedError(ENGINE_REFUSAL)


class _Merge(tuple):
    """Stands in for the engine's Merge NamedTuple, which lessons import but answers need not."""


class _EngineStandIn(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the stand-in engine, also to an answer that removes it from sys.modules and
    imports it again."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == ENGINE:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        for name in ENGINE_NAMES:
            refused = type(name, (_RefusedClass,), {}) if name[0].isupper() else _refuse
            setattr(module, name, refused)
        module.Merge = _Merge
        module.Pair = tuple[str, str]
        module.__getattr__ = _other_part  # any other part of the engine: refused too


def refuse_engine() -> None:
    """Serve the stand-in engine to every import of ``bpe_course.engine`` from now on (also
    to ``bpe_course``'s own ``__init__``, which imports it)."""
    sys.modules.pop(ENGINE, None)
    sys.meta_path.insert(0, _EngineStandIn())


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves empty modules for ``solutions`` and ``autograder.*`` while checks.py loads."""

    def __init__(self, provided: dict) -> None:
        self.provided = provided

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] in _STUB_ROOTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.provided.get(spec.name) or types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ == "autograder.cases":
            module.EXERCISES = (
                "pair_counts",
                "merge_pair",
                "train_bpe",
                "encode_bpe",
                "merge_and_update",
            )
            module.GROUPS = ("core", "random")
            module.cases = None


def _load(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def load_tools(plain_src: str, checks_src: str) -> tuple:
    """The plain-data and run_case modules, with nothing of the project left importable."""
    before = set(sys.modules)
    plain = _load("_sandbox_plain", plain_src)
    stubs = _Stubs({"autograder.plain": plain})
    sys.meta_path.insert(0, stubs)
    try:
        checks = _load("_sandbox_checks", checks_src)
    finally:
        sys.meta_path.remove(stubs)
        for name in set(sys.modules) - before:
            if name.split(".")[0] in _STUB_ROOTS:
                del sys.modules[name]
    return plain, checks


def run_statements(statements: list, namespace: dict) -> list:
    """Run each statement; return the first line of each error instead of stopping."""
    notes = []
    for source in statements:
        try:
            exec(compile(source, "<answer>", "exec"), namespace)
        except BaseException as error:  # noqa: BLE001 - a student's statement may raise anything
            notes.append(f"{type(error).__name__}: {str(error)[:200]}")
    return notes


def main() -> None:
    job = json.loads(sys.stdin.read())
    results = os.fdopen(os.dup(1), "w", buffering=1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    sys.stdin = open(os.devnull)  # noqa: SIM115
    plain, checks = load_tools(job["plain_src"], job["checks_src"])
    run_case, dumps, loads = checks.run_case, plain.dumps, plain.loads
    refuse_engine()

    def send(line: dict) -> None:
        results.write(json.dumps(line) + "\n")

    for exercise in job["exercises"]:
        name = exercise["name"]
        send({"setup": name})  # the parent times the definitions from here
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        notes = run_statements(exercise["statements"], namespace)
        func = namespace.get(name)
        missing = f"NameError: name {name!r} is not defined" + (f" ({notes[0]})" if notes else "")
        started = None
        for group, index, args_text in exercise["cases"]:
            if group != started:  # the parent's time limit for this group starts now
                send({"start": [name, group]})
                started = group
            args = loads(args_text)
            if callable(func):
                outcome = run_case(name, func, args)
                value, error, after = outcome.value, outcome.error, list(outcome.after)
            else:
                value, error, after = None, missing, list(args)
            outcome_text = dumps([value, error, after])
            send({"name": name, "group": group, "index": index, "outcome": outcome_text})
    results.close()


if __name__ == "__main__":
    main()
