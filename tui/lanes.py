"""Where Vault calls run: one long-lived thread per lane, each owning its own Vault.

A Vault holds a sqlite3 connection (and, once the semantic arm loads it, the embedding
model), and a sqlite3 connection must stay on the thread that opened it. So the TUI never
touches a Vault on the event loop: each lane is a :class:`~vault_engine.vault_thread.VaultThread`
that opens its Vault on first use and runs every call submitted to it, in order, on the index
files of now (stores another process replaced are reopened). Screens await a lane from async
Textual workers (``@work(exclusive=True)``); the UI thread only ever sees the returned values.

Two lanes keep a slow call from blocking a quick one: ``query`` runs searches and dead-end
checks (the calls that may load the model, which then stays warm for the next keystroke),
``browse`` runs everything else (show, links, status, decay, reinforce, resume). Indexing
opens a Vault of its own on a thread worker (see ``VaultApp.action_index``).

When an exclusive worker is cancelled (the user typed again), the awaited future is
cancelled too: a call still waiting in the lane's queue is dropped, a running one finishes
and its result is discarded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from vault_engine.vault import Vault
from vault_engine.vault_thread import VaultThread

T = TypeVar("T")
VaultOpener = Callable[[Path], Vault]


class VaultLane:
    """One thread that owns one Vault; ``await lane.call(fn, ...)`` runs ``fn(vault, ...)`` there."""

    def __init__(self, root: Path, name: str, open_vault: VaultOpener = Vault):
        self.root = root
        self.name = name
        # tests open theirs with a fake embedder
        self.thread = VaultThread(lambda: open_vault(root), name=f"vault-{name}")

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(vault, *args, **kwargs)`` on the lane's thread and return its result."""
        return await self.thread.run(fn, *args, **kwargs)

    def close(self) -> None:
        """Drop queued calls, close the Vault on its own thread, then stop the thread."""
        self.thread.close(timeout=None)
