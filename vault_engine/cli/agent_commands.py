"""Agent runtimes: ``mcp`` (an MCP server on stdio) and ``hook`` (Claude Code hooks).

Both import their package inside the handler: the MCP SDK costs a second to import and no
other command needs it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from typing import NoReturn

from vault_engine.cli.context import Context, leave_at_once
from vault_engine.operations import OPERATIONS

HOOK_EVENTS = ("session-start", "user-prompt-submit", "pre-tool-use")
SETUP = ("install", "uninstall")  # run by a person or a script, not by Claude Code


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add ``mcp`` and ``hook`` to the command line."""
    p = sub.add_parser("mcp", parents=[common], help="serve the vault to agents over MCP (stdio)",
                       description=f"An MCP server on stdin/stdout: {', '.join(op.name for op in OPERATIONS)}. "
                                   "Example: "
                                   "claude mcp add --scope project vault -- vault-engine --vault ~/vault mcp")
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("hook", parents=[common], help="Claude Code hooks: resume brief and dead-end checks",
                       description="Reads Claude Code's hook input on stdin and writes its hook output on stdout. "
                                   "An event never blocks: any failure is one line on stderr and exit 0 (`install`, "
                                   "run by a person, exits 1 or 2 on an error as any command does). "
                                   "Example: vault-engine hook install --project drone-audio")
    p.add_argument("event", choices=HOOK_EVENTS + SETUP, metavar="EVENT",
                   help="session-start, user-prompt-submit, pre-tool-use; or install, uninstall")
    p.add_argument("--project", help="the vault project (default: $VAULT_ENGINE_PROJECT, else the only one)")
    p.add_argument("--settings", metavar="FILE",
                   help="install, uninstall: the settings file (default: the project's .claude/settings.json, "
                        "in the nearest folder upward holding .claude, else at the git repository's root)")
    p.add_argument("--print", action="store_true", dest="print_only",
                   help="install: print the merged settings instead of writing them")
    p.set_defaults(handler=cmd_hook)
    never_block(p)


def never_block(parser: argparse.ArgumentParser) -> None:
    """Claude Code reads a hook's exit code 2 as "block this prompt or tool call", and argparse
    exits 2 on a usage error: a typo in a settings file would stop the person. A usage error
    of ``hook`` is one line on stderr and exit 0 instead (unknown options too: the parser is a
    ``CommandParser``, which refuses them through ``error``). ``main`` applies it to the
    top-level parser too when the command line runs ``hook``: a global option mistyped before
    ``hook`` is a usage error of the hook as well. ``hook install`` is run by a person or a
    setup script, not by Claude Code: its usage errors exit 2 as any command's do."""
    refuse = parser.error
    installing = False

    def error(message: str) -> NoReturn:
        if installing:
            refuse(message)
        print(f"vault-engine hook: {message}; nothing done (see vault-engine hook --help)", file=sys.stderr)
        sys.exit(0)

    parse_known_args = parser.parse_known_args

    def parse_all(args=None, namespace=None):
        nonlocal installing
        words = list(sys.argv[1:] if args is None else args)
        installing = any(w in SETUP for w in (words[words.index("hook") + 1:] if "hook" in words else words))
        return parse_known_args(args, namespace)

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_all  # type: ignore[method-assign]


def cmd_mcp(ctx: Context) -> int:
    """Serve until the client hangs up. A vault folder that does not exist stops the server
    before it starts (one line, exit 1): a client shows that, not nine failing tools."""
    from vault_engine.config import find_vault
    from vault_engine.daemon.client import daemon_wanted
    from vault_engine.mcp.server import serve

    root = find_vault(getattr(ctx.args, "vault", None))
    use_daemon = daemon_wanted(getattr(ctx.args, "no_daemon", False))
    if use_daemon:
        from vault_engine.daemon.client import open_session
        from vault_engine.mcp.hosted import OP

        session = open_session(root, OP)
        if session is not None:
            from vault_engine.mcp.relay import Relay

            ctx.notice(f"MCP server on stdio for the vault {root}, served by its running watcher")
            return Relay(*session, explicit=str(root)).run()
    ctx.notice(f"MCP server on stdio for the vault {root}")
    return serve(str(root), use_daemon)


def cmd_hook(ctx: Context) -> int:
    """Answer one hook event, or install the hooks."""
    a = ctx.args
    if a.event in SETUP:
        return _set_up(ctx)
    from vault_engine.hooks.events import run_hook, worker_left_running

    code = run_hook(a.event, project=a.project, explicit_vault=getattr(a, "vault", None),
                    use_daemon=not getattr(a, "no_daemon", False))
    if worker_left_running():  # see worker_left_running
        leave_at_once(code)
    return code


def _set_up(ctx: Context) -> int:
    """``hook install`` or ``hook uninstall`` in the project's settings (or ``--settings``)."""
    from pathlib import Path

    from vault_engine.hooks.settings import install, settings_file_of

    a = ctx.args
    settings = a.settings or settings_file_of(Path.cwd())
    if a.event == "uninstall":
        merged, path, changed = install(settings, uninstall=True, write=not a.print_only)
        ctx.emit(merged if a.print_only else {"settings": str(path), "hooks": merged.get("hooks", {})},
                 lambda: _installed(merged, path, a.print_only, changed, removed=True))
        return 0
    if a.project is not None and not a.project.strip():  # a script's unset $P: hooks with no project
        # "leave it out" would install hooks whose session-start never adds a brief (qa30 F17)
        return ctx.usage_error("hook install --project must not be empty: name the project the hooks brief")

    from vault_engine.config import find_vault, marked_vault
    from vault_engine.hooks.settings import check_project, session_folder, unnamed_project

    explicit = getattr(a, "vault", None)
    vault = find_vault(explicit) if explicit or os.environ.get("VAULT_ENGINE_VAULT") else marked_vault(Path.cwd())
    warning = None if vault is None else check_project(vault, a.project) if a.project else unnamed_project(vault)
    runs_from = session_folder(settings)
    named = explicit
    if explicit is None and vault is not None and runs_from is not None and not _finds(runs_from, vault):
        # a vault inside the repository: hooks run from its root found none upward, and every
        # prompt went unchecked where nobody reads the hook's one line (qa157)
        named = str(vault.resolve())
        ctx.notice(f"the hooks run from {runs_from}, where no vault is found upward: they name this one "
                   f"(--vault {named}), a folder of this machine; in a repository shared with others, "
                   f"`--settings {_local_settings(settings)}` keeps it out of the shared settings")
    merged, path, changed = install(settings, project=a.project, vault=named, write=not a.print_only)
    if vault is None:
        ctx.notice(f"no vault found from {Path.cwd()} upward: the hooks will look for one from the session's "
                   "folder; to point them at your vault, run `vault-engine --vault DIR hook install`")
    if warning:
        ctx.notice(warning)
    if explicit and a.settings is None:  # the project's own settings, which a team shares (qa96)
        ctx.notice(f"the hooks name this machine's vault folder ({Path(explicit).expanduser().resolve()}); in a "
                   f"repository shared with others, `--settings {_local_settings(settings)}` keeps it out of the "
                   "shared settings")
    if shutil.which("vault-engine") is None:
        # the hooks run `vault-engine ...` as Claude Code finds it: not on PATH, each fails
        # "command not found" where nobody reads it (qa54: installed in .venv by make demo)
        ctx.notice(_not_on_path())
    ctx.emit(merged if a.print_only else {"settings": str(path), "hooks": merged["hooks"]},
             lambda: _installed(merged, path, a.print_only, changed))
    return 0


def _local_settings(settings) -> str:
    """The machine's own settings file beside the shared one, by its whole path: relative, it had
    named a file in the folder the command ran in, which Claude Code never reads (qa161)."""
    from pathlib import Path

    return shlex.quote(str(Path(settings).expanduser().resolve().parent / "settings.local.json"))  # to paste (qa164)


def _finds(folder, vault) -> bool:
    """Whether a hook run from ``folder`` finds ``vault`` looking upward."""
    from vault_engine.config import marked_vault

    found = marked_vault(folder)
    return found is not None and found.resolve() == vault.resolve()


def _not_on_path() -> str:
    """What to do when the hooks' command is on no PATH, naming this install's script."""
    from pathlib import Path

    script = Path(sys.executable).parent / "vault-engine"
    link = f"`ln -s {script} ~/.local/bin/`" if script.exists() else "installing it with pipx"
    return ("`vault-engine` is not on this PATH, and the hooks run it by that name: put it on the PATH "
            f"Claude Code runs with ({link}, for one), or every hook fails with 'command not found'")


def _installed(merged: dict, path, print_only: bool, changed: bool, removed: bool = False) -> str:
    if print_only:
        return json.dumps(merged, indent=2, ensure_ascii=False)
    if removed:
        return (f"took the vault-engine hooks out of {path} (other hooks kept)" if changed
                else f"no vault-engine hooks in {path}: left as it is")
    if not changed:
        return f"vault-engine hooks already in {path} as they would be written: left as it is"
    # a hook that takes over 1 s is skipped, and a cold process with the model is near that
    # under load (qa54: 1 in 6 checks skipped at load average 3): a watcher answers warm
    return (f"added vault-engine hooks to {path} (other hooks kept)\n"
            "keep `vault-engine watch` running in the vault: the hooks then answer warm, well within their 1 s")
