"""``vault-engine mcp``: the stdio MCP server on the official SDK's low-level ``Server``.

The low-level server takes the tool list as data, which is what the operations table is; the
high-level one would need a Python function per tool. Every tool call runs on one thread
that owns the vault (a sqlite3 connection belongs to the thread that opened it), through the
CLI's daemon-first stand-in: a running ``vault-engine watch`` answers warm, else the call is
answered in this process, opened on the first call so that listing tools costs nothing.

stdout is the protocol's: the SDK points fd 1 at stderr while it serves, and logs go to
stderr. An unexpected exception in a call is logged and answered as a tool error; the server
keeps serving.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from vault_engine import __version__
from vault_engine.mcp.tools import Answer, answer, failure, tool_definitions
from vault_engine.vault_thread import VaultThread

log = logging.getLogger(__name__)

INSTRUCTIONS = ("Memory of this team's vault: search notes, resume a project where the last agent left off, "
                "and check a proposal against recorded dead ends before trying it.")


class ToolThread:
    """Answers tool calls on a :class:`~vault_engine.vault_thread.VaultThread`: the daemon-first
    stand-in, or (``use_daemon=False``) a Vault of this process, opened at the first call."""

    def __init__(self, explicit: str | None, use_daemon: bool = True):
        self._explicit = explicit
        self._use_daemon = use_daemon
        self._thread = VaultThread(self._open, name="vault", stores=not use_daemon)

    async def answer(self, name: str, arguments: dict[str, Any] | None) -> Answer:
        """Run one tool call on the vault thread."""
        return await self._thread.run(self._answer, name, arguments)

    @staticmethod
    def _answer(vault: Any, name: str, arguments: dict[str, Any] | None) -> Answer:
        try:
            return answer(name, arguments, vault)
        except Exception as exc:  # a bug must cost one call, never the server: say so and go on
            log.exception("tool %s failed", name)
            return failure(f"{name}: internal error ({type(exc).__name__}: {exc}); see the server's stderr")

    def _open(self) -> Any:
        if self._use_daemon:
            from vault_engine.cli.daemon_client import DaemonVault

            return DaemonVault(self._explicit)
        from vault_engine.vault import Vault

        return Vault.open(self._explicit)

    def close(self) -> None:
        self._thread.close(timeout=None)


def build_server(vault: ToolThread) -> Any:
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


async def _serve(vault: ToolThread) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(vault)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(explicit: str | None, use_daemon: bool = True) -> int:
    """Serve MCP on stdin/stdout until the client closes them."""
    vault = ToolThread(explicit, use_daemon)
    try:
        asyncio.run(_serve(vault))
    finally:
        vault.close()
    return 0
