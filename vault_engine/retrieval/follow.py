"""Links as retrieval sees them: stored rows turned into followable refs, and following them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vault_engine.model import ResolvedLink
from vault_engine.refs import make_ref
from vault_engine.retrieval.lookup import with_missing_sections

if TYPE_CHECKING:
    from vault_engine.stores.ledger import Ledger, LinkRow

# How many links of one hit are followed: a hub note must not flood the results.
LINKS_PER_HIT = 5


def resolved_link(row: LinkRow) -> ResolvedLink:
    """A ledger link row (joined with its source and target notes) as a :class:`ResolvedLink`."""
    target = row.target_path
    ref = None
    if target is not None:
        if target.lower().endswith(".md"):
            ref = make_ref(target, row.subpath, row.target_notion_id)
        else:
            ref = target  # an attachment: no sections
    return ResolvedLink(
        raw=row.raw, ref=ref, target_path=target, subpath=row.subpath,
        resolved=target is not None, ambiguous=bool(row.ambiguous), embed=bool(row.embed),
        line=row.line, source=row.source,
    )


def links_in_lines(links: Sequence[ResolvedLink], start: int, end: int) -> tuple[ResolvedLink, ...]:
    """The links of a note that sit inside one section's line range."""
    return tuple(link for link in links if start <= link.line <= end)


def hit_links(ledger: Ledger, note_id: int, start: int, end: int) -> tuple[ResolvedLink, ...]:
    """The links a hit lists and follows: those inside its section's lines, then the note's
    property links (a frontmatter ``related: "[[Design]]"`` is about the whole note, whichever
    of its sections is the hit; listed under none of them, an agent never followed it). A link
    to a heading or block its note lacks says so (``section_missing``): its ref opens nothing."""
    links = [resolved_link(r) for r in ledger.links_of(note_id)]
    own = links_in_lines(links, start, end)
    if any(link.line < start for link in links):  # else no property link (and no query for the body's line)
        body = ledger.body_line(note_id)
        own += tuple(link for link in links if link.line < body and not start <= link.line <= end)
    return tuple(with_missing_sections(ledger, own))


def follow_targets(links: Sequence[ResolvedLink], seen: set[str],
                   limit: int | None = LINKS_PER_HIT) -> list[ResolvedLink]:
    """Resolved note links worth following from a hit: not yet shown, at most ``limit`` (None: all).
    A link to a note already shown is not followed, one to another of its sections is; a link
    to a heading its note lacks leads nowhere (its note's first section is not what it names)."""
    chosen: list[ResolvedLink] = []
    for link in links:
        if not link.resolved or link.ref is None or not link.target_path or link.section_missing:
            continue
        if not link.target_path.lower().endswith(".md"):
            continue
        if link.ref in seen or (link.subpath is None and link.target_path in seen):
            continue
        seen.add(link.ref)
        chosen.append(link)
        if limit is not None and len(chosen) >= limit:
            break
    return chosen
