"""The CLI side of the warm daemon: command handlers get a Vault that asks the watcher first.

:class:`DaemonContext` hands command handlers a :class:`~vault_engine.daemon.client.DaemonVault`
instead of a Vault: routed methods go to the running watcher when one answers, everything
else to an in-process Vault. The handler, and so the rendering, is the same code either way,
which keeps the output identical. ``--no-daemon`` (or ``VAULT_ENGINE_NO_DAEMON=1``) skips the
daemon.
"""

from __future__ import annotations

from argparse import Namespace
from typing import Any

from vault_engine.cli.context import Context
from vault_engine.daemon.client import DaemonVault, daemon_wanted


class DaemonContext(Context):
    """A Context whose ``vault`` asks the warm daemon first."""

    def __init__(self, args: Namespace):
        super().__init__(args)
        self._daemon: DaemonVault | None = None

    @property
    def vault(self) -> Any:  # a DaemonVault, duck-typed as a Vault
        if self._daemon is None:
            self._daemon = DaemonVault(getattr(self.args, "vault", None))
        return self._daemon

    def close(self) -> None:
        if self._daemon is not None:
            self._daemon.close()


def make_context(args: Namespace) -> Context:
    """The context for this command line: daemon-first unless told otherwise."""
    if not daemon_wanted(getattr(args, "no_daemon", False)):
        return Context(args)
    return DaemonContext(args)
