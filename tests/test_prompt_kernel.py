"""Grading's kernel manager: ready when the kernel has answered, stopped without idle polls,
and still honest about a kernel that dies or never answers; and grading's Execute on a real
kernel, whose graded notebook is the same however the kernel's output flushes fell."""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import sys
from pathlib import Path
from queue import Empty

import nbformat
import pytest
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from autograder.plugins.guarded_execute import (
    GuardedExecute,
    PromptKernelClient,
    PromptKernelManager,
)

pytestmark = pytest.mark.slow  # starts kernels


def _kernel_named(folder: Path, name: str, code: str) -> str:
    """A kernelspec in ``folder`` whose kernel is ``python -c code`` (not a real kernel)."""
    spec = folder / "kernels" / name
    spec.mkdir(parents=True)
    argv = [sys.executable, "-c", code, "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": name}))
    return name


async def _start(manager_class: type, name: str = "python3") -> AsyncKernelManager:
    manager = manager_class(kernel_name=name)
    await manager.start_kernel()
    return manager


def test_grading_runs_its_kernels_with_the_prompt_manager() -> None:
    assert issubclass(GuardedExecute().kernel_manager_class, PromptKernelManager)
    assert isinstance(PromptKernelManager().client(), PromptKernelClient)


def test_a_notebook_run_on_a_prompt_kernel_keeps_each_cell_s_own_output() -> None:
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(f"print({n} * 7)") for n in (1, 2, 3)]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    NotebookClient(
        notebook, timeout=30, kernel_manager_class=PromptKernelManager, shutdown_kernel="immediate"
    ).execute()
    texts = [[o.get("text") for o in cell.outputs] for cell in notebook.cells]
    assert texts == [["7\n"], ["14\n"], ["21\n"]]


async def _wait_ready(name: str, timeout: float) -> None:
    manager = await _start(PromptKernelManager, name)
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=timeout)
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


def test_a_kernel_that_dies_at_start_is_reported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    name = _kernel_named(tmp_path, "dies", "import sys; sys.exit(3)")
    with pytest.raises(RuntimeError, match="died"):
        asyncio.run(_wait_ready(name, timeout=30))


def test_a_kernel_that_never_answers_times_out(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    name = _kernel_named(tmp_path, "mute", "import time; time.sleep(60)")
    with pytest.raises(RuntimeError, match="didn't respond"):
        asyncio.run(_wait_ready(name, timeout=1))


@pytest.mark.parametrize("manager_class", [AsyncKernelManager, PromptKernelManager])
def test_stopping_a_kernel_now_never_naps_a_tenth_of_a_second(manager_class, monkeypatch) -> None:
    """Every nap of ``shutdown_kernel(now=True)``, grading's way to stop a kernel, while the
    killed kernel goes. jupyter_client's own manager (the control) naps 0.1 s at a time, mostly
    idle: three kernels a student made that 0.3 s of every student's grading. The prompt
    manager looks every 5 ms, and jupyter_client's stop that follows finds the kernel gone at
    its first look (its one nap is the 10 ms every start and stop ends with)."""
    naps: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(seconds: float, *args, **kwargs):
        naps.append(seconds)
        return await real_sleep(seconds, *args, **kwargs)

    async def stop() -> None:
        manager = await _start(manager_class)
        try:
            monkeypatch.setattr(asyncio, "sleep", recorded)
            await manager.shutdown_kernel(now=True)
        finally:
            monkeypatch.setattr(asyncio, "sleep", real_sleep)
        assert not await manager.is_alive()
        assert not manager.has_kernel  # jupyter_client's stop ran to its end: process reaped

    asyncio.run(stop())
    if manager_class is PromptKernelManager:
        assert max(naps, default=0) < 0.1, naps
    else:
        assert 0.1 in naps, naps


def test_a_status_lost_before_iopub_connected_is_asked_for_again(monkeypatch) -> None:
    """A late IOPub socket misses the first request's idle status: the client asks again and
    is ready, and the first cell's output is still its own."""
    requests: list[str] = []
    lost: list[dict] = []
    own_request, own_get = PromptKernelClient.kernel_info, PromptKernelClient.get_iopub_msg

    def counted(self, *args, **kwargs) -> str:
        requests.append(own_request(self, *args, **kwargs))
        return requests[-1]

    async def first_idle_lost(self, *args, **kwargs) -> dict:
        message = await own_get(self, *args, **kwargs)
        about_request = message["parent_header"].get("msg_id") in requests
        if not lost and about_request and message["content"].get("execution_state") == "idle":
            lost.append(message)  # as if IOPub had connected too late to see it
            raise Empty
        return message

    monkeypatch.setattr(PromptKernelClient, "kernel_info", counted)
    monkeypatch.setattr(PromptKernelClient, "get_iopub_msg", first_idle_lost)

    async def ready_then_run() -> str:
        manager = await _start(PromptKernelManager)
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=30)
            request = client.execute("print(6 * 7)")
            while True:
                message = await client.get_iopub_msg(timeout=10)
                about = message["parent_header"].get("msg_id") == request
                if about and message["msg_type"] == "stream":
                    return message["content"]["text"]
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)

    assert asyncio.run(ready_then_run()) == "42\n"
    # On a busy machine an earlier status may really be lost too: what matters is that the
    # client asked again after the one taken here.
    assert len(lost) == 1
    taken = lost[0]["parent_header"]["msg_id"]
    assert taken in requests and requests[-1] != taken


def test_the_prompt_kernel_uses_no_private_jupyter_client_name() -> None:
    """Why pyproject.toml needs no upper bound on jupyter_client: the prompt kernel's classes
    neither call nor override a private name of its manager or client (one of theirs that
    starts with ``_``)."""
    classes = (PromptKernelManager, PromptKernelClient)
    tree = ast.parse("\n".join(inspect.getsource(c) for c in classes))
    names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    private = {
        name
        for name in names
        if name.startswith("_")
        and not name.startswith("__")
        and (hasattr(AsyncKernelManager, name) or hasattr(AsyncKernelClient, name))
    }
    assert private == set(), f"private jupyter_client names used: {sorted(private)}"


def test_the_client_speaks_an_older_kernels_protocol() -> None:
    """What jupyter_client's private reply handler did, done with its public session."""
    client = PromptKernelClient()
    client._adapt_protocol({"content": {"protocol_version": "4.1"}})
    assert client.session.adapt_version == 4
    current = PromptKernelClient()
    current._adapt_protocol({"content": {"protocol_version": "5.4"}})
    assert current.session.adapt_version != 4


def _run_as_grading(cells: list[str], folder: Path) -> nbformat.NotebookNode:
    """``cells`` run by grading's Execute on the python3 kernel, unconfined (as ourselves)."""
    from traitlets.config import Config

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    config = Config({"GradingSandbox": {"unconfined": True}})
    step = GuardedExecute(
        config=config, kernel_name="python3", kernel_manager_class=PromptKernelManager
    )
    step.preprocess(notebook, {"metadata": {"path": str(folder)}})
    return notebook


IN_PIECES = (
    "import sys, time\nsys.stdout.write('a'); sys.stdout.flush(); time.sleep(0.5)\nprint('b')"
)


def test_a_line_flushed_in_pieces_is_graded_as_one_output(tmp_path: Path) -> None:
    """Where the kernel's flush falls must not change the graded notebook (the same answer
    gets the same feedback page): grading's Execute merges a cell's stream pieces."""
    notebook = _run_as_grading([IN_PIECES], tmp_path)
    assert [o.get("text") for o in notebook.cells[0].outputs] == ["ab\n"]


def test_a_display_after_merged_pieces_still_takes_a_later_cells_update(tmp_path: Path) -> None:
    """Merging moves the display that follows the pieces; an update sent from a later cell
    must still reach it (not another output, nor a note for a person)."""
    shown = "from IPython.display import display\nh = display('first', display_id=True)"
    notebook = _run_as_grading([f"{IN_PIECES}\n{shown}", "h.update('second')"], tmp_path)
    first, later = notebook.cells[0].outputs, notebook.cells[1].outputs
    assert [o.get("text") for o in first] == ["ab\n", None], first
    assert first[1]["data"]["text/plain"] == "'second'", first
    assert later == [], later
