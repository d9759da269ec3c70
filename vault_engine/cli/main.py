"""``vault-engine``: the argparse shell. Parse -> one Vault call -> render (text or --json).

Exit codes: 0 success (a miss is a success), 1 error with a one-line reason on stderr,
2 usage (never for ``hook``: Claude Code reads 2 as "block"), 3 a dead-end hit with
``--fail-on-hit``. Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from vault_engine import RELEASE
from vault_engine.cli.context import interrupted, terminal_safe
from vault_engine.cli.daemon_client import make_context
from vault_engine.errors import (
    VaultError,
    disk_full,
    disk_is_full,
    one_line,
    permission_denied,
    write_refused,
    wrong_kind,
)

# Each module has register(subparsers, common): adding a command group is one line here,
# and its commands a line of COMMANDS.
COMMAND_MODULES = (
    "vault_engine.cli.core_commands",
    "vault_engine.cli.code_commands",
    "vault_engine.cli.memory_commands",
    "vault_engine.cli.notion_commands",
    "vault_engine.cli.tui_command",
    "vault_engine.cli.watch_commands",
    "vault_engine.cli.agent_commands",
)
# The module that registers each command. A command line builds only its own command's
# module (every subcommand's parser, with argparse's help texts looked up through gettext,
# cost a tenth of a cold `find`); --help, no command or an unknown one builds them all, so
# that argparse lists every choice. tests/cli/test_core_commands.py keeps this in step.
_CORE, _CODE, _MEMORY = COMMAND_MODULES[:3]
COMMANDS = {
    **dict.fromkeys(("init", "index", "search", "show", "links", "status", "reinforce", "decay"), _CORE),
    **dict.fromkeys(("outline", "callers", "callees", "find"), _CODE),
    **dict.fromkeys(("checkpoint", "resume", "deadend"), _MEMORY),
    "notion": COMMAND_MODULES[3], "tui": COMMAND_MODULES[4], "watch": COMMAND_MODULES[5],
    "mcp": COMMAND_MODULES[6], "hook": COMMAND_MODULES[6],
}
_VALUED = ("--vault",)  # global options that take a value (the word after is not the command)


class CommandParser(argparse.ArgumentParser):
    """A parser that refuses words it does not know itself. argparse hands a subcommand's
    unknown words up to the top-level parser, which then prints its own usage (``usage:
    vault-engine [-h] ...``) for a typo in ``search --bogus``: the usage to read is the
    subcommand's. Subparsers are made of their parent's class, so every command and action
    (``deadend check``) is one of these."""

    _line: list[str] = []  # the whole command line: the outermost parser's words
    _depth = 0

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)
        if CommandParser._depth == 0:
            CommandParser._line = self._words
        CommandParser._depth += 1
        try:
            namespace, extras = super().parse_known_args(args, namespace)
        finally:
            CommandParser._depth -= 1
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}" + self._quote_hint(namespace, extras))
        return namespace, extras

    def _quote_hint(self, namespace, extras: list[str]) -> str:
        """For words after a query or proposal: it is one argument, so several words go in
        quotes (`search retry webhooks` said only "unrecognized arguments: webhooks", qa48)."""
        name = next((n for n in ("query", "proposal") if isinstance(getattr(namespace, n, None), str)), None)
        words = [w for w in extras if not w.startswith("-")]
        if name is not None and "--" in self._words and any(w.startswith("-") for w in extras):
            # after "--" every word is the query's: `search -- --list-marker-color -k 2` (qa52)
            return (f" (options go before '--': {self.prog} {' '.join(map(shlex.quote, extras))} -- "
                    f"{shlex.quote(getattr(namespace, name))})")
        if name is None or not words:
            return ""
        query = [getattr(namespace, name), *words]
        options = list(self._words)  # the options given stay in the command it suggests (qa157)
        for word in query:
            if word in options:
                options.remove(word)
        # and those given before the command (`--vault DIR`: run elsewhere, the hint searched another vault, qa161)
        command = self.prog.split()[1:]
        before = CommandParser._line[:len(CommandParser._line) - len(self._words)]
        before = before[:len(before) - len(command)] if before[len(before) - len(command):] == command else []
        line = [self.prog.split()[0], *map(shlex.quote, before), *command, *map(shlex.quote, options),
                shlex.quote(" ".join(query))]
        return f" (a {name} of several words goes in quotes: {' '.join(line)})"

    def error(self, message):
        """argparse's error, and for a word that starts with "-" and is no option of the
        command, how to give it as the query: `search "--list-marker-color"` (a CSS
        variable) said only that the query was missing (qa28 F9)."""
        positional = next((a.metavar or a.dest for a in self._actions if not a.option_strings
                           and a.nargs != argparse.PARSER), None)
        dashed = next((w for w in getattr(self, "_words", []) if w.startswith("-") and w != "--"
                       and w.split("=", 1)[0] not in self._option_string_actions), None)
        if positional and dashed and "arguments are required" in message:
            # the options given stay in the command it suggests (`-k 2` was dropped, qa53)
            options = "".join(f" {shlex.quote(w)}" for w in self._words if w not in (dashed, "--"))
            message += f" (a {positional} that starts with '-' goes after '--': {self.prog}{options} -- {dashed})"
        super().error(message)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; with ``argv``, only the command ``argv`` names is registered."""
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
    parser = CommandParser(
        prog="vault-engine", parents=[common],
        description="Vault-first memory for teams of humans driving AI coding agents: "
                    "hybrid search, resume briefs and dead-end checks over an Obsidian vault.",
        epilog="Every command takes --json. Docs: README.md.",
    )
    parser.add_argument("--version", action="version", version=f"vault-engine {RELEASE}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    command = _command_word(argv) if argv is not None else None
    for name in (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES:
        importlib.import_module(name).register(subparsers, common)
    _remember_usage(parser)
    return parser


def _remember_usage(parser: argparse.ArgumentParser) -> None:
    """Give every command its own usage (``args.usage``), so that a usage error its handler
    finds (`links --all --backlinks`) shows the command's usage, as argparse's own errors do."""
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                sub.set_defaults(usage=sub.format_usage)
                _remember_usage(sub)


def _command_word(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is neither an option nor the value of
    one; None when there is none, or when help is asked before it."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            return None
        if word in _VALUED:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def names_hook(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs ``hook``: its first word that names a command is ``hook``. Read
    without the parser, so that a global option mistyped before it (``--valut DIR``, a
    ``--vault`` missing its folder) still counts: Claude Code's settings hold such lines."""
    return next((word for word in argv if word in COMMANDS), None) == "hook"


def main(argv: Sequence[str] | None = None) -> int:
    with interrupts_noted() as noted:
        try:
            code = _run(list(sys.argv[1:] if argv is None else argv))
        except KeyboardInterrupt:  # wherever it lands: parsing, a command, closing the index after it
            interrupted()
    if noted:  # one a library swallowed: still a Ctrl-C, once the command is done
        interrupted()
    return code


@contextmanager
def interrupts_noted() -> Iterator[list[int]]:
    """Ctrl-C raises KeyboardInterrupt as ever, and is noted: the exception may be caught on
    purpose (``index`` stops embedding so, keeps its work and reports it, qa43) or swallowed
    by a library (pybind11 turns one raised while ONNX Runtime's module initializes into
    ``ImportError('initialization failed')``, taken for ONNX Runtime missing: 4 to 6 of 50
    Ctrl-Cs 0.15-0.22 s into a hybrid search printed the answer and exited 0, qa46); either
    way the command then exits 130. A SIGINT ignored by the parent (``nohup``) stays ignored."""
    noted: list[int] = []
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield noted
        return

    def note(signum: int, frame: object) -> None:
        noted.append(signum)
        raise KeyboardInterrupt

    def quiet_once_interrupted(args: threading.ExceptHookArgs) -> None:
        # a pool's own thread, its workers gone with the Ctrl-C, had printed the traceback of
        # its cancelled futures above the one line (qa198)
        if not noted:
            threading.__excepthook__(args)

    signal.signal(signal.SIGINT, note)
    threading.excepthook = quiet_once_interrupted
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        threading.excepthook = threading.__excepthook__


def _run(argv: list[str]) -> int:
    hook = names_hook(argv)
    broken = next((i for i, arg in enumerate(argv, 1) if _not_utf8(arg)), None)
    if broken is not None:  # Python keeps undecodable bytes as lone surrogates: refuse them here
        print(f"vault-engine{' hook' if hook else ''}: argument {broken} is not valid UTF-8: pass text in UTF-8",
              file=sys.stderr)
        return 0 if hook else 2
    parser = build_parser(argv)
    if hook:  # a usage error anywhere on a hook's command line must not read as "block" (exit 2)
        from vault_engine.cli.agent_commands import never_block

        never_block(parser)
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
        if exc.exit_code == 2 and not hook and getattr(args, "usage", None):  # a usage error: the usage first
            sys.stderr.write(args.usage())
        print(f"vault-engine: {terminal_safe(one_line(describe(exc)))}", file=sys.stderr)
        return exc.exit_code
    except PermissionError as exc:  # a read-only vault (its index folder cannot be made), an unreadable file
        if debug:
            raise
        print(f"vault-engine: {terminal_safe(str(permission_denied(exc.filename or exc)))}", file=sys.stderr)
        return 1
    except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:  # a file where a folder goes
        if debug:
            raise
        print(f"vault-engine: {terminal_safe(str(wrong_kind(exc)))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        return 0
    except Exception as exc:
        refused = write_refused(exc)
        if refused is not None and not debug:
            print(f"vault-engine: {terminal_safe(str(refused))}", file=sys.stderr)
            return refused.exit_code
        if debug or not disk_full(exc):
            raise
        full = disk_is_full(exc.filename if isinstance(exc, OSError) else None)
        print(f"vault-engine: {terminal_safe(str(full))}", file=sys.stderr)
        return full.exit_code
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
