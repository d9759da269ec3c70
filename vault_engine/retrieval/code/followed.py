"""``--follow N`` for the code answers (show, outline, callers/callees, find) and ``show`` of a
note: the sections of the notes that say why, then, hop by hop, the sections those link to.

Hop 1 is the section of each why note that holds its link or mention (the notes themselves
are listed in ``why``; this is what they say). Later hops follow resolved note links as
``search --follow`` does (at most LINKS_PER_HIT from a section, each section once). Pure over
the ledger: the same index gives the same sections in the same order.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from vault_engine.code_model import FollowedNote, Why
from vault_engine.retrieval.follow import LINKS_PER_HIT, follow_targets, hit_links
from vault_engine.retrieval.lookup import find_section, section_ref
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow

if TYPE_CHECKING:
    from vault_engine.model import ResolvedLink

# Why notes followed from one answer: a symbol named in 200 notes must not flood it.
WHY_PER_START = 10
# Text of a followed section handed back: enough to read the why, not a whole spec.
FOLLOW_TEXT_LIMIT = 1500


def follow_why(ledger: Ledger, starts: Iterable[tuple[str, Sequence[Why]]], depth: int) -> tuple[FollowedNote, ...]:
    """From each ``(ref, why)`` start, the why notes' sections (hop 1), then ``depth - 1``
    hops of the links written in them. Depth 0 follows nothing."""
    if depth <= 0:
        return ()
    shown: set[str] = set()  # sections listed: each once
    first: list[FollowedNote] = []
    for via, why in starts:
        taken = 0
        for w in why:
            if taken == WHY_PER_START:
                break
            note = ledger.note_by_path(w.ref)
            section = _section_at(ledger.sections_of(note.id), w.line) if note else None
            if note is None or section is None or section_ref(note, section) in shown:
                continue
            shown.add(section_ref(note, section))
            first.append(_followed(note, section, via, 1, w.via, w.line, w.token))
            taken += 1
    return tuple(first) + _link_hops(ledger, first, depth - 1, set(shown), shown)


def _follow_links(ledger: Ledger, via: str, link_groups: Sequence[Sequence[ResolvedLink]], depth: int,
                 seen: set[str]) -> tuple[FollowedNote, ...]:
    """From a shown note or section (``via``): the sections its links reach, ``depth`` hops;
    ``link_groups`` holds a shown section's links, or a whole note's by section (at most
    LINKS_PER_HIT followed from each, as from a search hit)."""
    if depth <= 0:
        return ()
    shown = {via}  # sections listed: each once (``seen`` holds the links taken and notes shown)
    first = [f for links in link_groups for link in follow_targets(links, seen)
             if (f := _linked(ledger, link, via, 1, shown))]
    return tuple(first) + _link_hops(ledger, first, depth - 1, seen, shown)


def follow_shown(ledger: Ledger, via: str, path: str, note_id: int, links: Sequence[ResolvedLink], whole: bool,
                 depth: int) -> tuple[tuple[FollowedNote, ...], int]:
    """``show --follow`` of a section (its links, as its search hit lists them) or of a whole
    note (section by section; a link to the note itself leads to what is shown), and how many
    links past LINKS_PER_HIT of a section were not followed."""
    groups: list[Sequence[ResolvedLink]] = [links]
    if whole:
        starts = [s.line_start for s in ledger.sections_of(note_id)][1:]
        by_section: dict[int, list[ResolvedLink]] = {}
        for link in links:
            if link.target_path != path:
                by_section.setdefault(bisect.bisect_right(starts, link.line), []).append(link)
        groups = [by_section[i] for i in sorted(by_section)]
    left = sum(max(0, len(follow_targets(g, set(), limit=None)) - LINKS_PER_HIT) for g in groups)
    return _follow_links(ledger, via, groups, depth, {via, path}), left


def _link_hops(ledger: Ledger, frontier: list[FollowedNote], hops: int, seen: set[str],
               shown: set[str]) -> tuple[FollowedNote, ...]:
    found: list[FollowedNote] = []
    for _ in range(hops):
        step = []
        for parent in frontier:
            note = ledger.note_by_path(parent.path)
            if note is None:
                continue
            links = hit_links(ledger, note.id, parent.line_start, parent.line_end)
            step += [f for link in follow_targets(links, seen)
                     if (f := _linked(ledger, link, parent.ref, parent.hops + 1, shown))]
        found += step
        frontier = step
    return tuple(found)


def _linked(ledger: Ledger, link: ResolvedLink, via: str, hops: int, shown: set[str]) -> FollowedNote | None:
    note = ledger.note_by_path(link.target_path or "")
    if note is None:
        return None
    sections = ledger.sections_of(note.id)
    section = (find_section(sections, link.subpath) if link.subpath else None) or (sections[0] if sections else None)
    if section is None:
        return None
    ref = section_ref(note, section)
    if ref in shown:
        return None
    shown.add(ref)
    return _followed(note, section, via, hops, "link", None)


def _section_at(sections: Sequence[SectionRow], line: int) -> SectionRow | None:
    """The section holding ``line`` (the last that starts at or before it)."""
    holding = [s for s in sections if s.line_start <= line <= s.line_end]
    return holding[-1] if holding else (sections[0] if sections else None)


def _followed(note: NoteRow, section: SectionRow, via: str, hops: int, how: str, line: int | None,
              token: str | None = None) -> FollowedNote:
    text = section.text if len(section.text) <= FOLLOW_TEXT_LIMIT else section.text[:FOLLOW_TEXT_LIMIT].rstrip() + " …"
    return FollowedNote(section_ref(note, section), note.path, section.heading, note.kind, note.title,
                        section.line_start, section.line_end, text, via, hops, how, line, token)
