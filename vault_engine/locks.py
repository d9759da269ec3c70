"""Advisory file locks shared by the writers of one vault (index, watcher, daemon).

An ``flock`` belongs to an open file, and a forked child shares its parent's open files: a
worker process forked while the writer lock is held (the reading pool, Whoosh's two writer
processes) would keep holding it after its parent was killed, and every later ``index``
would wait for a lock nobody will release. So every child forked by a process that holds a
writer lock closes its copy first thing, and asks the kernel to kill it when its parent dies
(Linux's ``PR_SET_PDEATHSIG``): workers die with their parent and never hold the lock.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

_held: set[int] = set()  # lock fds this process holds, closed in every forked child
_held_lock = threading.Lock()
_hooked = False
_forking_parent: int | None = None  # set just before each fork: the child checks it


def flock_within(fd: int, seconds: float, poll: float = 0.05,
                 waiting: Callable[[], None] | None = None, after: float = 1.0) -> bool:
    """Take an exclusive ``flock`` on ``fd``, waiting up to ``seconds``; False when another
    process still holds it then. The lock lasts until ``fd`` is closed. ``waiting`` is called
    once if the lock is not free within ``after`` seconds (say who is waited for)."""
    started = time.monotonic()
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            now = time.monotonic()
            if now - started > seconds:
                return False
            if waiting is not None and not told and now - started >= after:
                waiting()
                told = True
            time.sleep(poll)


def held_elsewhere(path) -> bool:
    """True while some open file holds an exclusive ``flock`` on ``path`` (a writer at work;
    in this process too: the test uses a file of its own)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock when we got it
    return False


def hold_in_parent_only(fd: int) -> None:
    """Mark ``fd`` as a lock of this process: forked children close it and die with us."""
    global _hooked
    with _held_lock:
        _held.add(fd)
        if not _hooked:
            os.register_at_fork(before=_before_fork, after_in_child=_in_child)
            _hooked = True


def release(fd: int) -> None:
    """Close a lock fd taken with :func:`hold_in_parent_only` (closing releases the lock)."""
    with _held_lock:
        _held.discard(fd)
    os.close(fd)


def _before_fork() -> None:
    global _forking_parent
    _forking_parent = os.getpid()


def _in_child() -> None:
    for fd in list(_held):
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()
    die_with_parent(_forking_parent)
    quiet_on_interrupt()


def quiet_on_interrupt() -> None:
    """A worker's Ctrl-C ends it at once, without a word: a terminal sends it to the whole
    process group, its parent says the one line ``vault-engine: interrupted``, and each of
    Whoosh's writers had printed its own traceback of the KeyboardInterrupt, 40-53 lines (qa195)."""
    signal.signal(signal.SIGINT, _exit_interrupted)


def _exit_interrupted(_signum: int, _frame: object) -> None:
    os._exit(130)


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` is there (another user's counts; a zombie too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op).
    ``parent`` is the pid that forked us, read before the fork: a parent that died between
    the fork and the request is caught by comparing it with the current parent after it."""
    import ctypes  # here: ctypes.util alone costs a cold command 15 ms
    import ctypes.util

    parent = parent or os.getppid()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)
