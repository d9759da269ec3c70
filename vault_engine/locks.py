"""Advisory file locks shared by the writers of one vault (index, watcher, daemon)."""

from __future__ import annotations

import fcntl
import time


def flock_within(fd: int, seconds: float, poll: float = 0.05) -> bool:
    """Take an exclusive ``flock`` on ``fd``, waiting up to ``seconds``; False when another
    process still holds it then. The lock lasts until ``fd`` is closed."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(poll)
