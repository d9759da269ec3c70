"""Core commands: init, index, search, show, links, status, reinforce, decay."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_engine.cli import render
from vault_engine.cli.context import Context, int_within, named, non_empty
from vault_engine.constants import MAX_FOLLOW, SEARCH_KINDS
from vault_engine.layout import STATE_DIR
from vault_engine.operations import BY_NAME, search_call, sourced_links
from vault_engine.refs import printed


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add the core commands to the CLI."""
    _register_index(sub, common)
    _register_search(sub, common)
    _register_reading(sub, common)
    _register_decay(sub, common)


def _register_index(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("init", parents=[common], help="write vault-engine.toml with commented defaults",
                       description="Write vault-engine.toml with commented defaults into DIR.")
    p.add_argument("dir", nargs="?", default=None, help="the vault folder (default: the vault)")
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("index", parents=[common], help="bring the index up to date (incremental)",
                       description="Index new, changed, moved and deleted notes. Example: vault-engine index")
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it from scratch")
    p.add_argument("--no-embed", action="store_true", help="skip the semantic arm (lexical only)")
    p.add_argument("--vector-cache", metavar="DIR",
                   help="a vector cache folder shared with a team (a network share, a CI artifact): "
                        "read before embedding, written after; default: [model] vector_cache")
    p.set_defaults(handler=cmd_index)


def _register_search(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("search", parents=[common], help="hybrid search over sections",
                       description='Search sections. Example: vault-engine search "token refresh" -k 5')
    p.add_argument("query", type=non_empty, help="what to look for, in your own words")
    p.add_argument("-k", type=int_within(1, 1000), default=10, help="number of hits (default 10)")
    p.add_argument("--kind", type=named, help=f"only documents of this kind ({', '.join(SEARCH_KINDS)})")
    p.add_argument("--project", type=named, help="only notes of this project")
    p.add_argument("--tap", type=named, help="only documents of this tap")
    arm = p.add_mutually_exclusive_group()
    arm.add_argument("--lexical", action="store_true", help="BM25 only (fast, never loads the model)")
    arm.add_argument("--semantic", action="store_true",
                     help="embeddings only (an error when the model or vectors are missing)")
    p.add_argument("--follow", type=int_within(0, MAX_FOLLOW), default=0, metavar="N",
                   help="also return the sections the hits link to, N hops deep")
    p.add_argument("--no-decay", action="store_true", help="raw ranking, without per-tap decay")
    p.add_argument("--exclude-tests", action="store_true", help="leave out test code (as callers does)")
    p.set_defaults(handler=cmd_search)


def _register_reading(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("show", parents=[common], help="a note or one of its sections",
                       description="Print a note or a section. "
                                    "Example: vault-engine show 'specs/auth.md#Token refresh'")
    p.add_argument("ref", type=non_empty,
                   help="path[#Heading] or notion://<id>[#Heading]; or a code ref path#Qualified.name")
    p.add_argument("--follow", type=int_within(0, MAX_FOLLOW), default=0, metavar="N",
                   help="also the sections the note links to (for a code ref: what its why notes say), N hops deep")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("links", parents=[common], help="resolved links of a note (or backlinks, or all)",
                       description="Links of a note or section. Example: vault-engine links specs/auth.md --backlinks")
    which = p.add_mutually_exclusive_group(required=True)  # a REF beside --all was ignored
    which.add_argument("ref", nargs="?", type=non_empty, help="path[#Heading] or notion://<id>")
    which.add_argument("--all", action="store_true", help="every link in the vault (no REF, no --backlinks)")
    p.add_argument("--backlinks", action="store_true", help="links pointing at REF instead")
    p.set_defaults(handler=cmd_links)

    p = sub.add_parser("status", parents=[common], help="index health",
                       description="Notes, sections, stale and skipped files, unresolved links, last index time.")
    p.set_defaults(handler=cmd_status)


def _register_decay(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("reinforce", parents=[common], help="reset the age of a document",
                       description="Record that a document proved useful, so it stops fading. "
                                   "Example: vault-engine reinforce specs/auth.md --by claude-7f3 "
                                   "--why 'used for refresh'")
    p.add_argument("ref", type=non_empty, help="path[#Heading] or notion://<id> (the whole note is reinforced)")
    p.add_argument("--by", type=named, help="who reinforces (agent or person)")
    p.add_argument("--why", type=named, help="what it was useful for")
    p.add_argument("--undo", action="store_true", help="undo its newest reinforcement")
    p.set_defaults(handler=cmd_reinforce)

    p = sub.add_parser("decay", parents=[common], help="documents of decaying taps, most faded first",
                       description="List decaying documents with tap, age and multiplier. "
                                   "Example: vault-engine decay --tap specs")
    p.add_argument("--tap", type=named, help="only this tap")
    p.set_defaults(handler=cmd_decay)


def cmd_init(ctx: Context) -> int:
    from vault_engine.config import find_vault
    from vault_engine.vault import init_vault

    if ctx.args.dir is not None and not ctx.args.dir.strip():  # a script's unset $DIR is never the current folder
        return ctx.usage_error("init's folder must not be empty: leave it out for the vault (--vault, or the "
                               "current folder)")
    folder = Path(ctx.args.dir) if ctx.args.dir else find_vault(getattr(ctx.args, "vault", None))
    from vault_engine.config import inside_notice

    notice = inside_notice(folder.resolve())
    written = init_vault(folder.resolve())
    for said in (notice, _git_notice(folder.resolve())):
        if said:
            ctx.notice(said)
    ctx.emit({"config": str(written)}, lambda: f"wrote {written}")
    return 0


_IGNORING_THE_INDEX = {f"{lead}{STATE_DIR}{tail}" for lead in ("", "/", "**/") for tail in ("", "/", "/*", "/**")}


def _git_notice(folder: Path) -> str | None:
    """A vault inside a git work tree whose .gitignore says nothing of the index: after the
    first `index`, `git status` listed `.vault-engine/`, and nothing had said how a team keeps
    it out (qa90)."""
    for repo in (folder, *folder.parents):
        if (repo / ".git").exists():
            break
    else:
        return None
    ignores = [p for p in {folder / ".gitignore", repo / ".gitignore"} if p.is_file()]
    lines = {line.strip() for p in ignores for line in p.read_text(encoding="utf-8", errors="replace").splitlines()}
    if lines & _IGNORING_THE_INDEX:  # a comment naming it, or `.vault-engine/index/` alone, is not (qa92)
        return None
    return ("this vault is in a git repository: keep the index out of commits with these lines in .gitignore, "
            "`.vault-engine/*` and `!.vault-engine/ledger/` (the README's 'Sharing a vault through git' says why)")


def cmd_index(ctx: Context) -> int:
    with render.progress_bar(ctx.interactive) as progress:
        report = ctx.vault.index(rebuild=ctx.args.rebuild, progress=progress,
                                 embed=not ctx.args.no_embed, vector_cache=ctx.args.vector_cache)
    for skipped in report.skipped:
        ctx.notice(f"skipped {printed(skipped.path)}: {skipped.reason}")
    for notice in report.notices:
        ctx.notice(notice)
    ctx.emit(report.to_json(), lambda: render.index_report(report))
    # A Ctrl-C that stopped the embedding (its work kept) still exits 130 after this report,
    # so `index && ...` stops too (qa43): cli/main.py notes every Ctrl-C.
    return 0


def cmd_search(ctx: Context) -> int:
    result = search_call(ctx.vault, vars(ctx.args))
    for notice in result.notices:
        ctx.notice(notice)
    ctx.emit(result.to_json(), lambda: render.search_result(result))
    return 0


def cmd_show(ctx: Context) -> int:
    from vault_engine.code_model import CodeView

    view = ctx.vault.show(ctx.args.ref, follow=ctx.args.follow)
    if isinstance(view, CodeView):  # a code ref: the symbol's lines, numbered
        from vault_engine.cli.code_commands import render_code_view

        ctx.emit(view.to_json(), lambda: render_code_view(view))
        return 0
    for notice in view.notices:
        ctx.notice(notice)
    ctx.emit(view.to_json(), lambda: render.note_view(view))
    return 0


def cmd_links(ctx: Context) -> int:
    a = ctx.args
    if a.all:
        if a.backlinks:
            return ctx.usage_error("links --all lists every link, each with its source and target: "
                                   "--backlinks takes a REF")
        links = ctx.vault.all_links()
        data = {"links": sourced_links(links)}
    else:
        links = ctx.vault.links(a.ref, backlinks=a.backlinks)
        data = BY_NAME["links"].envelope(links, {"ref": a.ref, "backlinks": a.backlinks})
    ctx.emit(data, lambda: render.links(links, backlinks=a.backlinks or a.all))
    return 0


def cmd_status(ctx: Context) -> int:
    status = ctx.vault.status()
    ctx.emit(status, lambda: render.status(status))
    return 0


def cmd_reinforce(ctx: Context) -> int:
    from vault_engine.model import reinforcement_said
    from vault_engine.operations import reinforce_or_undo

    done = reinforce_or_undo(ctx.vault, vars(ctx.args))
    if ctx.args.undo:
        left = done["reinforcements"]
        ctx.emit(done, lambda: f"took back the reinforcement of {done['path']} made {render.iso(done['undone'])}: "
                               + (f"{left} still stand" if left else "its age counts from its own date again"))
    else:
        ctx.emit(done, lambda: f"reinforced {render.named(done['ref'], done['title'])}: {reinforcement_said(done)}")
    return 0


def cmd_decay(ctx: Context) -> int:
    rows = ctx.vault.decay_report(tap=ctx.args.tap)
    ctx.emit({"documents": [r.to_json() for r in rows]},
             lambda: render.decay_rows(rows) if rows else ctx.vault.decay_silence(ctx.args.tap))
    return 0
