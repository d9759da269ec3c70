"""The client of the warm daemon: ask the running watcher, else say the caller must answer.

:func:`ask` sends one routed call (:data:`vault_engine.daemon.protocol.OPS`: every operation
that only reads, search, show, links, status, resume, deadend check/list, find, outline,
callers/callees) to the watcher of a vault and hands back its
answer, or says to answer in-process when it cannot (absent, stale socket, stalled, catching
up, busy, timeout, older version). :class:`DaemonVault` stands in for a Vault on top of it: the CLI,
the MCP server and the hooks hold one, and a method the daemon does not answer runs on an
in-process Vault opened on first need, so the answer is the same code either way.

Cheap on purpose: a routed call imports the protocol, the socket module and the result's
dataclasses, never the Vault, its stores, or anything heavy; with no socket file (no
watcher) not even the protocol.
"""

from __future__ import annotations

import logging
import os
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_engine import RELEASE
from vault_engine.config import find_vault
from vault_engine.indexing.watch_state import STALLED_AFTER, another_release, read_health_file
from vault_engine.layout import HEALTH_FILE, SOCKET_FILE, STATE_DIR

if TYPE_CHECKING:
    from vault_engine.vault import Vault

log = logging.getLogger(__name__)

NO_DAEMON_ENV = "VAULT_ENGINE_NO_DAEMON"


def daemon_wanted(no_daemon: bool = False) -> bool:
    """Whether to ask the warm daemon first: not with ``--no-daemon`` (``no_daemon``) or
    ``VAULT_ENGINE_NO_DAEMON=1``, which every shell reads the same way."""
    return not no_daemon and os.environ.get(NO_DAEMON_ENV) != "1"

CONNECT_TIMEOUT = 0.5
# The longest a command waits for the watcher, connection included (the README's promise): a
# stopped (kill -STOP) or hung one holds only the first command that long, since its heartbeat
# then says it stalled. A busy one answers "busy" before that (server.READ_WAIT).
REPLY_TIMEOUT = 5.0


class DaemonVault:
    """Stands in for :class:`~vault_engine.vault.Vault` (duck-typed): routed methods ask the daemon."""

    def __init__(self, explicit: str | None):
        self._explicit = explicit
        self._root: Path | None = None
        self._local: Vault | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = find_vault(self._explicit)
        return self._root

    def __getattr__(self, name: str) -> Any:
        if not (self.root / STATE_DIR / SOCKET_FILE).exists():  # no watcher: not even the protocol
            return getattr(self._in_process(), name)
        from vault_engine.daemon import protocol

        if name in protocol.METHOD_OPS:
            return partial(self._routed, name)
        return getattr(self._in_process(), name)

    def _routed(self, method: str, *args: Any, **kwargs: Any) -> Any:
        from vault_engine.daemon import protocol

        answered, result = ask(self.root, protocol.METHOD_OPS[method], args, kwargs)
        if answered:
            return result
        return getattr(self._in_process(), method)(*args, **kwargs)

    def _in_process(self) -> Any:
        if self._local is None:  # a long-lived one (the MCP server's) is opened again by its
            from vault_engine.vault import Vault  # VaultThread when vault-engine.toml changes

            self._local = Vault(self.root)
        return self._local

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None


def ask(root: Path, op: str, args: tuple = (), kwargs: dict | None = None,
        timeout: float = REPLY_TIMEOUT) -> tuple[bool, Any]:
    """``(True, result)`` when the daemon of ``root`` answered; ``(False, None)`` when the
    caller must answer in-process. A user error the daemon's Vault raised is raised here."""
    path = root / STATE_DIR / SOCKET_FILE
    if not _may_answer(root):
        return False, None
    from vault_engine.daemon import protocol  # imported when a watcher may answer
    try:
        line = _exchange(path, protocol.request(op, args, kwargs), timeout)
        reply = protocol.parse(line)
    except (OSError, protocol.ProtocolError) as exc:
        _explain(exc, timeout)
        return False, None
    if reply.get("ok"):
        try:
            return True, protocol.decode(reply.get("result"))
        except (protocol.ProtocolError, TypeError) as exc:
            log.debug("daemon reply not readable (%s): answering in-process", exc)
            return False, None
    error = reply.get("error") or {}
    if error.get("kind") == "vault":
        raise protocol.vault_error(error)
    log.debug("daemon did not answer %s (%s): answering in-process", op, error.get("message"))
    return False, None


def _may_answer(root: Path) -> bool:
    """Whether the watcher of ``root`` is one to ask: it runs (a socket), shows signs of life,
    is not catching up in one long batch, and is of this release."""
    if not (root / STATE_DIR / SOCKET_FILE).exists():
        return False  # no watcher: not even a socket call
    if _stalled(root / STATE_DIR / HEALTH_FILE):
        log.debug("the watcher's heartbeat is older than %.0f s: answering in-process", STALLED_AFTER)
        return False
    health = read_health_file(root / STATE_DIR / HEALTH_FILE) or {}
    if health.get("state") == "catching-up":
        # it holds its Vault for that whole batch: a query waited the server's 4.5 s for it, then
        # was answered in-process anyway (5-6 s a command while 3,000 notes were applied, qa40 X1)
        log.debug("the watcher is catching up in one long batch: answering in-process")
        return False
    if health and health.get("release") != RELEASE:
        _warn_once(another_release(health))
        return False
    return True


def open_session(root: Path, op: str) -> tuple[Any, Any] | None:
    """A connection that the watcher of ``root`` turned into session ``op``: ``(socket, its
    buffered reader)``, or None when no watcher takes it (none runs, stalled, catching up, an
    older release: as a command's question, :func:`ask`; an MCP session's first search had
    waited 5.3 s for a watcher's first pass over the vault, qa150)."""
    path = root / STATE_DIR / SOCKET_FILE
    if not _may_answer(root):
        return None
    import socket

    from vault_engine.daemon import protocol

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        with protocol.unix_address(path) as address:
            sock.connect(address)
        sock.sendall(protocol.request(op))
        reader = sock.makefile("rb")  # kept: it may already hold the session's first bytes
        reply = protocol.parse(reader.readline(protocol.MAX_REQUEST_BYTES))
    except (OSError, protocol.ProtocolError) as exc:
        sock.close()
        _explain(exc, CONNECT_TIMEOUT)
        return None
    if not reply.get("ok"):
        sock.close()
        log.debug("the watcher has no %s session: %s", op, (reply.get("error") or {}).get("message"))
        return None
    sock.settimeout(None)
    return sock, reader


def _stalled(health: Path) -> bool:
    """A stopped or hung watcher would keep a query waiting until the timeout; its heartbeat
    (watch.json, touched every second) says so before we ask."""
    try:
        return time.time() - health.stat().st_mtime > STALLED_AFTER
    except OSError:
        return False  # starting up: no health yet


_WARNED: set[str] = set()


def _warn_once(line: str) -> None:
    """A watcher of another release is said once a process (an MCP server asks many times)."""
    if line not in _WARNED:
        _WARNED.add(line)
        log.warning("%s", line)


def _exchange(path: Path, request: bytes, timeout: float) -> bytes:
    """Send one request and read the reply line, all within ``timeout`` seconds: a watcher
    that takes longer (stopped, hung) raises TimeoutError, however its bytes trickle in."""
    import socket  # only when a socket file is there: most commands never talk to a watcher

    from vault_engine.daemon import protocol

    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(min(CONNECT_TIMEOUT, timeout))
        with protocol.unix_address(path) as address:
            sock.connect(address)
        sock.settimeout(_left(deadline))
        sock.sendall(request)
        chunks: list[bytes] = []
        while not (chunks and chunks[-1].endswith(b"\n")):
            sock.settimeout(_left(deadline))
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    line = b"".join(chunks)
    if not line.endswith(b"\n"):
        raise ConnectionResetError("the daemon closed the connection without a full answer")
    return line


def _left(deadline: float) -> float:
    """Seconds until ``deadline``; past it, the wait is over (TimeoutError)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _explain(exc: Exception, timeout: float) -> None:
    """A stale socket (no watcher) is normal and silent; a watcher that does not answer in
    time deserves one line, since the answer then costs an in-process start."""
    if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError
        log.warning("the running watcher did not answer within %g s; answering in-process", round(timeout, 2))
    else:
        log.debug("no daemon answer (%s): answering in-process", exc)
