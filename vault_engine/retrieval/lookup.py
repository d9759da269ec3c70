"""Find the note and section a ref names, in the ledger."""

from __future__ import annotations

import re
from collections.abc import Sequence

from vault_engine.errors import UnknownRef
from vault_engine.parsing.sections import leading_headings, normalize_heading
from vault_engine.refs import make_ref, parse_ref
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow


def lookup_ref(ledger: Ledger, ref: str) -> tuple[NoteRow, SectionRow | None]:
    """The note of ``ref`` and, when it names a heading or block, that section."""
    whole = ledger.note_by_path(ref.strip()) if "#" in ref and not ref.startswith("notion://") else None
    if whole is not None:  # a file named "has#h.md" is that note, not a heading of "has"
        return whole, None
    parsed = parse_ref(ref)
    note = None
    if parsed.notion_id:
        note = ledger.note_by_notion_id(parsed.notion_id)
    elif parsed.path:
        for candidate in _path_candidates(parsed.path):
            note = ledger.note_by_path(candidate) or ledger.note_by_path(candidate, casefold=True)
            if note:
                break
    if note is None:
        raise UnknownRef(f"no note {ref.partition('#')[0]!r} in the index: check the path "
                         "(vault-relative, e.g. specs/auth.md) or run `vault-engine index`")
    if not parsed.heading:
        return note, None
    section = find_section(ledger.sections_of(note.id), parsed.heading)
    if section is None:
        raise UnknownRef(f"{note.path} has no heading {parsed.heading!r}: "
                         f"`vault-engine show {note.path}` lists its sections")
    return note, section


def _path_candidates(path: str) -> list[str]:
    return [path] if path.lower().endswith(".md") else [path, path + ".md"]


def find_section(sections: Sequence[SectionRow], heading: str) -> SectionRow | None:
    """The section a ``#Heading``, ``#Parent#Heading`` or ``#^block`` subpath names.

    Headings compare case-insensitively with whitespace collapsed; a heading path matches
    the end of a section's heading path, so ``#Design#Tokens`` picks one of two "Tokens".
    """
    if heading.startswith("^"):
        marker = re.compile(r"\s\^" + re.escape(heading[1:]) + r"\s*$", re.MULTILINE)
        return next((s for s in sections if marker.search(s.text)), None)
    wanted = [normalize_heading(part) for part in heading.split("#") if part.strip()]
    for section in sections:
        have = [normalize_heading(h) for h in section.heading_path]
        if wanted and have[-len(wanted):] == wanted:
            return section
    for section in sections:  # an empty heading folded into the section under it
        if section.heading and wanted[-1:] and wanted[-1] in map(normalize_heading, leading_headings(section.text)):
            return section
    return None


def section_ref(note: NoteRow, section: SectionRow | None) -> str:
    """The canonical ref of a section (or of the note, for text before any heading)."""
    heading = section.heading if section is not None else None
    return make_ref(note.path, heading, note.notion_id)
