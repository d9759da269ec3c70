"""``resume``: the brief for an agent arriving on a project, read from the index alone.

1. the latest checkpoint (by ``created``, ties by file name): summary, next steps, Failed;
2. working notes of the project changed after it: an agent killed before it checked in left
   its findings only there ("changed" is the note's own date, ``updated``/``created``; its file
   time only when it has none: a git clone or pull resets file times, and every working note
   of a shared vault would otherwise look fresh to every arriving agent);
3. the project's dead ends recorded before it (older checkpoints, earlier working notes,
   decision records), newest first: the latest checkpoint lists only what its own session
   ruled out, and an arriving agent must not retry what an earlier one did;
4. the notes the checkpoint links to (one hop), each with its decay multiplier;
5. dead ends recorded on other projects that bear on the next steps, flagged elsewhere;
   team-wide ones (of no project) hold here too, and are listed with the project's own when
   they bear on a next step, else counted.

No model is loaded and no torch imported: dead ends elsewhere are found by their words.
Fitting the brief into ``--max-tokens`` is :func:`vault_engine.memory.render.fit_brief`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from vault_engine.config import Config
from vault_engine.dates import first_believable, utc_date
from vault_engine.memory.deadends import load_ruling_words, load_rulings, read_in_full, word_weights
from vault_engine.memory.matching import DEFAULT_SETTINGS, DeadendSettings, content_terms, restated
from vault_engine.memory.plans import created_time, handing_on, stated_time
from vault_engine.memory.results import CheckpointBrief, LinkedBrief, ResumeBrief, Ruling, WorkingNoteBrief, ruling_key
from vault_engine.memory.since import with_chosen_since
from vault_engine.parsing.checkpoints import (
    FAILED_HEADINGS,
    NEXT_HEADINGS,
    checkpoint_parts,
    in_part,
    name_time,
    note_agent,
)
from vault_engine.parsing.frontmatter import parse_time
from vault_engine.parsing.readable import reading_view
from vault_engine.parsing.sections import section_body
from vault_engine.refs import make_ref
from vault_engine.retrieval.decay import SECONDS_PER_DAY, decay_multiplier, note_age, typical_time, undated_page
from vault_engine.retrieval.follow import resolved_link
from vault_engine.retrieval.lookup import block_lines, find_section, section_ref
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow
from vault_engine.text import as_named

_H1 = re.compile(r"^ {0,3}#[ \t]")  # an ATX level-1 heading line
MAX_WORKING_NOTES = 20  # newest first; the rest are counted, not shown
MAX_LINKED = 20
MAX_ELSEWHERE = 5
MAX_EARLIER = 20  # newest first; the rest are counted, and `deadend list` shows them all
WORKING_EXCERPT_CHARS = 700  # the end of the note: agents append their latest findings
LINKED_EXCERPT_CHARS = 400


def gather_brief(ledger: Ledger, config: Config, project: str, now: float,
                 settings: DeadendSettings = DEFAULT_SETTINGS) -> ResumeBrief:
    """Everything the brief could show, before any budget is applied."""
    notes = ledger.notes(project=project, kinds=("checkpoint", "working-note"))
    checkpoints = [n for n in notes if n.kind == "checkpoint"]
    handed = handing_on(ledger, checkpoints)
    latest = handed[0] if handed else None
    brief = checkpoint_brief(ledger, latest) if latest else None
    since = created_time(latest) if latest else None
    left_open = _left_open(ledger, checkpoints)
    working = sorted((n for n in notes if n.kind == "working-note"
                      and (since is None or changed_time(n) > since or left_open(n))),
                     key=lambda n: (-changed_time(n), n.path))
    shown = tuple(working_note_brief(ledger, n) for n in working[:MAX_WORKING_NOTES])
    linked = tuple(linked_notes(ledger, config, latest, now)) if latest else ()
    bearing, bears_on = bearing_dead_ends(ledger, project, brief.next_steps if brief else (), settings)
    earlier = earlier_dead_ends(ledger, project, shown_in={latest.id} if latest else set(),
                                shown_paths={w.path for w in shown})
    own = [r for r in earlier if r.project is not None]
    # team-wide rulings (of no project) hold here too, but a repository's decision records
    # listed JabRef's field-name casing in a billing service's brief: only those bearing on
    # a next step are shown, the rest counted (`deadend check` weighs every one)
    team_wide = [r for r in earlier if r.project is None]
    bearing_here = [r for r in team_wide if ruling_key(r) in bears_on]
    alongside = tuple(_without(checkpoint_brief(ledger, n), brief.closed_steps if brief else ()) for n in handed[1:])
    return ResumeBrief(project, brief, shown, linked, tuple(r for r in bearing if r.elsewhere)[:MAX_ELSEWHERE],
                       max(0, len(working) - MAX_WORKING_NOTES), bears_on=bears_on,
                       notices=tuple(misdated(checkpoints) + undated_latest(handed, checkpoints)
                                     + _handing_on_nothing(checkpoints, handed)
                                     + _plan_before(ledger, checkpoints, handed, (brief, *alongside)))
                       + _unread(ledger, config.project_folder(project) + "/"),
                       earlier=with_chosen_since(ledger, own[:MAX_EARLIER] + bearing_here, settings),
                       more_earlier=max(0, len(own) - MAX_EARLIER),
                       team_wide_unshown=len(team_wide) - len(bearing_here),
                       alongside=alongside)


def _left_open(ledger: Ledger, checkpoints: list[NoteRow]) -> Callable[[NoteRow], bool]:
    """Whether a working note older than the latest checkpoint is still its agent's open work:
    the agent it names has not checked in on the project since it last changed, and no
    checkpoint links to it. An agent killed mid-note had its unfinished work ("migration 0042
    is written but NOT applied on staging yet") dropped from the brief as soon as another agent
    checked in on something else (qa160). What the checkpoints say is read once, when asked."""
    @functools.cache
    def handed_over() -> tuple[dict[str, float], set[str]]:
        checked_in: dict[str, float] = {}
        for c in checkpoints:
            if (agent := _agent(c)) is not None:
                checked_in[as_named(agent)] = max(checked_in.get(as_named(agent), 0.0), created_time(c))
        return checked_in, {link.target_path for c in checkpoints for link in ledger.links_of(c.id)
                            if link.target_path}

    def left_open(note: NoteRow) -> bool:
        agent = _agent(note)
        if agent is None:
            return False
        checked_in, linked = handed_over()
        return checked_in.get(as_named(agent), float("-inf")) < changed_time(note) and note.path not in linked

    return left_open


def _without(other: CheckpointBrief, done: tuple[str, ...]) -> CheckpointBrief:
    """A checkpoint written at the same time as the latest, without the steps the latest ticks
    off: "Retry a failed render 3 times" was handed on as open beside its "- [x]" (qa74)."""
    def key(step: str) -> str:
        return " ".join(step.split()).casefold()

    ticked = set(map(key, done))
    return replace(other, next_steps=tuple(step for step in other.next_steps if key(step) not in ticked))


def _plan_before(ledger: Ledger, checkpoints: list[NoteRow], handed: list[NoteRow],
                 briefs: tuple[CheckpointBrief | None, ...]) -> list[str]:
    """A line when the checkpoints handing on (their ``briefs``, the latest first) write no
    Next step at all (none open, none ticked off): the open steps of the checkpoint before
    them, which they neither carry on nor close. A wrap-up checkpoint had dropped the previous
    session's open step without a word (qa178)."""
    if briefs[0] is None or any(b.next_steps or b.steps_closed for b in briefs if b is not None):
        return []
    since = min(created_time(n) for n in handed)  # every checkpoint handing on is this late or later
    note = max((n for n in checkpoints if created_time(n) < since), key=created_time, default=None)
    earlier = checkpoint_brief(ledger, note) if note is not None else None
    if earlier is None or not earlier.next_steps:
        return []
    steps = "; ".join(earlier.next_steps[:3]) + (f" and {len(earlier.next_steps) - 3} more"
                                                 if len(earlier.next_steps) > 3 else "")
    by = f"{earlier.agent or 'an unnamed agent'}, {utc_date(earlier.created, 'undated')}"
    return [f"the latest checkpoint writes no next steps; the plan before it, {earlier.path} ({by}), "
            f"left open: {steps}"]


def _handing_on_nothing(checkpoints: list[NoteRow], handed: list[NoteRow]) -> list[str]:
    """A line when checkpoints newer than the one handed on (or, with none handed on, all of
    them) hold nothing under their headings: each is empty, an unfilled template or a write cut
    off, passed over. The brief had said "nobody has checked in" (qa94), and handed on an older
    checkpoint as the last without naming the newer ones it passed over (qa195)."""
    since = created_time(handed[0]) if handed else None
    empty = sorted((n for n in checkpoints if n not in handed and (since is None or created_time(n) > since)),
                   key=created_time, reverse=True)
    if not empty:
        return []
    named = ", ".join(n.path for n in empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
    what = f"{len(empty)} checkpoint(s)" + (" newer than the one handed on" if handed else "")
    return [f"{what} hold nothing under their headings ({named}): an empty file, an unfilled template or a "
            "write cut off hands nothing on; if its agent handed something on, ask it to write it again"]


def _unread(ledger: Ledger, folder: str) -> tuple[str, ...]:
    """A line when notes of the project's folder could not be read when indexed: a checkpoint
    among them is in no brief, which said "No checkpoint yet" without a word why (qa64)."""
    unread = [(path, reason) for path, reason in ledger.skipped() if path.startswith(folder) and path.endswith(".md")]
    if not unread:
        return ()
    path, reason = unread[0]
    more = f" and {len(unread) - 1} more" if len(unread) > 1 else ""
    return (f"{len(unread)} note(s) of {folder} could not be read when indexed ({path}: {reason}{more}): "
            "what they hold is not in this brief",)


def earlier_dead_ends(ledger: Ledger, project: str, shown_in: set[int], shown_paths: set[str]) -> list[Ruling]:
    """The project's dead ends the brief does not already show (in the latest checkpoint or a
    working note it shows), newest first, then the team-wide ones (of no project: they hold
    for every project, and a vault of decision records buried the project's own under them);
    one per text, the newest."""
    rulings = [r for r in load_rulings(ledger, project=project)
               if r.note_id not in shown_in and r.path not in shown_paths]
    rulings.sort(key=lambda r: (r.project is None, -(r.when or 0.0), r.path, r.line))
    seen: set[str] = set()
    newest = []
    for r in rulings:
        key = " ".join(r.text.casefold().split())
        if key not in seen:
            seen.add(key)
            newest.append(r)
    return newest


def misdated(checkpoints: Sequence[NoteRow]) -> list[str]:
    """A line for each checkpoint whose ``created`` is no date: dated otherwise, it may be
    taken for the latest, or not, wrongly (qa51: only `status` said so)."""
    said = []
    for note in checkpoints:
        value = note.meta.get("created")
        if value not in (None, "") and parse_time(value) is None:
            how = "the date in its name" if name_time(note.path) is not None else "its file time"
            said.append(f"{note.path}: created {str(value)[:40]!r} is no date this reads (write a date and "
                        f"time such as 2026-12-03T14:00:00Z); it is dated by {how}, which may misplace it among "
                        "the checkpoints")
    return said


def undated_latest(handed: Sequence[NoteRow], checkpoints: Sequence[NoteRow]) -> list[str]:
    """A line when the checkpoint taken for the latest has no date of its own (no ``created``,
    none in its name) while another of the project has one: its file time, which a clone, a
    copy or a checkout resets, made a hand-written kickoff note from November the latest after
    a clone, and the real hand-off vanished without a word (qa94)."""
    if not handed or stated_time(handed[0]) is not None or all(stated_time(n) is None for n in checkpoints):
        return []
    return [f"{handed[0].path} is taken for the latest checkpoint by its file time: it has no date of its own "
            "(no created: in its frontmatter, none in its name), and a clone, a copy or a checkout resets file "
            "times; if it is not the latest, give it a created: date and time"]


def changed_time(note: NoteRow) -> float:
    """The note's own date, else its file time (as for decay: a date in the note wins), unless
    the date is later than the file was written (a typo: "changed since the checkpoint" forever).
    A date without a time (``updated: 2026-11-19``) is that whole day, up to the file's write:
    read as midnight, a note written for that day's checkpoint came before it and was hidden."""
    written = note.mtime_ns / 1e9
    stated = first_believable((note.doc_time,), written)
    if stated is None:
        return written
    return min(stated + SECONDS_PER_DAY - 1, written) if stated % SECONDS_PER_DAY == 0 else stated


def checkpoint_brief(ledger: Ledger, note: NoteRow) -> CheckpointBrief:
    """Summary, next steps and Failed of one checkpoint, from its indexed sections."""
    sections = ledger.sections_of(note.id)
    parts = checkpoint_parts(sections)
    return CheckpointBrief(section_ref(note, None), note.path, display_title(note, sections),
                           _agent(note), created_time(note), parts.summary, parts.next_steps,
                           tuple(load_rulings(ledger, note_id=note.id)), parts.goal, parts.closed_steps,
                           parts.goal_heading)


def working_note_brief(ledger: Ledger, note: NoteRow) -> WorkingNoteBrief:
    """A working note's dead-end markers and the end of its text."""
    sections = ledger.sections_of(note.id)
    rulings = tuple(load_rulings(ledger, note_id=note.id))
    text = _without_markers(sections, {r.line for r in rulings})
    return WorkingNoteBrief(section_ref(note, None), note.path, display_title(note, sections),
                            _agent(note), changed_time(note), rulings, tail(text, WORKING_EXCERPT_CHARS))


def _without_markers(sections: list[SectionRow], marked: set[int]) -> str:
    """The note's text without its dead-end markers (a marker line, and the quoted lines of a
    ``> [!deadend]`` callout under it): the brief lists them just above its excerpt, and
    every token of a brief counts."""
    kept, in_callout = [], False
    for section in sections:
        for n, line in enumerate(section.text.split("\n"), section.line_start):
            if n in marked:
                in_callout = line.lstrip().startswith(">")
                continue
            if in_callout and line.lstrip().startswith(">"):
                continue
            in_callout = False
            kept.append(line)
    return "\n".join(kept).strip()


def display_title(note: NoteRow, sections: list[SectionRow]) -> str:
    """Frontmatter ``title``, else the first top-level heading (an empty one is folded into
    the section under it: the first of its heading path), else the file name."""
    if "title" not in note.meta:
        for section in sections:
            if section.level == 1 and section.heading:
                return section.heading
            if section.heading_path and _H1.match(section.text):
                return section.heading_path[0]
    return note.title


def _agent(note: NoteRow) -> str | None:
    return note_agent(note.path, note.meta)  # as its dead ends name it


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters, starting at a line when possible."""
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    newline = cut.find("\n")
    return "…\n" + (cut[newline + 1:] if 0 <= newline < limit // 2 else cut)


def head(text: str, limit: int) -> str:
    """The first ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def linked_notes(ledger: Ledger, config: Config, checkpoint: NoteRow, now: float) -> list[LinkedBrief]:
    """The notes the checkpoint links to, once each, with decay as ``decay`` reports it."""
    found: dict[str, LinkedBrief] = {}
    reinforced = ledger.reinforcements()
    for row in ledger.links_of(checkpoint.id):
        link = resolved_link(row)
        if link.ref is None or link.target_path is None or not link.target_path.lower().endswith(".md") \
                or link.target_path == checkpoint.path or link.ref in found:
            continue
        note = ledger.note_by_path(link.target_path)
        if note is None:
            continue
        sections = ledger.sections_of(note.id)
        section = find_section(sections, link.subpath) if link.subpath else None
        missing = link.subpath if link.subpath and section is None else None  # its ref would open nothing
        was = reinforced.get(note.path)
        typical = typical_time(ledger.doc_times(note.tap)) if undated_page(note) else None
        age = note_age(now, note, was.last_at if was else None, typical)
        found[link.ref] = LinkedBrief(make_ref(note.path, None, note.notion_id) if missing else link.ref, note.path,
                                      note.title, note.kind, note.tap,
                                      decay_multiplier(config.indexed_tap(note.tap, note.path), age), age,
                                      head(_excerpt(section, sections, link.subpath), LINKED_EXCERPT_CHARS), missing)
        if len(found) == MAX_LINKED:
            break
    return list(found.values())


def _excerpt(section: SectionRow | None, sections: list[SectionRow], subpath: str | None = None) -> str:
    """What a reader reads of the linked section, else of the note from its first section
    that holds text, section after section until the excerpt is long enough: a decision
    record's first body is its `Date:` line alone, and an HTML comment was read as text (qa59).
    It stops before a Next or Failed list: a linked checkpoint's plan is no open step of now,
    and rulings are listed by the brief's own rules. A link to a block (``#^key-ttl``) reads
    the block alone, as `show` opens it (the brief had quoted its whole section, qa156)."""
    lines = block_lines(section.text, subpath[1:]) if section and subpath and subpath.startswith("^") else None
    if section is not None and lines is not None:
        return " ".join(reading_view("\n".join(section.text.split("\n")[lines[0]:lines[1] + 1])).split())
    parts: list[str] = []
    for candidate in [section] if section else sections:
        if parts and in_part(candidate, NEXT_HEADINGS | FAILED_HEADINGS):
            break
        text = " ".join(reading_view(section_body(candidate.text, candidate.heading)).split())
        if text:
            parts.append(f"{candidate.heading}: {text}" if parts and candidate.heading else text)
        if sum(map(len, parts)) >= LINKED_EXCERPT_CHARS:
            break
    return " · ".join(parts)


def bearing_dead_ends(ledger: Ledger, project: str, steps: tuple[str, ...],
                      settings: DeadendSettings) -> tuple[tuple[Ruling, ...], dict[str, str]]:
    """Dead ends recorded outside the project (on other projects, flagged ``elsewhere``, or
    team-wide: of no project) sharing at least ``bearing_min`` of their weighted content words
    with a next step (either way), best first; and which step each bears on. Only the
    rulings that share a word with a step are read (the ledger's word index)."""
    step_terms = [(step, content_terms(step)) for step in steps]
    words = set().union(*(terms for _, terms in step_terms))
    others = load_ruling_words(ledger, ledger.dead_ends_sharing(words, besides=project)) if words else []
    if not others:
        return (), {}
    weights = word_weights(ledger, others, besides=project)
    best: dict[int, tuple[float, str]] = {}  # ruling id -> (score, step)
    for step, terms in step_terms:
        for ruling in others:
            if not terms & ruling.terms:
                continue
            score = max(restated(terms, ruling.terms, weights), restated(ruling.terms, terms, weights))
            if score >= settings.bearing_min and score > best.get(ruling.id, (0.0,))[0]:
                best[ruling.id] = (score, step)
    found: dict[str, tuple[float, Ruling, str]] = {}  # one per ref#slug, the best
    bearing = [r for r in others if r.id in best]
    for compared, whole in zip(bearing, read_in_full(ledger)(bearing)):
        score, step = best[compared.id]
        if whole is not None and score > found.get(ruling_key(whole), (0.0, whole, step))[0]:
            found[ruling_key(whole)] = (score, whole, step)
    ranked = sorted(found.values(), key=lambda b: (-b[0], b[1].path, b[1].line))
    rulings = tuple(replace(r, score=round(s, 4), elsewhere=r.project is not None) for s, r, _ in ranked)
    return rulings, {ruling_key(r): step for _, r, step in ranked}
