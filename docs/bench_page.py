"""The site's benchmarks page, written from the records ``make bench`` leaves in artifacts/bench/.

Every ``*.json`` record there gets a section: the command that wrote it (``make bench``, or
the script's own line with its arguments, as ``bench/record.py`` records it) and when; its
``targets`` as a table of goal, measured, limit and met or MISSED; the machine it ran on,
the record's own ``machine`` entry (otherwise the machine building the site, said as such);
then the rest of its figures (nested values flattened, in the record's own order; a list of
like rows as a table of its own). Rows that give each trainer's wall time and peak memory at
several text sizes (``scale.json``'s) are also drawn, time and memory against size, one line
per trainer told apart by marker and line style as well as colour, with alt text that says
what the lines show; the table beside it keeps every number. Each bench script's docstring
says what it measures. With no record it says how to make them.

But: it measures nothing, judges nothing (the verdicts are the record's) and copies no figure
by hand; a bench that only prints (and writes no record) is listed with what it measures,
without figures. No folder of any machine is named: only file names relative to the course.
"""

from __future__ import annotations

import ast
import base64
import datetime
import html
import importlib.metadata
import json
import os
import platform
import re
import sys
import tempfile
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "artifacts" / "bench"
BENCH = ROOT / "bench"
LIBRARIES = ("numpy", "tokenizers", "tiktoken", "nbgrader", "dask", "distributed", "ipykernel")
LIBRARIES += ("regex",)
# What bench/record.py puts before a record's figures, each shown in its own place.
HEADED = ("script", "command", "machine", "targets")


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


# An absolute path under a folder that holds machines' own files, anywhere in a cell.
_FOLDER = re.compile(r"(?<![\w.])/(home|root|tmp|Users|work|var|opt|mnt|srv|private)(/|$)")


def named_folder(text: str) -> bool:
    """Whether ``text`` names a folder of a machine (this one's, or a common one's).

    >>> [named_folder(t) for t in ("MB/s", "/etc/x", "run in /tmp/a", "Linux x86_64")]
    [False, True, True, False]
    """
    here = {str(ROOT), str(Path.home()), sys.prefix, tempfile.gettempdir()} - {"", "/"}
    return text.startswith("/") or bool(_FOLDER.search(text)) or any(f in text for f in here)


def _cell(text: str) -> str:
    # A record bench/record.py did not write may name a folder; the page never shows one.
    if named_folder(text):
        return "(a folder of the machine, left out)"
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return lines


def is_table(value: object) -> bool:
    """Whether ``value`` is rows of one table: dicts of the same keys, each value plain.

    >>> is_table([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]), is_table([{"a": {"b": 1}}])
    (True, False)
    """
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return False
    keys = list(value[0])
    return all(
        isinstance(row, dict)
        and list(row) == keys
        and all(not isinstance(v, dict | list) for v in row.values())
        for row in value
    )


def targets_table(targets: list) -> list[str]:
    """The record's targets as goal, measured, limit and its verdict, as the bench judged.

    >>> targets_table([{"goal": "a", "measured": 1.5, "limit": 2, "bound": "at most",
    ...                 "verdict": "met"}])[2]
    '| a | 1.500 | at most 2 | met |'
    """
    rows = []
    for item in targets:
        if not isinstance(item, dict):
            continue
        limit = _show(item.get("limit"))
        if item.get("bound"):
            limit = f"{item['bound']} {limit}"
        rows.append((_show(item.get("goal")), _show(item.get("measured")), limit))
        rows[-1] += (_show(item.get("verdict")),)
    return table(rows, ("goal", "measured", "limit", "met or MISSED"))


@dataclass(frozen=True)
class Chart:
    """What a figure of a table of runs draws: which column is the size on the x axis, which
    names each line, the two columns drawn against the size, and how each is said."""

    size: str  # the column of the x axis
    series: str  # the column naming each line
    left: str  # the column of the left chart
    right: str  # the column of the right chart
    x_label: str
    left_label: str
    right_label: str
    intro: str  # the alt text's first sentence
    point: str  # one point in words, from x, left and right


SCALE = Chart(
    "text (MB)",
    "trainer",
    "wall (s)",
    "peak memory (MB)",
    "text (MB)",
    "wall time (s)",
    "peak memory (MB)",
    "Two line charts, both axes logarithmic: wall time (seconds, left) and peak memory (MB, "
    "right) against the size of the text (MB), one line per trainer.",
    "{x:g} MB in {left:.3g} s and {right:,.0f} MB",
)
# bench_thousand.py's steps: a step whose line stays flat on the left grows linearly.
PER_STUDENT = Chart(
    "students",
    "step",
    "s a student",
    "peak memory (MB)",
    "class (students)",
    "wall seconds a student",
    "peak memory (MB)",
    "Two line charts, both axes logarithmic: each step's wall seconds a student (left; a "
    "level line is a step whose cost grows in proportion to the class) and its peak memory "
    "(MB, right) against the size of the class (students), one line per step.",
    "{x:g} students, {left:.3g} s a student and {right:,.0f} MB",
)
CHARTS = (SCALE, PER_STUDENT)
# Okabe-Ito colours, safe for colour-blind readers; markers and dashes tell the lines apart
# without any colour at all.
STYLES = [
    ("#0072B2", "o", "-"),
    ("#D55E00", "s", "--"),
    ("#009E73", "^", "-."),
    ("#CC79A7", "D", ":"),
    ("#E69F00", "v", (0, (5, 1, 1, 1, 1, 1))),
    ("#56B4E9", "P", (0, (1, 3))),
    ("#000000", "X", (0, (3, 1))),
    # Okabe-Ito's eighth colour, yellow, is too pale on white: blue again, told apart by its
    # stars and long dashes.
    ("#0072B2", "*", (0, (8, 4))),
]
COLOURS = ["blue", "vermillion", "green", "pink", "orange", "sky blue", "black", "blue"]
LINES = ["solid line", "dashed line", "dash-dot line", "dotted line", "dash-dot-dot line"]
LINES += ["loosely dotted line", "densely dashed line", "long-dashed line"]
MARKERS = {"o": "circles", "s": "squares", "^": "triangles", "D": "diamonds"}
MARKERS |= {"v": "downward triangles", "P": "plus signs", "X": "crosses", "*": "stars"}


def scale_series(
    rows: list[dict], chart: Chart = SCALE
) -> dict[str, list[tuple[float, float, float]]]:
    """Each line's (size, left, right) points in size order, lines in the rows' order.

    >>> scale_series([{"text (MB)": 30, "trainer": "a", "wall (s)": 2, "peak memory (MB)": 9},
    ...               {"text (MB)": 1, "trainer": "a", "wall (s)": 1, "peak memory (MB)": 5}])
    {'a': [(1.0, 1.0, 5.0), (30.0, 2.0, 9.0)]}
    """
    series: dict[str, list[tuple[float, float, float]]] = {}
    for row in rows:
        point = (float(row[chart.size]), float(row[chart.left]), float(row[chart.right]))
        series.setdefault(_label(str(row[chart.series])), []).append(point)
    return {name: sorted(points) for name, points in series.items()}


def _label(name: str) -> str:
    """A line's name as the figure and its alt text show it: on one line, no folder."""
    return "(a folder of the machine, left out)" if named_folder(name) else " ".join(name.split())


def draws(rows: object) -> Chart | None:
    """The chart a figure of ``rows`` draws, if it is a table of runs one can draw."""
    if not is_table(rows):
        return None
    assert isinstance(rows, list)
    for chart in CHARTS:
        numbers = (chart.size, chart.left, chart.right)
        if {chart.series, *numbers} <= set(rows[0]) and all(
            isinstance(row[key], int | float) and row[key] > 0 for row in rows for key in numbers
        ):
            return chart
    return None


def describe_scale(
    series: dict[str, list[tuple[float, float, float]]], chart: Chart = SCALE
) -> str:
    """The alt text of a figure: what it draws, and each line's points in words.

    >>> print(describe_scale({"a": [(1.0, 1.5, 5.0), (30.0, 2.0, 9.0)]}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Two line charts, both axes logarithmic: wall time (seconds, left) and peak memory (MB,
    right) against the size of the text (MB), one line per trainer. a (blue, solid line,
    circles): 1 MB in 1.5 s and 5 MB, 30 MB in 2 s and 9 MB. The table below holds every
    figure.
    """
    parts = []
    for number, (name, points) in enumerate(series.items()):
        at = number % len(STYLES)
        said = ", ".join(
            chart.point.format(x=x, left=left, right=right) for x, left, right in points
        )
        style = f"{COLOURS[at]}, {LINES[at]}, {MARKERS[STYLES[at][1]]}"
        parts.append(f"{name} ({style}): {said}.")
    return f"{chart.intro} " + " ".join(parts) + " The table below holds every figure."


def scale_figure(rows: list[dict], chart: Chart = SCALE) -> list[str]:
    """The figure of ``rows`` as an inline SVG image with its alt text, as page lines."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure  # no pyplot: no window, no global state
    from matplotlib.ticker import NullLocator

    series = scale_series(rows, chart)
    figure = Figure(figsize=(10, 4.2))
    left, right = figure.subplots(1, 2)
    for number, (name, points) in enumerate(series.items()):
        colour, marker, dashes = STYLES[number % len(STYLES)]
        sizes = [point[0] for point in points]
        for axes, column in ((left, 1), (right, 2)):
            values = [point[column] for point in points]
            axes.plot(sizes, values, color=colour, marker=marker, linestyle=dashes, label=name)
    sizes_run = sorted({point[0] for points in series.values() for point in points})
    for axes, label in ((left, chart.left_label), (right, chart.right_label)):
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xticks(sizes_run, [f"{size:g}" for size in sizes_run])  # the sizes the bench ran
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xlabel(chart.x_label)
        axes.set_ylabel(label)
        axes.grid(alpha=0.3, which="both")
    left.legend(fontsize="small")
    figure.tight_layout()
    svg = StringIO()
    # No date and a fixed salt for the SVG's ids: the same record makes the same picture.
    with rc_context({"svg.hashsalt": "bench-page"}):
        figure.savefig(svg, format="svg", metadata={"Date": None})
    data = base64.b64encode(svg.getvalue().encode("utf-8")).decode("ascii")
    # Escaped whole: a record is a file anyone may have edited, and the page is HTML.
    alt = html.escape(" ".join(describe_scale(series, chart).split()), quote=True)
    return [f'<img src="data:image/svg+xml;base64,{data}" alt="{alt}" width="100%">', ""]


def scripts() -> dict[str, str]:
    """Each bench script's name and its docstring."""
    found = {}
    for path in sorted(BENCH.glob("bench_*.py")):
        found[path.name] = ast.get_docstring(ast.parse(path.read_text())) or ""
    return found


def writer_of(record: Path) -> str | None:
    """The bench script whose source names this record's file, or its record.Run's name."""
    names = (f'"{record.name}"', f'Run("{record.stem}"')
    for path in sorted(BENCH.glob("bench_*.py")):
        source = path.read_text()
        if any(name in source for name in names):
            return path.name
    return None


def written_by(record: Path, data: dict) -> list[str]:
    """The line saying which command wrote the record, and when."""
    machine_entry = data.get("machine")
    ended = machine_entry.get("ended (UTC)") if isinstance(machine_entry, dict) else None
    if isinstance(ended, str):
        when = ended[:16]
    else:  # a record from before bench/record.py: its file's time
        stamp = datetime.datetime.fromtimestamp(record.stat().st_mtime, datetime.UTC)
        when = f"{stamp:%Y-%m-%d %H:%M}"
    script, command = data.get("script"), data.get("command")
    if isinstance(command, str) and named_folder(command):
        command = None
    if isinstance(command, str) and command == "make bench" and isinstance(script, str):
        return [f"Written by `make bench` (its `{script}`) at {when} UTC."]
    if isinstance(command, str) and isinstance(script, str):
        alone = command.endswith(script)  # no arguments: the defaults `make bench` runs with
        how = "the defaults `make bench` runs it with" if alone else "not `make bench`'s defaults"
        return [f"Written by `{command}` ({how}) at {when} UTC."]
    writer = writer_of(record)
    return [
        f"Written by `bench/{writer}` (part of `make bench`)" if writer else "Written by a bench",
        f"at {when} UTC.",
    ]


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
            # An OSError's text names the file's full path; its reason alone does not.
            why = error.strerror if isinstance(error, OSError) else str(error)
            out += [f"## `{record.name}`", "", f"This record could not be read: {why}.", ""]
            continue
        if not isinstance(data, dict):
            data = {"value": data}
        out += [f"## `{record.name}`", "", *written_by(record, data), ""]
        targets = data.get("targets")
        if isinstance(targets, list) and targets:
            out += ["Its targets, as the bench judged them:", "", *targets_table(targets), ""]
        else:
            out += [
                "This record has no `targets` list (as `bench/record.py` writes one): any",
                "verdict it holds is among its figures below.",
                "",
            ]
        described = data.get("machine")
        if isinstance(described, dict):
            out += ["The machine it ran on, as the record says:", ""]
            out += table(flatten(described), ("machine", "value"))
        else:
            out += [
                "The record does not describe its machine; the one below built this page, and",
                "is the one that ran the bench when `make bench` and `make docs` ran on it:",
                "",
            ]
            out += table(list(here.items()), ("machine", "value"))
        figures = {key: value for key, value in data.items() if key not in HEADED}
        # A list of like rows (one per run, say) reads as the table the bench printed.
        rows = {key: value for key, value in figures.items() if is_table(value)}
        rest = {key: value for key, value in figures.items() if key not in rows}
        out += ["", *table(flatten(rest), ("figure", "value")), ""]
        for key, value in rows.items():
            header = tuple(str(k) for k in value[0])
            cells = [tuple(_show(v) for v in row.values()) for row in value]
            out += [f"{key}:", ""]
            chart = draws(value)
            if chart is not None:
                out += scale_figure(value, chart)
            out += [*table(cells, header), ""]
    if not found:
        out += ["## The machine building this page", ""]
        out += [*table(list(here.items()), ("machine", "value")), ""]
    out += ["## What each bench measures", ""]
    for name, doc in scripts().items():
        out += [f"### `bench/{name}`", "", "```text", doc, "```", ""]
    return "\n".join(out).rstrip() + "\n"
