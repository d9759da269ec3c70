"""What agents read: the dead-end interruption and the resume brief. Pure functions.

The interruption states plainly that the proposal was tried, by whom, when and why it failed,
marks weaker evidence (another project, a working-note marker), and hands the decision back:
the agent says out loud that it knows, and goes on only with a reason why this time differs.
It neither softens ("you may wish to consider") nor forbids ("this will not work").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from vault_engine.constants import CHARS_PER_TOKEN, MIN_BRIEF_TOKENS
from vault_engine.dates import utc_date, utc_time
from vault_engine.errors import BadArgument
from vault_engine.memory.results import CheckpointBrief, ResumeBrief, Ruling, estimate_tokens, ruling_key
from vault_engine.parsing.checkpoints import split_sentences, unwrapped, without_checkpoint_word
from vault_engine.parsing.fences import code_masked
from vault_engine.parsing.readable import wikilinks_as_text
from vault_engine.refs import printed
from vault_engine.text import shortened

REASON_IN_QUOTE = 140  # characters of the reason repeated in the suggested sentence
PROPOSAL_IN_QUOTE = 200  # characters of the proposal quoted back (a hook may pass a whole file)
SUMMARY_FLOOR = 200  # characters of a checkpoint summary kept however tight the budget


def iso_date(ts: float | None) -> str:
    """``2026-03-14`` (UTC), or ``an unknown date``: read inside a sentence."""
    return utc_date(ts, "an unknown date")


def _on(ts: float | None) -> str:
    """" on 2026-03-14" inside a sentence, or nothing for no date."""
    return f" on {iso_date(ts)}" if ts is not None else ""


def iso_time(ts: float | None) -> str:
    """``2026-03-14T10:22:00Z``, or ``unknown``."""
    return utc_time(ts, "unknown")


def render_closest(closest: Sequence[Ruling]) -> str:
    """A miss's nearest rulings, not raised, each with why (``deadend check``'s text output)."""
    if not closest:
        return ""
    lines = ["Closest recorded dead ends, not raised:"]
    lines += [f"- {one_line(r.text, 160)} ({printed(r.ref)}"
              + (f", ruled out on {r.project}" if r.elsewhere else "") + f"): {r.short_of}" for r in closest]
    return "\n".join(lines)


def why_none_recorded(records: int) -> str:
    """Why a vault records no dead end, given how many decision records it holds: 38 records of
    Nygard's template, weighing their options in prose, read as "no record here" when this named
    the very folder they were in (qa66)."""
    if records:
        return (f"its {records} decision record(s) list no rejected option where one is read (a MADR record's "
                "Considered Options, an RFC's or KEP's `## Alternatives`, Alternatives considered or Rejected ideas "
                "section, each option a list item, a sub-heading or an `Option 1: ...` line: options weighed in prose, "
                "as Nygard's template does, or paragraphs opening with a bold name are not read; "
                "`vault-engine status` names a record whose outcome names none of its options: it rejects none)")
    return ("dead ends come from a checkpoint's Failed list, a working note's dead-end markers and the "
            "rejected options of decision records (MADR records wherever they are; others under decisions/, "
            "docs/decisions/, docs/adr/, doc/adr/, docs/architecture/decisions/ or keps/, or where [kinds] "
            "decision points)")


def render_nothing_recorded(proposal: str, why: str) -> str:
    """``deadend check``'s answer in a vault that records no dead end at all, which is not
    what a miss says (``why``: :func:`why_none_recorded`)."""
    quoted = one_line(proposal, PROPOSAL_IN_QUOTE)
    return f'No dead end is recorded in this vault yet, so nothing matches "{quoted}": {why}. ' \
        "This is a miss, not a guess."


def render_interruption(proposal: str, rulings: Sequence[Ruling], project: str | None,
                        arms: Sequence[str], matched: int = 0) -> str:
    """The text an agent reads after ``deadend check``: a hit or a plain miss; ``matched``:
    how many matched, of which ``rulings`` are the closest."""
    quoted = one_line(proposal, PROPOSAL_IN_QUOTE)
    if not rulings:
        how = "lexical and semantic arms" if "semantic" in arms else "lexical arm only: words, no meaning"
        return f'No recorded dead end matches "{quoted}" ({how}). This is a miss, not a guess.'

    matched = max(matched, len(rulings))
    count = "1 recorded dead end matches" if matched == 1 else f"{matched} recorded dead ends match"
    shown = f" (the closest {len(rulings)} below)" if matched > len(rulings) else ""
    lines = [f'This was tried before: {count} "{quoted}"{shown}.', ""]
    for n, ruling in enumerate(rulings, 1):
        lines += _ruling_lines(n, ruling, project)
        lines.append("")
    lines.append(_hand_back(rulings[0]))
    return "\n".join(lines)


def _ruling_lines(n: int, r: Ruling, project: str | None) -> list[str]:
    record = r.source == "decision record"
    where = f"project {r.project}" if r.project else "no project"
    why = "Why it was not chosen" if record else "Why it failed"
    topic = f' "{one_line(r.record_title, 160)}"' if record and r.record_title else ""
    lines = [f"{n}. {r.text}",
             f"   {'Rejected' if record else 'Ruled out'}{_when_and_who(r)} "
             f"({where}, {r.source}{topic}, {printed(r.ref)}).",
             f"   {why}: {one_line(r.reason)}" if r.reason else
             f"   {why}: no reason was written down; read {printed(r.ref)} before deciding."]
    if r.record_status:
        lines.append(f"   The record is {one_line(r.record_status, 120).rstrip('.')}: this ruling and its "
                     "chosen design may no longer hold.")
    if r.chosen:
        lines.append(f"   Chosen instead: {one_line(r.chosen)}")
    if r.chosen_since:
        lines.append(f"   Chosen since: {r.chosen_since.said}: this dead end may no longer hold.")
    if r.elsewhere:
        lines.append(f"   Weaker evidence: this was ruled out on {where}, not on {project}; "
                     "what failed there may not fail here.")
    if r.source == "working note":
        lines.append("   Weaker evidence: it is a marker in a working note, possibly a first "
                     "impression rather than a settled result.")
    return lines


def _when_and_who(r: Ruling) -> str:
    """" on 2026-10-29 by codex-a12"; what a record does not give is said once, not filled
    in ("Rejected on an unknown date by its authors" said nothing twice, qa24 #9)."""
    on = _on(r.when)
    missing = r.not_given
    if missing:
        return on + (f" by {r.agent}" if r.agent else "") + f" (the record gives no {missing})"
    return f"{on} by {r.agent or 'an unnamed agent'}"


def _by_and_on(r: Ruling) -> str:
    """"codex-a12, 2026-10-29" in a list, what a record does not give said once as above."""
    missing = r.not_given
    if missing:
        given = [said for said in (r.agent, iso_date(r.when) if r.when is not None else None) if said]
        return ", ".join([*given, f"no {missing} given"])
    return f"{r.agent or 'an unnamed agent'}, {iso_date(r.when)}"


def one_line(text: str, limit: int = 400) -> str:
    """One line of at most ``limit`` characters: a record's reason can run for paragraphs,
    and a proposal or query quoted back is the agent's own text, not news to it."""
    return shortened(" ".join(text.split()), limit)


def _hand_back(top: Ruling) -> str:
    reason = _quotable(top.reason) or "see the note for why"
    who = f", {top.agent}" if top.agent else ""
    if top.chosen_since:  # "we tried that" of what a later note chose said the old ruling still held (qa103)
        later = top.chosen_since
        return ("Before going further, check which decision holds: it was ruled out"
                f"{_on(top.when)}{who} "
                f"({reason.rstrip('.')}), and {later.agent or 'a later note'} chose it since, "
                f"on {iso_date(later.when)} ({printed(later.ref)}). "
                "Read both notes; the decision is yours.")
    said = "It was ruled out" if top.source == "decision record" else "We tried that"
    return ("Before going further, say out loud that you know this, for example: "
            f'"{said}{_on(top.when)}{who}: '
            f'{reason if reason.endswith("…") else reason.rstrip(".") + "."}" '
            "Go on with it only if you can say why this time is different; the decision is yours.")


_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^)]*\)?")  # a Markdown link whose target a reason's cut left open
_INNER_QUOTE = re.compile(r'"([^"]*)"')


def _quotable(reason: str | None) -> str:
    """The reason's first part as a sentence to say: links read as their text, cut at a word
    (never inside a link) to REASON_IN_QUOTE characters."""
    if not reason:
        return ""
    first = " ".join(_LINK.sub(lambda m: m.group(1), wikilinks_as_text(reason.split("; ")[0])).split())
    # said inside double quotes: "the record chose ‘X’ instead"; a pair found with code spans
    # masked, so it may hold one, and code as written (qa169, qa177)
    pairs = list(_INNER_QUOTE.finditer(code_masked(first)))
    turned = {m.start(): "‘" for m in pairs} | {m.end() - 1: "’" for m in pairs}
    first = "".join(turned.get(i, ch) for i, ch in enumerate(first))
    return shortened(first, REASON_IN_QUOTE)


# -- resume ---------------------------------------------------------------------------------

def render_resume(brief: ResumeBrief) -> str:
    """The brief as Markdown, most important first; ends with what was cut, if anything."""
    parts = [f"# Resume: {brief.project}", *(f"**Notice:** {n}" for n in brief.notices), _checkpoint_part(brief)]
    if brief.alongside:
        parts.append(_alongside_part(brief))
    if brief.working_notes or brief.more_working_notes:
        parts.append(_working_part(brief))
    if brief.earlier or brief.more_earlier or brief.team_wide_unshown:
        parts.append(_earlier_part(brief))
    if brief.linked:
        parts.append(_linked_part(brief))
    if brief.elsewhere:
        parts.append(_elsewhere_part(brief))
    if brief.cut:
        parts.append(f"_Cut to fit {brief.max_tokens} tokens: {_grouped(brief.cut)}._")
    return "\n\n".join(p for p in parts if p) + "\n"


def _checkpoint_part(brief: ResumeBrief) -> str:
    c = brief.checkpoint
    if c is None:  # "nobody has checked in" was said of an unfilled template, over no notes at all (qa94)
        follow = " Its working notes follow, newest first." if brief.working_notes else ""
        return f"No checkpoint yet for {brief.project} hands anything on.{follow}"
    lines = [f"## Last checkpoint: {without_checkpoint_word(c.title)}",
             f"{printed(c.ref)}, by {c.agent or 'an unnamed agent'}, {iso_time(c.created)}", "",
             "### Summary", c.summary or "(no summary written)", ""]
    if c.goal:
        lines += [f"### {c.goal_heading}", c.goal, ""]
    lines += ["### Next"]
    lines += [_step_line(step) for step in c.next_steps] or \
        ["(every next step is ticked off)" if c.steps_closed else "(no next steps written)"]
    if c.steps_closed and c.next_steps:
        lines.append(f"({c.steps_closed} ticked off, not listed)")
    if c.failed:
        lines += ["", "### Ruled out (Failed)"]
        lines += [_ruled_out_line(r) for r in c.failed]
    return "\n".join(lines)


def _step_line(step: str) -> str:
    return f"- {step}"


def _ruled_out_line(r: Ruling) -> str:
    """A dead end as a brief lists it, its reason after a dash."""
    return f"- {r.text}" + (f" — {r.reason}" if r.reason else "")


def _alongside_part(brief: ResumeBrief) -> str:
    lines = ["## Checkpointed at the same time", "Another session handed on its own plan:"]
    for c in brief.alongside:
        lines += ["", f"### {c.title}", f"{printed(c.ref)}, by {c.agent or 'an unnamed agent'}, {iso_time(c.created)}"]
        if c.goal:  # what it chose: in the JSON only, the session-start brief had lost it (qa94)
            lines += [f"{c.goal_heading}: {c.goal}"]
        lines += [_step_line(step) for step in c.next_steps] or ["(no next steps written)"]
    return "\n".join(lines)


def _working_part(brief: ResumeBrief) -> str:
    title = ("## Working notes still open (changed since the checkpoint, or their agent has not checked in since)"
             if brief.checkpoint else "## Working notes")
    lines = [title]
    for w in brief.working_notes:
        who = w.agent or "an unnamed agent"
        lines += ["", f"### {w.title}", f"{printed(w.ref)}, by {who}, changed {iso_time(w.changed)}"]
        if w.dead_ends:
            # a paragraph of its own: the TUI renders the brief as Markdown, which ran it into the line above
            lines += ["", "Dead ends marked here (a working note: possibly a first impression):"]
            lines += [_ruled_out_line(r) for r in w.dead_ends]
        if w.excerpt:
            lines += [""] + [f"> {line}" if line else ">" for line in w.excerpt.split("\n")]
    if brief.more_working_notes:
        lines += ["", f"{brief.more_working_notes} more working notes changed; "
                      "`vault-engine search --kind working-note --project "
                      f"{brief.project} ...` finds them."]
    return "\n".join(lines)


def _earlier_part(brief: ResumeBrief) -> str:
    lines = ["## Ruled out earlier on this project" if brief.checkpoint else "## Ruled out on this project"]
    # a ruling of no project holds for every project: said so, not taken for this one's (qa35 A8)
    lines += [f"- {r.text}" + (f" — {one_line(r.reason, 200)}" if r.reason else "")
              + f" ({'team-wide, ' if r.project is None else ''}{_by_and_on(r)}, {r.source} {printed(r.ref)}"
              + (f"; the record is {one_line(r.record_status, 60).rstrip('.')}" if r.record_status else "") + ")"
              + (f"; chosen since: {r.chosen_since.said}" if r.chosen_since else "")
              + (f"; bears on: {brief.bears_on[ruling_key(r)]}" if r.project is None else "")
              for r in brief.earlier]
    listing = f"`vault-engine deadend list --project {brief.project}`"
    if brief.more_earlier or brief.team_wide_unshown:
        lines.append("")  # a paragraph of its own: Markdown ran it on into the last item (qa76)
    if brief.more_earlier:
        lines.append(f"{brief.more_earlier} more: {listing} lists them all.")
    if brief.team_wide_unshown:
        n = brief.team_wide_unshown
        lines.append(f"{n} team-wide dead {'end (of no project) bears' if n == 1 else 'ends (of no project) bear'} "
                     f"on no next step, so not listed here: {listing} lists them, and `deadend check` weighs "
                     "every one.")
    return "\n".join(lines)


def _linked_part(brief: ResumeBrief) -> str:
    lines = ["## Linked from the checkpoint"]
    for n in brief.linked:
        fading = f", decay x{n.decay:.2f}" if n.decay < 1.0 else ", no decay"
        missing = f"; the link names #{printed(n.missing)}, which it lacks" if n.missing else ""
        line = f"- {printed(n.ref)} ({n.kind}, {n.age_days:.0f} days old{fading}{missing})"
        lines.append(f"{line}: {n.excerpt}" if n.excerpt else line)
    return "\n".join(lines)


def _elsewhere_part(brief: ResumeBrief) -> str:
    lines = ["## Dead ends on other projects that bear on the next steps",
             "Recorded elsewhere: what failed there may not fail here."]
    for r in brief.elsewhere:
        step = brief.bears_on.get(ruling_key(r))
        lines.append(_ruled_out_line(r) + f" ({r.project or 'no project'}, {r.agent or 'an unnamed agent'}, "
                       f"{iso_date(r.when)}, {r.source} {printed(r.ref)})" + (f"; bears on: {step}" if step else ""))
    return "\n".join(lines)


CUT_KINDS = ("excerpt of ", "link ", "checkpoint alongside ", "dead end elsewhere ", "earlier dead end ",
             "working note ")
CUT_PLURALS = {"excerpt of ": "excerpts", "link ": "links", "checkpoint alongside ": "checkpoints alongside",
               "dead end elsewhere ": "dead ends elsewhere", "earlier dead end ": "earlier dead ends",
               "working note ": "working notes"}
COUNTED = ("dead end elsewhere ", "earlier dead end ")  # long texts: counted; --json's cut names them


def _grouped(cut: Sequence[str], count_all: bool = False) -> str:
    """"excerpt of a; excerpt of b; link a" -> "excerpt of a, b; link a"; dead ends (and, with
    ``count_all``, everything) counted instead: "3 earlier dead ends"."""
    groups: dict[str, list[str]] = {}
    for entry in cut:
        kind = next((k for k in CUT_KINDS if entry.startswith(k)), "")
        groups.setdefault(kind, []).append(entry[len(kind):])
    parts = []
    for kind, items in groups.items():
        if not kind:
            parts += items
        elif count_all or kind in COUNTED:
            parts.append(f"{len(items)} {CUT_PLURALS[kind] if len(items) > 1 else kind.removesuffix(' of ').strip()}")
        else:
            parts.append(kind + ", ".join(items))
    return "; ".join(parts)


def fit_brief(brief: ResumeBrief, max_tokens: int) -> ResumeBrief:
    """Cut the least important parts until the Markdown fits ``max_tokens`` (about 4
    characters a token), saying what was cut; the last resort truncates the text."""
    if max_tokens < MIN_BRIEF_TOKENS:
        raise BadArgument(f"max_tokens {max_tokens} is out of range: use {MIN_BRIEF_TOKENS} or more "
                          "(the brief's heading and the line saying what was cut)", argument="max_tokens")
    brief = replace(brief, max_tokens=max_tokens, cut=())
    brief = replace(brief, markdown=render_resume(brief))
    while estimate_tokens(brief.markdown) > max_tokens:
        smaller = _cut_one(brief)
        if smaller is None:  # the text itself is cut; the line saying what went stays
            cut = brief.cut + ("the rest of the text",)
            footer = f"_Cut to fit {max_tokens} tokens: {_grouped(cut, count_all=True)}._\n"
            if estimate_tokens(footer) > max_tokens // 2:  # too long for the budget: the short form
                footer = f"_Cut to fit {max_tokens} tokens (what went: --json `cut`)._\n"
            text = _truncate(render_resume(replace(brief, cut=())), max_tokens - estimate_tokens(footer))
            shown = _as_shown(brief.checkpoint, text) if brief.checkpoint else None
            return replace(brief, markdown=text + footer, cut=cut, checkpoint=shown)
        brief = replace(smaller, markdown=render_resume(smaller))
    return brief


SHOWN_PREFIX = 40  # characters of an item's line that must be in a truncated brief for its JSON to keep it


def _as_shown(checkpoint: CheckpointBrief, text: str) -> CheckpointBrief:
    """The checkpoint as far as a truncated brief shows it: its goal, Next steps and Failed
    items whose line starts in ``text``. The JSON holds what the Markdown holds (a 40-token
    brief's JSON kept every Next step and Failed item: 61,712 characters, qa40)."""
    def shown(lines: list[str]) -> int:
        return next((i for i, line in enumerate(lines) if line[:SHOWN_PREFIX] not in text), len(lines))

    steps = shown([_step_line(step) for step in checkpoint.next_steps])  # the lines _checkpoint_part writes
    failed = shown([_ruled_out_line(r) for r in checkpoint.failed])
    return replace(checkpoint, next_steps=checkpoint.next_steps[:steps], failed=checkpoint.failed[:failed],
                   goal=checkpoint.goal if checkpoint.goal[:SHOWN_PREFIX] in text else "")


def _cut_one(b: ResumeBrief) -> ResumeBrief | None:
    """The brief with its least important remaining piece removed, in this order: team-wide
    earlier dead ends (of no project: they hold here, but a repository's decision records
    filled a brief and cut what a killed agent left in its working note, qa24 #3), excerpts
    of linked notes (most faded first), linked notes, checkpoints written alongside the
    latest (oldest first), dead ends elsewhere (weakest first), working-note excerpts
    (oldest first), the project's earlier dead ends (oldest first), working notes (oldest
    first), the summary's tail down to its first sentence."""
    team_wide = [i for i, r in enumerate(b.earlier) if r.project is None]
    if team_wide:
        i = team_wide[-1]
        return replace(b, earlier=b.earlier[:i] + b.earlier[i + 1:], more_earlier=b.more_earlier + 1,
                       cut=b.cut + (f"earlier dead end '{b.earlier[i].text}'",))
    by_decay = sorted(range(len(b.linked)), key=lambda i: b.linked[i].decay)
    for i in by_decay:
        if b.linked[i].excerpt:
            linked = b.linked[:i] + (replace(b.linked[i], excerpt=""),) + b.linked[i + 1:]
            return replace(b, linked=linked, cut=b.cut + (f"excerpt of {b.linked[i].ref}",))
    if b.linked:
        i = by_decay[0]
        return replace(b, linked=b.linked[:i] + b.linked[i + 1:], cut=b.cut + (f"link {b.linked[i].ref}",))
    if b.alongside:
        return replace(b, alongside=b.alongside[:-1], cut=b.cut + (f"checkpoint alongside {b.alongside[-1].ref}",))
    if b.elsewhere:
        weakest = b.elsewhere[-1]
        return replace(b, elsewhere=b.elsewhere[:-1],
                       cut=b.cut + (f"dead end elsewhere '{weakest.text}' ({weakest.project})",))
    for i in reversed(range(len(b.working_notes))):
        if b.working_notes[i].excerpt:
            notes = b.working_notes[:i] + (replace(b.working_notes[i], excerpt=""),) + b.working_notes[i + 1:]
            return replace(b, working_notes=notes, cut=b.cut + (f"excerpt of {b.working_notes[i].ref}",))
    if b.earlier:  # the oldest first; `deadend list` still has every one
        oldest = b.earlier[-1]
        return replace(b, earlier=b.earlier[:-1], more_earlier=b.more_earlier + 1,
                       cut=b.cut + (f"earlier dead end '{oldest.text}'",))
    if b.working_notes:
        last = b.working_notes[-1]
        return replace(b, working_notes=b.working_notes[:-1], cut=b.cut + (f"working note {last.ref}",))
    if b.checkpoint:
        summary = b.checkpoint.summary
        # halved down to the floor, then its first sentence alone: at a tight budget the Next
        # steps and Failed items, what an arriving agent acts on, had been cut before it
        short = (shortened(summary, len(summary) // 2) if len(summary) > SUMMARY_FLOOR
                 else next(iter(split_sentences(unwrapped(summary))), summary))
        if short != summary:
            cut = b.cut if "summary shortened" in b.cut else b.cut + ("summary shortened",)
            return replace(b, checkpoint=replace(b.checkpoint, summary=short), cut=cut)
    return None


def _truncate(markdown: str, max_tokens: int) -> str:
    marker = "\n…(truncated)\n"
    room = max(0, max_tokens * CHARS_PER_TOKEN - len(marker))
    if room == 0:
        return markdown[: max_tokens * CHARS_PER_TOKEN]
    kept = markdown[:room]
    newline = kept.rfind("\n")
    if newline > room // 2:
        return kept[:newline] + marker
    space = kept.rfind(" ")  # never mid-word ("- Document the new beha", qa24 #9)
    return (kept[:space] if space > room // 2 else kept) + marker


def render_dead_end_list(rulings: Sequence[Ruling]) -> str:
    """``deadend list`` for people: one line each, newest first, weaker evidence marked."""
    if not rulings:
        return "no dead ends recorded"
    lines = []
    for r in rulings:
        source = "working note, weaker" if r.source == "working note" else r.source
        if r.record_status:  # superseded, on hold, withdrawn: said as `deadend check` says it
            source += f", {one_line(r.record_status, 60).rstrip('.')}"
        if r.record_title:  # what the JSON says, the text says too (qa132)
            source += f' "{one_line(r.record_title, 80)}"'
        reason = f" — {r.reason}" if r.reason else " — (no reason written)"
        chosen = f"; chosen instead: {one_line(r.chosen, 160)}" if r.chosen else ""
        since = f"; chosen since: {r.chosen_since.said}" if r.chosen_since else ""
        lines.append(f"{utc_date(r.when, 'no date   ')}  {r.project or '-'}  {r.agent or '-'}  [{source}] "
                     f"{r.text}{reason}  ({printed(r.ref)}){chosen}{since}")
    return "\n".join(lines)
