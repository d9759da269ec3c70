"""The warm daemon end to end (vault_engine/daemon/server.py): a real `vault-engine watch`
process, its real Unix socket, real CLI processes as clients, real signals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import threading

import pytest

from tests.conftest import terminal_signals
from tests.daemon.conftest import probe_cli, wait_for
from vault_engine.daemon import protocol
from vault_engine.daemon.client import ask
from vault_engine.daemon.protocol import unix_address
from vault_engine.daemon.server import QueryServer
from vault_engine.daemon.worker import VaultWorker
from vault_engine.vault import Vault

# --no-decay: decayed scores and ages move with the clock, and two runs are a second apart.
ROUTED_COMMANDS = [
    ("search", "drop test", "--no-decay", "--json"),
    ("search", "drop test", "--no-decay"),
    ("show", "specs/drop-test-protocol.md", "--json"),
    ("show", "specs/drop-test-protocol.md"),
    ("links", "specs/auth-sessions.md", "--json"),
    ("status", "--json"),
]


def test_routed_commands_answer_byte_identically_without_loading_the_index(lexical_vault, start_daemon):
    start_daemon(lexical_vault)
    for command in ROUTED_COMMANDS:
        warm = probe_cli("--vault", lexical_vault, *command)
        cold = probe_cli("--vault", lexical_vault, *command, "--no-daemon")
        assert (warm.code, warm.out) == (cold.code, cold.out) == (0, cold.out), command
        assert warm.err == cold.err, command
        assert warm.loaded.isdisjoint({"vault_engine.vault", "whoosh", "torch", "sqlite3"}), command
        assert {"vault_engine.vault", "sqlite3"} <= cold.loaded, command  # answered in-process
    assert json.loads(probe_cli("--vault", lexical_vault, "status", "--json").out)["watcher"]["state"] == "watching"


MEMORY_COMMANDS = [
    ("deadend", "check", "drop the second microphone to save board space", "--json"),
    ("deadend", "list", "--project", "drone-audio"),
    ("resume", "--project", "drone-audio", "--json"),
]


@pytest.mark.parametrize("command", MEMORY_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_agent_memory_commands_answer_byte_identically(lexical_vault, start_daemon, command):
    start_daemon(lexical_vault)
    warm = probe_cli("--vault", lexical_vault, *command)
    cold = probe_cli("--vault", lexical_vault, *command, "--no-daemon")
    assert (warm.code, warm.out, warm.err) == (cold.code, cold.out, cold.err)
    assert warm.code == 0 and "vault_engine.vault" not in warm.loaded


def test_a_user_error_reads_the_same_through_the_daemon(lexical_vault, start_daemon):
    start_daemon(lexical_vault)
    warm = probe_cli("--vault", lexical_vault, "show", "nowhere.md")
    cold = probe_cli("--vault", lexical_vault, "show", "nowhere.md", "--no-daemon")
    assert (warm.code, warm.err, warm.out) == (cold.code, cold.err, cold.out)
    assert warm.code == 1 and warm.err.count("\n") == 0 and "nowhere.md" in warm.err
    assert "vault_engine.vault" not in warm.loaded


def test_socket_is_private_to_its_user(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    mode = os.stat(daemon.socket).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600


def test_a_save_is_searchable_through_the_daemon(lexical_vault, start_daemon):
    start_daemon(lexical_vault)
    (lexical_vault / "specs" / "new.md").write_text("# Capybara\nCapybaras graze by rivers.\n")
    found = wait_for(lambda: (p := probe_cli("--vault", lexical_vault, "search", "capybaras",
                                             "--json")).json["hits"] and p, what="save searchable")
    assert found.json["hits"][0]["path"] == "specs/new.md"
    assert "vault_engine.vault" not in found.loaded


def test_a_query_right_after_a_change_the_watcher_has_seen_answers_from_it(lexical_vault, start_daemon):
    """`git pull && resume` through a running watcher answered from the index before the pull,
    without a word, while the watcher waited for the vault to be quiet (qa90). A long quiet
    period makes the race certain: the query must not wait it out, nor answer before it."""
    config = lexical_vault / "vault-engine.toml"
    config.write_text(config.read_text() + "\n[watch]\ndebounce_ms = 20000\n")
    daemon = start_daemon(lexical_vault)
    (lexical_vault / "specs" / "pulled.md").write_text("# Capybara\nCapybaras graze by rivers.\n")
    wait_for(lambda: daemon.health().get("pending", 0) > 0, what="the change seen, not applied")
    found = probe_cli("--vault", lexical_vault, "search", "capybaras", "--json")
    assert [h["path"] for h in found.json["hits"]] == ["specs/pulled.md"]
    assert "vault_engine.vault" not in found.loaded  # answered by the watcher, not in-process
    assert daemon.health()["pending"] == 0


def test_catch_up_on_start_applies_what_changed_while_stopped(lexical_vault, start_daemon):
    (lexical_vault / "glossary.md").unlink()
    (lexical_vault / "offline.md").write_text("# Offline\nWritten while no watcher ran: narwhal.\n")
    renamed = len(list((lexical_vault / "meetings").rglob("*.md")))
    os.rename(lexical_vault / "meetings", lexical_vault / "minutes")
    daemon = start_daemon(lexical_vault)
    caught_up = [e for e in daemon.events() if e["event"] == "caught up"]
    assert len(caught_up) == 1
    assert (caught_up[0]["new"], caught_up[0]["deleted"], caught_up[0]["moved"]) == (1, 1, renamed)
    assert ask(lexical_vault, "search", ("narwhal",), {"lexical_only": True})[1].hits[0].path == "offline.md"


def test_killed_daemon_falls_back_in_process_and_is_reported_stale(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    before = probe_cli("--vault", lexical_vault, "search", "drop test", "--no-decay", "--json")
    daemon.stop(signal.SIGKILL)
    assert daemon.socket.exists()  # left behind: nobody listens on it any more
    after = probe_cli("--vault", lexical_vault, "search", "drop test", "--no-decay", "--json")
    assert (after.code, after.out, after.err) == (before.code, before.out, before.err)
    assert "vault_engine.vault" in after.loaded  # answered in-process
    status = probe_cli("--vault", lexical_vault, "status", "--json").json["watcher"]
    assert status["state"] == "stale" and f"pid {daemon.proc.pid}" in status["summary"]
    start_daemon(lexical_vault)  # a new watcher replaces the stale socket
    assert ask(lexical_vault, "ping")[0]


def _forkservers_of(pid: int) -> list[int]:
    """The multiprocessing forkservers process ``pid`` started (read from /proc)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat_file, open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if int(stat_file.read().rsplit(")", 1)[1].split()[1]) == pid and b"forkserver" in cmdline.read():
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the forkserver")
def test_a_killed_watchers_forkserver_dies_with_it(lexical_vault, start_daemon):
    """`kill -9` of a watcher during a batch of 4,000 sections left its forkserver and Whoosh's
    two writers behind for good (qa173): the server dies with the watcher, its workers with it."""
    daemon = start_daemon(lexical_vault)
    [server] = wait_for(lambda: _forkservers_of(daemon.proc.pid), what="the watcher's forkserver")
    daemon.stop(signal.SIGKILL)
    wait_for(lambda: not os.path.exists(f"/proc/{server}") or
             open(f"/proc/{server}/stat").read().rsplit(")", 1)[1].split()[0] == "Z", 10, "the forkserver gone")


def test_sigterm_stops_cleanly_and_leaves_nothing_behind(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    assert daemon.stop(signal.SIGTERM) == 0
    state = lexical_vault / ".vault-engine"
    assert not (state / "daemon.sock").exists() and not (state / "daemon.pid").exists()
    assert not (state / "watch.json").exists()
    assert daemon.events()[-1] == {"event": "stopped"}
    assert probe_cli("--vault", lexical_vault, "status", "--json").json["watcher"]["state"] == "off"


def test_a_removed_state_folder_stops_the_watcher_and_leaves_no_file_of_it(lexical_vault, start_daemon):
    # rm -rf .vault-engine: the watcher ran on unseen by status and `watch --stop` (qa7 #3)
    daemon = start_daemon(lexical_vault)
    shutil.rmtree(lexical_vault / ".vault-engine")
    assert daemon.proc.wait(20) == 1
    assert "the watcher stops rather than run unseen" in daemon.log.read_text()
    state = lexical_vault / ".vault-engine"
    assert not any((state / name).exists() for name in ("daemon.sock", "daemon.pid", "watch.json"))


def test_watching_a_folder_of_a_vault_says_it_becomes_a_vault_of_its_own(lexical_vault, start_daemon):
    # `watch --vault specs` made specs/.vault-engine/ without a word; index says it (qa7 #6)
    daemon = start_daemon(lexical_vault / "specs")
    assert daemon.stop() == 0
    said = f"lies inside the vault {lexical_vault}, which holds its notes too: it becomes a vault of its own; " \
           f"to use the enclosing one, pass --vault {lexical_vault}"
    assert [line for line in daemon.log.read_text().splitlines() if "lies inside" in line] == \
        [f"vault-engine: {lexical_vault / 'specs'} {said}"]


def test_a_second_watcher_is_refused_with_one_line(lexical_vault, start_daemon):
    first = start_daemon(lexical_vault)
    second = probe_cli("--vault", lexical_vault, "watch")
    assert second.code == 1
    assert second.err == (f"vault-engine: a watcher already runs for this vault (pid {first.proc.pid}): "
                          "stop it with `vault-engine watch --stop` first")


def test_a_writer_holding_the_lock_makes_the_watcher_wait(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    with Vault(lexical_vault) as writer, writer.write_lock():
        (lexical_vault / "held.md").write_text("# Held\nAxolotl.\n")
        wait_for(lambda: daemon.health().get("pending"), what="watcher saw the save")
        threading.Event().wait(0.5)  # time for a watcher that ignored the lock to misbehave
        assert writer.ledger.note_id("held.md") is None
    daemon.idle()
    assert ask(lexical_vault, "search", ("axolotl",), {"lexical_only": True})[1].hits


def test_index_running_during_a_burst_leaves_every_store_consistent(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    notes_before = len(list(lexical_vault.rglob("*.md")))
    for n in range(120):
        (lexical_vault / "burst").mkdir(exist_ok=True)
        (lexical_vault / "burst" / f"b{n}.md").write_text(f"# B{n}\nBurst note ocelot{n}.\n")
    index = probe_cli("--vault", lexical_vault, "index", "--no-embed", "--json")
    assert index.code == 0, index.err
    health = daemon.idle()
    assert health["errors"] == []
    status = probe_cli("--vault", lexical_vault, "status", "--json", "--no-daemon").json
    assert status["notes"] == notes_before + 120 and status["lexical"]["agrees"]
    assert status["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False}


def test_a_config_change_is_applied(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    assert ask(lexical_vault, "search", ("design review",), {"lexical_only": True})[1].hits
    config = lexical_vault / "vault-engine.toml"
    temp = lexical_vault / ".vault-engine.toml.tmp"  # saved whole, as editors do: a half-written
    temp.write_text('exclude = ["meetings/**"]\n' + config.read_text())  # file is a parse error
    os.replace(temp, config)
    wait_for(lambda: not any(h.path.startswith("meetings/") for h in ask(
        lexical_vault, "search", ("design review",), {"lexical_only": True})[1].hits),
        what="excluded folder dropped")
    assert daemon.health()["errors"] == []


def test_bad_requests_get_an_error_and_the_daemon_keeps_serving(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    for line, kind in ((b"not json\n", "protocol"), (b'{"v": 1, "op": "format_disk"}\n', "protocol"),
                       (b'{"v": 99, "op": "search"}\n', "protocol")):
        with socket.socket(socket.AF_UNIX) as sock, unix_address(daemon.socket) as address:
            sock.connect(address)
            sock.sendall(line)
            reply = json.loads(sock.makefile("rb").readline())
        assert reply["ok"] is False and reply["error"]["kind"] == kind
    assert ask(lexical_vault, "ping")[0]


# -- in-process: the query server against a busy Vault worker --------------------------------


def test_an_op_this_daemon_cannot_run_is_a_protocol_error_not_a_user_error(lexical_vault, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setitem(protocol.OPS, "future.op", "method_from_a_newer_version")
    worker = VaultWorker(lexical_vault)
    try:
        reply = json.loads(QueryServer(tmp_path / "unused.sock", worker).answer(
            b'{"v": 1, "op": "future.op", "args": [], "kwargs": {}}\n'))
        assert reply["error"]["kind"] == "protocol"  # the client answers in-process instead
    finally:
        worker.close()


def test_a_query_behind_long_work_is_answered_busy_and_dropped(lexical_vault, tmp_path):
    worker = VaultWorker(lexical_vault)
    server = QueryServer(tmp_path / "unused.sock", worker, read_wait=0.2)
    release = threading.Event()
    try:
        worker.submit(lambda vault: release.wait(10))  # a long batch holds the Vault
        reply = json.loads(server.answer(b'{"v": 1, "op": "status", "args": [], "kwargs": {}}\n'))
        assert reply["error"]["kind"] == "busy"
        assert worker.waiting == 0  # the abandoned query will not run later
    finally:
        release.set()
        worker.close()


# A stand-in watcher: holds the vault's pid lock like `vault-engine watch`, and on SIGTERM
# lets go of it, then takes LINGER seconds more to exit (a real one tears its interpreter down).
LINGERING_WATCHER = (
    "import fcntl, os, signal, sys, time\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "os.write(fd, str(os.getpid()).encode())\n"
    "def stop(*_):\n"
    "    fcntl.flock(fd, fcntl.LOCK_UN)\n"
    "    time.sleep(float(sys.argv[2]))\n"
    "    os._exit(0)\n"
    "signal.signal(signal.SIGTERM, stop)\n"
    "print('ready', flush=True)\n"
    "while True:\n"
    "    time.sleep(0.05)\n"
)


def lingering_watcher(root, linger: float):
    import subprocess
    import sys

    from vault_engine.config import load_config
    from vault_engine.indexing.watch_state import pid_path

    path = pid_path(load_config(root))
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", LINGERING_WATCHER, str(path), str(linger)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    return proc


def test_stop_returns_once_the_watcher_process_has_exited_not_when_it_lets_go(make_vault):
    from vault_engine.daemon.server import stop_daemon

    root = make_vault({"a.md": "# A\n"})
    proc = lingering_watcher(root, linger=1.0)
    try:
        assert stop_daemon(root) == proc.pid
        assert proc.poll() == 0  # exited (a zombie until this wait: the test process is its parent)
    finally:
        proc.kill()
        proc.wait()


def test_stop_stops_a_watcher_whose_vault_engine_toml_broke_while_it_ran(make_vault):
    """The settings are not needed to find its pid: a duplicate table had kept it running (qa150)."""
    from vault_engine.daemon.server import stop_daemon

    root = make_vault({"a.md": "# A\n"})
    proc = lingering_watcher(root, linger=0.1)
    try:
        (root / "vault-engine.toml").write_text("[taps.specs]\nsource = 'vault'\n[taps.specs]\nsource = 'vault'\n")
        assert stop_daemon(root) == proc.pid
        assert proc.poll() == 0
    finally:
        proc.kill()
        proc.wait()


def test_stop_wakes_a_stopped_watcher_so_it_ends(make_vault):
    # `kill -STOP`: its SIGTERM waited until the 30 s ran out, and the advice `kill N` did nothing
    import signal

    from vault_engine.daemon.server import stop_daemon

    root = make_vault({"a.md": "# A\n"})
    proc = lingering_watcher(root, linger=0.1)
    try:
        os.kill(proc.pid, signal.SIGSTOP)
        assert stop_daemon(root, wait=10) == proc.pid
        assert proc.poll() == 0
    finally:
        proc.kill()
        proc.wait()


def test_stop_says_so_when_the_process_outlives_the_wait(make_vault):
    from vault_engine.daemon.server import stop_daemon
    from vault_engine.errors import VaultError

    root = make_vault({"a.md": "# A\n"})
    proc = lingering_watcher(root, linger=30.0)
    try:
        with pytest.raises(VaultError, match=f"the watcher \\(pid {proc.pid}\\) let go of the vault but had not "
                                             "exited 0.3 s later"):
            stop_daemon(root, exit_wait=0.3)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


class Announced:
    """A daemon listener that says when the daemon has started and when it has stopped."""

    def __init__(self):
        self.up, self.down = threading.Event(), threading.Event()

    def started(self, info):
        self.up.set()

    def applied(self, report, catch_up):
        pass

    def problem(self, message):
        pass

    def stopped(self):
        self.down.set()


def test_a_stopped_daemon_returns_only_once_its_warm_up_has_ended(make_vault):
    """A daemon thread still importing when the interpreter finalizes is cut off in native
    code, which can abort the process: the daemon waits for it, after letting go of the vault."""
    from vault_engine.config import load_config
    from vault_engine.daemon.server import Daemon
    from vault_engine.indexing.watch_state import pid_path

    root = make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")
    release, warmed = threading.Event(), threading.Event()

    def warm_up():
        release.wait(30)
        warmed.set()

    listener = Announced()
    daemon = Daemon(root, listener, warm_ups=[warm_up])
    runner = threading.Thread(target=daemon.run)
    runner.start()
    try:
        assert listener.up.wait(20)
        daemon.request_stop()
        wait_for(lambda: not pid_path(load_config(root)).exists(), what="the vault let go of")
        runner.join(0.3)
        assert runner.is_alive() and not listener.down.is_set()
    finally:
        release.set()
        runner.join(20)
    assert warmed.is_set() and listener.down.is_set()


# `watch` told to stop by a Ctrl-C the moment it says it started (before it waits for
# queries): the catch-up was under way, and the stop is as clean as one at rest.
CTRL_C_AT_START = (
    "import os, signal, sys\n"
    "from pathlib import Path\n"
    "from vault_engine.daemon.server import Daemon\n"
    "class Listener:\n"
    "    def started(self, info): os.kill(os.getpid(), signal.SIGINT)\n"
    "    def applied(self, report, catch_up): pass\n"
    "    def problem(self, message): print(message, file=sys.stderr)\n"
    "    def stopped(self): print('stopped')\n"
    "sys.exit(Daemon(Path(sys.argv[1]), Listener()).run())\n"
)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP"])
def test_a_ctrl_c_or_a_closed_terminal_while_catching_up_stops_the_watcher_cleanly(make_vault, sig):
    """A SIGHUP (the terminal of `watch &` closed) killed it with its socket and pid file left (qa73)."""
    import subprocess
    import sys

    root = make_vault({"a.md": "# A\n"}, config="[model]\nenabled = false\n")
    script = CTRL_C_AT_START.replace("signal.SIGINT", f"signal.{sig}")
    done = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, timeout=60,
                          preexec_fn=terminal_signals)
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr
    assert not (root / ".vault-engine" / "daemon.sock").exists()
    assert not (root / ".vault-engine" / "daemon.pid").exists()


def test_the_wait_for_pending_edits_counts_in_the_read_wait(lexical_vault, tmp_path, monkeypatch):
    """The query waited up to half the read wait for pending edits, then the whole read wait
    again: 6.75 s, past the client's 5 s, which then said the watcher did not answer instead of
    that it was busy (qa158)."""
    from concurrent.futures import TimeoutError as FutureTimeout

    from vault_engine.daemon import server as server_module

    clock = [100.0]
    waited: list[float] = []

    class Pending:
        def result(self, timeout):
            waited.append(timeout)
            raise FutureTimeout

        def cancel(self):
            return True

    worker = VaultWorker(lexical_vault)
    try:
        monkeypatch.setattr(server_module.time, "perf_counter", lambda: clock[0])
        monkeypatch.setattr(worker, "settle", lambda timeout: clock.__setitem__(0, clock[0] + timeout))
        monkeypatch.setattr(worker, "submit", lambda fn: Pending())
        reply = json.loads(QueryServer(tmp_path / "unused.sock", worker, read_wait=4.0).answer(
            b'{"v": 1, "op": "status", "args": [], "kwargs": {}}\n'))
    finally:
        worker.close()
    assert reply["error"]["kind"] == "busy" and waited == [2.0]  # 4 s in all, before the client's 5 s
