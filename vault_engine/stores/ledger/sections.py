"""Sections: a note from one heading to the next, the unit that search finds and embeds."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from vault_engine.constants import CODE_KIND
from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:
    from vault_engine.model import ParsedNote, Section

SECTION_COLUMNS = "id, note_id, ord, heading, heading_path, level, line_start, line_end, text, hash, anchor"


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
    anchor: str | None = None  # what its ref names after '#' when its heading repeats in the note

    @property
    def ref_heading(self) -> str | None:
        """The part of its ref after the note's: its heading, or the heading path's end
        that tells it apart from a namesake (parsing.sections.distinct_anchors)."""
        return self.anchor or self.heading


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
    ord: int  # the section's place in its note (0: the first)
    meta: str  # the note's frontmatter, JSON, as stored


def section_row(r: tuple) -> SectionRow:
    """A row of ``SECTION_COLUMNS``; the heading path is stored as a JSON list."""
    return SectionRow(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6], r[7], r[8], r[9], r[10])


def section_hash(title: str, section: Section) -> str:
    """Identity of what a section says (title and heading path included: both are searched)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    digest.update(title.encode())
    digest.update("\x1f".join(section.heading_path).encode())
    digest.update(section.text.encode())
    return digest.hexdigest()


def insert_sections(db: sqlite3.Connection, note_id: int, note: ParsedNote, above: int = 0) -> None:
    """The sections of a note being written (NoteQueries.upsert_note), numbered after
    ``above`` and after every id in the table. SQLite alone would give the highest id plus
    one, which after a deletion is the id of a section just deleted: an index run passes the
    highest id the ledger held when it began, so that no section it writes takes the id of
    one it removed (Whoosh commits before the ledger: see indexing/integrity.py)."""
    from vault_engine.parsing.sections import distinct_anchors  # writers only: readers never parse

    start = max(above, db.execute("SELECT IFNULL(MAX(id), 0) FROM sections").fetchone()[0]) + 1
    # A source file's sections are headed by their symbols' qualified names, unique in the file
    # and opened as written: compared as Markdown headings are (case folded), zustand's
    # `createStore` beside its type `CreateStore` had the ref `#createstore-1`, which nothing opened
    anchors = [None] * len(note.sections) if note.kind == CODE_KIND else distinct_anchors(note.sections)
    db.executemany(
        "INSERT INTO sections(id, note_id, ord, heading, heading_path, level, line_start, line_end,"
        " text, hash, anchor) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [(start + i, note_id, i, s.heading, json.dumps(s.heading_path, ensure_ascii=False), s.level,
          s.line_start, s.line_end, s.text, section_hash(note.title, s), anchor)
         for i, (s, anchor) in enumerate(zip(note.sections, anchors))],
    )


class SectionQueries(LedgerConnection):
    def body_line(self, note_id: int) -> int:
        """The first line of a note's first section: what lies above it is its frontmatter."""
        row = self.db.execute("SELECT MIN(line_start) FROM sections WHERE note_id=?", (note_id,)).fetchone()
        return row[0] if row and row[0] is not None else 1

    def sections_of(self, note_id: int) -> list[SectionRow]:
        rows = self.db.execute(
            f"SELECT {SECTION_COLUMNS} FROM sections WHERE note_id=? ORDER BY ord", (note_id,))
        return [section_row(r) for r in rows]

    def sections_by_ids(self, ids: Iterable[int]) -> dict[int, SectionRow]:
        rows = rows_in(self.db, f"SELECT {SECTION_COLUMNS} FROM sections WHERE id IN ({{marks}})", set(ids))
        return {row[0]: section_row(row) for row in rows}

    def section_ids_where(self, kind: str | None, project: str | None, tap: str | None) -> set[int]:
        """Ids of the sections of notes matching every given filter (None: any)."""
        clauses = [(f"n.{name}=?", value) for name, value in
                   (("kind", kind), ("project", project), ("tap", tap)) if value is not None]
        where = " AND ".join(c for c, _ in clauses) or "1"
        sql = f"SELECT s.id FROM sections s JOIN notes n ON n.id=s.note_id WHERE {where}"
        return {r[0] for r in self.db.execute(sql, [v for _, v in clauses])}

    def section_ids_of_paths(self, paths: Iterable[str]) -> list[int]:
        return [r[0] for r in rows_in(
            self.db, "SELECT s.id FROM sections s JOIN notes n ON n.id=s.note_id WHERE n.path IN ({marks})", paths)]

    def section_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM sections").fetchone()[0]

    def max_section_id(self) -> int:
        """The highest section id (0 when there is none)."""
        return self.db.execute("SELECT IFNULL(MAX(id), 0) FROM sections").fetchone()[0]

    def sections_for_index(self, note_ids: Iterable[int] | None = None) -> Iterator[IndexedSection]:
        """What the search indexes need of each section (of these notes, or all)."""
        sql = ("SELECT s.id, s.note_id, s.heading_path, s.text, s.heading, n.title, n.path, n.kind,"
               " n.project, n.tap, s.ord, n.meta FROM sections s JOIN notes n ON n.id=s.note_id")
        rows = self.db.execute(sql) if note_ids is None else rows_in(
            self.db, sql + " WHERE s.note_id IN ({marks})", note_ids)
        yield from map(IndexedSection._make, rows)

    def section_hashes(self) -> set[str]:
        """Text hashes of every section: what the vector cache must keep."""
        return {r[0] for r in self.db.execute("SELECT DISTINCT hash FROM sections")}
