"""Code commands: outline, callers, callees, find (and the text of ``show`` for a code ref)."""

from __future__ import annotations

import argparse

from vault_engine.cli.context import Context, int_within, non_empty
from vault_engine.cli.render import followed
from vault_engine.constants import MAX_FOLLOW
from vault_engine.refs import printed

FOLLOW_HELP = "also what the why notes say (their sections), and N-1 hops of the links in them"


def _follow_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--follow", type=int_within(0, MAX_FOLLOW), default=0, metavar="N", help=FOLLOW_HELP)


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add the code commands to the CLI."""
    p = sub.add_parser("outline", parents=[common], help="a source file's symbols with spans",
                       description="List a source file's symbols: kind, lines, parameters, decorators and "
                                   "the notes that say why. Example: vault-engine outline src/shop/orders.py")
    p.add_argument("path", type=non_empty,
                   help="the file's path relative to the code tap's root (or its unique ending)")
    _follow_flag(p)
    p.set_defaults(handler=cmd_outline)

    for direction, what in (("callers", "who calls SYMBOL"), ("callees", "what SYMBOL calls")):
        p = sub.add_parser(direction, parents=[common], help=f"{what}, up to --depth calls away",
                           description=f"{what[0].upper() + what[1:]} (edges resolved by scope rules; unresolved "
                                       f"calls are counted, never guessed). Example: vault-engine {direction} "
                                       "'src/shop/orders.py#OrderBook.place' --depth 2 --exclude-tests")
        p.add_argument("symbol", type=non_empty,
                       help="a name, Qualified.name, module:name or code ref path#Qualified.name")
        p.add_argument("--depth", type=int_within(1, 5), default=1, help="calls away, 1..5 (default 1)")
        p.add_argument("--exclude-tests", action="store_true",
                       help="leave out test code (tests/, test/, __tests__/, test_*.py, *_test.*, *.test.*, "
                            "*.spec.*, conftest.py)")
        _follow_flag(p)
        p.set_defaults(handler=cmd_calls, direction=direction)

    p = sub.add_parser("find", parents=[common], help="where is it? symbol, path, suggestion or memory note",
                       description="Find a symbol or file exactly, else suggest a close one (a junction to "
                                   "confirm, never a hit), else answer a question from memory notes. "
                                   "Example: vault-engine find OrderBook.place")
    p.add_argument("query", type=non_empty, help="a symbol, a path, or a question in your own words")
    p.add_argument("-k", type=int_within(1, 100), default=10, help="most hits (default 10)")
    p.add_argument("--tier", choices=("symbol", "path", "fuzzy", "memory"), help="ask one tier only")
    p.add_argument("--facet", choices=("lifecycle", "data_state", "boundaries", "invariants", "failure"),
                   help="only memory notes of this facet")
    _follow_flag(p)
    p.set_defaults(handler=cmd_find)


def cmd_outline(ctx: Context) -> int:
    outline = ctx.vault.outline(ctx.args.path, follow=ctx.args.follow)
    ctx.emit(outline.to_json(), lambda: render_outline(outline))
    return 0


def cmd_calls(ctx: Context) -> int:
    a = ctx.args
    answer = ctx.vault.calls(a.symbol, direction=a.direction, depth=a.depth, exclude_tests=a.exclude_tests,
                             follow=a.follow)
    ctx.emit(answer.to_json(), lambda: render_calls(answer))
    return 0


def cmd_find(ctx: Context) -> int:
    a = ctx.args
    result = ctx.vault.find(a.query, k=a.k, tier=a.tier, facet=a.facet, follow=a.follow)
    ctx.emit(result.to_json(), lambda: render_find(result))
    return 0


# -- text renderings ----------------------------------------------------------------------------

def _why_lines(why) -> list[str]:
    return [f"why        {printed(w.ref)}:{w.line} ({w.via} `{w.token}`)" for w in why]


def _dead_end_lines(dead_ends) -> list[str]:
    return [f"dead end   {d['text']} -- {d['reason'] or 'no reason given'} ({d['ref']})" for d in dead_ends]


def render_code_view(view) -> str:
    head = f"{printed(view.ref)}  ({view.language}, lines {view.line_start}-{view.line_end})"
    lines = [head, *(f"note: {n}" for n in view.notices), "", view.numbered(), ""]
    lines += _why_lines(view.why)
    lines += _dead_end_lines(view.dead_ends)
    return "\n".join(lines + followed(view.followed)).rstrip()


def render_outline(outline) -> str:
    lines = [f"{printed(outline.path)}  ({outline.language}, {outline.lines} lines, {len(outline.symbols)} symbols)"]
    lines += [f"note: {n}" for n in outline.notices]
    if outline.error:
        lines.append(f"note: {outline.error}")
    lines += _why_lines(outline.why)  # the file's why notes above its symbols: 152 of them hid them (qa62)
    for s in outline.symbols:
        indent = "  " * s.symbol.count(".")
        decorators = "".join(f"@{d} " for d in s.decorators)
        call = f"({', '.join(s.parameters)})" if s.kind in ("function", "method", "constructor") else ""
        kind = "" if s.symbol.rpartition(".")[2].startswith(s.kind + " ") else s.kind + " "  # "impl Entry"
        lines.append(f"{s.line_start:>5}-{s.line_end:<5} {indent}{kind}{s.symbol}{call} {decorators}".rstrip())
    return "\n".join(lines + followed(outline.followed))


def render_calls(answer) -> str:
    if answer.status == "ambiguous":
        return "\n".join([f"ambiguous: {answer.reason}", *(f"  {c}" for c in answer.candidates)])
    notes = [f"note: {n}" for n in answer.notices]
    if answer.status == "hit":
        lines = [f"{answer.direction} of {answer.start} (depth {answer.depth}): {len(answer.nodes)}", *notes]
        lines += [f"  {n.hops}  {printed(n.ref)}  (lines {n.line_start}-{n.line_end})" for n in answer.nodes]
    else:  # "no callers" keeps the symbol's why notes, as --json does (qa57: only in the JSON)
        lines = [f"{answer.status.replace('_', ' ')}: {answer.reason}", *notes]
    return "\n".join(lines + _why_lines(answer.why) + _dead_end_lines(answer.dead_ends) + followed(answer.followed))


def render_find(result) -> str:
    notes = "".join(f"\nnote: {n}" for n in result.notices)
    if result.status == "junction":
        more = "".join(f"\n  or {a}" for a in result.alternatives)
        return f"junction ({result.tier}): {result.reason}\n  suggestion {result.suggestion}{more}{notes}"
    if result.status == "miss":
        return f"miss: {result.reason}{notes}"
    lines = [f"hit ({result.tier}): {result.reason}{notes}"]
    for h in result.hits:
        where = f"lines {h.line_start}-{h.line_end}"
        extra = f"  facet {h.facet}" if h.facet else ""
        extra += f"  covers {h.coverage:.0%}" if h.coverage is not None else ""
        lines.append(f"  {printed(h.ref)}  ({h.kind}, {where}){extra}")
        # each note where and how it names the symbol or only its file, as callers says it (qa197)
        lines += [f"    why {printed(w.ref)}:{w.line} ({w.via} `{w.token}`)" for w in h.why]
    return "\n".join(lines + followed(result.followed))
