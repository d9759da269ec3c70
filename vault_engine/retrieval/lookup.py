"""Find the note and section a ref names, in the ledger."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from urllib.parse import unquote_plus

from vault_engine.errors import AttachmentRef, NoSuchSection, UnknownRef
from vault_engine.model import ResolvedLink
from vault_engine.parsing.fences import CLOSE, OPEN, TEXT, fence_roles
from vault_engine.parsing.readable import reading_view
from vault_engine.parsing.sections import (
    github_anchors,
    leading_headings,
    leading_levels,
    normalize_heading,
    rendered_heading,
)
from vault_engine.paths import name_key, normalize_path
from vault_engine.refs import NOTION_SCHEME, ParsedRef, make_ref, parse_ref
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow

MAX_HEADINGS_NAMED = 12  # a ref to a missing heading names the note's first headings, one line


def lookup_ref(ledger: Ledger, ref: str,
               unindexed_now: Callable[[str], str | None] | None = None) -> tuple[NoteRow, SectionRow | None]:
    """The note of ``ref`` and, when it names a heading or block, that section.
    ``unindexed_now(path)``: why the file at ``path`` is not in the index as it is now (the
    scan skips it: a symlink out of the vault, a loop, a broken link; or it is new since the
    last index), None when no such file is there: for the message of a miss."""
    note, heading = None, None
    if ref.strip().startswith(NOTION_SCHEME):
        parsed = parse_ref(ref)
        if parsed.notion_id is None:
            note, heading = _by_short_notion_id(ledger, ref), ref.partition("#")[2].strip() or None
        else:
            note, heading = ledger.note_by_notion_id(parsed.notion_id), parsed.heading
        if note is None:  # vault paths are no help here (qa32 F9)
            raise UnknownRef(f"no note of Notion page {parsed.notion_id} in the index (pruned, or never imported?): "
                             "`vault-engine search` finds a note by its words")
    else:
        for split in _note_and_heading_splits(ref):
            note = _note_at(ledger, split.path) if split.path else None
            if note is not None:
                heading = split.heading
                break
    if note is None:
        raise _not_found(ledger, ref.partition("#")[0].strip(), unindexed_now)
    if not heading:
        return note, None
    sections = ledger.sections_of(note.id)
    section = find_section(sections, heading)
    if section is None:
        raise NoSuchSection(_no_such_section(note.path, heading, sections), note.path)
    return note, section


def _no_such_section(path: str, heading: str, sections: Sequence[SectionRow]) -> str:
    """The one line for a ref whose ``#Heading`` or ``#^block`` the note lacks, with the
    headings it has, so the next ref can be right."""
    if heading.startswith("^"):
        return f"{path} has no block {heading!r} (a line ending in ` {heading}`)"
    # a folded empty heading opens too: named; a repeated heading by the ref that opens it
    # ("'Status', 'Part Two', 'Status'" told the two apart nowhere, qa72)
    headings = [name for s in sections if s.heading_path
                for name in [*leading_headings(s.text)[:-1], s.ref_heading or s.heading_path[-1]]]
    if not headings:
        return f"{path} has no heading {heading!r}: it has no headings; `vault-engine show {path}` opens it whole"
    shown = ", ".join(repr(h) for h in headings[:MAX_HEADINGS_NAMED])
    more = f" and {len(headings) - MAX_HEADINGS_NAMED} more" if len(headings) > MAX_HEADINGS_NAMED else ""
    return f"{path} has no heading {heading!r}; its headings: {shown}{more}"


def _not_found(ledger: Ledger, path: str, unindexed_now: Callable[[str], str | None] | None) -> UnknownRef:
    """Why no note is at ``path``: skipped when indexed (and why), or skipped by the scan, or
    the notes whose name it is (a wikilink-style ``auth-sessions``), or not indexed at all."""
    wanted = normalize_path(path)
    if not wanted:  # `#Decision` alone
        return UnknownRef("the ref names no note: a ref is a note's path, then its #heading "
                          "(e.g. specs/auth.md#Decision)")
    skipped = dict(ledger.skipped())
    for candidate in _path_candidates(wanted):
        reason = skipped.get(candidate) or (unindexed_now(candidate) if unindexed_now and candidate else None)
        if reason:
            return UnknownRef(f"{candidate} was not indexed: {reason}")
    if wanted in set(ledger.attachment_paths()):  # printed under hits as a link target
        return AttachmentRef(f"{wanted} is an attachment, not a note: it has no sections (open it in its own app; "
                             f"`vault-engine links {wanted} --backlinks` lists the notes that link to it)", wanted)
    # a path from the vault's subfolder, its first folders missing ("Bases/Books.base" for
    # Templates/Bases/Books.base: qa102), names the files whose path ends with it
    ending = "/" + wanted.casefold()
    named = [p for p in (*ledger.note_paths(), *ledger.attachment_paths()) if p.casefold().endswith(ending)] \
        if "/" in wanted else []
    name = wanted.rsplit("/", 1)[-1]
    # an attachment by its name, as a note embeds it (`![[Books.base]]`: qa105)
    named = named or notes_named(ledger, name) or \
        [p for p in ledger.attachment_paths() if p.rsplit("/", 1)[-1].casefold() == name.casefold()]
    if not named:  # a skipped note by its name says why it was skipped, not "no such file" (qa172)
        named = _named_in(skipped, name)
        if len(named) == 1:
            return UnknownRef(f"{named[0]} was not indexed: {skipped[named[0]]}")
    if named:
        named.sort(key=lambda candidate: -_shared_folders(wanted, candidate))  # keps/sig-node/ first (qa157)
        listed = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
        return UnknownRef(f"no note {path!r} in the index; refs are vault-relative paths: did you mean {listed}?")
    if unindexed_now is None:
        return UnknownRef(f"no note {path!r} in the index: check the path "
                          "(vault-relative, e.g. specs/auth.md) or run `vault-engine index`")
    # No file there either: `index` would change nothing (a renamed note, a typo).
    return UnknownRef(f"no note {path!r} in the index, and no such file in the vault (renamed or deleted?): "
                      "check the path (vault-relative, e.g. specs/auth.md); `vault-engine search` finds a note "
                      "by its words")


def _shared_folders(typed: str, path: str) -> int:
    """How many of the folders typed ``path`` holds in their order, case aside: a path that
    leaves its first folders out (`sig-node/README.md`) still names its own (qa161)."""
    folders = iter(path.casefold().split("/")[:-1])
    return sum(1 for wanted in typed.casefold().split("/")[:-1] if wanted in folders)


def notes_named(ledger: Ledger, name: str) -> list[str]:
    """The paths of the notes whose file name is ``name`` (``.md`` optional, case aside), as a
    wikilink names a note."""
    return _named_in(ledger.note_paths(), name)


def _named_in(paths, name: str) -> list[str]:
    wanted = name.strip().casefold()
    return [p for p in paths if p.rsplit("/", 1)[-1].casefold() in (wanted, wanted + ".md")]


def _note_and_heading_splits(ref: str) -> list[ParsedRef]:
    """Every reading of ``ref`` as note + heading, the longest note part first: a file named
    ``has#h.md`` is that note, and ``has#h.md#Hash`` is its heading, not a heading of ``has``."""
    ref = ref.strip()
    cuts = [i for i, ch in enumerate(ref) if ch == "#"]
    readings = [ref, *(ref[:i] for i in reversed(cuts))]
    return [ParsedRef(note.strip(), None, ref[len(note) + 1:].strip() or None) for note in readings]


def _note_at(ledger: Ledger, typed: str) -> NoteRow | None:
    # A backslash is read as a Windows separator (``specs\auth.md``) only when no note has the
    # name as typed: on Linux and macOS it is a plain character of a file name (``back\slash.md``),
    # and the ref printed for that note must open it.
    exact = typed[2:] if typed.startswith("./") else typed
    candidates = list(dict.fromkeys(_path_candidates(exact) + _path_candidates(normalize_path(typed))))
    for candidate in candidates:
        note = ledger.note_by_path(candidate) or ledger.note_by_path(candidate, casefold=True)
        if note:
            return note
    # A name typed composed ("Café") for a file macOS wrote decomposed, or a case SQLite's
    # NOCASE does not fold ("É"): compared as links compare names. SQLite found any ASCII one.
    if typed.isascii():
        return None
    wanted = {name_key(candidate) for candidate in candidates}
    found = next((p for p in ledger.note_paths() if name_key(p) in wanted), None)
    return ledger.note_by_path(found) if found else None


def _path_candidates(path: str) -> list[str]:
    return [path] if path.lower().endswith(".md") else [path, path + ".md"]


def find_section(sections: Sequence[SectionRow], heading: str) -> SectionRow | None:
    """The section a ``#Heading``, ``#Parent#Heading`` or ``#^block`` subpath names
    (:class:`SectionFinder`, for one subpath)."""
    return SectionFinder(sections).find(heading)


_FOLDED_CHARS = 2000  # of a section's text, read for the empty headings folded in front of its own


class SectionFinder:
    """Finds the sections of one note that subpaths name. Each heading is read once, when a
    rule first needs it: `status` and `links --all` look up every link's heading, and a KEP's
    table of contents links each of its headings, so each lookup normalizing every heading
    again took `status` 4.9 s on 62 KEPs (qa61)."""

    def __init__(self, sections: Sequence[SectionRow]):
        self.sections = sections

    def find(self, heading: str) -> SectionRow | None:
        """Headings compare as :func:`normalize_heading` makes them; a heading path names a
        section by the end of its heading path (``#Design#Tokens`` picks one of two "Tokens"),
        else by its heading and some of those above it, in order, as Obsidian reads it; never
        by its heading alone (``#Bogus#Tokens`` had found a "Tokens" under any heading, qa72);
        then an empty heading folded into the section under it; last, an anchor written as a URL."""
        if heading.startswith("^"):
            return next((s for s in self.sections if block_lines(s.text, heading[1:]) is not None), None)
        whole = normalize_heading(heading)  # a heading may hold a '#' itself: "Issue #1 fix", "C# notes"
        if whole in self._by_last:
            return self._by_last[whole]
        wanted = [normalize_heading(part) for part in heading.split("#") if part.strip()]
        if not wanted:
            return self._by_anchor(heading)
        *parents, last = wanted
        found = next((s for s, path in zip(self.sections, self._paths) if path[-len(wanted):] == wanted), None) \
            or next((s for s, path in zip(self.sections, self._paths)
                     if path[-1:] == [last] and _in_order(parents, path[:-1])), None)
        if found is None:
            found = next((s for s, path, leading in self._leading if last in leading and _in_order(parents, path)),
                         None)
        return found or self._by_anchor(heading)

    @cached_property
    def _paths(self) -> list[list[str]]:
        return [[normalize_heading(h) for h in s.heading_path] for s in self.sections]

    @cached_property
    def _by_last(self) -> dict[str, SectionRow]:
        """Each heading, normalized, and the first section it names in the note's order: its
        own heading's, or one folded into it (an empty heading over a subheading). A repeated
        `## Beta` whose first had only a `### Sub` under it had opened the second (qa175)."""
        first: dict[str, SectionRow] = {}
        for section, path in zip(self.sections, self._paths):
            if path:
                # folded headings are empty: they open the text, well within its first lines
                for folded in leading_headings(section.text[:_FOLDED_CHARS])[:-1]:
                    first.setdefault(normalize_heading(folded), section)
                first.setdefault(path[-1], section)
        return first

    @cached_property
    def _leading(self) -> list[tuple[SectionRow, list[str], set[str]]]:
        """The headings each section opens with, empty ones folded into it included."""
        return [(s, path, set(map(normalize_heading, leading_headings(s.text))))
                for s, path in zip(self.sections, self._paths) if s.heading]

    @cached_property
    def _anchors(self) -> list[tuple[SectionRow, tuple[str, ...], str]]:
        """Each heading as a page shows it, a Markdown link's text and a wikilink's
        (`#### [[Batch Data Processing|Batch Ingestion]]` is "Batch Ingestion", qa52), and its
        GitHub slug. Folded empty headings count: tables of contents link them."""
        return [(self.sections[i], _heading_forms(name), github) for i, name, github in github_anchors(self.sections)]

    def _by_anchor(self, anchor: str) -> SectionRow | None:
        """A Markdown link's anchor written as a URL: spaces as "+" or "%20"
        (``#Concurrent+Batch+Processing``), or GitHub's slug (``#concurrent-batch-processing``,
        and ``-1``, ``-2`` after a repeated one)."""
        spaced, slug = normalize_heading(unquote_plus(anchor)), anchor.lower()
        return next((s for s, shown, github in self._anchors if spaced in shown or slug == github), None)


# What a heading's rendered or reading-view form can drop: without any, both are the heading as
# written (status read 19,183 links to missing headings in 3.9 s, most of it drawing the headings
# of 7,236 notes that hold no markup, qa82)
_MARKUP = re.compile(r"[\[\]()<>*_`%\\^!|~=&]")


def _heading_forms(name: str) -> tuple[str, ...]:
    """A heading as written, as rendered and as the reading view draws it, each normalized."""
    written = normalize_heading(name)
    if not _MARKUP.search(name):
        return (written,)
    return written, normalize_heading(rendered_heading(name)), normalize_heading(reading_view(name))


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _in_order(wanted: list[str], path: list[str]) -> bool:
    """Whether the headings ``wanted`` are among those of ``path``, in the same order."""
    rest = iter(path)
    return all(heading in rest for heading in wanted)


def with_subsections(sections: Sequence[SectionRow], section: SectionRow,
                     heading: str | None) -> tuple[str, int, int, str | None]:
    """The section's text with its subsections', as Obsidian embeds a heading (everything up
    to the next heading of its level or higher), its first and last lines, and the heading it
    opens at: `show "Batch Data Processing.md#Advantages"` had shown its first of three
    subsections' parent alone, with nothing to say the rest were there (qa72). ``heading``
    (the ref's) may name an empty heading folded in front of the section's own: the text then
    opens at it, at its level (`# Chapter` over `## First` and `## Second` gave First alone,
    qa78), and a later section ends it by the highest of its own folded headings (`## Alpha`
    over `### One` ran on through `## Beta` over `### Three`, and a journal's first day over
    its `### Morning` to the journal's end, qa83). Sections are stored without the blank
    lines between them; those come back, so the text keeps its line numbers."""
    named = [part for part in (heading or "").split("#") if part.strip()]  # `#Decision#` names Decision,
    wanted = normalize_heading(named[-1]) if named else None  # as find() reads it (qa157)
    folded = next(((level, name, line) for level, name, line in leading_levels(section.text)
                   if normalize_heading(name) == wanted), None)
    level, text, start, opens = section.level, section.text, section.line_start, section.heading
    if folded is not None:
        level, opens, skipped = folded
        text, start = "\n".join(text.split("\n")[skipped:]), start + skipped
    end = section.line_end
    for later in sections:
        if later.line_start <= section.line_start:
            continue
        if later.heading is None or _highest_level(later) <= level:
            break
        text += "\n" * (later.line_start - end) + later.text
        end = later.line_end
    return text, start, end, opens


def _highest_level(section: SectionRow) -> int:
    """The level of a section's highest heading, its own or one folded in front of it."""
    return min((level for level, _, _ in leading_levels(section.text)), default=section.level)


def block_lines(text: str, block_id: str) -> tuple[int, int] | None:
    """The 0-based first and last lines of the block ``^block_id`` marks in a section's text,
    as Obsidian embeds it: the list item the id ends, with its nested items, or the paragraph;
    for an id on a line of its own, the table, quote or list just above it. None when no line
    outside code carries the id (an id in a fence is code)."""
    lines = text.split("\n")
    marker = re.compile(r"(?:^|\s)\^" + re.escape(block_id) + r"\s*$")
    roles = list(fence_roles(lines))
    end = next((i for i, (line, role) in enumerate(zip(lines, roles)) if role == TEXT and marker.search(line)), None)
    if end is None:
        return None
    whole_run = lines[end].strip() == f"^{block_id}"
    if whole_run:  # written after the block it names, a blank line between
        above = next((i for i in range(end - 1, -1, -1) if lines[i].strip()), None)
        if above is None:
            return end, end
        end = above
        if roles[end] == CLOSE:  # a fenced block: all of it (its closing fence had been the block, qa52)
            first = next(i for i in range(end, -1, -1) if roles[i] == OPEN)
            return first, end
    first = end
    while first > 0 and lines[first - 1].strip() and roles[first - 1] == TEXT and \
            not lines[first - 1].lstrip().startswith("#"):
        if not whole_run and _LIST_ITEM.match(lines[first]):
            break  # an id ending a list item names that item alone
        first -= 1  # else up to the start of the paragraph, table, quote or list
    if not whole_run and _LIST_ITEM.match(lines[first]):
        indent = len(lines[first]) - len(lines[first].lstrip())
        while end + 1 < len(lines) and lines[end + 1].strip() and \
                len(lines[end + 1]) - len(lines[end + 1].lstrip()) > indent:
            end += 1  # its nested items
    return first, end


_SHORT_ID = re.compile(r"[0-9a-f]{8,31}")


def _by_short_notion_id(ledger: Ledger, ref: str) -> NoteRow:
    """The note of ``notion://<the end of an id>``, the short id in every page's file name
    (`show notion://88ac0cea` was refused, qa50): only when one note's id ends so."""
    given = ref.partition("#")[0].strip()
    ending = given[len(NOTION_SCHEME):].replace("-", "").lower()
    if not _SHORT_ID.fullmatch(ending):
        raise UnknownRef(f"{given!r} names no Notion page: a page's ref is {NOTION_SCHEME} and the 32 hex "
                         "digits of its note's notion_id, or its last 8 or more (the short id in its file name)")
    notes = ledger.notes_by_notion_id_ending(ending)
    if len(notes) > 1:
        raise UnknownRef(f"{given!r} is the end of {len(notes)} Notion pages' ids: "
                         f"{', '.join(NOTION_SCHEME + str(n.notion_id) for n in notes[:5])}; give more of the id")
    if not notes:
        raise UnknownRef(f"no note of a Notion page whose id ends with {ending} in the index (pruned, or never "
                         "imported?): `vault-engine search` finds a note by its words")
    return notes[0]


def with_missing_sections(ledger: Ledger, links: Iterable[ResolvedLink]) -> list[ResolvedLink]:
    """``links`` with ``section_missing`` set on those whose note resolved but lacks the
    ``#heading`` or ``#^block`` they name: by :func:`find_section`, so a link is flagged
    exactly when `show` of its ref would say the note has no such heading."""
    finders: dict[str, SectionFinder] = {}
    checked = []
    for link in links:
        target = link.target_path
        if link.subpath and target and target.lower().endswith(".md"):  # an attachment has no sections
            if target not in finders:
                note = ledger.note_by_path(target)
                finders[target] = SectionFinder(ledger.sections_of(note.id) if note else [])
            if finders[target].find(link.subpath) is None:
                link = replace(link, section_missing=True)
        checked.append(link)
    return checked


def section_ref(note: NoteRow, section: SectionRow | None) -> str:
    """The canonical ref of a section (or of the note, for text before any heading)."""
    heading = section.ref_heading if section is not None else None
    return make_ref(note.path, heading, note.notion_id)
