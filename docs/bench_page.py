"""The site's benchmarks page, written from the records ``make bench`` leaves in artifacts/bench/.

Every ``*.json`` record there becomes a table of its figures (nested values flattened, in
the record's own order), headed by the bench script that writes it (the one whose source
names the file) and the time it was written, with the machine described: the record's own
``machine`` entry when it has one, otherwise the machine building the site (cores, Python,
the versions of the libraries the benches time), said as such. Each bench script's docstring
says what it measures. With no record it says how to make them.

But: it measures nothing and copies no figure by hand; a bench that only prints (and writes
no record) is listed with what it measures, without figures. No folder of any machine is
named: only file names relative to the course.
"""

from __future__ import annotations

import ast
import datetime
import importlib.metadata
import json
import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "artifacts" / "bench"
BENCH = ROOT / "bench"
LIBRARIES = ("numpy", "tokenizers", "tiktoken", "nbgrader", "dask", "distributed", "ipykernel")


def machine() -> dict[str, str]:
    """The building machine, described without naming any of its folders."""
    facts = {
        "cores": str(os.cpu_count()),
        "system": f"{platform.system()} {platform.machine()}",
        "Python": platform.python_version(),
    }
    for name in LIBRARIES:
        try:
            facts[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            facts[name] = "not installed"
    return facts


def flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    """(name, shown value) rows of a record, nested names joined by " › ".

    >>> flatten({"a": {"b": 1.23456, "c": [1, 2.5]}, "d": None})
    [('a › b', '1.235'), ('a › c', '1, 2.500'), ('d', '—')]
    """
    if isinstance(value, dict):
        rows = []
        for key, item in value.items():
            rows.extend(flatten(item, f"{prefix} › {key}" if prefix else str(key)))
        return rows
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return [(prefix, ", ".join(_show(v) for v in value))]
    if isinstance(value, list):
        return [row for i, item in enumerate(value) for row in flatten(item, f"{prefix} › {i}")]
    return [(prefix, _show(value))]


def _show(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(rows: list[tuple[str, str]], header: tuple[str, str]) -> list[str]:
    lines = [f"| {header[0]} | {header[1]} |", "|---|---|"]
    lines += [f"| {_cell(name)} | {_cell(value)} |" for name, value in rows]
    return lines


def scripts() -> dict[str, str]:
    """Each bench script's name and its docstring."""
    found = {}
    for path in sorted(BENCH.glob("bench_*.py")):
        found[path.name] = ast.get_docstring(ast.parse(path.read_text())) or ""
    return found


def writer_of(record: Path) -> str | None:
    """The bench script whose source names this record's file."""
    for path in sorted(BENCH.glob("bench_*.py")):
        if f'"{record.name}"' in path.read_text():
            return path.name
    return None


def render(records: Path = RECORDS) -> str:
    """The figures part of the benchmarks page (docs/guides/benchmarks.md is the rest)."""
    out = ["<!-- Written by docs/bench_page.py from artifacts/bench/*.json: never by hand. -->", ""]
    found = sorted(records.glob("*.json")) if records.is_dir() else []
    if not found:
        out += [
            "```{note}",
            "No bench has run on the machine that built this site, so there are no figures",
            "here yet. Run `make bench`, then `make docs`.",
            "```",
            "",
        ]
    here = machine()
    for record in found:
        try:
            data = json.loads(record.read_text())
        except (OSError, ValueError) as error:
            out += [f"## `{record.name}`", "", f"This record could not be read: {error}.", ""]
            continue
        writer = writer_of(record)
        when = datetime.datetime.fromtimestamp(record.stat().st_mtime, datetime.UTC)
        out += [f"## `{record.name}`", ""]
        out += [
            f"Written by `bench/{writer}`" if writer else "Written by a bench script",
            f"at {when:%Y-%m-%d %H:%M} UTC.",
            "",
        ]
        described = data.pop("machine", None) if isinstance(data, dict) else None
        if isinstance(described, dict):
            out += ["The machine it ran on, as the record says:", ""]
            out += table([(k, _show(v)) for k, v in described.items()], ("machine", "value"))
        else:
            out += [
                "The record does not describe its machine; the one below built this page, and",
                "is the one that ran the bench when `make bench` and `make docs` ran on it:",
                "",
            ]
            out += table(list(here.items()), ("machine", "value"))
        out += ["", *table(flatten(data), ("figure", "value")), ""]
    if not found:
        out += ["## The machine building this page", ""]
        out += [*table(list(here.items()), ("machine", "value")), ""]
    out += ["## What each bench measures", ""]
    for name, doc in scripts().items():
        out += [f"### `bench/{name}`", "", "```text", doc, "```", ""]
    return "\n".join(out).rstrip() + "\n"
