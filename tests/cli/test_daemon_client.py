"""The daemon client (vault_engine/daemon/client.py) and the CLI context over it
(vault_engine/cli/daemon_client.py): when it answers in-process instead (no socket, stale
socket, hung or busy daemon), and how it passes on user errors. The daemon side here is a
real Unix socket with scripted replies; tests/daemon/ runs the real daemon."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from vault_engine import RELEASE
from vault_engine.cli.context import Context
from vault_engine.cli.daemon_client import DaemonContext, make_context
from vault_engine.daemon import protocol
from vault_engine.daemon.client import DaemonVault, ask
from vault_engine.errors import UnknownRef
from vault_engine.model import SearchResult


@pytest.fixture
def vault_root(make_vault):
    root = make_vault({"a.md": "# A\nAardvarks dig.\n"}, config="[model]\nenabled = false\n")
    (root / ".vault-engine").mkdir()
    return root


class ScriptedDaemon:
    """Listens on the vault's socket and answers each connection with ``reply`` (bytes), or
    never answers when ``reply`` is None."""

    def __init__(self, root, reply: bytes | None):
        self.reply = reply
        self.requests: list[bytes] = []
        self.sock = socket.socket(socket.AF_UNIX)
        with protocol.unix_address(root / ".vault-engine" / "daemon.sock") as address:
            self.sock.bind(address)
        self.sock.listen(4)
        self.done = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            self.requests.append(conn.makefile("rb").readline())
            if self.reply is not None:
                conn.sendall(self.reply)
            else:
                self.done.wait(5)

    def close(self):
        self.done.set()
        self.sock.close()


def test_no_socket_means_in_process_without_a_connection(vault_root):
    assert ask(vault_root, "search", ("aardvarks",)) == (False, None)
    vault = DaemonVault(str(vault_root))
    try:
        vault.index(embed=False)
        assert [h.path for h in vault.search("aardvarks", lexical_only=True).hits] == ["a.md"]
        assert vault._local is not None  # the in-process Vault answered
    finally:
        vault.close()


def test_a_long_lived_stand_in_reads_a_changed_config_again(vault_root):
    # the MCP server's stand-in answered by the config it first read, for the whole session
    from vault_engine.vault_thread import VaultThread

    (vault_root / "b.md").write_text("# B\nAardvarks sleep.\n")
    thread = VaultThread(lambda: DaemonVault(str(vault_root)), stores=False)  # as the MCP server runs it
    try:
        thread.call(lambda v: v.index(embed=False))
        found = thread.call(lambda v: v.search("aardvarks", lexical_only=True))
        assert sorted(h.path for h in found.hits) == ["a.md", "b.md"]
        (vault_root / "vault-engine.toml").write_text('exclude = ["b.md"]\n[model]\nenabled = false\n')
        thread.call(lambda v: v.index(embed=False))
        assert [h.path for h in thread.call(lambda v: v.search("aardvarks", lexical_only=True)).hits] == ["a.md"]
    finally:
        thread.close()


def test_a_stale_socket_is_ignored(vault_root):
    dead = socket.socket(socket.AF_UNIX)
    with protocol.unix_address(vault_root / ".vault-engine" / "daemon.sock") as address:
        dead.bind(address)
    dead.close()  # the file stays; nobody listens: a daemon killed with SIGKILL
    assert ask(vault_root, "status") == (False, None)


def test_a_watcher_catching_up_is_not_asked(vault_root):
    """It holds its Vault for the whole catch-up: each command waited 5-6 s for "busy" and
    then answered in-process anyway (qa40 X1). Asked again once it watches."""
    health = vault_root / ".vault-engine" / "watch.json"
    health.write_text(json.dumps({"pid": 1, "state": "catching-up"}))
    daemon = ScriptedDaemon(vault_root, reply=protocol.reply_ok({"hits": []}, 1.0))
    try:
        assert ask(vault_root, "status") == (False, None) and daemon.requests == []
        health.write_text(json.dumps({"pid": 1, "release": RELEASE, "state": "watching"}))
        answered, _ = ask(vault_root, "status")
        assert answered and len(daemon.requests) == 1
    finally:
        daemon.close()


@pytest.mark.parametrize("health", [{"pid": 1, "state": "catching-up", "release": RELEASE},
                                    {"pid": 1, "state": "watching", "release": "0.0.1"}])
def test_an_mcp_session_is_not_handed_to_a_watcher_a_command_would_not_ask(vault_root, health):
    """A session's first search had waited 5.3 s for a watcher's first pass over the vault, where
    a command answers in-process (qa150); nor is it served by another release's watcher."""
    from vault_engine.daemon.client import open_session

    (vault_root / ".vault-engine" / "watch.json").write_text(json.dumps(health))
    listening = socket.socket(socket.AF_UNIX)
    with protocol.unix_address(vault_root / ".vault-engine" / "daemon.sock") as address:
        listening.bind(address)
    listening.listen(4)
    listening.setblocking(False)
    try:
        assert open_session(vault_root, "mcp") is None
        with pytest.raises(BlockingIOError):
            listening.accept()  # never called
    finally:
        listening.close()


def test_a_watcher_of_another_release_is_not_asked_and_is_said_once(vault_root, caplog):
    """An old watcher left running across an upgrade answered from its own formats, and emptied
    the new index (qa99): a command of this release answers itself and says so, once."""
    health = vault_root / ".vault-engine" / "watch.json"
    health.write_text(json.dumps({"pid": 7, "state": "watching"}))  # an older release writes no release
    daemon = ScriptedDaemon(vault_root, reply=protocol.reply_ok({"hits": []}, 1.0))
    try:
        with caplog.at_level(logging.WARNING):
            assert ask(vault_root, "status") == (False, None) and ask(vault_root, "search") == (False, None)
        assert daemon.requests == []
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and said[0].startswith("ANOTHER RELEASE: the watcher (pid 7) was started by an older "
                                                     f"vault-engine, this is {RELEASE}")
    finally:
        daemon.close()


def test_a_hung_daemon_times_out_with_one_warning(vault_root, caplog):
    daemon = ScriptedDaemon(vault_root, reply=None)
    try:
        with caplog.at_level(logging.WARNING):
            assert ask(vault_root, "status", timeout=0.3) == (False, None)
        assert "did not answer within" in caplog.text
    finally:
        daemon.close()


PROMISED_WAIT = 5.0  # README, Watcher and warm daemon: the longest a command waits for the watcher


class SilentSocket:
    """A watcher stopped with SIGSTOP, seen from the client: the kernel accepts the connection
    and takes the request, and nothing ever comes back. Each recv "waits" its whole timeout on
    a fake clock and records it."""

    clock = 0.0
    waits: list[float] = []

    def __init__(self, *args):
        self.timeout: float | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def settimeout(self, timeout):
        self.timeout = timeout

    def connect(self, address):
        pass

    def sendall(self, data):
        pass

    def recv(self, size):
        SilentSocket.waits.append(self.timeout)
        SilentSocket.clock += self.timeout
        raise TimeoutError("timed out")

    def makefile(self, mode):  # a reader over recv, as a real socket's
        return contextlib.nullcontext(SimpleNamespace(readline=lambda *size: self.recv(1)))


def test_a_silent_watcher_is_waited_for_once_within_the_documented_limit(vault_root, monkeypatch):
    from vault_engine.daemon import client as daemon_client

    (vault_root / ".vault-engine" / "daemon.sock").touch()  # a socket file: a watcher may answer
    SilentSocket.waits, SilentSocket.clock = [], 0.0
    monkeypatch.setattr(socket, "socket", SilentSocket)
    monkeypatch.setattr(daemon_client, "time", SimpleNamespace(time=time.time, monotonic=lambda: SilentSocket.clock))
    assert ask(vault_root, "status") == (False, None)
    assert len(SilentSocket.waits) == 1 and sum(SilentSocket.waits) <= PROMISED_WAIT


def test_the_wait_for_the_watcher_is_the_figure_the_readme_promises():
    from vault_engine.daemon.client import REPLY_TIMEOUT
    from vault_engine.daemon.server import READ_WAIT

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"does not answer within {PROMISED_WAIT:g} s" in " ".join(readme.split())
    assert REPLY_TIMEOUT <= PROMISED_WAIT
    assert READ_WAIT < REPLY_TIMEOUT  # a busy watcher says so before the client stops waiting


@pytest.mark.parametrize("reply", [
    protocol.reply_error("busy", "busy for over 5 s (indexing)"),
    protocol.reply_error("internal", "KeyError('x')"),
    b'{"v": 0, "ok": true}\n',  # an older daemon
    b'{"v": 1, "ok": true, "result": {"__dataclass__": "vault_engine.model:Gone", "fields": {}}}\n',
    b'{"v": 1, "ok": tr',  # cut off
])
def test_replies_the_client_cannot_use_mean_in_process(vault_root, reply):
    daemon = ScriptedDaemon(vault_root, reply)
    try:
        assert ask(vault_root, "status") == (False, None)
    finally:
        daemon.close()


def test_the_request_names_the_op_and_keeps_argument_types(vault_root):
    result = SearchResult("q", (), ("lexical",))
    daemon = ScriptedDaemon(vault_root, protocol.reply_ok(result, 1.0))
    try:
        vault = DaemonVault(str(vault_root))
        assert vault.search("q", k=3, lexical_only=True) == result
        sent = protocol.parse(daemon.requests[0])
        assert (sent["op"], sent["args"], sent["kwargs"]) == ("search", ["q"], {"k": 3, "lexical_only": True})
    finally:
        daemon.close()


def test_a_user_error_from_the_daemon_is_raised_as_is(vault_root):
    daemon = ScriptedDaemon(vault_root, protocol.reply_error("vault", "no note x.md", UnknownRef("no note x.md")))
    try:
        with pytest.raises(UnknownRef, match="no note x.md"):
            DaemonVault(str(vault_root)).show("x.md")
    finally:
        daemon.close()


def test_methods_that_are_not_routed_run_in_process(vault_root):
    vault = DaemonVault(str(vault_root))
    try:
        assert vault.index(embed=False).new == 1  # no daemon involved, no socket needed
        assert vault.root == vault_root.resolve()
    finally:
        vault.close()


def test_no_daemon_flag_and_environment_give_a_plain_context(monkeypatch):
    assert type(make_context(argparse.Namespace(no_daemon=True))) is Context
    assert type(make_context(argparse.Namespace())) is DaemonContext
    monkeypatch.setenv("VAULT_ENGINE_NO_DAEMON", "1")
    assert type(make_context(argparse.Namespace())) is Context
