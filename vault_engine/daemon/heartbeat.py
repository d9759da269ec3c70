"""The watcher's pulse: every second, touch watch.json and check that the ground still holds.

A watcher can be stopped (``kill -STOP``), hung, or left behind by the world around it: its
vault moved or deleted, its index folder removed. Readers tell a live watcher from a frozen
one by watch.json's age (:data:`~vault_engine.indexing.watch_state.STALLED_AFTER`), so the
touch must come from a thread of its own, not from the watch loop, which sleeps while idle.

Each beat also checks:

- the vault folder is still the one the watcher started on (same device and inode): moved
  or deleted, the watcher stops with one line saying so, and never recreates the folder;
- the index is still there: removed, the watcher asks its loop for a full comparison, which
  builds a new one (once per disappearance, not once a second).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from vault_engine.indexing.watch_state import HEARTBEAT_SECONDS

log = logging.getLogger(__name__)


class Heartbeat:
    """A thread that calls ``beat`` every :data:`HEARTBEAT_SECONDS` until stopped."""

    def __init__(self, root: Path, index_dir: Path, beat: Callable[[], None],
                 vault_lost: Callable[[str], None], index_lost: Callable[[], None],
                 interval: float = HEARTBEAT_SECONDS):
        self.root = root
        self.index_dir = index_dir
        self.beat = beat
        self.vault_lost = vault_lost
        self.index_lost = index_lost
        self.interval = interval
        self._identity = _identity(root)
        self._index_was_there = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.check():
                    return
            except Exception:  # noqa: BLE001 - a pulse that fails once must not stop for good
                log.debug("heartbeat failed", exc_info=True)

    def check(self) -> bool:
        """One beat; False once the vault is gone (the watcher is then told to stop)."""
        now = _identity(self.root)
        if now != self._identity:
            what = "was deleted" if now is None else "was moved or replaced"
            self.vault_lost(f"the vault folder {self.root} {what}; the watcher stops. Start "
                            f"`vault-engine watch` again where the vault is now")
            return False
        self.beat()
        there = self.index_dir.exists()
        if self._index_was_there and not there:
            self.index_lost()
        self._index_was_there = there
        return True


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
