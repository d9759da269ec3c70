"""What the note viewer shows, gathered from the public Vault API in one lane call."""

from __future__ import annotations

from dataclasses import dataclass

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
