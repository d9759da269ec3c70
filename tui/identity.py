"""Who is using the TUI, for the ``by`` field of a reinforcement."""

from __future__ import annotations

import os


def current_user() -> str:
    """The login name from the environment, else ``tui``."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or "tui"
