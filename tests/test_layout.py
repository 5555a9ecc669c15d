"""The project's imports run one way, with no cycle.

Every import statement (those inside functions too) of ``autograder``, ``solutions``,
``bpe_course``, ``bench``, ``tests`` and ``course_fixtures``, the modules
``nbgrader_config.py`` names as strings, and the imports of the masters' code cells are
read with ``ast`` and checked against the rules below. Small made-up trees show that the
checker finds a cycle, a wrong edge and a helper beside the plug-ins.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("autograder", "solutions", "bpe_course", "bench", "tests", "course_fixtures")
# autograder's rooms, bottom first: a module imports only from its own room or one below.
ROOMS = (
    "course",  # with roster, cells and problems beside it
    "hidden_tests",
    "sandbox",  # all that confines or distrusts student code
    "plugins",  # classes nbgrader loads, and nothing else
    "reports",
    "grading",
    "formgrader",  # shows the grading service's progress
    "release",
    "cli",  # the one command line, over every room
    "__main__",  # python -m autograder, over the command line
)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Every module name an import in ``source`` may refer to (``from a import b``: a and a.b)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def project_edges(root: Path) -> dict[str, set[str]]:
    """Module -> the project's modules it imports, for every .py file of ``PACKAGES``."""
    files = {
        module_name(path, root): path
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if ".ipynb_checkpoints" not in path.parts
    }
    edges: dict[str, set[str]] = {}
    for module, path in files.items():
        names = imported_names(path.read_text(), module, path.name == "__init__.py")
        edges[module] = {name for name in names if name in files and name != module}
    return edges


def string_edges(root: Path) -> dict[str, set[str]]:
    """The modules that nbgrader_config.py and the masters' code cells import."""
    config = (root / "nbgrader_config.py").read_text()
    named = {m.rsplit(".", 1)[0] for m in re.findall(r'"(autograder\.[\w.]+)"', config)}
    edges = {"nbgrader_config": named}
    for path in sorted((root / "source").rglob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        lines = [line for cell in code for line in cell.splitlines() if "import" in line]
        names = imported_names("\n".join(line.strip() for line in lines), "", False)
        edges[f"master:{path.name}"] = {n for n in names if n.split(".")[0] in PACKAGES}
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(edges):
        if module not in state and (found := visit(module)):
            return found
    return None


def room(module: str) -> int:
    parts = module.split(".")
    return ROOMS.index(parts[1]) if len(parts) > 1 and parts[1] in ROOMS else 0


def wrong_edges(edges: dict[str, set[str]]) -> list[str]:
    """Every import against the project's directions, as ``a -> b: why``."""
    wrong = []
    for source, targets in edges.items():
        top = source.split(".")[0]
        for target in sorted(targets):
            into = target.split(".")[0]
            why = ""
            if into == "tests" and top != "tests":
                why = "only tests/ imports tests/ (bench/ shares course_fixtures/)"
            elif into == "course_fixtures" and top not in ("tests", "bench", "course_fixtures"):
                why = "only tests/ and bench/ import course_fixtures/"
            elif into == "bench" and top not in ("tests", "bench"):
                why = "only tests/ import bench/ (to test the benches)"
            elif top == "bpe_course" and into != "bpe_course":
                why = "the public library imports nothing of the instructors'"
            elif top == "solutions" and into not in ("solutions", "bpe_course"):
                why = "solutions/ uses only bpe_course"
            elif top == "autograder" and into == "autograder" and room(target) > room(source):
                why = f"{ROOMS[room(source)]} may not import the room above it"
            elif source.startswith("master:") and room(target) > ROOMS.index("hidden_tests"):
                why = "a grading kernel imports only autograder.hidden_tests"
            if why:
                wrong.append(f"{source} -> {target}: {why}")
    return wrong


def third_party_in_hidden_tests(root: Path) -> list[str]:
    """Imports of hidden_tests that are neither the project's nor the standard library's."""
    allowed = {*sys.stdlib_module_names, "__future__", "autograder", "solutions", "bpe_course"}
    found = []
    for path in sorted((root / "autograder" / "hidden_tests").glob("*.py")):
        module = module_name(path, root)
        for name in imported_names(path.read_text(), module, path.name == "__init__.py"):
            if name.split(".")[0] not in allowed:
                found.append(f"{module} imports {name}")
    return found


def test_imports_run_one_way_with_no_cycle() -> None:
    edges = {**project_edges(ROOT), **string_edges(ROOT)}
    assert any(edges.values()), "no import was read: the walker is broken"
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])
    assert wrong_edges(edges) == []
    assert third_party_in_hidden_tests(ROOT) == []


PLUGIN_LIBRARIES = ("nbgrader", "nbconvert", "jupyter_client")


def not_plugins(folder: Path) -> list[str]:
    """Modules of ``folder`` that define no class built on nbgrader's, nbconvert's or
    jupyter_client's (a preprocessor, an exporter, a collect, a kernel manager)."""
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        plugin_names = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] in PLUGIN_LIBRARIES
            for alias in node.names
        }
        bases = {
            base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for base in node.bases
        }
        if not bases & plugin_names:
            found.append(path.name)
    return found


def test_plugins_holds_plugins_alone(tmp_path: Path) -> None:
    assert not_plugins(ROOT / "autograder" / "plugins") == []
    # The check itself: a helper module beside a plug-in is found.
    (tmp_path / "step.py").write_text(
        "from nbgrader.preprocessors import NbGraderPreprocessor\n"
        "class Step(NbGraderPreprocessor):\n    pass\n"
    )
    (tmp_path / "helper.py").write_text("class Cells:\n    pass\n")
    assert not_plugins(tmp_path) == ["helper.py"]


def test_config_and_masters_name_modules_that_exist() -> None:
    modules = set(project_edges(ROOT))
    for source, targets in string_edges(ROOT).items():
        assert targets, f"{source} names no module of the project"
        for target in targets:
            assert target in modules or target.rsplit(".", 1)[0] in modules, (source, target)


def test_the_checker_finds_a_cycle_and_a_wrong_edge(tmp_path: Path) -> None:
    (tmp_path / "autograder" / "grading").mkdir(parents=True)
    (tmp_path / "autograder" / "hidden_tests").mkdir()
    (tmp_path / "bpe_course").mkdir()
    (tmp_path / "autograder" / "hidden_tests" / "a.py").write_text(
        "def f():\n    from autograder.grading import b\n"  # inside a function still counts
    )
    (tmp_path / "autograder" / "grading" / "b.py").write_text(
        "from autograder.hidden_tests import a\n"
    )
    (tmp_path / "bpe_course" / "c.py").write_text("import solutions.bpe\nimport autograder\n")
    (tmp_path / "autograder" / "__init__.py").write_text("")
    edges = project_edges(tmp_path)
    assert find_cycle(edges) == [
        "autograder.grading.b",
        "autograder.hidden_tests.a",
        "autograder.grading.b",
    ]
    assert wrong_edges(edges) == [
        "autograder.hidden_tests.a -> autograder.grading.b: "
        "hidden_tests may not import the room above it",
        "bpe_course.c -> autograder: the public library imports nothing of the instructors'",
    ]
