"""The ``meta`` table: small named values (the index's fingerprints, model keys, offsets)."""

from __future__ import annotations

from vault_engine.stores.ledger.connection import LedgerConnection

LAST_INDEX = "last_index"  # when the last index run finished, seconds since the epoch


class MetaQueries(LedgerConnection):
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def get_metas(self, *keys: str) -> tuple[str | None, ...]:
        """Several values read in one statement: one consistent snapshot of them."""
        marks = ",".join("?" * len(keys))
        found = dict(self.db.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", keys).fetchall())
        return tuple(found.get(key) for key in keys)

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def last_index(self) -> float | None:
        """When the last index run finished; None before the first one ends."""
        value = self.get_meta(LAST_INDEX)
        return float(value) if value else None

    def mark_indexed(self, when: float) -> None:
        self.set_meta(LAST_INDEX, str(when))

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key=?", (key,))
