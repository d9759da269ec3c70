"""MCP sessions served inside ``vault-engine watch``, over its socket.

Importing the SDK costs a fresh process 1-2 s (pydantic models of every protocol version),
which is most of an agent's wait for the tool list. The watcher imports it once, in the
background, and serves each ``vault-engine mcp`` that connects: that process only relays
bytes (:mod:`vault_engine.mcp.relay`). A tool call runs on the watcher's Vault worker, the
thread every warm query runs on, so it sees the watcher's open stores and loaded model and
never runs halfway through a batch.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

from vault_engine.mcp.server import Answer, answered_on, serve_lines
from vault_engine.vault_thread import VaultThread

OP = "mcp"  # the daemon protocol op that turns a connection into an MCP session
SETTLE_WAIT = 2.0  # seconds a tool call waits at most for the watcher's pending edits
# The SDK's package imports are circular: two threads importing it at once can trip Python's
# import deadlock detector, so the warm-up and the first session import it one at a time.
_IMPORTING = threading.Lock()


def warm_up() -> None:
    """Import what a session needs, so the first agent does not wait for it."""
    with _IMPORTING:
        import mcp.server.lowlevel  # noqa: F401
        import mcp.server.stdio  # noqa: F401


class WorkerAnswers:
    """Tool calls answered on the daemon's Vault worker (a :class:`~vault_engine.vault_thread.VaultThread`)."""

    def __init__(self, worker: VaultThread):
        self._worker = worker

    async def answer(self, name: str, arguments: dict[str, Any] | None) -> Answer:
        settle = getattr(self._worker, "settle", None)  # the daemon's: its watcher's pending edits first
        if settle is not None:
            await asyncio.to_thread(settle, SETTLE_WAIT)
        return await answered_on(self._worker, name, arguments)


def serve_connection(conn: socket.socket, worker: VaultThread) -> None:
    """One MCP session on ``conn`` until the relay hangs up or the daemon shuts the socket."""
    warm_up()  # at once when the daemon's warm-up is done; else waits for it
    import anyio

    with conn.makefile("r", encoding="utf-8", errors="replace", newline="\n") as lines_in, \
            conn.makefile("w", encoding="utf-8", newline="\n") as lines_out:
        asyncio.run(serve_lines(WorkerAnswers(worker), anyio.wrap_file(lines_in), anyio.wrap_file(lines_out)))
