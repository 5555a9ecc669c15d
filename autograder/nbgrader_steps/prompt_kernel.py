"""A kernel manager and client that start and stop grading kernels without idle waits.

jupyter_client's client calls a kernel ready after its ``kernel_info`` reply and then 0.2 s
in which the kernel publishes nothing; its manager, after killing a kernel, looks every 0.1 s
whether it has gone. Grading starts three kernels a student. ``PromptKernelClient`` is ready as
soon as the kernel has replied and its ``idle`` status for that request has come through the
IOPub socket (proof that the socket is connected: nbclient ignores any message that is not
about its own requests); ``PromptKernelManager`` looks every 5 ms.

The client uses jupyter_client's public API only. The manager overrides one private method,
``_async_wait``, because nothing public sets how often a stopping kernel is looked at:
``shutdown_kernel`` reaches it through private methods (``_async_kill_kernel``,
``_async_finish_shutdown``) with a fixed 0.1 s, and a kernel provisioner (the public way to
change how a kernel is stopped) is chosen by an entry point, which the course, run from its
folder and never installed, has none of. Hence an upper bound on jupyter_client in
pyproject.toml, and ``tests/test_prompt_kernel.py`` checks that the method still exists, takes
``pollinterval`` and is the one shutdown calls.

But: what a kernel runs, where, and for how long is other modules' business; this only
shortens waiting for it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from queue import Empty
from typing import Any

from jupyter_client import protocol_version_info
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

_REPLY_SECONDS = 1.0  # then ask again, as jupyter_client does
_IOPUB_SECONDS = 0.2  # a status lost before the socket connected: ask again


class PromptKernelClient(AsyncKernelClient):
    """An async kernel client whose ``wait_for_ready`` returns once the kernel has answered."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (math.inf if timeout is None else timeout)
        while True:
            request = self.kernel_info()
            reply = await self._reply_to(request)
            if reply is not None and await self._idle_after(request):
                self._adapt_protocol(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                if reply is None:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")
                raise RuntimeError(
                    f"Kernel replied, but its IOPub status never came in {timeout:.0f} seconds"
                )

    def _adapt_protocol(self, reply: dict[str, Any]) -> None:
        """Speak the kernel's major protocol version, as jupyter_client's own client does."""
        major = int(reply["content"]["protocol_version"].split(".")[0])
        if major != protocol_version_info[0]:
            self.session.adapt_version = major

    async def _reply_to(self, request: str) -> dict[str, Any] | None:
        return await _first(self.get_shell_msg, lambda m: _about(m, request), _REPLY_SECONDS)

    async def _idle_after(self, request: str) -> bool:
        def idle(message: dict[str, Any]) -> bool:
            return _about(message, request) and message["content"].get("execution_state") == "idle"

        return await _first(self.get_iopub_msg, idle, _IOPUB_SECONDS) is not None


def _about(message: dict[str, Any], request: str) -> bool:
    return message["parent_header"].get("msg_id") == request


async def _first(
    get: Callable[..., Awaitable[dict[str, Any]]],
    wanted: Callable[[dict[str, Any]], bool],
    seconds: float,
) -> dict[str, Any] | None:
    """The first message ``get`` gives within ``seconds`` for which ``wanted`` holds, or None;
    the others are dropped."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        try:
            message = await get(timeout=left)
        except Empty:
            return None
        if wanted(message):
            return message
    return None


class PromptKernelManager(AsyncKernelManager):
    """jupyter_client's async kernel manager with :class:`PromptKernelClient` as its client,
    looking whether a killed kernel has gone every 5 ms."""

    # The manager builds its client from client_factory; client_class names it for the rest.
    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)
    client_class = DottedObjectName(f"{__name__}.PromptKernelClient")

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        # A killed kernel is gone within milliseconds; a tenth of a second per look is idle.
        await super()._async_wait(pollinterval=min(pollinterval, 0.005))
