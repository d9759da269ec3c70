"""The Textual TUI of vault-engine, over the public Vault API only.

``create_app`` is the one factory the CLI (``vault-engine tui``), ``python -m tui`` and the
tests use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.app import VaultApp


def create_app(vault_path: str | os.PathLike[str], now: float | None = None, *,
               semantic: bool = True) -> VaultApp:
    """The app over the vault at ``vault_path``.

    ``now`` freezes the clock for every Vault call that takes one (decay, age, reinforcement
    time): tests and snapshots pass it, humans leave it None. ``semantic=False`` searches by
    words only and never loads the embedding model.
    """
    from tui.app import VaultApp

    return VaultApp(Path(vault_path), now=now, semantic=semantic)
