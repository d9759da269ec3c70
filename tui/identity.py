"""Who is using the TUI, for the ``by`` field of a reinforcement."""

from __future__ import annotations

import getpass


def current_user() -> str:
    """The login name: ``$LOGNAME``, ``$USER`` and the like, else the account's name (a
    container or a cron job sets none, and "tui" went into the durable log, qa93); ``tui``
    only when there is none at all."""
    try:
        return getpass.getuser() or "tui"
    except (KeyError, OSError):  # an account with no name in the password database
        return "tui"
