"""vault-engine: a vault-first memory for teams of humans driving AI coding agents.

The public entry point is :class:`vault_engine.vault.Vault`; the CLI and the TUI are thin
shells over it. Importing this package is cheap: heavy libraries load inside the functions
that need them.
"""

__version__ = "0.1.0"
