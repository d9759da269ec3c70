"""What the note viewer and the resume screen show, each gathered from the public Vault API
in one lane call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.formatting import link_note_lines, link_wikilinks
from vault_engine.errors import UnknownRef
from vault_engine.model import NoteView, ResolvedLink
from vault_engine.vault import Vault


@dataclass(frozen=True, slots=True)
class NotePage:
    """A whole note, the file line to scroll to, and the links pointing at the note."""

    ref: str  # canonical ref of what was asked for (note or section)
    note: NoteView  # the whole note, its outgoing links included
    line: int | None  # file line to scroll to (the editor's, for code); None for the top
    backlinks: tuple[ResolvedLink, ...]
    code: Any | None = None  # for a code ref, the CodeView ``note`` shows as Markdown


def read_note_page(vault: Vault, ref: str, line: int | None = None) -> NotePage:
    """The page for ``ref``: a section ref scrolls to its heading, ``line`` overrides. A
    code ref (``src/x.py#Class.method``) shows the symbol's lines and the notes saying why."""
    asked = vault.show(ref)
    if not isinstance(asked, NoteView):  # a CodeView (its module is not the TUI's to import)
        return code_page(asked, tuple(vault.links(asked.path, backlinks=True)))
    note = asked if asked.heading is None else vault.show(asked.path)
    if line is None and asked.heading is not None:  # its own heading, not an H1 folded in front of it (qa38 F5)
        line = asked.heading_line or asked.line_start
    backlinks = tuple(vault.links(asked.path, backlinks=True))
    return NotePage(asked.ref, note, line, backlinks)


@dataclass(frozen=True, slots=True)
class Gone:
    """What a reread finds when the note shown is no longer in the index (deleted or moved)."""

    ref: str


def reread_note_page(vault: Vault, ref: str, line: int | None = None) -> NotePage | Gone:
    """The page for ``ref`` again, after an index run: the whole note when only its section
    is gone (a heading renamed), :class:`Gone` when the note itself is."""
    path = ref.partition("#")[0]
    for asked in dict.fromkeys((ref, path)):  # the section, then the note (once if the same)
        try:
            return read_note_page(vault, asked, line)
        except UnknownRef:
            continue
    return Gone(path)


def code_page(code: Any, backlinks: tuple[ResolvedLink, ...]) -> NotePage:
    """A code view as a page of the note viewer: its lines numbered as in the file in a
    fence, then each note that says why it is so, as a link the viewer follows."""
    symbol = code.symbol
    title = symbol.symbol if symbol else code.path
    text = [f"# {title}", ""]
    if symbol and symbol.signature:
        text += [f"`{symbol.signature}`", ""]
    if symbol and symbol.docstring:
        text += [*symbol.docstring.split("\n"), ""]
    text += [f"```{code.language}", *code.numbered().split("\n"), "```", ""]  # a list item per line:
    # a link's line is its place in ``text``
    links = []
    if code.why:
        text += ["## Why", ""]
        for why in code.why:
            how = "links to it" if why.via == "link" else f"names `{why.token}`"
            text.append(f"- [[{why.ref}]] line {why.line}: {how}")
            links.append(ResolvedLink(f"[[{why.ref}]]", why.ref, why.ref, None, True, False, False,
                                      len(text), code.path))
        text.append("")
    if code.dead_ends:
        text += ["## Dead ends that name it", ""]
        text += [f"- {d.get('text', d) if isinstance(d, dict) else d}" for d in code.dead_ends] + [""]
    text += [f"> {line}" for notice in code.notices for line in notice.split("\n")]
    kind = symbol.kind if symbol else "file"
    view = NoteView(code.ref, code.path, title, kind, code.language, None, None, 1, len(text),
                    "\n".join(text), links=tuple(links))
    return NotePage(code.ref, view, symbol.def_line if symbol else code.line_start, backlinks, code)


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
