"""The program that runs inside the judge's sandbox: it defines a student's answer and calls it.

It first limits itself (memory, as its one argument says; file size; no core files) and
says it is ready (the parent sends nothing before), then reads one JSON job line on stdin:
the text of ``bpe_course/outcomes.py`` (loaded under a private name, so this process calls
the very ``run_case`` the hidden tests call), the engine's parts to refuse, and per exercise
the student's statements and the indices of its cases by group; then the cases, a line each.
It writes one JSON line per case, on a copy of stdout made before any student code ran, and
the step lines ``judge_answers._plan`` lists. Before any student code runs,
``bpe_course.engine`` is replaced by a stand-in that refuses, and stderr (where only a
failure to start can have been written) goes to /dev/null.

But: it judges nothing, and uses only the standard library, run as ``python -I``.
"""

import importlib.abc
import importlib.machinery
import json
import os
import resource
import sys
import types

FILE_LIMIT = 10 * 2**20  # bytes a file written here may reach
ENGINE_REFUSAL = "the course's demonstration engine may not be used in an answer; write it yourself"


class EngineRefusedError(RuntimeError):
    """Raised by every part of the stand-in engine."""


def _refuse(*args: object, **kwargs: object) -> None:
    raise EngineRefusedError(ENGINE_REFUSAL)


def _other_part(name: str) -> object:
    if name.startswith("__"):  # the import system and tools probe dunders: say "not here"
        raise AttributeError(name)
    return _refuse


class _Merge(tuple):
    """Stands in for the engine's Merge NamedTuple, which lessons import but answers need not."""


class _EngineStandIn(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the stand-in for each of the engine's modules, also to an answer that removes
    one from sys.modules and imports it again."""

    def __init__(self, modules: list, parts: list) -> None:
        self.modules, self.parts = set(modules), parts

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in self.modules else None

    def exec_module(self, module: types.ModuleType) -> None:
        for name in self.parts:
            # A class refuses to be made (type() makes a __new__ static, as a class body would).
            refused = type(name, (), {"__new__": _refuse}) if name[0].isupper() else _refuse
            setattr(module, name, refused)
        module.Merge = _Merge
        module.Pair = tuple[str, str]
        module.__getattr__ = _other_part  # any other part of the engine: refused too


def refuse_engine(modules: list, parts: list) -> None:
    """Serve the stand-ins to every import of the engine's ``modules`` from now on (also to
    ``bpe_course``'s own ``__init__``, which imports them)."""
    for name in modules:
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, _EngineStandIn(modules, parts))


def limit_self(memory_bytes: int) -> None:
    """Limits on this process and all it starts, set here before the job is read rather than
    by the parent between fork and exec (address space: none if ``memory_bytes`` is 0)."""
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_one(
    name: str, func: object, missing: str, case_text: bytes, outcomes: types.ModuleType
) -> str:
    """One case's outcome as text. Its data lives only in this call, so while the answer
    runs on the next case, nothing of this one is left to find."""
    args = outcomes.loads(case_text.decode())
    if callable(func):
        outcome = outcomes.run_case(name, func, args)
        value, error, after = outcome.value, outcome.error, list(outcome.after)
    else:
        value, error, after = None, missing, list(args)
    return outcomes.dumps([value, error, after])


def main() -> None:
    limit_self(int(sys.argv[1]))  # no argument, no run: never without the limits
    results = os.fdopen(os.dup(1), "w", buffering=1)

    def send(line: dict) -> None:
        results.write(json.dumps(line) + "\n")

    # Ready: only now is the job sent, so a stop before this line ran no answer. Then the
    # job, then each case when its turn comes: the parent sends the next case only after
    # this one's outcome, so this process never holds another case, group or expected result.
    send({"ready": True})
    cases_in = os.fdopen(os.dup(0), "rb")
    job = json.loads(cases_in.readline())
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    sys.stdin = open(os.devnull)  # noqa: SIM115
    # From its text: it imports only the standard library, so nothing of ours need be importable.
    outcomes = types.ModuleType("_sandbox_outcomes")
    sys.modules[outcomes.__name__] = outcomes  # dataclasses look their module up while built
    exec(compile(job["outcomes_src"], "<_sandbox_outcomes>", "exec"), outcomes.__dict__)
    refuse_engine(job["engine_modules"], job["engine_parts"])
    # stderr has said only why this process could not start; what answers write is dropped.
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115

    for exercise in job["exercises"]:
        name = exercise["name"]
        send({"setup": name})  # the parent times the definitions from here
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        notes = []  # the first line of each error; the next statement runs all the same
        for source in exercise["statements"]:
            try:
                exec(compile(source, "<answer>", "exec"), namespace)
            except BaseException as error:  # noqa: BLE001 - student code may raise anything
                notes.append(f"{type(error).__name__}: {str(error)[:200]}")
        func = namespace.get(name)
        missing = f"NameError: name {name!r} is not defined" + (f" ({notes[0]})" if notes else "")
        for group, indices in exercise["groups"]:
            send({"start": [name, group]})  # the parent's time limit for this group starts now
            for index in indices:
                case_text = cases_in.readline()
                if not case_text:  # the parent has stopped sending
                    return
                outcome_text = run_one(name, func, missing, case_text, outcomes)
                del case_text  # the next case must not find this one
                send({"name": name, "group": group, "index": index, "outcome": outcome_text})
                del outcome_text
    results.close()


if __name__ == "__main__":
    main()
