"""The records the benches write through ``bench/record.py``, without running a long bench.

A record written into a temporary folder holds the machine (cores, Python, the benches'
libraries, the load average at the start and the end, the UTC times), the targets judged
from measured against limit in both directions, and names no folder of the machine; a figure
that would name one is refused before anything is written. Each bench script writes its
record through it (read with ``ast``), and ``bench_widget.py`` runs for real on a small text
into a temporary folder (``$BENCH_RECORDS``); ``bench_scale.py`` on 2 MB is the slow one.

But: the figures themselves come from ``make bench`` alone. The modules are loaded from their
files, as ``make bench`` runs them (each bench imports ``record`` as its sibling).
"""

from __future__ import annotations

import ast
import doctest
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

BENCH = ROOT / "bench"
# Each converted bench and the record it writes; bench_before_after.py writes its own still.
WRITERS = {
    "bench_scale.py": "scale",
    "bench_training.py": "training",
    "bench_widget.py": "widget",
    "bench_class.py": "class",
    "bench_install.py": "install",
    "bench_selfcheck.py": "selfcheck",
    "bench_similarity.py": "similarity",
    "bench_service.py": "service",
    "bench_feedback.py": "feedback",
    "bench_formgrader.py": "formgrader",
    "bench_thousand.py": "thousand",
}


def load_record():
    spec = importlib.util.spec_from_file_location("bench_record", BENCH / "record.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


record = load_record()


def assert_names_no_folder(text: str, *folders: Path) -> None:
    for folder in (ROOT, Path.home(), Path(sys.prefix), Path(tempfile.gettempdir()), *folders):
        assert str(folder) not in text, folder
    strings = []

    def collect(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            strings.extend(map(str, value))
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(json.loads(text))
    assert not [s for s in strings if s.startswith("/")], strings


def test_docstring_examples() -> None:
    result = doctest.testmod(record)
    assert result.failed == 0 and result.attempted > 0


def test_targets_are_judged_at_most_and_at_least() -> None:
    assert record.target("fast", 1.0, 1.0)["verdict"] == "met"  # the limit itself is met
    assert record.target("fast", 1.01, 1.0)["verdict"] == "MISSED"
    assert record.target("speedup", 1.66, 1.66, at_least=True)["verdict"] == "met"
    assert record.target("speedup", 1.5, 1.66, at_least=True)["verdict"] == "MISSED"
    assert record.target("speedup", 2.0, 1.66, at_least=True)["bound"] == "at least"
    # What could not be measured has not been shown to meet its goal.
    for unmeasured in (None, float("nan"), float("inf")):
        judged = record.target("loop", unmeasured, 1.5)
        assert judged["verdict"] == "MISSED" and judged["measured"] is None
    assert set(record.target("g", 1, 2)) == {"goal", "measured", "limit", "bound", "verdict"}


def test_a_record_has_the_machine_targets_and_figures_and_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAKELEVEL", raising=False)
    run = record.Run("example", BENCH / "bench_widget.py", ["--bytes", "1000"])
    run.target("one click (ms)", 12.0, 50)
    run.target("speedup", 1.2, 1.66, at_least=True)
    out = run.write({"clicks": 20, "ratio": float("nan"), "nested": {"a": [1, 2.5]}}, tmp_path)
    assert out == tmp_path / "example.json"
    assert [p.name for p in tmp_path.iterdir()] == ["example.json"]  # no temporary file left
    text = out.read_text()
    data = json.loads(text)
    assert list(data)[:4] == ["script", "command", "machine", "targets"]
    assert data["script"] == "bench/bench_widget.py"
    assert data["command"] == "PYTHONPATH=. .venv/bin/python bench/bench_widget.py --bytes 1000"
    machine = data["machine"]
    assert machine["cores"] == os.cpu_count() and machine["Python"]
    assert set(record.LIBRARIES) <= machine.keys()
    assert {"system", "git commit", "started (UTC)", "ended (UTC)"} <= machine.keys()
    assert set(machine["load average (1 min)"]) == {"start", "end"}
    if record.cpu_model():
        assert machine["CPU"] == record.cpu_model()
    assert [t["verdict"] for t in data["targets"]] == ["met", "MISSED"]
    assert data["clicks"] == 20 and data["ratio"] is None and data["nested"] == {"a": [1, 2.5]}
    assert_names_no_folder(text, tmp_path)


def test_a_run_names_the_commit_it_started_on_when_a_later_one_is_checked_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        record, "code", lambda: {"git commit": "aaaa111", "files changed since the commit": 0}
    )
    run = record.Run("example", BENCH / "bench_widget.py", [])
    monkeypatch.setattr(
        record, "code", lambda: {"git commit": "bbbb222", "files changed since the commit": 2}
    )
    machine = json.loads(run.write({}, tmp_path).read_text())["machine"]
    assert machine["git commit"] == "aaaa111" and machine["files changed since the commit"] == 0
    assert machine["git commit when written"] == "bbbb222"
    again = record.Run("example", BENCH / "bench_widget.py", [])  # no commit in between
    assert (
        "git commit when written"
        not in json.loads(again.write({}, tmp_path).read_text())["machine"]
    )


def test_the_command_is_make_bench_for_its_defaults_under_make(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MAKELEVEL", "1")
    assert record.Run("x", BENCH / "bench_scale.py", []).command() == "make bench"
    run = record.Run("x", BENCH / "bench_scale.py", ["--sizes", "1,2"])
    assert run.command() == "PYTHONPATH=. .venv/bin/python bench/bench_scale.py --sizes 1,2"


def test_a_record_naming_a_folder_is_refused_and_nothing_written(tmp_path: Path) -> None:
    run = record.Run("leaky", BENCH / "bench_widget.py", [])
    for figures in ({"corpus": str(tmp_path / "corpus.txt")}, {str(ROOT): 1}, {"a": ["/etc"]}):
        with pytest.raises(ValueError, match="name folders"):
            run.write(figures, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_folder_comes_from_bench_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_RECORDS", str(tmp_path / "records"))
    out = record.Run("here", BENCH / "bench_widget.py", []).write({})
    assert out == tmp_path / "records" / "here.json"


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


@pytest.mark.parametrize("script", sorted(WRITERS))
def test_each_bench_writes_its_record_through_record_py(script: str) -> None:
    source = (BENCH / script).read_text()
    tree = ast.parse(source)
    assert any(
        isinstance(node, ast.Import) and [a.name for a in node.names] == ["record"]
        for node in ast.walk(tree)
    )
    runs = [
        call
        for call in _calls(tree)
        if isinstance(call.func, ast.Attribute)
        and call.func.attr == "Run"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "record"
    ]
    assert [ast.literal_eval(call.args[0]) for call in runs] == [WRITERS[script]]
    methods = {c.func.attr for c in _calls(tree) if isinstance(c.func, ast.Attribute)}
    assert {"target", "write"} <= methods
    # Its verdicts come from the record's targets, not a verdict of its own beside them.
    assert '"met" if' not in source and "def verdict" not in source
    assert '"artifacts"' not in source  # the folder is record.py's (or $BENCH_RECORDS)


def _run_bench(script: str, *arguments: str, folder: Path, timeout: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_RECORDS": str(folder)}
    env.pop("MAKELEVEL", None)
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    name = WRITERS[script]
    assert [p.name for p in folder.iterdir()] == [f"{name}.json"]
    text = (folder / f"{name}.json").read_text()
    assert_names_no_folder(text, folder)
    data = json.loads(text)
    for judged in data["targets"]:
        assert judged["verdict"] in done.stdout  # what it prints is what it records
    return data


def test_bench_widget_writes_its_record_for_real(tmp_path: Path) -> None:
    data = _run_bench(
        "bench_widget.py", "--bytes", "1000", "--clicks", "10", folder=tmp_path, timeout=300
    )
    assert data["command"].endswith("bench/bench_widget.py --bytes 1000 --clicks 10")
    [click] = data["targets"]
    assert click["limit"] == 50 and click["bound"] == "at most"
    assert click["measured"] == data["Next click (ms)"]["worst"]
    assert click["verdict"] == ("met" if click["measured"] <= 50 else "MISSED")
    assert data["clicks"] == 10 and data["text"]["bytes"] <= 1000
    assert data["machine"]["cores"] == os.cpu_count()


@pytest.mark.slow
def test_bench_scale_writes_its_record_for_real(tmp_path: Path) -> None:
    # Fresh processes for every job: about 30 s on two busy cores even at 2 MB.
    data = _run_bench(
        "bench_scale.py",
        "--sizes",
        "1,2",
        "--merges",
        "200",
        folder=tmp_path,
        timeout=600,
    )
    # The encoder cold and warm; memory at 1 MB; wall and memory at 2 MB, and lesson 3's
    # cell's memory; Dask's merges at each size.
    assert len(data["targets"]) == 8
    assert data["encoding 1 MB held out (CPU s, one thread each)"]["tokens"] > 200_000
    assert {row["text (MB)"] for row in data["training"]} == {1, 2}
    assert data["merges"] == 200 and data["sizes (MB)"] == [1, 2]
    [cell] = [row for row in data["training"] if row["trainer"] == "lesson 3's own-text cell"]
    assert cell["text (MB)"] == 2 and cell["merges"] == 2000  # the lesson's own number
    said = data["lesson 3's own-text cell"]["seconds the cell printed"]
    assert 0 < said < cell["wall (s)"]  # the cell's own clock, inside the job's


def load_bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale", BENCH / "bench_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_scale_bench_runs_lesson_3_s_cell_as_written(tmp_path: Path) -> None:
    bench_scale = load_bench_scale()
    text = tmp_path / "it's a text.txt"
    code = bench_scale.lesson_cell(text)
    compile(code, "cell", "exec")  # every line is code once uncommented
    assert f"overfitting_curve(Path({str(text)!r}), num_merges=2000)" in code
    assert "path/to/some_text.txt" not in code
    # Names earlier cells import, imported as they import them; the cell's own imports kept.
    assert "from bpe_course.plots import plot_compression_curve\n" in code
    assert "from bpe_course import show_pair\n" in code
    assert "from bpe_course.plots import overfitting_curve\n" in code
    assert 'print(f"read, counted and trained in {perf_counter() - started:.1f} s")' in code
    assert bench_scale.CELL_TIME.findall("read, counted and trained in 12.5 s\n['a']") == ["12.5"]


def test_the_scale_bench_stops_when_the_lesson_cell_is_not_there(tmp_path: Path) -> None:
    bench_scale = load_bench_scale()
    notebook = tmp_path / "lesson.ipynb"
    cells = [{"cell_type": "code", "source": ["x = overfitting_curve('text')"], "metadata": {}}]
    notebook.write_text(json.dumps({"cells": cells}))
    with pytest.raises(SystemExit, match="found 0"):
        bench_scale.lesson_cell(tmp_path / "t.txt", notebook)
    cells[0]["source"] = ["# y = overfitting_curve(Path('a.txt'))\n# print(undefined_name)"]
    notebook.write_text(json.dumps({"cells": cells}))
    with pytest.raises(SystemExit, match="undefined_name"):
        bench_scale.lesson_cell(tmp_path / "t.txt", notebook)
