"""The running watcher's health, written to ``.vault-engine/watch.json`` as it changes.

Fields: pid, started, state (catching-up | watching | stopping), last_event, last_applied,
pending (paths waiting), oldest_pending, lag_seconds (first event of the last burst to its
apply), caught_up_seconds (how long the start's catch-up took), batches, last_batch (its
report) and the ten most recent errors. ``status`` reads it
through :mod:`vault_engine.indexing.watch_state`, which also tells a live watcher from a
stale file (the pid lock).

Written on a burst's first event, at most once a second while events keep coming, and after
each apply: a 1,000-file checkout costs a handful of writes, not a thousand. A write that
fails (a full disk) is tried again at the next heartbeat: the health is only a report, and
its write had ended the watch thread while the process lived on, the index going stale
under a `status` that still said "watching" (qa44).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from typing import Any

from vault_engine import RELEASE
from vault_engine.config import Config
from vault_engine.indexing.watch_state import health_path, write_health
from vault_engine.layout import SOCKET_FILE, STATE_DIR
from vault_engine.model import IndexReport

MAX_ERRORS = 10
PENDING_WRITE_INTERVAL = 1.0


class HealthRecorder:
    """Thread-safe: the watch loop, the query server and the main thread all report here."""

    def __init__(self, config: Config, pid: int, started: float):
        self.config = config
        self._lock = threading.Lock()
        self._errors: deque[dict[str, Any]] = deque(maxlen=MAX_ERRORS)
        self._data: dict[str, Any] = {
            "pid": pid, "release": RELEASE, "started": started, "state": "catching-up",
            "socket": f"{STATE_DIR}/{SOCKET_FILE}", "last_event": None, "last_applied": None,
            "pending": 0, "oldest_pending": None, "lag_seconds": None, "caught_up_seconds": None, "batches": 0,
            "last_batch": None, "errors": [],
        }
        self._written_at = 0.0
        self._detached = False
        self._unwritten = False  # the last write failed: the next heartbeat writes again

    def detach(self) -> None:
        """Write nothing any more: ``.vault-engine/`` was removed under the watcher, and a file
        written now would make it again, or overwrite another watcher's."""
        with self._lock:
            self._detached = True

    def set_state(self, state: str) -> None:
        with self._lock:
            self._data["state"] = state
            self._write()

    def pending(self, count: int, oldest_wall: float | None, now: float) -> None:
        """Events are waiting: write on the first one, then at most once a second."""
        with self._lock:
            first = self._data["pending"] == 0
            self._data.update(pending=count, oldest_pending=oldest_wall, last_event=now)
            if first or now - self._written_at >= PENDING_WRITE_INTERVAL:
                self._write(now)

    def applied(self, report: IndexReport, lag: float, now: float, *, catch_up: bool = False) -> None:
        """A batch was applied ``lag`` seconds after its first event; for the start's
        catch-up, which answers no event, that is how long it took (a 12 s "lag" at start
        read as 12 s behind an edit)."""
        with self._lock:
            self._data.update({"caught_up_seconds" if catch_up else "lag_seconds": round(lag, 3)})
            self._data.update(last_applied=now, pending=0, oldest_pending=None,
                              batches=self._data["batches"] + 1, last_batch=report.to_json())
            self._write(now)

    def error(self, message: str, now: float) -> None:
        with self._lock:
            self._errors.append({"at": now, "message": message})
            self._write(now)

    def beat(self) -> None:
        """Touch watch.json (its age is the watcher's sign of life); rewrite it if it is gone."""
        with self._lock:
            if self._detached:
                return
            if self._unwritten:  # the last write failed (a full disk): now it may not
                self._write()
            try:  # a sign of life needs no space: a full disk read as a stalled watcher (qa46)
                os.utime(health_path(self.config))
            except FileNotFoundError:
                self._write()

    def remove(self) -> None:
        """A clean stop leaves no health behind (status then says: not running)."""
        with self._lock:
            if not self._detached:
                health_path(self.config).unlink(missing_ok=True)

    def _write(self, now: float | None = None) -> None:
        if self._detached:
            return
        self._data["errors"] = list(self._errors)
        try:
            write_health(self.config, self._data)
        except OSError:
            self._unwritten = True
            return
        self._unwritten = False
        self._written_at = now if now is not None else time.time()
