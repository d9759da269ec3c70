"""``vault-engine tui``: the Textual app for humans (imported only when the command runs)."""

from __future__ import annotations

import argparse

from vault_engine.cli.context import Context
from vault_engine.errors import VaultNotFound


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add ``tui`` to the command line."""
    p = sub.add_parser("tui", parents=[common], help="the Textual app: search, notes, dead ends, resume, decay",
                       description="Open the terminal UI over the vault. "
                                   "Example: vault-engine --vault sample-vault tui")
    p.add_argument("--lexical", action="store_true",
                   help="search by words only (never loads the embedding model)")
    p.set_defaults(handler=cmd_tui)


def cmd_tui(ctx: Context) -> int:
    """Parse -> open the app on the vault -> its exit code (the app makes the Vault calls)."""
    if ctx.json:
        return ctx.usage_error("tui is interactive and has no --json output: use search, show, "
                               "resume or deadend with --json instead")
    root = ctx.vault.root  # --vault, $VAULT_ENGINE_VAULT or the upward search, as for every command
    if not root.is_dir():
        raise VaultNotFound(f"vault folder {root} does not exist: pass an existing folder to --vault")
    from tui import create_app

    app = create_app(root, semantic=not ctx.args.lexical)  # its threads open their own Vaults
    app.run()
    return app.return_code or 0
