"""Notion commands: ``notion import EXPORT`` and ``notion sync``."""

from __future__ import annotations

import argparse

from vault_engine.cli import render
from vault_engine.cli.context import Context

MAX_LISTED = 20  # longer lists are cut in the human output; --json has them all


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add ``notion import`` and ``notion sync`` to the CLI."""
    p = sub.add_parser("notion", parents=[common], help="import a Notion export, or sync pages "
                       "through the Notion API",
                       description="Bring Notion pages into the vault as notes under notion/.")
    actions = p.add_subparsers(dest="notion_action", metavar="ACTION", required=True,
                               help="import (an export) or sync (through the API)")

    imp = actions.add_parser(
        "import", parents=[common], help="import a Notion 'Markdown & CSV' export",
        description="Write each page of a Notion export as a note, each database CSV as a note "
                    "with a table, and index them. Re-importing rewrites only what changed. "
                    "Example: vault-engine notion import ~/Downloads/Export-1a2b.zip")
    imp.add_argument("export", help="the export: a .zip (nested zips included) or an unzipped folder")
    imp.add_argument("--into", default="notion", metavar="FOLDER",
                     help="vault folder for the notes (default: notion)")
    imp.add_argument("--prune", action="store_true",
                     help="delete notes in FOLDER whose pages are no longer in the export "
                          "(default: only report them)")
    imp.add_argument("--no-embed", action="store_true", help="index without the semantic arm")
    imp.set_defaults(handler=cmd_import)

    syn = actions.add_parser(
        "sync", parents=[common], help="pull pages through the Notion API",
        description="Pull the pages, databases and search results named in [taps.notion] of "
                    "vault-engine.toml; pages whose last_edited_time did not change are not "
                    "fetched again. The token is read from $NOTION_TOKEN (or the variable named "
                    "by token_env). Example: NOTION_TOKEN=ntn_... vault-engine notion sync")
    syn.add_argument("--prune", action="store_true",
                     help="delete notes of pages Notion no longer has (default: only report them)")
    syn.add_argument("--no-embed", action="store_true", help="index without the semantic arm")
    syn.set_defaults(handler=cmd_sync)


def cmd_import(ctx: Context) -> int:
    """``notion import``: one Vault call, then the report."""
    a = ctx.args
    report = ctx.vault.notion_import(a.export, into=a.into, prune=a.prune, embed=not a.no_embed)
    _emit(ctx, report)
    return 0


def cmd_sync(ctx: Context) -> int:
    """``notion sync``: one Vault call, then the report."""
    report = ctx.vault.notion_sync(prune=ctx.args.prune, embed=not ctx.args.no_embed)
    _emit(ctx, report)
    return 0


def _emit(ctx: Context, report) -> None:
    for problem in report.problems:
        ctx.notice(problem.line())
    for notice in report.notices + (report.index.notices if report.index else ()):
        ctx.notice(notice)
    ctx.emit(report.to_json(), lambda: render_report(report))


def render_report(r) -> str:
    """The human summary of a NotionReport."""
    verb = f"imported {r.source}" if r.action == "import" else "synced Notion"
    extra = (f"{r.not_fetched} not fetched (unchanged in Notion)" if r.action == "sync"
             else f"{r.attachments} attachments written")
    lines = [f"{verb} into {r.into}/: {r.pages} pages, {r.databases} databases; "
             f"{len(r.new)} new, {len(r.updated)} updated, {r.unchanged} unchanged, "
             + (f"{len(r.edited)} kept as edited in the vault, " if r.edited else "")
             + f"{len(r.renamed)} renamed, {extra}"]
    if r.links_relative:
        lines.append(f"links: {r.links_resolved} of {r.links_relative} relative links resolved")
    lines += _listed(f"{len(r.unresolved)} unresolved link(s)",
                     [f"{u.page} -> {u.target} ({u.reason})" for u in r.unresolved])
    lines += _listed(f"renamed {len(r.renamed)}", [f"{a} -> {b}" for a, b in r.renamed])
    lines += _listed(f"deleted {len(r.pruned)} note(s) of vanished pages", list(r.pruned))
    lines += _listed(f"{len(r.kept_edited)} note(s) of vanished pages kept: edited in the vault "
                     "(or not written by this import), so --prune never deletes them", list(r.kept_edited))
    rest = [g for g in r.gone if g not in r.pruned and g not in r.kept_edited]
    lines += _listed(f"{len(rest)} note(s) of vanished pages kept"
                     + ("" if r.prune else " (--prune deletes them)"), rest)
    if r.index is not None:
        lines.append(render.index_report(r.index))
    return "\n".join(lines)


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    out = [f"{title}:"] + [f"  {item}" for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        out.append(f"  ... and {len(items) - MAX_LISTED} more (--json lists all)")
    return out
