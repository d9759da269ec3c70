"""What the note viewer and the resume screen show, each gathered from the public Vault API
in one lane call."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from tui.formatting import link_note_lines, link_wikilinks
from vault_engine.model import NoteView, ResolvedLink
from vault_engine.vault import Vault


@dataclass(frozen=True, slots=True)
class NotePage:
    """A whole note, the file line to scroll to, and the links pointing at the note."""

    ref: str  # canonical ref of what was asked for (note or section)
    note: NoteView  # the whole note, its outgoing links included
    line: int | None  # file line to scroll to; None for the top
    backlinks: tuple[ResolvedLink, ...]


def read_note_page(vault: Vault, ref: str, line: int | None = None) -> NotePage:
    """The page for ``ref``: a section ref scrolls to its heading, ``line`` overrides."""
    asked = vault.show(ref)
    note = asked if asked.heading is None else vault.show(asked.path)
    if line is None and asked.heading is not None:
        line = asked.line_start
    backlinks = tuple(vault.links(asked.path, backlinks=True))
    return NotePage(asked.ref, note, line, backlinks)


@dataclass(frozen=True, slots=True)
class ResumePage:
    """A project's resume brief, its ``[[wikilinks]]`` made into links the viewer follows."""

    brief: Any  # the ResumeBrief (its module is not part of the public API the TUI may import)
    markdown: str  # the brief's Markdown, resolved wikilinks as ``[label](vault-link:N)``
    targets: tuple[str, ...]  # N -> the ref the link resolved to


def read_resume_page(vault: Vault, project: str, max_tokens: int, now: float | None) -> ResumePage:
    """The brief, and the index's resolution of every wikilink in the notes it quotes (the
    checkpoint, the working notes): the same targets their note viewer follows. A link the
    index could not resolve stays as written: a miss, never a guess. The line naming each
    quoted note links to it."""
    brief = vault.resume(project, max_tokens=max_tokens, now=now)
    quoted = ([brief.checkpoint.ref] if brief.checkpoint else []) + [w.ref for w in brief.working_notes]
    resolved = {link.raw: link.ref for ref in quoted for link in vault.links(ref)
                if link.resolved and link.ref and link.raw.startswith("[[")}
    markdown, targets = link_wikilinks(brief.markdown, resolved)
    markdown, notes = link_note_lines(markdown, [ref.partition("#")[0] for ref in quoted], len(targets))
    return ResumePage(brief, markdown, targets + notes)
