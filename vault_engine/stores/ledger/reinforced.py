"""The reinforcements table: a cache of the durable log (``ledger/reinforcements.jsonl``,
stores/reinforcements.py), replayed into each new index generation."""

from __future__ import annotations

from collections.abc import Iterable

from vault_engine.stores.ledger.meta import MetaQueries
from vault_engine.stores.reinforcements import LogMark, Reinforced
from vault_engine.stores.sql import rows_in


class ReinforcementQueries(MetaQueries):  # the log offset replayed so far is a meta value
    def reinforcements(self) -> dict[str, Reinforced]:
        return {r[0]: Reinforced(*r) for r in self.db.execute(
            "SELECT path, last_at, count, last_by, last_why FROM reinforcements")}

    def save_reinforcements(self, state: dict[str, Reinforced], read: LogMark) -> None:
        """The replayed state, and how far into the log it goes (``read``: what the next
        sync compares, to read on only from a log that grew by appends)."""
        with self.transaction():
            self.db.execute("DELETE FROM reinforcements")
            self.db.executemany(
                "INSERT INTO reinforcements(path, last_at, count, last_by, last_why) VALUES (?,?,?,?,?)",
                [(r.path, r.last_at, r.count, r.last_by, r.last_why) for r in state.values()])
            self.set_meta("reinforce_offset", str(read.offset))
            self.set_meta("reinforce_digest", read.digest)
            self.set_meta("reinforce_stamp", read.stamp)

    def reinforcements_read(self) -> LogMark:
        """How far into the log the saved state goes (offset 0, nothing else, when never read)."""
        return LogMark(int(self.get_meta("reinforce_offset") or 0), self.get_meta("reinforce_digest") or "",
                       self.get_meta("reinforce_stamp") or "")

    def reinforced_at(self, paths: Iterable[str]) -> dict[str, float]:
        return dict(rows_in(self.db, "SELECT path, last_at FROM reinforcements WHERE path IN ({marks})", set(paths)))
