"""Links: every wikilink and Markdown link a note holds, with what it resolved to; and the
vault's attachments, which links may point at."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:
    from vault_engine.model import ParsedNote

_LINK_COLUMNS = ("l.id, l.note_id, l.line, l.raw, l.target, l.subpath, l.display, l.embed, l.style,"
                 " l.target_key, l.target_path, l.ambiguous, n.path, t.notion_id")


@dataclass(frozen=True, slots=True)
class LinkRow:
    """A stored link with the path of the note holding it and the Notion id of its target."""

    id: int
    note_id: int
    line: int
    raw: str
    target: str
    subpath: str | None
    display: str | None
    embed: int
    style: str
    target_key: str
    target_path: str | None  # None: unresolved
    ambiguous: int
    source: str  # path of the note holding the link
    target_notion_id: str | None


class LinkToResolve(NamedTuple):
    """What the link resolver needs of a link whose answer may have changed."""

    id: int
    source: str  # path of the note holding it
    target: str
    subpath: str | None
    style: str


def insert_links(db: sqlite3.Connection, note_id: int, note: ParsedNote) -> None:
    """The links of a note being written (NoteQueries.upsert_note), unresolved until
    :meth:`LinkQueries.set_link_targets`."""
    from vault_engine.parsing.links import target_key

    db.executemany(
        "INSERT INTO links(note_id, line, raw, target, subpath, display, embed, style, target_key)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        [(note_id, link.line, link.raw, link.target, link.subpath, link.display, int(link.embed), link.style,
          target_key(link.target)) for link in note.links],
    )


class LinkQueries(LedgerConnection):
    # -- writes (call inside transaction()) ----------------------------------------------

    def set_attachments(self, paths: Iterable[str]) -> None:
        self.db.execute("DELETE FROM attachments")
        self.db.executemany(
            "INSERT INTO attachments(path, name_key) VALUES (?, ?)",
            [(p, p.rsplit("/", 1)[-1].casefold()) for p in paths],
        )

    def set_link_targets(self, rows: Iterable[tuple[str | None, int, int]]) -> None:
        """Store resolutions: (target_path, ambiguous, link id)."""
        self.db.executemany("UPDATE links SET target_path=?, ambiguous=? WHERE id=?", rows)

    # -- reads ----------------------------------------------------------------------------

    def links_of(self, note_id: int) -> list[LinkRow]:
        return self._links("WHERE l.note_id=? ORDER BY l.line, l.id", (note_id,))

    def backlinks_to(self, path: str) -> list[LinkRow]:
        return self._links("WHERE l.target_path=? ORDER BY n.path, l.line", (path,))

    def all_links(self) -> list[LinkRow]:
        return self._links("ORDER BY n.path, l.line, l.id", ())

    def unresolved_links(self) -> list[LinkRow]:
        return self._links("WHERE l.target_path IS NULL ORDER BY n.path, l.line", ())

    def links_with_subpath(self) -> list[LinkRow]:
        """Resolved links naming a ``#heading`` or ``#^block``, whose target may lack it."""
        return self._links("WHERE l.subpath IS NOT NULL AND l.target_path IS NOT NULL ORDER BY n.path, l.line", ())

    def _links(self, where: str, params: tuple) -> list[LinkRow]:
        rows = self.db.execute(
            f"SELECT {_LINK_COLUMNS} FROM links l"
            " JOIN notes n ON n.id=l.note_id LEFT JOIN notes t ON t.path=l.target_path "
            + where, params)
        return [LinkRow(*r) for r in rows]

    def links_to_resolve(self, keys: Iterable[str] | None, note_ids: Iterable[int]) -> list[LinkToResolve]:
        """Links whose resolution may have changed: by target key, by owner note, or all."""
        sql = "SELECT l.id, n.path, l.target, l.subpath, l.style FROM links l JOIN notes n ON n.id=l.note_id"
        if keys is None:
            return [LinkToResolve(*r) for r in self.db.execute(sql)]
        rows: dict[int, LinkToResolve] = {}
        for r in rows_in(self.db, sql + " WHERE l.target_key IN ({marks})", sorted(set(keys))):
            rows[r[0]] = LinkToResolve(*r)
        for r in rows_in(self.db, sql + " WHERE l.note_id IN ({marks})", sorted(set(note_ids))):
            rows[r[0]] = LinkToResolve(*r)
        return list(rows.values())

    def attachment_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM attachments")]
