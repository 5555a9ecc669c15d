"""Read a notebook's cells: which are the lesson's, a student's answer code, the examples.

- ``LessonCells`` tells the master notebook's cells from those a student added;
- ``answer_statements`` gives the statements that define an exercise as the notebook would
  (lesson cells: only imports and definitions; the answer and the student's own cells: all
  but bare expressions);
- ``example_calls`` reads the literal calls of a visible examples cell;
- ``engine_uses`` names the parts of the demonstration engine an answer refers to.

But: it only parses; it never runs code.

>>> example_calls('t = ("a", "b")\\nassert merge_pair(t, ("a", "b")) == ("ab",)', "merge_pair")
[(('a', 'b'), ('a', 'b'))]
"""

from __future__ import annotations

import ast

import nbformat

from autograder.course import ENGINE_PARTS
from bpe_course.lesson_cells import (
    DEFINITIONS,
    LessonMarks,
    nbgrader_meta,
    parse,
    source_sha256,
    statement_sources,
)


class LessonCells(LessonMarks):
    """The cells of a master notebook, to tell the lesson's cells from those a student added,
    by the rule of ``bpe_course.lesson_cells.LessonMarks`` that the self-check applies too.
    Without a master every cell counts as the lesson's.

    >>> from nbformat.v4 import new_code_cell, new_notebook
    >>> lesson = LessonCells(new_notebook(cells=[new_code_cell("x = 1", id="l-1")]))
    >>> lesson.holds(new_code_cell("x = 2", id="l-1")), lesson.holds(new_code_cell("x = 1"))
    (True, True)
    >>> lesson.holds(new_code_cell("STEP = 1", id="mine"))
    False
    """

    def __init__(self, master: nbformat.NotebookNode | None) -> None:
        cells = master.cells if master is not None else []
        ids = (c.get("id") for c in cells)
        super().__init__(ids, (source_sha256(c.source) for c in cells), master is not None)


def answer_statements(
    notebook: nbformat.NotebookNode, name: str, master: nbformat.NotebookNode | None = None
) -> list[str] | None:
    """The statements that define ``name`` as the notebook would (the module says which), or
    None without its cell; without ``master`` (the lesson's master notebook) every cell other
    than the answer is the lesson's."""
    own = _own_cells(notebook, name, master)
    if own is None:
        return None
    return [
        statement
        for cell, whole in own
        for statement in statement_sources(cell.source, None if whole else DEFINITIONS)
    ]


def _value(node: ast.AST, bound: dict) -> object:
    if isinstance(node, ast.Name) and node.id in bound:
        return bound[node.id]
    return ast.literal_eval(node)  # ValueError for any other name


def example_calls(source: str, name: str) -> list[tuple]:
    """Argument tuples of the calls of ``name`` in ``source`` that use only literals."""
    parsed = parse(source)
    if parsed is None:
        return []
    bound: dict[str, object] = {}
    calls: list[tuple] = []
    for statement in parsed[0].body:
        match statement:
            case ast.Assign(targets=[ast.Name(id=target)]):
                try:
                    bound[target] = _value(statement.value, bound)
                except (ValueError, SyntaxError, TypeError):
                    bound.pop(target, None)
        for node in ast.walk(statement):
            match node:
                case ast.Call(func=ast.Name(id=called), keywords=[]) if called == name:
                    try:
                        args = tuple(_value(arg, bound) for arg in node.args)
                    except (ValueError, SyntaxError, TypeError):
                        continue
                    if args not in calls:
                        calls.append(args)
    return calls


def _own_cells(
    notebook: nbformat.NotebookNode, name: str, master: nbformat.NotebookNode | None
) -> list[tuple[nbformat.NotebookNode, bool]] | None:
    """The code cells (test cells excepted) up to the exercise's first test cell, each with
    True when it is the answer cell (grade_id ``name``) or one the student added; None
    without an answer cell."""
    answer = tests = None
    for index, cell in enumerate(notebook.cells):
        meta = nbgrader_meta(cell)
        grade_id = str(meta.get("grade_id", ""))
        is_answer = cell.cell_type == "code" and meta.get("solution") and grade_id == name
        if answer is None and is_answer:
            answer = index
        if tests is None and meta.get("grade") and grade_id.startswith(f"test_{name}_"):
            tests = index
    if answer is None:
        return None
    end = tests if tests is not None and tests > answer else answer + 1
    lesson = LessonCells(master)
    return [
        (cell, at == answer or not lesson.holds(cell))
        for at, cell in enumerate(notebook.cells[:end])
        if cell.cell_type == "code" and not nbgrader_meta(cell).get("grade")
    ]


def engine_uses(
    notebook: nbformat.NotebookNode, name: str, master: nbformat.NotebookNode | None = None
) -> list[str]:
    """The parts of the course's demonstration engine (``bpe_course.engine``) that the
    student's own code for exercise ``name`` refers to: names imported from ``bpe_course``
    and not redefined by the student, or attributes of an imported ``bpe_course`` module.
    A signal for a person, not a verdict (the judge's sandbox refuses the engine anyway).

    >>> from nbformat.v4 import new_code_cell, new_notebook
    >>> cell = new_code_cell("from bpe_course import learn_merges\\n\\n"
    ...                      "def train_bpe(wc, n):\\n    return learn_merges(wc, n)")
    >>> cell.metadata["nbgrader"] = {"grade_id": "train_bpe", "solution": True}
    >>> engine_uses(new_notebook(cells=[cell]), "train_bpe")
    ['learn_merges']
    """
    imported: dict[str, str] = {}  # local name -> engine name
    modules: set[str] = set()  # local names of bpe_course or bpe_course.engine
    own_trees: list[ast.Module] = []
    for cell, own in _own_cells(notebook, name, master) or []:
        parsed = parse(cell.source)
        if parsed is None:
            continue
        tree = parsed[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpe_course"):
                for alias in node.names:
                    if alias.name in ENGINE_PARTS:
                        imported[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("bpe_course"):
                        modules.add(alias.asname or alias.name.split(".")[0])
        if own:
            own_trees.append(tree)
    rebound = {
        node.name
        for tree in own_trees
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    found: list[str] = []
    for tree in own_trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in imported and node.id not in rebound:
                found.append(imported[node.id])
            elif isinstance(node, ast.Attribute) and node.attr in ENGINE_PARTS:
                base = node.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in modules:
                    found.append(node.attr)
    return sorted(set(found))
