"""What a command handler gets: its arguments, the vault (opened on first use), and output."""

from __future__ import annotations

import json
import os
import sys
from argparse import ArgumentTypeError, Namespace
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from vault_engine.constants import CONTROL_CHARACTERS

if TYPE_CHECKING:  # imported on first use: a call answered by the daemon never needs it
    from vault_engine.vault import Vault


def leave_at_once(code: int) -> NoReturn:
    """End the process without finalizing the interpreter, every file being closed by now.
    A Ctrl-C inside ``import faiss``, or while the query model opens on its own thread, left
    C++ state whose teardown at exit aborted the process (exit 134, "terminate called without
    an active exception": 5 of 15 interrupts of a cold ``search --semantic``, qa41); so did a
    hook whose check outlived its deadline inside onnxruntime. A model export under way dies
    with its parent (stores/export_worker.py)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def interrupted() -> NoReturn:
    """Ctrl-C, wherever it landed: one line, exit 130, at once (:func:`leave_at_once`)."""
    print("vault-engine: interrupted", file=sys.stderr)
    leave_at_once(130)


def terminal_safe(text: str) -> str:
    """Text for a terminal: control characters (escape sequences that recolour, retitle or
    clear a terminal, carried in by a file name or a note) shown as ``\\x1b`` instead of
    obeyed. JSON output is data and is left exact."""
    return CONTROL_CHARACTERS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def int_within(low: int, high: int | None = None):
    """An argparse ``type`` for a whole number in [low, high]: anything else is a usage error
    (exit 2) naming the range, never a silent slice or a false miss."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise ArgumentTypeError(f"{value} is out of range: use " + (f"{low}..{high}" if high is not None
                                                                       else f"{low} or more"))
        return value
    parse.__name__ = "number"
    return parse


def non_empty(text: str) -> str:
    """An argparse ``type`` for a query or proposal: blank is a usage error (exit 2), as the
    MCP tools answer it, never a search for nothing that reports a clean miss."""
    if not text.strip():
        raise ArgumentTypeError("must not be empty")
    return text


def named(text: str) -> str:
    """An argparse ``type`` for a filter or a name (``--project``, ``--kind``, ``--tap``): blank
    is a usage error (exit 2), as the MCP tools refuse it; an unset ``$P`` in a script
    searched a project named '' or flagged every ruling as another project's."""
    if not text.strip():
        raise ArgumentTypeError("must not be empty: leave it out instead")
    return text


class Context:
    def __init__(self, args: Namespace):
        self.args = args
        self.json = bool(getattr(args, "json", False))
        self.debug = bool(getattr(args, "debug", False))
        self._vault: Vault | None = None

    @property
    def vault(self) -> Vault:
        if self._vault is None:
            from vault_engine.vault import Vault

            self._vault = Vault.open(getattr(self.args, "vault", None))
        return self._vault

    @property
    def interactive(self) -> bool:
        """Human output on a terminal: progress bars and colour are allowed."""
        return not self.json and sys.stderr.isatty()

    def emit(self, data: Any, render: Callable[[], str]) -> None:
        """Print ``data`` as JSON with --json, else the human rendering (terminal-safe)."""
        if self.json:
            sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        else:
            text = terminal_safe(render())
            if text:
                sys.stdout.write(text if text.endswith("\n") else text + "\n")

    def notice(self, message: str) -> None:
        """A one-line notice for humans and agents alike: always stderr, never stdout."""
        print(f"vault-engine: {terminal_safe(message)}", file=sys.stderr)

    def usage_error(self, message: str) -> int:
        """A command line that cannot work: the command's usage and why, exit 2 (as argparse
        says its own)."""
        usage = getattr(self.args, "usage", None)
        if usage is not None:
            sys.stderr.write(usage())
        self.notice(message)
        return 2

    def close(self) -> None:
        if self._vault is not None:
            self._vault.close()
