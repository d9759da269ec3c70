"""``vault-engine``: the argparse shell. Parse -> one Vault call -> render (text or --json).

Exit codes: 0 success (a miss is a success), 1 error with a one-line reason on stderr,
2 usage, 3 a dead-end hit with ``--fail-on-hit``. Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from vault_engine import __version__
from vault_engine.cli.context import terminal_safe
from vault_engine.cli.daemon_client import make_context
from vault_engine.errors import VaultError

# Each module has register(subparsers, common): adding a command group is one line here.
COMMAND_MODULES = (
    "vault_engine.cli.core_commands",
    "vault_engine.cli.code_commands",
    "vault_engine.cli.memory_commands",
    "vault_engine.cli.notion_commands",
    "vault_engine.cli.tui_command",
    "vault_engine.cli.watch_commands",
    "vault_engine.cli.agent_commands",
)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print machine-readable JSON on stdout")
    common.add_argument("--vault", metavar="DIR", default=argparse.SUPPRESS,
                        help="the vault folder (default: $VAULT_ENGINE_VAULT, else the nearest "
                             "folder upward with vault-engine.toml or .vault-engine/, else .)")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks and debug logs")
    common.add_argument("--no-daemon", action="store_true", default=argparse.SUPPRESS,
                        help="answer in this process even when `vault-engine watch` runs")
    parser = argparse.ArgumentParser(
        prog="vault-engine", parents=[common],
        description="Vault-first memory for teams of humans driving AI coding agents: "
                    "hybrid search, resume briefs and dead-end checks over an Obsidian vault.",
        epilog="Every command takes --json. Docs: README.md.",
    )
    parser.add_argument("--version", action="version", version=f"vault-engine {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    broken = next((i for i, arg in enumerate(argv, 1) if _not_utf8(arg)), None)
    if broken is not None:  # Python keeps undecodable bytes as lone surrogates: refuse them here
        print(f"vault-engine: argument {broken} is not valid UTF-8: pass text in UTF-8", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING,
                        format="vault-engine: %(message)s", stream=sys.stderr)
    ctx = make_context(args)  # search, show, status... ask the warm daemon first
    try:
        return args.handler(ctx) or 0
    except VaultError as exc:
        if debug:
            raise
        print(f"vault-engine: {terminal_safe(describe(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("vault-engine: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()


def describe(exc: VaultError) -> str:
    """The library's message, led by the flag of the argument it is about (the library names
    arguments, never flags: ``into`` is ``--into`` here and ``into`` to an MCP client)."""
    return f"--{exc.argument.replace('_', '-')}: {exc}" if exc.argument else str(exc)


def _not_utf8(arg: str) -> bool:
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
