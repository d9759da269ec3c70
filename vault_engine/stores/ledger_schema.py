"""The ledger's tables and the rows read back from them.

Kept apart from ledger.py so the schema reads in one piece. The ledger is derived state: a
version without a migration step is dropped and rebuilt from the notes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

SCHEMA_VERSION = 8  # 2: dead_ends, 3: embedded, 4: dead_ends.terms, 5: apostrophes, 6: 2 Whoosh fields,
# 7: one Whoosh field, empty headings folded into their subsection, 8: decision records, accepted

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    name_key TEXT NOT NULL,          -- casefolded file name without .md, for link resolution
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    project TEXT,
    tap TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    doc_time REAL,                   -- the note's own date (frontmatter), Unix seconds
    meta TEXT NOT NULL,              -- frontmatter as JSON
    yaml_error TEXT,
    notion_id TEXT,
    indexed_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_name ON notes(name_key);
CREATE INDEX IF NOT EXISTS notes_project ON notes(project, kind);
CREATE INDEX IF NOT EXISTS notes_notion ON notes(notion_id);
CREATE TABLE IF NOT EXISTS sections (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    heading TEXT,
    heading_path TEXT NOT NULL,      -- JSON list
    level INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sections_note ON sections(note_id, ord);
CREATE TABLE IF NOT EXISTS links (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    raw TEXT NOT NULL,
    target TEXT NOT NULL,
    subpath TEXT,
    display TEXT,
    embed INTEGER NOT NULL,
    style TEXT NOT NULL,
    target_key TEXT NOT NULL,        -- casefolded last component of target (see links.target_key)
    target_path TEXT,                -- NULL when unresolved
    ambiguous INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS links_note ON links(note_id);
CREATE INDEX IF NOT EXISTS links_key ON links(target_key);
CREATE INDEX IF NOT EXISTS links_target ON links(target_path);
CREATE TABLE IF NOT EXISTS tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_note ON tags(note_id);
CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag);
CREATE TABLE IF NOT EXISTS attachments (
    path TEXT PRIMARY KEY,
    name_key TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reinforcements (  -- replayed from ledger/reinforcements.jsonl
    path TEXT PRIMARY KEY,
    last_at REAL NOT NULL,
    count INTEGER NOT NULL,
    last_by TEXT,
    last_why TEXT
);
CREATE TABLE IF NOT EXISTS dead_ends (  -- Failed items, working-note markers, rejected options
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    reason TEXT,
    source TEXT NOT NULL,            -- "checkpoint" | "working note" | "decision record"
    line INTEGER NOT NULL,
    heading TEXT,
    slug TEXT NOT NULL,
    agent TEXT,
    at REAL,                         -- the note's created date; NULL: undated (use mtime)
    detail TEXT,                     -- its description as written (a record's text under an option)
    terms TEXT NOT NULL,             -- analyze(match_text(text)), space-separated: deadend check
    lead_terms TEXT NOT NULL         -- the same of the description's first sentence ('' without one)
);
CREATE INDEX IF NOT EXISTS dead_ends_note ON dead_ends(note_id);
CREATE TABLE IF NOT EXISTS accepted (  -- what a note records as chosen: Goal, Decision, chosen option
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    line INTEGER NOT NULL,
    heading TEXT
);
CREATE INDEX IF NOT EXISTS accepted_note ON accepted(note_id);
CREATE TABLE IF NOT EXISTS skipped (
    path TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS embedded (  -- sections whose vectors are in vectors.faiss
    section_id INTEGER PRIMARY KEY REFERENCES sections(id) ON DELETE CASCADE,
    windows INTEGER NOT NULL         -- how many vectors (windows) the section has
);
"""

# Each entry upgrades a ledger from version N-1 to N. The index is derived, so a version
# without a migration step is rebuilt from the notes instead.
MIGRATIONS: dict[int, str] = {3: ""}  # 3: the embedded table, created by _SCHEMA


@dataclass(frozen=True, slots=True)
class KnownFile:
    """What the ledger remembers of a file, for the change planner."""

    path: str
    size: int
    mtime_ns: int
    hash: str | None  # None for a skipped file


@dataclass(frozen=True, slots=True)
class NoteRow:
    id: int
    path: str
    title: str
    kind: str
    project: str | None
    tap: str
    doc_time: float | None
    mtime_ns: int
    notion_id: str | None
    meta: dict[str, Any]
    yaml_error: str | None


@dataclass(frozen=True, slots=True)
class SectionRow:
    id: int
    note_id: int
    ord: int
    heading: str | None
    heading_path: tuple[str, ...]
    level: int
    line_start: int
    line_end: int
    text: str
    hash: str


@dataclass(frozen=True, slots=True)
class DeadEndRow:
    """A recorded dead end with what ``deadend check`` needs of its note."""

    text: str
    reason: str | None
    source: str
    line: int
    heading: str | None
    slug: str
    agent: str | None
    at: float | None
    detail: str | None
    terms: tuple[str, ...]
    lead_terms: tuple[str, ...]
    note_id: int
    path: str
    project: str | None
    mtime_ns: int
    notion_id: str | None


class IndexedSection(NamedTuple):
    """A section with the note fields the search indexes need (a tuple: read in bulk)."""

    id: int
    note_id: int
    heading_path: str  # JSON, as stored
    text: str
    heading: str | None
    title: str
    path: str
    kind: str
    project: str | None
    tap: str


DEAD_END_COLUMNS = ("d.text, d.reason, d.source, d.line, d.heading, d.slug, d.agent, d.at, d.detail, d.terms,"
                    " d.lead_terms, n.id, n.path, n.project, n.mtime_ns, n.notion_id")


def dead_end_row(r: tuple) -> DeadEndRow:
    """A row of ``DEAD_END_COLUMNS``; the two term lists are stored space-separated."""
    text, reason, source, line, heading, slug, agent, at, detail, terms, lead_terms = r[:11]
    note_id, path, project, mtime_ns, notion_id = r[11:]
    return DeadEndRow(text, reason, source, line, heading, slug, agent, at, detail, tuple(terms.split()),
                      tuple(lead_terms.split()), note_id, path, project, mtime_ns, notion_id)


NOTE_COLUMNS = "id, path, title, kind, project, tap, doc_time, mtime_ns, notion_id, meta, yaml_error"
SECTION_COLUMNS = "id, note_id, ord, heading, heading_path, level, line_start, line_end, text, hash"


def note_row(r: tuple) -> NoteRow:
    return NoteRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], json.loads(r[9]), r[10])


def section_row(r: tuple) -> SectionRow:
    return SectionRow(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6], r[7], r[8], r[9])
