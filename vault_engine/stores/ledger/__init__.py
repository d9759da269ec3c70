"""The SQLite ledger: what the index knows of every note, one module per entity.

Derived state: everything here can be rebuilt from the notes (the durable reinforcement log
lives in ``.vault-engine/ledger/``). WAL mode lets readers run while the indexer writes; each
index run applies its whole batch in one transaction, so a reader never sees half of it.

Where a query lives (each a class over the one connection of ``connection.py``; ``Ledger``
is all of them, so callers hold one object and one transaction):

    notes.py        notes, tags, skipped files, the stats the change planner compares
    sections.py     sections: by note, by id, for the search indexes
    links.py        links and their resolutions, attachments
    dead_ends.py    dead ends, the index of their words, what notes record as chosen (accepted)
    embedded.py     which sections have vectors in FAISS
    reinforced.py   the cache of the reinforcement log
    meta.py         small named values
    schema.py       the tables, in one piece
"""

from __future__ import annotations

from vault_engine.stores.ledger.connection import LedgerConnection, damaged
from vault_engine.stores.ledger.dead_ends import DeadEndQueries, DeadEndRow, ruled_out_at
from vault_engine.stores.ledger.embedded import EmbeddedQueries, PendingSection
from vault_engine.stores.ledger.links import LinkQueries, LinkRow, LinkToResolve
from vault_engine.stores.ledger.notes import KnownFile, NoteQueries, NoteRow
from vault_engine.stores.ledger.reinforced import ReinforcementQueries
from vault_engine.stores.ledger.schema import SCHEMA_VERSION
from vault_engine.stores.ledger.sections import IndexedSection, SectionQueries, SectionRow, section_hash

__all__ = [
    "SCHEMA_VERSION", "DeadEndRow", "IndexedSection", "KnownFile", "Ledger", "LedgerConnection", "LinkRow",
    "LinkToResolve", "NoteRow", "PendingSection", "SectionRow", "damaged", "ruled_out_at", "section_hash",
]


# A code tap's source file among the notes' rows: every row that is not Markdown (as
# paths.is_note tells a note).
_SOURCE_FILE = "lower(path) NOT LIKE '%.md'"


class Ledger(NoteQueries, SectionQueries, LinkQueries, DeadEndQueries, EmbeddedQueries, ReinforcementQueries):
    """One SQLite connection over ``ledger.sqlite`` with every entity's queries. Not shared
    across threads. What reads more than one entity at once is here."""

    def counts(self) -> dict[str, int]:
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        return {
            # a code tap's source files are rows of notes (they are searched) and, inside the
            # vault, attachments (notes link to them): counted by `status`'s code line instead
            "notes": one(f"SELECT COUNT(*) FROM notes WHERE NOT ({_SOURCE_FILE})"),
            "sections": one("SELECT COUNT(*) FROM sections"),
            "links": one("SELECT COUNT(*) FROM links"),
            "unresolved_links": one("SELECT COUNT(*) FROM links WHERE target_path IS NULL"),
            "ambiguous_links": one("SELECT COUNT(*) FROM links WHERE ambiguous=1"),
            "attachments": one("SELECT COUNT(*) FROM attachments WHERE path NOT IN "
                               f"(SELECT path FROM notes WHERE {_SOURCE_FILE})"),
            "skipped": one("SELECT COUNT(*) FROM skipped"),
        }

    def semantic_coverage(self) -> float:
        """Embedded sections / all sections (1.0 for an empty vault: nothing is missing).

        Every search reports it, and counting every row twice was a visible share of a search
        at 50,000 sections (bench/RESULTS.md, *Hybrid search*): the answer is kept until a
        write, ours or another process's, changes it."""
        return self._embedded_state()[0]

    def embedded_windows(self) -> int:
        """How many window vectors the ledger records (kept as :meth:`semantic_coverage` is)."""
        return self._embedded_state()[1]

    def _embedded_state(self) -> tuple[float, int]:
        version = (self.db.execute("PRAGMA data_version").fetchone()[0], self.db.total_changes)
        if self._coverage is None or self._coverage[0] != version:
            sections = self.section_count()
            embedded, windows = self.embedded_counts()
            self._coverage = (version, (1.0 if sections == 0 else round(embedded / sections, 4), windows))
        return self._coverage[1]
