"""Pull out of a notebook what the verify step needs: a student's answer code and the examples.

:func:`answer_statements` gives the statements that define exercise ``name`` the way the
notebook would: every ``import``, ``def`` and ``class`` of the code cells before the answer
cell (test cells excepted), then each statement of the answer cell except bare expressions
(demo calls such as ``print(train_bpe(...))`` need the lesson's variables and are not part of
the answer). Lines of IPython magic (``%``, ``!``) are dropped.

:func:`example_calls` reads the visible examples test cell of the master notebook and returns
the argument tuples of each call of the exercise whose arguments are literals, or names bound
to literals in that cell, so the examples can be re-run outside the student's kernel.

This module only parses; it never runs code.

>>> example_calls('t = ("a", "b")\\nassert merge_pair(t, ("a", "b")) == ("ab",)', "merge_pair")
[(('a', 'b'), ('a', 'b'))]
"""

from __future__ import annotations

import ast

import nbformat

_KEEP_BEFORE = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _meta(cell: nbformat.NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _parse(source: str) -> tuple[ast.Module, list[str]] | None:
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines)), lines
    except SyntaxError:
        return None


def _statement_sources(source: str, keep: tuple[type, ...] | None) -> list[str]:
    parsed = _parse(source)
    if parsed is None:
        return [source]  # let it fail where it runs, with Python's own message
    tree, lines = parsed
    out = []
    for node in tree.body:
        if keep is not None and not isinstance(node, keep):
            continue
        if keep is None and isinstance(node, ast.Expr):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        out.append("\n".join(lines[first - 1 : node.end_lineno]))
    return out


def definitions_only(source: str) -> str:
    """Only the ``import``, ``def`` and ``class`` statements of ``source`` (a lesson cell)."""
    parsed = _parse(source)
    return "\n\n".join(_statement_sources(source, _KEEP_BEFORE)) if parsed else ""


def find_answer_cell(notebook: nbformat.NotebookNode, name: str) -> int | None:
    """The index of the solution cell whose grade_id is ``name``."""
    for index, cell in enumerate(notebook.cells):
        meta = _meta(cell)
        if cell.cell_type == "code" and meta.get("solution") and meta.get("grade_id") == name:
            return index
    return None


def answer_statements(notebook: nbformat.NotebookNode, name: str) -> list[str] | None:
    """The statements that define ``name`` as the notebook would, or None without its cell."""
    index = find_answer_cell(notebook, name)
    if index is None:
        return None
    statements: list[str] = []
    for cell in notebook.cells[:index]:
        if cell.cell_type == "code" and not _meta(cell).get("grade"):
            statements += _statement_sources(cell.source, _KEEP_BEFORE)
    return statements + _statement_sources(notebook.cells[index].source, None)


def _value(node: ast.AST, bound: dict) -> object:
    if isinstance(node, ast.Name):
        if node.id in bound:
            return bound[node.id]
        raise ValueError(node.id)
    return ast.literal_eval(node)


def example_calls(source: str, name: str) -> list[tuple]:
    """Argument tuples of the calls of ``name`` in ``source`` that use only literals."""
    parsed = _parse(source)
    if parsed is None:
        return []
    tree, _ = parsed
    bound: dict[str, object] = {}
    calls: list[tuple] = []
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            try:
                bound[statement.targets[0].id] = _value(statement.value, bound)
            except (ValueError, SyntaxError, TypeError):
                bound.pop(statement.targets[0].id, None)
        for node in ast.walk(statement):
            is_call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if not is_call or node.func.id != name or node.keywords:
                continue
            try:
                args = tuple(_value(arg, bound) for arg in node.args)
            except (ValueError, SyntaxError, TypeError):
                continue
            if args not in calls:
                calls.append(args)
    return calls
