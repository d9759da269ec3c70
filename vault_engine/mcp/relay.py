"""``vault-engine mcp`` while a watcher runs: relay the session to the watcher's warm server.

Importing the MCP SDK costs a fresh process 1-2 s; the watcher has imported it already
(:mod:`vault_engine.mcp.hosted`), so this process forwards lines both ways and imports
nothing heavy. It reads only what a takeover needs: the client's handshake (``initialize``,
``notifications/initialized``) and which requests are still unanswered.

When the watcher stops mid-session (a restart, an upgrade), the relay takes the session over
in this process: an in-process server is handed the handshake again (its answer is dropped:
the client has had one) and every unanswered request, then the client's lines from there on.
The client sees one server throughout; a notification sent in the instant the watcher went
away (a progress or cancel note) can be lost, a request cannot. A call that writes (a
checkpoint, a reinforcement, an index run) is not run again: the watcher may have run it
before it went (a checkpoint had been written twice), so it is answered with a tool error that
says so.

A watcher that stops answering without going away (stopped with SIGSTOP, hung) is taken over
the same way once a request waits and its heartbeat is older than ``STALLED_AFTER``, as every
other command treats a stalled watcher: an open session used to wait for it forever.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

HANDSHAKE = ("initialize", "notifications/initialized")
STALL_POLL_SECONDS = 1.0  # how often a waiting request looks at the watcher's heartbeat


class Relay:
    """One client session (``client_in``/``client_out``) forwarded to the watcher's socket."""

    def __init__(self, sock: socket.socket, from_daemon: BinaryIO, explicit: str | None,
                 client_in: BinaryIO | None = None, client_out: BinaryIO | None = None,
                 stalled: Callable[[], bool] | None = None):
        self._stalled = stalled or (lambda: watcher_stalled(explicit))
        self._sock = sock
        self._from_daemon = from_daemon
        self._explicit = explicit
        self._client_in = client_in or sys.stdin.buffer
        self._client_out = client_out or sys.stdout.buffer
        self._lock = threading.Lock()  # guards what follows; never held while sending
        self._handshake: list[bytes] = []
        self._pending: dict[str, bytes] = {}  # request id (as JSON) -> the request's line
        self._initialize_id: str | None = None
        self._local: queue.Queue[bytes | None] | None = None  # set once taken over
        self._client_done = False

    def run(self) -> int:
        """Relay until the client hangs up; take over if the watcher goes first."""
        threading.Thread(target=self._forward_client, name="relay-client", daemon=True).start()
        threading.Thread(target=self._watch_for_a_stall, name="relay-stall", daemon=True).start()
        try:
            self._forward_daemon()
        except BrokenPipeError:  # the client closed our stdout: the session is over
            return 0
        self._sock.close()
        local = self._take_over()
        if local is None:
            return 0
        log.warning("the watcher stopped: this process serves the MCP session from here on")
        from vault_engine.mcp.server import serve

        return serve(self._explicit, use_daemon=False, lines_in=QueuedLines(local),
                     lines_out=ClientLines(self._client_out, drop_answer_to=self._initialize_id))

    def _forward_daemon(self) -> None:
        """The watcher's lines to the client, until the watcher hangs up (or resets)."""
        try:
            for line in iter(self._from_daemon.readline, b""):
                self._answered(line)
                self._client_out.write(line)
                self._client_out.flush()
        except (ConnectionResetError, TimeoutError):
            pass  # as good as its end of the line: take over

    def _watch_for_a_stall(self) -> None:
        """While a request waits, look at the watcher's heartbeat; a stalled watcher's socket
        is shut, which ends :meth:`_forward_daemon` as the watcher's own exit would."""
        while True:
            time.sleep(STALL_POLL_SECONDS)
            with self._lock:
                if self._client_done or self._local is not None:
                    return
                waiting = bool(self._pending)
            if waiting and self._stalled():
                log.warning("the watcher has stopped answering (no heartbeat): this process serves the session")
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return

    def _forward_client(self) -> None:
        for line in iter(self._client_in.readline, b""):
            with self._lock:
                local = self._local
                if local is None:
                    self._note(line)
                else:
                    local.put(line)
            if local is None:
                try:
                    self._sock.sendall(line)
                except OSError:  # the watcher went away: the takeover replays what is unanswered
                    pass
        with self._lock:
            self._client_done = True
            if self._local is not None:
                self._local.put(None)
                return
        try:
            self._sock.shutdown(socket.SHUT_WR)  # the hosted session reads EOF and ends
        except OSError:
            pass

    def _note(self, line: bytes) -> None:
        message = _message(line)
        method, ident = message.get("method"), message.get("id")
        if method in HANDSHAKE:
            self._handshake.append(line)
            if method == "initialize":
                self._initialize_id = json.dumps(ident)
        elif method is not None and ident is not None:
            self._pending[json.dumps(ident)] = line

    def _answered(self, line: bytes) -> None:
        message = _message(line)
        if "method" not in message and "id" in message:
            with self._lock:
                self._pending.pop(json.dumps(message["id"]), None)

    def _take_over(self) -> queue.Queue[bytes | None] | None:
        """The lines an in-process server must read, or None when the session is over. A
        pending call that writes is answered here instead (:func:`may_have_run`)."""
        with self._lock:
            if self._client_done:
                return None
            local: queue.Queue[bytes | None] = queue.Queue()
            for line in self._handshake:
                local.put(line)
            for line in self._pending.values():
                answer = may_have_run(_message(line))
                if answer is None:
                    local.put(line)
                else:
                    self._client_out.write(answer)
            self._client_out.flush()
            self._local = local
            return local


def may_have_run(request: dict[str, Any]) -> bytes | None:
    """The answer to a pending call that writes, which the watcher may have run before it went
    (one ``checkpoint_new`` had written two checkpoints, qa150); None for a call to replay."""
    from vault_engine.operations import BY_NAME

    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    operation = BY_NAME.get(name) if request.get("method") == "tools/call" and isinstance(name, str) else None
    if operation is None or not operation.writes:
        return None
    said = (f"{name}: the watcher serving this session stopped before it answered, and this call writes: "
            "it may have run; look before calling it again (`resume` lists a new checkpoint, `decay` a "
            "reinforcement, `status` the index)")
    answer = {"jsonrpc": "2.0", "id": request.get("id"),
              "result": {"content": [{"type": "text", "text": said}], "isError": True}}
    return (json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8")


def watcher_stalled(root: str | None) -> bool:
    """Whether the vault's watcher has shown no sign of life for ``STALLED_AFTER`` seconds."""
    from vault_engine.config import find_vault, load_config
    from vault_engine.errors import VaultError
    from vault_engine.indexing.watch_state import STALLED_AFTER, heartbeat_age

    try:
        age = heartbeat_age(load_config(Path(root) if root else find_vault(None)))
    except (VaultError, OSError):  # a config broken since the session began: keep relaying
        return False
    return age is not None and age > STALLED_AFTER


def _message(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return {}  # the server answers it with a parse error; nothing to remember
    return message if isinstance(message, dict) else {}


class QueuedLines:
    """The lines of a queue as the SDK's transport reads stdin (``async for line in ...``)."""

    def __init__(self, lines: queue.Queue[bytes | None]):
        self._lines = lines

    def __aiter__(self) -> QueuedLines:
        return self

    async def __anext__(self) -> str:
        line = await asyncio.to_thread(self._lines.get)
        if line is None:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class ClientLines:
    """The client's side as the SDK's transport writes stdout, less the answer to the replayed
    ``initialize`` (the client had it from the watcher)."""

    def __init__(self, out: BinaryIO, drop_answer_to: str | None):
        self._out = out
        self._drop = drop_answer_to

    async def write(self, text: str) -> None:
        if self._drop is not None:
            message = _message(text.encode("utf-8"))
            if "method" not in message and json.dumps(message.get("id")) == self._drop:
                self._drop = None
                return
        self._out.write(text.encode("utf-8"))

    async def flush(self) -> None:
        self._out.flush()
