"""The warm daemon: ``vault-engine watch`` is the watch service plus a query server.

Queries arrive on the Unix socket ``.vault-engine/daemon.sock`` (mode 0600, inside the vault,
never TCP) in the line-delimited JSON of :mod:`vault_engine.daemon.protocol`. A request whose
op names a *session* (the CLI gives ``mcp``) is answered ``ok`` and the connection then belongs
to that session's handler until either side hangs up; the daemon knows sessions only by name,
so it never imports the shells above it.

Threads: the main thread accepts connections and takes signals, asleep in ``select`` with no
timeout; one short-lived thread per connection (a session's lives as long as it does); one
that warms the sessions' imports at start; the Vault worker (every Vault call, see
:mod:`vault_engine.daemon.worker`); the watch thread; watchdog's own threads. Idle, all of
them block: no polling loop of ours.

Stop on SIGINT/SIGTERM (and SIGHUP, unless ignored): stop accepting and remove the socket; stop the observer; the batch
being applied is finished (one ledger transaction and one Whoosh commit: it lands whole or
not at all) and pending events are left to the next start's catch-up; close the Vault;
remove watch.json and the pid file.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from vault_engine.config import Config, load_config
from vault_engine.daemon import protocol
from vault_engine.daemon.health import HealthRecorder
from vault_engine.daemon.heartbeat import Heartbeat
from vault_engine.daemon.service import WatchListener, WatchService
from vault_engine.daemon.worker import VaultWorker
from vault_engine.errors import VaultError
from vault_engine.indexing.watch_state import pid_path, socket_path, watcher_running
from vault_engine.locks import flock_within, process_alive
from vault_engine.paths import make_state_folder

log = logging.getLogger(__name__)

# A query that would wait longer for the Vault is answered "busy": before the client stops
# waiting (client.REPLY_TIMEOUT, 5 s), so it answers in-process without a warning.
READ_WAIT = 4.5
REQUEST_TIMEOUT = 2.0  # a client sends its one line at once; one that idles is dropped
MAX_CONNECTIONS = 16  # served at once; beyond that a connection is answered "busy" and closed
STOP_WAIT = 30.0
EXIT_WAIT = 5.0  # after the lock is released: the interpreter's own teardown


class DaemonListener(WatchListener, Protocol):
    """What ``vault-engine watch`` prints: the start, each batch, problems, the stop."""

    def started(self, info: dict[str, Any]) -> None: ...

    def stopped(self) -> None: ...


Session = Callable[[socket.socket, VaultWorker], None]  # serves a connection until it closes


class PidLock:
    """``.vault-engine/daemon.pid``, flock-ed for the daemon's life: one watcher per vault,
    and the proof of life that :func:`watcher_running` checks."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def acquire(self, wait: float = 0.5) -> None:
        make_state_folder(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if not flock_within(fd, wait, poll=0.02):  # a status probe holds it for microseconds
            other = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise VaultError(f"a watcher already runs for this vault (pid {other}): "
                             "stop it with `vault-engine watch --stop` first")
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def removed(self) -> bool:
        """Whether the locked file was deleted (with ``.vault-engine/``): nobody sees the lock."""
        return self._fd is not None and os.fstat(self._fd).st_nlink == 0

    def release(self) -> None:
        if self._fd is None:
            return
        if not self.removed():  # removed with .vault-engine/: the file there now may be another's
            self.path.unlink(missing_ok=True)  # before unlocking: a newcomer makes a fresh file
        os.close(self._fd)
        self._fd = None


def _same_file(path: Path, info: os.stat_result | None) -> bool:
    """Whether ``path`` is still the file ``info`` describes (not one made since in its place)."""
    try:
        now = os.stat(path)
    except OSError:
        return False
    return info is not None and (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)


class QueryServer:
    """Answers protocol requests by running the named Vault method on the worker."""

    def __init__(self, path: Path, worker: VaultWorker, read_wait: float = READ_WAIT,
                 sessions: Mapping[str, Session] | None = None):
        self.path = path
        self.worker = worker
        self.read_wait = read_wait
        self.sessions = dict(sessions or {})
        self.sock: socket.socket | None = None
        self._bound: os.stat_result | None = None  # the socket file made by bind()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._in_session: set[socket.socket] = set()
        self._lock = threading.Lock()

    def bind(self) -> None:
        """Listen on the socket, mode 0600 from the first instant (umask), never TCP. Call
        before starting other threads: the umask is process-wide."""
        self.path.unlink(missing_ok=True)  # stale: we hold the pid lock, nobody serves it
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            with protocol.unix_address(self.path) as address:
                sock.bind(address)
        except OSError as exc:
            sock.close()
            raise VaultError(f"cannot listen on {self.path}: {exc.strerror or exc}") from exc
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)
        self._bound = os.stat(self.path)
        sock.listen(64)
        self.sock = sock

    def accept(self) -> None:
        """Take one waiting connection and answer it on its own thread; past
        MAX_CONNECTIONS at once, answer "busy" at once (the client answers in-process), so a
        thousand idle connections cost no more than sixteen threads."""
        assert self.sock is not None  # listen() first
        conn, _ = self.sock.accept()
        if not self._slots.acquire(blocking=False):
            with conn:
                try:
                    conn.settimeout(0.5)
                    conn.sendall(protocol.reply_error("busy", f"over {MAX_CONNECTIONS} connections at once"))
                except OSError:
                    pass
            return
        threading.Thread(target=self._handle_then_free, args=(conn,), name="query", daemon=True).start()

    def _handle_then_free(self, conn: socket.socket) -> None:
        try:
            self.handle(conn)
        finally:
            self._slots.release()

    def handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(REQUEST_TIMEOUT)
            try:
                line = conn.makefile("rb").readline(protocol.MAX_REQUEST_BYTES + 1)
                if not line.endswith(b"\n"):
                    if line:
                        conn.sendall(protocol.reply_error("protocol", "request too long or unterminated"))
                    return
                session = self.sessions.get(_op_of(line) or "")
                if session is None:
                    conn.sendall(self.answer(line))
                else:
                    conn.sendall(protocol.reply_ok(None, 0.0))
                    self._run_session(session, conn)
            except OSError as exc:  # the client gave up (timeout, Ctrl-C): nothing to answer
                log.debug("query connection dropped: %s", exc)

    def _run_session(self, session: Session, conn: socket.socket) -> None:
        # The client speaks only after our "ok", so the reader of the request line held
        # nothing more: the session reads the socket from its first byte.
        conn.settimeout(None)  # a session idles as long as its agent does
        with self._lock:
            self._in_session.add(conn)
        try:
            session(conn, self.worker)
        except Exception:  # noqa: BLE001 - one session's fault must not reach the daemon
            log.exception("a session on the daemon socket failed")
        finally:
            with self._lock:
                self._in_session.discard(conn)

    def answer(self, line: bytes) -> bytes:
        """The reply line for one request line."""
        started = time.perf_counter()
        try:
            message = protocol.parse(line)
            op = message.get("op")
            if op == "ping":
                return protocol.reply_ok({"pid": os.getpid(), "ops": sorted(protocol.OPS)}, 0.0)
            method = protocol.OPS.get(op) if isinstance(op, str) else None
            if method is None:
                return protocol.reply_error("protocol", f"unknown op {op!r}")
            args = protocol.decode(message.get("args", []))
            kwargs = protocol.decode(message.get("kwargs", {}))
        except protocol.ProtocolError as exc:
            return protocol.reply_error("protocol", str(exc))
        self.worker.settle(self.read_wait / 2)
        future = self.worker.submit(lambda vault: _call(vault, method, args, kwargs))
        try:
            # read_wait in all, the settling included: after it, up to 6.75 s, the client had
            # given up first and said the watcher did not answer, not that it was busy (qa158)
            result = future.result(timeout=max(0.0, self.read_wait - (time.perf_counter() - started)))
            return protocol.reply_ok(result, (time.perf_counter() - started) * 1000)
        except FutureTimeout:
            future.cancel()  # if it has not started: no stale work left behind
            return protocol.reply_error("busy", f"busy for over {self.read_wait:g} s (indexing)")
        except protocol.ProtocolError as exc:  # e.g. an op this (older) daemon cannot answer
            return protocol.reply_error("protocol", str(exc))
        except VaultError as exc:
            return protocol.reply_error("vault", str(exc), exc)
        except Exception as exc:  # noqa: BLE001 - the client answers in-process and shows it
            log.debug("query %s failed", op, exc_info=True)
            return protocol.reply_error("internal", repr(exc), exc)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
            if _same_file(self.path, self._bound):  # not another watcher's, made after .vault-engine/ went
                self.path.unlink(missing_ok=True)
        with self._lock:  # sessions read EOF and end; their relays take over in-process
            for conn in self._in_session:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def _op_of(line: bytes) -> str | None:
    try:
        op = protocol.parse(line).get("op")
    except protocol.ProtocolError:
        return None  # answer() says what is wrong with it
    return op if isinstance(op, str) else None


def _call(vault: Any, method: str, args: list, kwargs: dict) -> Any:
    found = getattr(vault, method, None)
    if found is None:
        raise protocol.ProtocolError(f"this daemon's Vault has no {method}()")
    return found(*args, **kwargs)


class Daemon:
    """``vault-engine watch``: run until SIGINT/SIGTERM (or :meth:`request_stop`)."""

    def __init__(self, root: Path, listener: DaemonListener, sessions: Mapping[str, Session] | None = None,
                 warm_ups: Sequence[Callable[[], None]] = ()):
        self.root = root
        self.config = load_config(root)
        self.listener = listener
        self.worker = VaultWorker(root)
        self.server = QueryServer(socket_path(self.config), self.worker, sessions=sessions)
        self._warm_ups = tuple(warm_ups)
        self.health = HealthRecorder(self.config, os.getpid(), time.time())
        self.service = WatchService(self.config, self.worker, self.health, listener,
                                    on_fatal=self._failed)
        self.worker.watcher_settle = self.service.settle
        self.heartbeat = Heartbeat(root, self.config.index_root, beat=self.health.beat,
                                   vault_lost=self._vault_lost,
                                   index_lost=self.service.request_rescan,
                                   generation_changed=self.service.wake_idle_work,
                                   lock_removed=lambda: self._pid_lock.removed())
        self._pid_lock = PidLock(pid_path(self.config))
        self._wake_r = self._wake_w = -1
        self._stopping = threading.Event()
        self._warming: threading.Thread | None = None  # the sessions' warm-up, while it runs
        self.failure: str | None = None  # why it stopped on its own, if it did

    def run(self) -> int:
        """Serve until stopped; always leaves no socket, pid file nor health behind. The exit
        code: 0 when asked to stop, 1 when a fault stopped it (a supervisor restarts on 1)."""
        self._pid_lock.acquire()
        self._wake_r, self._wake_w = os.pipe()
        try:
            # From the first instant: a Ctrl-C during the catch-up stops it as one at rest
            # does (it had ended as "interrupted", exit 130). Restored before the shutdown,
            # so a second Ctrl-C still breaks out of a long batch.
            with self._signals_caught():
                self.server.bind()
                _prefer_forkserver()
                self.health.set_state("catching-up")
                self.service.start()
                self.heartbeat.start()
                self._warm_up()
                self.listener.started({"pid": os.getpid(), "vault": str(self.root),
                                       "socket": str(self.server.path)})
                self._serve()
        finally:
            self._shutdown()
        return 1 if self.failure else 0

    def request_stop(self) -> None:
        """Stop from any thread (a fatal watcher error, a test)."""
        self._stopping.set()
        if self._wake_w >= 0:
            os.write(self._wake_w, b"!")

    def _warm_up(self) -> None:
        """Run the sessions' warm-ups (the MCP SDK's import) on a thread of their own: the
        first session is then as quick as the next, and nobody waits for it meanwhile."""
        def run() -> None:
            for warm in self._warm_ups:
                try:
                    warm()
                except Exception:  # noqa: BLE001 - a session then pays its own start
                    log.warning("warming up a session failed", exc_info=True)
        if self._warm_ups:
            self._warming = threading.Thread(target=run, name="warm-up", daemon=True)
            self._warming.start()

    def _vault_lost(self, message: str) -> None:
        if not self.config.state_dir.is_dir() or self._pid_lock.removed():
            self.health.detach()  # its files are gone, or another watcher's now: write none again
        self.health.error(message, time.time())
        self.listener.problem(message)
        self._failed(message)

    def _failed(self, why: str = "the watcher stopped on an error") -> None:
        self.failure = self.failure or why
        self.request_stop()

    @contextmanager
    def _signals_caught(self) -> Iterator[None]:
        """SIGINT/SIGTERM ask to stop while inside (signals are the main thread's alone)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = _catch_signals(self._wake_w, self._stopping)
        try:
            yield
        finally:
            _restore_signals(previous)

    def _serve(self) -> None:
        assert self.server.sock is not None  # bound by run() before it serves
        with selectors.DefaultSelector() as selector:
            selector.register(self.server.sock, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _ in selector.select():  # no timeout: idle means asleep
                    if key.fileobj is self.server.sock:
                        self.server.accept()
                    else:
                        os.read(self._wake_r, 512)

    def _shutdown(self) -> None:
        try:
            self.heartbeat.stop()
            self.health.set_state("stopping")
            self.server.close()
            self.service.stop()
            self.worker.close()
            self.health.remove()
        finally:
            self._pid_lock.release()
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1
            if self._warming is not None:
                # A thread of ours that can outlive the rest: an import cut off as the
                # interpreter finalizes can abort the process ("FATAL: exception not
                # rethrown", 1 in 300 runs of a script that exits while a thread imports the
                # MCP SDK; a Ctrl-C'd watch exited -6 so in CI). Waited for after letting go
                # of the vault, so a new watcher need not wait.
                self._warming.join()
            self.listener.stopped()


def _catch_signals(wake_fd: int, stopping: threading.Event) -> tuple:
    """SIGINT/SIGTERM set ``stopping``; the wakeup fd makes ``select`` return at once. So does
    SIGHUP, the terminal of a `vault-engine watch &` closing: it had killed the watcher with
    its socket and pid file left behind (qa73), unless ignored (`nohup` means keep running)."""
    os.set_blocking(wake_fd, False)
    previous_fd = signal.set_wakeup_fd(wake_fd)
    handler = lambda signum, frame: stopping.set()  # noqa: E731
    caught = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        caught.append(signal.SIGHUP)
    previous = {sig: signal.signal(sig, handler) for sig in caught}
    return previous_fd, previous


def _restore_signals(saved: tuple) -> None:
    previous_fd, previous = saved
    signal.set_wakeup_fd(previous_fd)
    for sig, handler in previous.items():
        signal.signal(sig, handler)


def _prefer_forkserver() -> None:
    """A 1,000-file burst reads notes in a process pool; forking a process that runs threads
    can deadlock the child on a lock some thread held, so children come from a forkserver.
    It is started here, from the main thread: the kernel kills it when the thread that
    started it ends (daemon/forkserver_guard.py), so not from a batch's or a query's."""
    import multiprocessing
    import multiprocessing.forkserver

    if "forkserver" in multiprocessing.get_all_start_methods():
        multiprocessing.set_start_method("forkserver", force=True)
        multiprocessing.set_forkserver_preload(["vault_engine.daemon.forkserver_guard",
                                                "vault_engine.indexing.indexer"])
        multiprocessing.forkserver.ensure_running()


def stop_daemon(root: Path, wait: float = STOP_WAIT, exit_wait: float = EXIT_WAIT) -> int | None:
    """Ask the watcher of the vault at ``root`` to stop (SIGTERM) and wait until it has let
    go of the vault (``wait``) and then until its process has exited (``exit_wait``); its
    pid, or None when none was running. Its pid file is found by the vault's folder alone:
    a ``vault-engine.toml`` broken while it ran had kept it from being stopped (qa150)."""
    config = Config(root=root)
    if not watcher_running(config):
        return None
    try:
        pid = int(pid_path(config).read_text().strip())
    except (OSError, ValueError) as exc:
        raise VaultError(f"a watcher runs but {pid_path(config)} is unreadable: {exc}") from exc
    os.kill(pid, signal.SIGTERM)
    os.kill(pid, signal.SIGCONT)  # a stopped watcher (kill -STOP, Ctrl+Z) gets its SIGTERM only once woken
    deadline = time.monotonic() + wait
    while watcher_running(config):
        if time.monotonic() > deadline:
            raise VaultError(f"the watcher (pid {pid}) did not stop within {wait:.0f} s; "
                             f"end it with `kill -9 {pid}`")
        time.sleep(0.05)
    # The lock goes first, then the interpreter winds down (threads, imported libraries): a
    # script that moves or deletes the vault right after `watch --stop` must not race that.
    deadline = time.monotonic() + exit_wait
    while not process_exited(pid):
        if time.monotonic() > deadline:
            raise VaultError(f"the watcher (pid {pid}) let go of the vault but had not exited {exit_wait:g} s "
                             f"later; see `ps -p {pid}`, and `kill {pid}` if it stays")
        time.sleep(0.02)
    return pid


def process_exited(pid: int) -> bool:
    """Whether process ``pid`` has exited: gone, or a zombie (dead, its parent not yet told)."""
    if not process_alive(pid):
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]  # the name in parentheses may hold spaces
    except (OSError, IndexError):  # no /proc (macOS): the signal's answer stands
        return False
    return state in ("Z", "X")
