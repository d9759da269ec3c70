"""The watcher's pulse: every second, touch watch.json and check that the ground still holds.

A watcher can be stopped (``kill -STOP``), hung, or left behind by the world around it: its
vault moved or deleted, its index folder removed. Readers tell a live watcher from a frozen
one by watch.json's age (:data:`~vault_engine.indexing.watch_state.STALLED_AFTER`), so the
touch must come from a thread of its own, not from the watch loop, which sleeps while idle.

Each beat also checks:

- the vault folder is still the one the watcher started on (same device and inode): moved
  or deleted, the watcher stops with one line saying so, and never recreates the folder;
- the index folder is still the same one: removed (or removed and made again), the watcher
  asks its loop for a full comparison, which builds a new one (once per disappearance, not
  once a second);
- the pid lock file is still the one the watcher holds: gone with ``.vault-engine/`` (``rm
  -rf``, ``git clean -fdx``), nobody would see the watcher any more (status, ``watch
  --stop``) and a second one could start beside it, so it stops with one line;
- the live generation is still the same one: another process swapped one in
  (``index --rebuild --no-embed``), so the watcher embeds what it lacks (its background work
  had stopped, finding nothing left to embed in the old one).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from vault_engine.indexing.watch_state import HEARTBEAT_SECONDS
from vault_engine.layout import CURRENT, STATE_DIR

log = logging.getLogger(__name__)


class Heartbeat:
    """A thread that calls ``beat`` every :data:`HEARTBEAT_SECONDS` until stopped."""

    def __init__(self, root: Path, index_root: Path, beat: Callable[[], None],
                 vault_lost: Callable[[str], None], index_lost: Callable[[], None],
                 generation_changed: Callable[[], None] = lambda: None,
                 lock_removed: Callable[[], bool] = lambda: False, interval: float = HEARTBEAT_SECONDS):
        self.root = root
        self.index_root = index_root  # .vault-engine/index, the folder of the generations
        self.beat = beat
        self.vault_lost = vault_lost
        self.index_lost = index_lost
        self.generation_changed = generation_changed
        self.interval = interval
        self._identity = _identity(root)
        self._index_identity = _identity(index_root)
        self._generation = _generation(index_root)
        self.lock_removed = lock_removed
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
            # A path that is gone cannot tell a move from a deletion: say both, never guess.
            what = ("is gone (moved or deleted)" if now is None else
                    "is now another folder (the vault was moved or deleted and a folder made in its place)")
            self.vault_lost(f"the vault folder {self.root} {what}; the watcher stops. If the vault "
                            "was moved, start `vault-engine watch` again where it is now")
            return False
        if self.lock_removed():
            self.vault_lost(f"the state folder {self.root / STATE_DIR} was removed, and the watcher's lock with "
                            "it; the watcher stops rather than run unseen beside another. Start "
                            "`vault-engine watch` again")
            return False
        self.beat()
        # The folder's identity, not its existence: a reader may have made an empty one again
        # between two beats. (A rebuild only moves the `current` link inside it.)
        index_now = _identity(self.index_root)
        generation = _generation(self.index_root)
        if self._index_identity is not None and (index_now != self._index_identity or
                                                  (generation is None and self._generation is not None)):
            # the folder, only its `current` link (qa61), or the generation that link points at
            # (qa64): every command then said "the running watcher is building it" while it
            # waited for a save
            self.index_lost()
        if generation != self._generation and generation is not None:
            self.generation_changed()
        self._index_identity = index_now
        self._generation = generation
        return True


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _generation(index_root: Path) -> str | None:
    """The generation ``current`` points at (None: no index, or a link to a folder that is
    gone: `rm -rf` of the live generation left every command "building it", qa64)."""
    try:
        target = os.readlink(index_root / CURRENT)
    except OSError:
        return None
    return target if (index_root / CURRENT).is_dir() else None
