"""Plain values shared by every layer: frozen dataclasses, no behaviour beyond small helpers.

Parsing produces :class:`ParsedNote`; the stores keep them; retrieval hands back
:class:`Hit`; the shells render ``to_json()`` of the results. JSON field names follow the
agent contract in the README: fields may be added, never renamed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vault_engine.constants import CONTROL_CHARACTERS, KINDS, SEARCH_KINDS  # noqa: F401 - part of the values' API
from vault_engine.text import shortened


@dataclass(frozen=True, slots=True)
class LinkOccurrence:
    """One link as written in a note, before resolution.

    ``target`` is the note/file part (empty for a same-note ``[[#Heading]]``), ``subpath`` the
    part after ``#`` (``Heading#Sub`` or ``^block``), ``display`` the ``|text`` or the
    Markdown link text.
    """

    raw: str
    target: str
    subpath: str | None
    display: str | None
    embed: bool
    style: str  # "wiki" | "markdown"
    line: int  # 1-based line in the file


@dataclass(frozen=True, slots=True)
class Section:
    """A run of a note from one heading to the next (or the whole note without headings)."""

    heading: str | None
    heading_path: tuple[str, ...]
    level: int  # 0 for text before the first heading
    line_start: int  # 1-based, inclusive, lines of the file (frontmatter counted)
    line_end: int
    text: str


@dataclass(frozen=True, slots=True)
class DeadEnd:
    """An approach ruled out: a checkpoint's ``## Failed`` item, a working-note marker, or an
    option a decision record rejected. ``agent`` and ``when`` come from the note (``when``:
    Unix seconds of its date, None when undated); project and path are the note's."""

    text: str  # the approach, [[links]] kept
    reason: str | None
    source: str  # "checkpoint" | "working note" | "decision record"
    line: int  # 1-based file line of the item or marker
    heading: str | None  # the heading of the section holding it, for its ref
    slug: str  # short, unique within the note: "drop-the-second-microphone"
    agent: str | None = None
    when: float | None = None
    detail: str | None = None  # its description as written (a record's text under an option)
    record_title: str | None = None  # a decision record's title: the question it decided
    record_status: str | None = None  # a record no longer in force: "superseded by ADR-0057", "withdrawn"
    described_at: int | None = None  # where a record argues it apart from its listing: its Pros and Cons part


@dataclass(frozen=True, slots=True)
class Accepted:
    """A statement of what a note records as chosen: a checkpoint's Goal, a record's chosen
    option or Decision. ``deadend check`` weighs a proposal against these too."""

    text: str
    line: int
    heading: str | None
    in_force: bool = True  # False: a record superseded or withdrawn chose it, and it is chosen no more


@dataclass(frozen=True, slots=True)
class ParsedNote:
    """Everything the parsers learn from one Markdown file."""

    path: str  # vault-relative, POSIX separators
    title: str
    kind: str
    project: str | None
    meta: dict[str, Any]
    tags: tuple[str, ...]
    sections: tuple[Section, ...]
    links: tuple[LinkOccurrence, ...]
    doc_time: float | None  # frontmatter updated/created/last_edited_time, Unix seconds
    yaml_error: str | None = None
    dead_ends: tuple[DeadEnd, ...] = ()  # Failed items, working-note markers, rejected options
    accepted: tuple[Accepted, ...] = ()  # what the note records as chosen
    as_imported: bool = False  # a Notion page's note as the import wrote it: its rewrite is no edit


@dataclass(frozen=True, slots=True)
class ResolvedLink:
    """A link with its resolution. ``target_path`` is None when unresolved; ``section_missing``:
    the note resolved, but the ``#heading`` or ``#^block`` the link names is not in it."""

    raw: str
    ref: str | None
    target_path: str | None
    subpath: str | None
    resolved: bool
    ambiguous: bool
    embed: bool
    line: int
    source: str = ""  # path of the note holding the link
    section_missing: bool = False

    @property
    def missing_what(self) -> str:
        """What ``section_missing`` lacks, as a person names it: "heading" or "block"."""
        return "block" if (self.subpath or "").startswith("^") else "heading"

    def to_json(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "ref": self.ref,
            "resolved": self.resolved,
            "ambiguous": self.ambiguous,
            "target": self.target_path,
            "line": self.line,
            "section_missing": self.section_missing,
        }


@dataclass(frozen=True, slots=True)
class Scores:
    lexical: float | None = None
    semantic: float | None = None
    fused: float = 0.0
    decay: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "lexical": self.lexical,
            "semantic": self.semantic,
            "fused": self.fused,
            "decay": self.decay,
        }


RULING_SHOWN = 80  # characters of a ruled-out option named under a search hit


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a section, its scores, and its links resolved for following."""

    ref: str
    path: str
    heading: str | None
    kind: str
    tap: str
    project: str | None
    title: str
    snippet: str
    line_start: int
    line_end: int
    score: float
    scores: Scores
    links: tuple[ResolvedLink, ...] = ()
    via: str | None = None
    age_days: float | None = None
    section_id: int = 0
    why: tuple[str, ...] = ()  # a code hit's "why" notes (they mention or link to it)
    ruled_out: tuple[str, ...] = ()  # the dead ends this section records or argues
    also: tuple[str, ...] = ()  # refs of its note's further sections worth a look (retrieval/search.py)

    @property
    def ruled_out_line(self) -> str | None:
        """``ruled out here: A; B (+2 more)``: a hit in a Failed list, or in a record's
        rejected option, is no design to follow; None when the section records no dead end."""
        if not self.ruled_out:
            return None
        shown = [shortened(text, RULING_SHOWN) for text in self.ruled_out[:2]]
        more = f" (+{len(self.ruled_out) - 2} more)" if len(self.ruled_out) > 2 else ""
        return "ruled out here: " + "; ".join(shown) + more

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "path": self.path,
            "heading": self.heading,
            "kind": self.kind,
            "tap": self.tap,
            "project": self.project,
            "title": self.title,
            "snippet": self.snippet,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "score": round(self.score, 6),
            "scores": {k: (round(v, 6) if isinstance(v, float) else v)
                       for k, v in self.scores.to_json().items()},
            "age_days": None if self.age_days is None else round(self.age_days, 2),
            "links": [
                # ambiguous: the name fits more notes, one chosen by Obsidian's rule: said as `links` says it (qa83)
                {"raw": link.raw, "ref": link.ref, "resolved": link.resolved, "ambiguous": link.ambiguous,
                 "section_missing": link.section_missing}
                for link in self.links
            ],
            "via": self.via,
            "ruled_out": list(self.ruled_out),
            "also": list(self.also),
            **({"why": list(self.why)} if self.kind == "code" else {}),
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    arms: tuple[str, ...]
    notices: tuple[str, ...] = ()
    semantic_coverage: float | None = None
    confidence: str = "low"  # "high" | "low": retrieval/confidence.py
    confidence_reason: str = ""  # why, in a few words

    @property
    def status(self) -> str:
        return "hit" if self.hits else "miss"

    @property
    def confidence_line(self) -> str:
        """``confidence low: <why>: check the hits before relying on them``, as text shows it."""
        check = ": check the hits before relying on them" if self.confidence == "low" else ""
        return f"confidence {self.confidence}: {self.confidence_reason}{check}"

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "status": self.status,
            "confidence": self.confidence,
            "confidence_reason": self.confidence_reason,
            "arms": list(self.arms),
            "semantic_coverage": self.semantic_coverage,
            "hits": [hit.to_json() for hit in self.hits],
            "notices": list(self.notices),
        }


@dataclass(frozen=True, slots=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one ``index`` run changed, and what it could not read."""

    new: int = 0
    modified: int = 0
    deleted: int = 0
    moved: int = 0
    unchanged: int = 0
    read_again: int = 0  # unchanged on disk, read again: this release reads notes otherwise, or the settings changed
    skipped: tuple[SkippedFile, ...] = ()
    sections: int = 0
    seconds: float = 0.0
    embedded: int = 0
    notices: tuple[str, ...] = ()
    left_out: int = 0  # of the skipped, notes indexed until this run (unreadable now): they left the index
    source_files: int = 0  # a code tap's files new, changed, moved or deleted (the counts above are of notes)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_files": self.source_files,
            "new": self.new,
            "modified": self.modified,
            "read_again": self.read_again,
            "deleted": self.deleted,
            "moved": self.moved,
            "unchanged": self.unchanged,
            "sections": self.sections,
            "embedded": self.embedded,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "left_out": self.left_out,
            "seconds": round(self.seconds, 3),
            "notices": list(self.notices),
        }


@dataclass(frozen=True, slots=True)
class NoteView:
    """A note or one of its sections, as ``show`` returns it."""

    ref: str
    path: str
    title: str
    kind: str
    tap: str
    project: str | None
    heading: str | None
    line_start: int
    line_end: int
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    links: tuple[ResolvedLink, ...] = ()
    sections: tuple[str, ...] = ()
    followed: tuple[Any, ...] = ()  # --follow: code_model.FollowedNote, the sections it links to
    notices: tuple[str, ...] = ()  # e.g. the file changed since the last index
    body_line: int = 1  # the file line the text's body starts at: past a whole note's frontmatter
    # a section's own heading: past an empty heading folded in front of it (an H1 straight
    # above it), where a reader is taken; None for a whole note
    heading_line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "path": self.path,
            "title": self.title,
            "kind": self.kind,
            "tap": self.tap,
            "project": self.project,
            "heading": self.heading,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "frontmatter": self.meta,
            "sections": list(self.sections),
            "links": [link.to_json() for link in self.links],
            "text": self.text,
            "followed": [f.to_json() for f in self.followed],
            "notices": list(self.notices),
        }


@dataclass(frozen=True, slots=True)
class DecayRow:
    """One decaying document, as ``vault-engine decay`` and the TUI show it."""

    ref: str
    path: str
    title: str
    tap: str
    age_days: float
    multiplier: float
    half_life_days: float
    floor: float
    last_reinforced: float | None
    reinforcements: int

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref, "path": self.path, "title": self.title, "tap": self.tap,
            "age_days": round(self.age_days, 2), "multiplier": round(self.multiplier, 4),
            "half_life_days": self.half_life_days, "floor": self.floor,
            "last_reinforced": self.last_reinforced, "reinforcements": self.reinforcements,
        }


@dataclass(frozen=True, slots=True)
class Freshness:
    """A cheap fingerprint of what ``status`` reports (``Vault.freshness``): compare two of
    the same process to learn whether the vault, the index or the watcher changed."""

    notes: int | None  # how many notes are on disk (None: not scanned, a watcher is at work)
    files: int | None  # hash of every note's (path, size, mtime): an edit, a move, a deletion
    last_index: float | None  # when an index run (this process, a terminal, the watcher) last finished
    watcher: tuple[Any, ...]  # the watcher's state, last batch applied, pending, errors


def reinforcement_said(done: Mapping[str, object]) -> str:
    """What a reinforcement (:meth:`Vault.reinforce`'s answer) did, in words: a note of a tap
    without decay was told "its age starts again from now" (qa74), and it changes no rank."""
    if done.get("decays", True):
        return "its age starts again from now"
    return f"recorded, but its tap ({done.get('tap')}) does not decay: its rank is as before"
