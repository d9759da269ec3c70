"""``python -m tui [--vault DIR] [--lexical]``: the same app as ``vault-engine tui``.

The vault is found as the CLI finds it (``--vault``, ``$VAULT_ENGINE_VAULT``, then upward).
"""

from __future__ import annotations

import argparse
import sys

from tui import create_app
from vault_engine.config import find_vault
from vault_engine.errors import VaultError


def main(argv: list[str] | None = None) -> int:
    """Parse the two options, open the app, return its exit code."""
    parser = argparse.ArgumentParser(prog="python -m tui", description="The vault-engine terminal UI.")
    parser.add_argument("--vault", metavar="DIR", help="the vault folder (default: found as the CLI does)")
    parser.add_argument("--lexical", action="store_true", help="search by words only (never loads the model)")
    args = parser.parse_args(argv)
    try:
        root = find_vault(args.vault)
        if not root.is_dir():
            raise VaultError(f"vault folder {root} does not exist: pass an existing folder to --vault")
    except VaultError as exc:
        print(f"vault-engine: {exc}", file=sys.stderr)
        return 1
    app = create_app(root, semantic=not args.lexical)
    app.run()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
