"""vault-engine: a vault-first memory for teams of humans driving AI coding agents.

The public entry point is :class:`vault_engine.vault.Vault`; the CLI and the TUI are thin
shells over it. Importing this package is cheap: heavy libraries load inside the functions
that need them.
"""

__version__ = "0.2.1"
# What this release writes into an index, as the stores number it (tests/test_layout.py checks
# them): two releases that write different formats must not share a vault's index, and a
# watcher says which release it is, so a command of another one neither asks it nor indexes
# under it (an old watcher left running across an upgrade emptied the new index, qa99).
FORMATS = "ledger 15, extraction 48, code 20"
RELEASE = f"{__version__} ({FORMATS})"
