"""Messages a student's kernel forges reach no validator as they are: each is made harmless.

Each case feeds the messages a cell could send with its own parent (``k.session.send(...,
parent=k.get_parent())``) through grading's own ``GuardedExecute.process_message`` (nbclient's
code, no kernel started), then ends the cell and the notebook as grading does. The notebook
must then pass nbformat's validation, keep the honest output before the forgery, and say in
the cell and in the record that a person should look (unless nbclient already left the
message out). A well-formed notebook is left as it is.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient.exceptions import CellExecutionComplete
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.plugins.guarded_execute import NOTE, GuardedExecute, well_formed_cell
from autograder.sandbox.kernels import JAIL_KERNEL

COUNT = "execute_result", {"data": {"text/plain": "1"}, "metadata": {}}


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


FORGERIES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "execution count a string": [(COUNT[0], {**COUNT[1], "execution_count": "<b>x</b>"})],
    "execution count a float": [(COUNT[0], {**COUNT[1], "execution_count": 1.5})],
    "execution count negative": [(COUNT[0], {**COUNT[1], "execution_count": -3})],
    "execution count huge": [(COUNT[0], {**COUNT[1], "execution_count": 10**30})],
    "display data a list": [("display_data", {"data": [1, 2], "metadata": {}})],
    "a MIME value not text": [
        ("display_data", {"data": {"text/plain": {"a": 1}, "image/png": 5}, "metadata": {}})
    ],
    "an output type that does not exist": [("bogus_output", {"data": {}, "metadata": {}})],
    "a result with no metadata": [("execute_result", {"data": {"text/plain": "1"}})],
    "a stream named <script>": [("stream", {"name": "<script>", "text": "hi"})],
    "a stream whose text is a number": [("stream", {"name": "stdout", "text": 5})],
    "a traceback not a list of strings": [
        ("error", {"ename": "E", "evalue": "v", "traceback": "not a list"})
    ],
    "an error whose name is a list": [("error", {"ename": [1], "evalue": 2, "traceback": [3]})],
    "a display id that is a list": [
        ("display_data", {"data": {}, "metadata": {}, "transient": {"display_id": ["x"]}})
    ],
    "transient a string": [("display_data", {"data": {}, "metadata": {}, "transient": "x"})],
    "an update of an earlier cell's display": [
        ("update_display_data", {"data": [1], "metadata": {}, "transient": {"display_id": "d"}})
    ],
    "metadata nested 900 deep": [
        ("display_data", {"data": {"text/plain": "x"}, "metadata": _nested(900)})
    ],
    "a status with no state": [("status", {})],
    "a stream with a lone surrogate": [("stream", {"name": "stdout", "text": "a \ud800 b"})],
    "a result with a lone surrogate": [
        (COUNT[0], {"data": {"text/plain": "\udfff"}, "metadata": {}, "execution_count": 1})
    ],
    "a clear_output flood": [("clear_output", {"wait": "x"})] * 500
    + [("clear_output", {})] * 500
    + [("stream", {"name": "stdout", "text": "x", "execution_count": [1]})],
}

# nbclient itself leaves out a message of a type it does not know: nothing to note.
IGNORED = {"an output type that does not exist"}
# A clear_output is the cell's own to send: the honest output may go with it.
CLEARS = {"a clear_output flood"}


def _message(kind: str, content: dict[str, Any]) -> dict[str, Any]:
    """A message as nbclient receives it from the kernel, with the running cell's parent."""
    header = {"msg_type": kind, "msg_id": "m", "date": datetime.datetime.now()}
    parent = {"msg_id": "cell", "msg_type": "execute_request"}
    return {
        "msg_type": kind,
        "header": header,
        "parent_header": parent,
        "content": content,
        "metadata": {},
    }


def _grading_step(record: Path) -> GuardedExecute:
    step = GuardedExecute(kernel_name=JAIL_KERNEL, record=str(record))
    step.reset_execution_trackers()
    step.dropped, step.notebook_name = {}, "04_making_it_fast"
    return step


def _run(step: GuardedExecute, nb: Any, index: int, sent: list[tuple[str, dict]]) -> None:
    """Feed ``sent`` to cell ``index`` as nbclient would, then end the cell as grading does."""
    step.nb, step.clear_before_next_output = nb, False  # as nbclient starts each cell
    cell = nb.cells[index]
    for kind, content in sent:
        try:
            step.process_message(_message(kind, content), cell, index)
        except CellExecutionComplete:
            break
    step.finish_cell(cell, index)


@pytest.mark.parametrize("case", sorted(FORGERIES))
def test_a_forged_message_is_made_harmless_and_noted(case: str, tmp_path: Path) -> None:
    record = tmp_path / "repairs.jsonl"
    step = _grading_step(record)
    honest = [("display_data", {"data": {"text/plain": "shown"}, "metadata": {}})]
    shown = {"data": {"text/plain": "d"}, "metadata": {}, "transient": {"display_id": "d"}}
    first = [("display_data", shown)]
    nb = new_notebook(cells=[new_code_cell("show()"), new_code_cell("forge()")])
    _run(step, nb, 0, first)
    _run(step, nb, 1, honest + FORGERIES[case])
    step.finish_notebook(nb)
    nbformat.validate(nb)  # what nbconvert does after each step, and nbgrader before writing
    nbformat.writes(nb).encode("utf-8")  # and what writing it takes
    outputs = nb.cells[1].outputs
    if case not in CLEARS:  # the honest output stays
        assert outputs[0].get("data") == {"text/plain": "shown"}, outputs
    if case in IGNORED:
        assert len(outputs) == 1 and not record.exists()
        return
    assert isinstance(nb.cells[1].execution_count, (int, type(None)))
    assert all(o.get("name") in (None, "stdout", "stderr") for o in outputs)
    noted = [o for c in nb.cells for o in c.outputs if o.get("text", "").startswith(NOTE)]
    assert noted and "<" not in "".join(o["text"] for o in noted)  # no student text echoed
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines and {line["notebook"] for line in lines} == {"04_making_it_fast"}


def test_a_well_formed_cell_is_left_as_it_is(tmp_path: Path) -> None:
    cell = new_code_cell("x", execution_count=3)
    cell.outputs = [
        new_output("execute_result", data={"text/plain": "1"}, execution_count=3),
        new_output("display_data", data={"image/png": "iVBOR", "application/json": {"a": [1]}}),
        new_output("stream", name="stderr", text="warning\n"),
        new_output("error", ename="ValueError", evalue="no", traceback=["ValueError: no"]),
    ]
    before = json.dumps(cell, sort_keys=True)
    assert well_formed_cell(cell) == []
    assert json.dumps(cell, sort_keys=True) == before
    step = _grading_step(tmp_path / "repairs.jsonl")
    nb = new_notebook(cells=[cell])
    step.finish_cell(cell, 0)
    step.finish_notebook(nb)
    assert json.dumps(cell, sort_keys=True) == before
    assert not (tmp_path / "repairs.jsonl").exists()


def test_a_streams_pieces_are_joined_in_the_order_they_came() -> None:
    """However the kernel's flushes fell (``merged_streams``): each run of streams one output
    per stream, stdout first, its pieces in order, lists of lines (which nbformat allows)
    joined; a figure between two prints stays between them."""
    from autograder.plugins.guarded_execute import merged_streams

    figure = new_output("display_data", data={"text/plain": "<Figure>"})
    outputs = [
        new_output("stream", name="stdout", text="a"),
        new_output("stream", name="stderr", text="warning\n"),
        new_output("stream", name="stdout", text=["b\r", "c\n"]),
        figure,
        new_output("stream", name="stdout", text="after\n"),
    ]
    merged, where = merged_streams(outputs)
    assert [o.get("text") for o in merged] == ["ab\rc\n", "warning\n", None, "after\n"]
    assert merged[2] is figure and where == {0: 0, 2: 0, 1: 1, 3: 2, 4: 3}
    notebook = new_notebook(cells=[new_code_cell(outputs=merged)])
    nbformat.validate(notebook)
