"""Dead ends (approaches ruled out: a checkpoint's Failed items, working-note markers, the
options a decision record rejected) and what notes record as chosen instead (``accepted``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:
    from vault_engine.model import ParsedNote

DEAD_END_COLUMNS = ("d.text, d.reason, d.source, d.line, d.heading, d.slug, d.agent, d.at, d.detail, d.terms,"
                    " d.lead_terms, n.id, n.path, n.project, n.mtime_ns, n.notion_id")


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


def dead_end_row(r: tuple) -> DeadEndRow:
    """A row of ``DEAD_END_COLUMNS``; the two term lists are stored space-separated."""
    text, reason, source, line, heading, slug, agent, at, detail, terms, lead_terms = r[:11]
    note_id, path, project, mtime_ns, notion_id = r[11:]
    return DeadEndRow(text, reason, source, line, heading, slug, agent, at, detail, tuple(terms.split()),
                      tuple(lead_terms.split()), note_id, path, project, mtime_ns, notion_id)


def _terms(text: str) -> str:
    """What ``deadend check`` compares of a text, stored once: analyzed content words."""
    from vault_engine.parsing.checkpoints import match_text
    from vault_engine.stores.lexical import analyze

    return " ".join(analyze(match_text(text)))


def insert_dead_ends(db: sqlite3.Connection, note_id: int, note: ParsedNote) -> None:
    """The dead ends of a note being written (NoteQueries.upsert_note), their terms analyzed once."""
    from vault_engine.parsing.checkpoints import lead_sentence

    db.executemany(
        "INSERT INTO dead_ends(note_id, ord, text, reason, source, line, heading, slug, agent, at,"
        " detail, terms, lead_terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(note_id, i, d.text, d.reason, d.source, d.line, d.heading, d.slug, d.agent, d.when, d.detail,
          _terms(d.text), _terms(lead_sentence(d.detail, d.text) or "")) for i, d in enumerate(note.dead_ends)],
    )


def insert_accepted(db: sqlite3.Connection, note_id: int, note: ParsedNote) -> None:
    """What a note being written records as chosen (NoteQueries.upsert_note)."""
    db.executemany(
        "INSERT INTO accepted(note_id, ord, text, line, heading) VALUES (?,?,?,?,?)",
        [(note_id, i, a.text, a.line, a.heading) for i, a in enumerate(note.accepted)],
    )


class DeadEndQueries(LedgerConnection):
    def dead_end_rows(self, project: str | None = None, note_id: int | None = None) -> list[DeadEndRow]:
        """Recorded dead ends joined with their notes, in vault order."""
        sql = f"SELECT {DEAD_END_COLUMNS} FROM dead_ends d JOIN notes n ON n.id=d.note_id"
        if note_id is not None:
            rows = self.db.execute(f"{sql} WHERE n.id=? ORDER BY d.ord", (note_id,))
        elif project is not None:
            rows = self.db.execute(f"{sql} WHERE n.project=? ORDER BY n.path, d.ord", (project,))
        else:
            rows = self.db.execute(f"{sql} ORDER BY n.path, d.ord")
        return [dead_end_row(r) for r in rows]

    def accepted_texts(self) -> list[str]:
        """Every statement of what a note records as chosen, each once."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT text FROM accepted ORDER BY text")]

    def first_accepted_of(self, note_ids: Iterable[int]) -> dict[int, tuple[str, str | None]]:
        """The first statement of what each of these notes records as chosen, with the heading
        it was written under (None: a record's ``Chosen option`` line)."""
        rows = rows_in(self.db, "SELECT note_id, text, heading FROM accepted WHERE note_id IN ({marks}) AND ord = "
                       "(SELECT MIN(ord) FROM accepted a WHERE a.note_id = accepted.note_id)", sorted(set(note_ids)))
        return {note_id: (text, heading) for note_id, text, heading in rows}
