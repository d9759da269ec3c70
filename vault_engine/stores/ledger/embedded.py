"""Embedded state: which sections have vectors in vectors.faiss, and how many windows each.

A row dies with its section (ON DELETE CASCADE), so an edited, moved or deleted section is
never taken for embedded, even when SQLite reuses its id for a new section.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.sql import rows_in


class PendingSection(NamedTuple):
    """A section to embed, with what its windows are made of."""

    id: int
    hash: str  # of its text: the vector cache's key
    title: str  # of its note
    heading_path: tuple[str, ...]
    text: str


class EmbeddedQueries(LedgerConnection):
    def sections_to_embed(self) -> list[tuple[int, str]]:
        """Sections without vectors: (section id, text hash); texts come per batch from
        :meth:`texts_to_embed`, so a large vault is never held in memory at once."""
        return self.db.execute(
            "SELECT s.id, s.hash FROM sections s LEFT JOIN embedded e ON e.section_id=s.id"
            " WHERE e.section_id IS NULL ORDER BY s.id").fetchall()

    def texts_to_embed(self, section_ids: list[int]) -> list[PendingSection]:
        """The sections asked for, in the order asked (those still there)."""
        found = {sid: PendingSection(sid, digest, title, tuple(json.loads(path)), text)
                 for sid, digest, title, path, text in rows_in(
                     self.db, "SELECT s.id, s.hash, n.title, s.heading_path, s.text FROM sections s"
                     " JOIN notes n ON n.id=s.note_id WHERE s.id IN ({marks})", section_ids)}
        return [found[i] for i in section_ids if i in found]

    def embedded_ids(self, among: Iterable[int] | None = None) -> set[int]:
        """Ids of embedded sections (only those in ``among`` when given)."""
        if among is None:
            return {r[0] for r in self.db.execute("SELECT section_id FROM embedded")}
        return {r[0] for r in rows_in(self.db, "SELECT section_id FROM embedded WHERE section_id IN ({marks})",
                                      set(among))}

    def mark_embedded(self, rows: Iterable[tuple[int, int]]) -> None:
        """Record (section id, window count) pairs whose vectors were saved."""
        with self.transaction():
            self.db.executemany("INSERT OR REPLACE INTO embedded(section_id, windows) VALUES (?, ?)", rows)

    def unmark_embedded(self, section_ids: Iterable[int] | None = None) -> None:
        """Forget that these sections (all, when None) have vectors."""
        with self.transaction():
            if section_ids is None:
                self.db.execute("DELETE FROM embedded")
            else:
                self.db.executemany("DELETE FROM embedded WHERE section_id=?", [(i,) for i in section_ids])

    def embedded_ids_exist(self) -> bool:
        """Any section has vectors (cheaper than counting them)."""
        return self.db.execute("SELECT 1 FROM embedded LIMIT 1").fetchone() is not None

    def embedded_counts(self) -> tuple[int, int]:
        """(embedded sections, vectors they should have in FAISS)."""
        sections, vectors = self.db.execute("SELECT COUNT(*), COALESCE(SUM(windows), 0) FROM embedded").fetchone()
        return sections, vectors
