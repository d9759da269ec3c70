"""Agent memory commands: checkpoint new, resume, deadend check, deadend list.

Each is parse -> one Vault call -> render. ``deadend check --fail-on-hit`` exits 3 on a hit,
so a hook can stop a proposal; a miss exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vault_engine.cli.context import Context, int_within, named, non_empty
from vault_engine.constants import MIN_BRIEF_TOKENS
from vault_engine.operations import BY_NAME

EXIT_HIT = 3


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add ``checkpoint``, ``resume`` and ``deadend`` to the command line."""
    _register_checkpoint(sub, common)
    _register_resume(sub, common)
    _register_deadend(sub, common)


def _register_checkpoint(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("checkpoint", help="write an agent checkpoint (Summary, Next, Failed)",
                       description="Checkpoints: an agent's hand-off note.")
    group = p.add_subparsers(dest="checkpoint_command", metavar="ACTION", required=True,
                             help="new: write one")
    n = group.add_parser(
        "new", parents=[common], help="write a checkpoint from the template and index it",
        description="Write projects/P/checkpoints/<UTC timestamp>-<agent>.md from "
                    "templates/checkpoint.md; never overwrites; prints the new ref. Example: "
                    "vault-engine checkpoint new --project drone-audio --agent claude-7f3 "
                    "--summary 'Both mics stay' --next 'Tune the taps' "
                    "--failed 'Beamforming on the MCU -- not enough RAM'")
    n.add_argument("--project", required=True, type=non_empty, help="the project (folder under projects/)")
    n.add_argument("--agent", required=True, type=non_empty, help="who checks in, e.g. claude-7f3")
    n.add_argument("--summary", type=named, help="what was done and decided (prose)")
    n.add_argument("--decision", type=named, metavar="TEXT",
                   help="what was chosen, in a sentence: its ## Decision, shown as 'Chosen instead' beside "
                        "the Failed items")
    n.add_argument("--next", action="append", default=[], metavar="STEP", help="a next step (repeatable)")
    n.add_argument("--failed", action="append", default=[], metavar="'APPROACH -- REASON'",
                   help="an approach ruled out, with its reason after ' -- ' (repeatable)")
    n.add_argument("--link", action="append", default=[], metavar="REF",
                   help="a note or section to link, e.g. specs/auth.md#Token refresh (repeatable)")
    n.add_argument("--from-json", metavar="FILE",
                   help='read {"summary", "decision", "next": [], "failed": [{"text", "reason"}], "links": []} '
                        "from FILE, or from stdin with -")
    n.set_defaults(handler=cmd_checkpoint_new)


def _register_resume(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("resume", parents=[common], help="the brief for an agent arriving on a project",
                       description="Latest checkpoint, working notes changed since, the project's earlier dead ends, "
                                   "linked specs with their decay, dead ends elsewhere. Example: vault-engine resume "
                                   "--project drone-audio --max-tokens 1500")
    p.add_argument("--project", required=True, type=non_empty, help="the project to resume")
    p.add_argument("--max-tokens", type=int_within(MIN_BRIEF_TOKENS), default=2000, metavar="N",
                   help=f"budget for the brief, about 4 characters a token (default 2000, at least {MIN_BRIEF_TOKENS})")
    p.set_defaults(handler=cmd_resume)


def _register_deadend(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("deadend", help="has this been tried before?",
                       description="Dead ends: approaches ruled out in checkpoints' Failed lists, working notes' "
                                   "dead-end markers and decision records' rejected options.")
    group = p.add_subparsers(dest="deadend_command", metavar="ACTION", required=True,
                             help="check: has this been tried?  list: every dead end")
    c = group.add_parser("check", parents=[common], help="check a proposal against every recorded dead end",
                         description="Has this been tried? Compares the proposal with every recorded dead end, by "
                                     "words and by meaning, and prints who ruled out a match, when and why. "
                                     "Example: vault-engine deadend check 'keep sessions in Redis' "
                                     "--project billing-service --fail-on-hit")
    c.add_argument("proposal", type=non_empty, help="what you are about to try, in a sentence")
    c.add_argument("--project", type=named, help="your project: rulings of other projects are flagged elsewhere")
    c.add_argument("-k", type=int_within(1, 100), default=3, help="at most this many rulings (default 3)")
    c.add_argument("--lexical", action="store_true", help="words only (fast, never loads the model)")
    c.add_argument("--fail-on-hit", action="store_true", help=f"exit {EXIT_HIT} when a ruling matches")
    c.set_defaults(handler=cmd_deadend_check)
    ls = group.add_parser("list", parents=[common], help="every recorded dead end, newest first",
                          description="Every recorded dead end with its reason, who and when, newest first. "
                                      "Example: vault-engine deadend list --project drone-audio --json")
    ls.add_argument("--project", type=named, help="only this project (default: the whole vault)")
    ls.set_defaults(handler=cmd_deadend_list)


def cmd_checkpoint_new(ctx: Context) -> int:
    """Write a checkpoint from flags or ``--from-json``; print its ref."""
    from vault_engine.errors import VaultError
    from vault_engine.memory.checkpoints import CheckpointDraft, draft_from_json, failed_items

    a = ctx.args
    if a.from_json:
        if a.summary or a.decision or a.next or a.failed or a.link:
            return ctx.usage_error("--from-json carries summary, decision, next, failed and links: "
                                   "do not also pass --summary, --decision, --next, --failed or --link")
        data = _read_json(ctx, a.from_json)
        try:
            draft = draft_from_json(data, a.project, a.agent)
        except VaultError as exc:  # the library names no flag; the shell says which one
            raise VaultError(f"--from-json: {exc}") from exc
    else:
        draft = CheckpointDraft(a.project, a.agent, a.summary or "", tuple(a.next),
                                failed_items(a.failed), tuple(a.link), a.decision or "")
    written = ctx.vault.checkpoint_new(draft)
    for notice in written.notices:
        ctx.notice(notice)
    ctx.emit(written.to_json(), lambda: written.ref)
    return 0


def _read_json(ctx: Context, source: str):
    from vault_engine.errors import VaultError

    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        text = data.decode("utf-8-sig")  # (JSON is UTF-8; a BOM before it is let pass)
        if (nul := data.find(b"\0")) >= 0:  # UTF-16 without a BOM decodes as UTF-8 (qa64); JSON holds no NUL
            raise UnicodeDecodeError("utf-8", data, nul, nul + 1, "NUL byte")
        return json.loads(text)
    except OSError as exc:
        raise VaultError(f"--from-json {source}: cannot read it ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:  # UTF-16 or Latin-1 was "not valid JSON (Expecting value ...)" (qa60)
        raise VaultError(f"--from-json {source}: not UTF-8 text (byte {exc.start + 1}): save it as "
                         "UTF-8") from exc
    except ValueError as exc:
        raise VaultError(f"--from-json {source}: not valid JSON ({exc})") from exc
    except RecursionError as exc:  # a traceback (qa70): no draft nests so
        raise VaultError(f"--from-json {source}: not valid JSON (nested too deeply)") from exc


def cmd_resume(ctx: Context) -> int:
    """Print the brief (Markdown, or JSON with --json)."""
    brief = ctx.vault.resume(ctx.args.project, max_tokens=ctx.args.max_tokens)
    ctx.emit(brief.to_json(), lambda: brief.markdown)
    return 0


def cmd_deadend_check(ctx: Context) -> int:
    """Print the interruption (or JSON), and a miss's closest rulings; exit 3 on a hit with --fail-on-hit."""
    a = ctx.args  # -k is within 1..100 as argparse reads it
    check = ctx.vault.deadend_check(a.proposal, project=a.project, k=a.k, lexical_only=a.lexical)
    for notice in check.notices:
        ctx.notice(notice)
    ctx.emit(check.to_json(), lambda: check.printed)
    return EXIT_HIT if a.fail_on_hit and check.status == "hit" else 0


def cmd_deadend_list(ctx: Context) -> int:
    """Print every recorded dead end, newest first."""
    from vault_engine.memory.render import render_dead_end_list

    listed = ctx.vault.deadend_list(ctx.args.project)
    for notice in listed.notices:
        ctx.notice(notice)
    data = BY_NAME["deadend_list"].envelope(listed, {"project": ctx.args.project})
    ctx.emit(data, lambda: render_dead_end_list(listed.rulings))
    return 0
