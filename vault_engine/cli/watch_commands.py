"""``watch``: keep the index fresh on every save and answer CLI queries from a warm process."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from vault_engine.cli import render
from vault_engine.cli.context import Context
from vault_engine.model import IndexReport


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "watch", parents=[common], help="re-index on every save; answer queries warm",
        description="Watch the vault and apply each burst of changes to the index within a "
                    "second; serve search, show, status, resume and deadend check to other "
                    "vault-engine calls over .vault-engine/daemon.sock. Runs until Ctrl-C. "
                    "Example: vault-engine watch &")
    p.add_argument("--stop", action="store_true",
                   help="stop the watcher running for this vault, and wait until it has exited")
    p.set_defaults(handler=cmd_watch)


def cmd_watch(ctx: Context) -> int:
    from vault_engine.config import find_vault
    from vault_engine.daemon.server import Daemon, stop_daemon

    root = find_vault(getattr(ctx.args, "vault", None))
    if ctx.args.stop:
        pid = stop_daemon(root)
        ctx.emit({"stopped": pid}, lambda: f"stopped the watcher (pid {pid})" if pid
                 else "no watcher was running for this vault")
        return 0
    from vault_engine.mcp import hosted

    return Daemon(root, WatchPrinter(ctx), sessions={hosted.OP: hosted.serve_connection},
                  warm_ups=[hosted.warm_up]).run()


class WatchPrinter:
    """Prints the daemon's events: one line each (JSON lines with --json), flushed at once
    so a supervisor or a pipe sees them live."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def started(self, info: dict[str, Any]) -> None:
        self._emit({"event": "started", **info},
                   f"watching {info['vault']} (pid {info['pid']}); queries answered on "
                   f"{info['socket']}; Ctrl-C stops")

    def applied(self, report: IndexReport, catch_up: bool) -> None:
        what = "caught up" if catch_up else "applied"
        r = report
        if r.embedded and not (r.new or r.modified or r.read_again or r.moved or r.deleted or r.source_files
                               or r.skipped):
            # the embedding of what was applied a moment before, a step of its own: "0 new, 0
            # modified, ...; 2 sections embedded" read as if nothing had changed (qa52), and
            # in JSON an event of its own, not one more batch applied (qa61)
            what = "embedded"
            said = f"embedded {r.embedded} section{'s' if r.embedded != 1 else ''} in {r.seconds:.2f} s"
        else:
            said = f"{what}: {render.index_report(report)}"
        self._emit({"event": what, **report.to_json()}, f"{time.strftime('%H:%M:%S')} {said}")

    def problem(self, message: str) -> None:
        self.ctx.notice(message)

    def stopped(self) -> None:
        self._emit({"event": "stopped"}, "stopped")

    def _emit(self, data: dict[str, Any], text: str) -> None:
        self.ctx.emit(data, lambda: text)
        sys.stdout.flush()
