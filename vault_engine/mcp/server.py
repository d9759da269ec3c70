"""``vault-engine mcp``: the MCP server on the official SDK's low-level ``Server``.

The low-level server takes the tool list as data, which is what the operations table is; the
high-level one would need a Python function per tool. Two places serve it:

- this process (:func:`serve`): every tool call runs on one thread that owns the vault (a
  sqlite3 connection belongs to the thread that opened it), through the CLI's daemon-first
  stand-in, opened on the first call so that listing tools costs nothing;
- a running ``vault-engine watch`` (:mod:`vault_engine.mcp.hosted`), whose SDK is already
  imported: ``vault-engine mcp`` then only relays bytes (:mod:`vault_engine.mcp.relay`).

stdout is the protocol's: the SDK points fd 1 at stderr while it serves, and logs go to
stderr. An unexpected exception in a call is logged and answered as a tool error; the server
keeps serving.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any, Protocol

from vault_engine import __version__
from vault_engine.constants import LONE_SURROGATE
from vault_engine.errors import VaultError
from vault_engine.mcp.tools import Answer, answer, failure, tool_definitions
from vault_engine.vault_thread import VaultThread

log = logging.getLogger(__name__)

INSTRUCTIONS = ("Memory of this team's vault: search notes, resume a project where the last agent left off, "
                "and check a proposal against recorded dead ends before trying it; where the vault has a code "
                "tap, find code and who calls what, with the notes that say why. Answers are the CLI's: "
                "where one says to run `vault-engine index`, call the index tool.")


class Answers(Protocol):
    """Where tool calls are answered: this process's vault thread, or the daemon's worker."""

    async def answer(self, name: str, arguments: dict[str, Any] | None) -> Answer: ...


def answer_or_report(vault: Any, name: str, arguments: dict[str, Any] | None) -> Answer:
    """One tool call on ``vault`` (run on its thread: ``fn(vault, ...)``); a bug costs that
    call, never the server: say so and go on."""
    try:
        return answer(name, arguments, vault)
    except Exception as exc:
        return _internal_error(name, exc)


def _internal_error(name: str, exc: Exception) -> Answer:
    log.exception("tool %s failed", name)
    return failure(f"{name}: internal error ({type(exc).__name__}: {exc}); see the server's stderr")


async def answered_on(thread: VaultThread, name: str, arguments: dict[str, Any] | None) -> Answer:
    """One tool call on ``thread``. Opening the vault is part of the call: a vault deleted, or
    a ``vault-engine.toml`` broken, since the session began is that call's error in one line
    (it had been a protocol error with a traceback on stderr, qa150)."""
    try:
        return await thread.run(answer_or_report, name, arguments)
    except VaultError as exc:
        return failure(f"{name}: {exc}")
    except Exception as exc:
        return _internal_error(name, exc)


class ToolThread:
    """Answers tool calls on a :class:`~vault_engine.vault_thread.VaultThread`: the daemon-first
    stand-in, or (``use_daemon=False``) a Vault of this process, opened at the first call."""

    def __init__(self, explicit: str | None, use_daemon: bool = True):
        self._explicit = explicit
        self._use_daemon = use_daemon
        self._thread = VaultThread(self._open, name="vault", stores=not use_daemon)

    async def answer(self, name: str, arguments: dict[str, Any] | None) -> Answer:
        """Run one tool call on the vault thread."""
        return await answered_on(self._thread, name, arguments)

    def _open(self) -> Any:
        if self._use_daemon:
            from vault_engine.daemon.client import DaemonVault

            return DaemonVault(self._explicit)
        from vault_engine.vault import Vault

        return Vault.open(self._explicit)

    def close(self) -> None:
        self._thread.close(timeout=None)


def build_server(vault: Answers) -> Any:
    """The SDK server: tools from the operations table, calls answered by ``vault``."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
             for t in tool_definitions()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        done = await vault.answer(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(text=done.text)],
                                    structured_content=done.data, is_error=done.error)

    return Server("vault-engine", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_lines(vault: Answers, lines_in: Any = None, lines_out: Any = None) -> None:
    """One session until the client hangs up: over stdin/stdout, or over the given text
    streams (an async iterable of lines, and an object with async ``write`` and ``flush``)."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(vault)
    async with stdio_server(lines_in, lines_out) as (read_stream, write_stream):
        readable, to_server = anyio.create_memory_object_stream[Any](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_answer_unreadable, read_stream, readable, write_stream)
            await server.run(to_server, write_stream, server.create_initialization_options())


async def _answer_unreadable(lines: Any, readable: Any, replies: Any) -> None:
    """Pass the server what the SDK could read; answer a request it could not with an error.
    The SDK drops a line it cannot validate without a reply, and a client waits for one until
    its own timeout: a lone surrogate ("\\ud800", which no UTF-8 holds) in a tool's arguments
    had never been answered (qa139)."""
    async with readable:
        async for message in lines:
            if not isinstance(message, Exception):
                await readable.send(message)
            elif (reply := _error_reply(message)) is not None:
                await replies.send(reply)


def _error_reply(error: Exception) -> Any:
    """A JSON-RPC error for the request a line that failed validation holds (None when it is
    no request with an id: a notification, a response, or no JSON at all)."""
    import json

    import mcp.types as types
    from mcp.shared.message import SessionMessage

    problems = error.errors() if hasattr(error, "errors") else []
    line = next((p["input"] for p in problems if isinstance(p.get("input"), str)), None)
    try:
        request = json.loads(line) if line is not None else None
    except ValueError:
        return None
    if not isinstance(request, dict) or "method" not in request:
        return None  # a client's response is never answered, read or not (qa142)
    request_id = request.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    if isinstance(request_id, str) and LONE_SURROGATE.search(request_id):
        request_id = None  # an id no UTF-8 can write back: JSON-RPC's null, the writer had died on it (qa141)
    half = LONE_SURROGATE.search(_text_of(request))
    said = (f"the request holds half of a UTF-16 pair (a lone surrogate) U+{ord(half.group()):04X}: send text "
            "in UTF-8" if half else f"the request is not valid JSON-RPC: {problems[0]['msg']}")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                             error=types.ErrorData(code=types.INVALID_PARAMS, message=said)))


def _text_of(value: Any) -> str:
    """Every string a JSON value holds, keys too, one after another."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_text_of(k) + " " + _text_of(v) for k, v in value.items())
    if isinstance(value, list):
        return " ".join(map(_text_of, value))
    return ""


def serve(explicit: str | None, use_daemon: bool = True, lines_in: Any = None, lines_out: Any = None) -> int:
    """Serve MCP in this process until the client closes the session, or hangs up."""
    vault = ToolThread(explicit, use_daemon)
    try:
        asyncio.run(serve_lines(vault, lines_in, lines_out))
    except BaseException as exc:
        if not _hung_up(exc):
            raise
        if lines_out is None:  # the interpreter's last flush of stdout would say it again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        vault.close()
    return 0


def _hung_up(error: BaseException) -> bool:
    """Whether ``error`` is the client's end of the pipe gone (alone, or every error of a task
    group): a client killed mid-call had left 60 lines of the SDK's traceback (qa193)."""
    if isinstance(error, BaseExceptionGroup):
        return all(_hung_up(e) for e in error.exceptions)
    return isinstance(error, (BrokenPipeError, ConnectionResetError))
