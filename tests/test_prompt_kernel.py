"""Grading's kernel manager: ready when the kernel has answered, stopped without idle polls,
and still honest about a kernel that dies or never answers."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import json
import sys
from pathlib import Path
from queue import Empty

import nbformat
import pytest
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager, KernelManager
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
def test_a_manager_waiting_for_a_kernel_to_go_looks_every_few_milliseconds(
    manager_class, monkeypatch
) -> None:
    """How long the manager naps between looks while a stopped kernel is still there.
    jupyter_client's own (the control) naps 0.1 s, which, after a kill, is mostly idle: three
    kernels a student made that 0.3 s of every student's grading. The kernel here is left
    running for a quarter of a second so that both managers look more than once."""
    naps: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(seconds: float, *args, **kwargs):
        naps.append(seconds)
        return await real_sleep(seconds, *args, **kwargs)

    async def watch() -> None:
        manager = await _start(manager_class)
        try:
            monkeypatch.setattr(asyncio, "sleep", recorded)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(manager._async_wait(), 0.25)
        finally:
            monkeypatch.setattr(asyncio, "sleep", real_sleep)
            await manager.shutdown_kernel(now=True)
        assert not await manager.is_alive()

    asyncio.run(watch())
    assert len(naps) >= 2
    if manager_class is PromptKernelManager:
        assert max(naps) <= 0.005
    else:
        assert min(naps) >= 0.1


def test_stopping_a_kernel_goes_through_the_prompt_wait(monkeypatch) -> None:
    """The wait above is the one jupyter_client's shutdown calls (else it would save nothing)."""
    waits: list[float] = []
    own_wait = PromptKernelManager._async_wait

    async def spied(self, pollinterval: float = 0.1) -> None:
        waits.append(pollinterval)
        await own_wait(self, pollinterval)

    monkeypatch.setattr(PromptKernelManager, "_async_wait", spied)

    async def stop() -> None:
        manager = await _start(PromptKernelManager)
        await manager.shutdown_kernel(now=True)
        assert not await manager.is_alive()

    asyncio.run(stop())
    assert waits


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


REVIEW = (
    "jupyter_client changed the private method PromptKernelManager overrides: "
    "review autograder/plugins/guarded_execute.py and the bound in pyproject.toml"
)


def test_the_one_private_method_used_is_the_one_shutdown_still_calls() -> None:
    """The guard of pyproject.toml's bound: ``_async_wait`` is the only private name of
    jupyter_client that the prompt kernel's classes touch, it still takes ``pollinterval``, and
    both ways jupyter_client stops a kernel still wait through it."""
    classes = (PromptKernelManager, PromptKernelClient)
    tree = ast.parse("\n".join(inspect.getsource(c) for c in classes))
    private = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and (hasattr(AsyncKernelManager, node.attr) or hasattr(AsyncKernelClient, node.attr))
    }
    assert private == {"_async_wait"}, f"private jupyter_client names used: {sorted(private)}"
    assert list(inspect.signature(KernelManager._async_wait).parameters) == [
        "self",
        "pollinterval",
    ], REVIEW
    for caller in (KernelManager._async_kill_kernel, KernelManager._async_finish_shutdown):
        assert "self._async_wait(" in inspect.getsource(caller), REVIEW


def test_the_client_speaks_an_older_kernels_protocol() -> None:
    """What jupyter_client's private reply handler did, done with its public session."""
    client = PromptKernelClient()
    client._adapt_protocol({"content": {"protocol_version": "4.1"}})
    assert client.session.adapt_version == 4
    current = PromptKernelClient()
    current._adapt_protocol({"content": {"protocol_version": "5.4"}})
    assert current.session.adapt_version != 4
