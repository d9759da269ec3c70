"""Notes: one row per indexed document (a Markdown note or a source file), with its tags,
the files the last index skipped, and what the change planner compares with the disk.

Writing a note writes its children too (sections, links, tags, dead ends, what it records
as chosen), each through the insert of its own entity's module, in the caller's transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_engine.stores.ledger.connection import LedgerConnection
from vault_engine.stores.ledger.dead_ends import insert_accepted, insert_dead_ends
from vault_engine.stores.ledger.links import insert_links
from vault_engine.stores.ledger.sections import insert_sections
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:  # what a reader needs is the schema; the parsers serve writers
    from vault_engine.model import ParsedNote

NOTE_COLUMNS = "id, path, title, kind, project, tap, doc_time, mtime_ns, notion_id, meta, yaml_error, edited_at"


@dataclass(frozen=True, slots=True)
class KnownFile:
    """What the ledger remembers of a file, for the change planner."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int | None  # None: not known yet (a ledger from before it was kept): read once more
    hash: str | None  # None for a skipped file

    def has_stat(self, size: int, mtime_ns: int, ctime_ns: int) -> bool:
        """Whether the file on disk has the stat recorded here: then its content is what was
        indexed. A change time the ledger does not know (None) never matches."""
        return (size, mtime_ns, ctime_ns) == (self.size, self.mtime_ns, self.ctime_ns)

    def change_at(self, path: Path) -> str | None:
        """``"changed"`` when the file at ``path`` (where this one is now) no longer holds what
        was indexed, ``"unreadable"`` when it is there but may not be read (it had been called
        gone, qa137), ``"gone"`` when it is not there, None when it is current. Its stat first
        (as the planner compares it), so a current file costs no read; a touch (same content)
        is no change."""
        try:
            info = path.stat()
            if self.has_stat(info.st_size, info.st_mtime_ns, info.st_ctime_ns):
                return None
            return None if content_digest(path.read_bytes()) == self.hash else "changed"
        except PermissionError:
            return "unreadable"
        except OSError:
            return "gone"


def content_digest(data: bytes) -> str:
    """The content hash the ledger keeps of a file (``KnownFile.hash``)."""
    import hashlib  # here: a query that only reads the ledger never hashes a file

    return hashlib.blake2b(data, digest_size=16).hexdigest()


_KNOWN = "path, size, mtime_ns, ctime_ns, hash"  # a KnownFile's columns, in its order


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
    edited_at: float | None = None  # when an index first read its present content, changed (None: not seen)


def note_row(r: tuple) -> NoteRow:
    """A row of ``NOTE_COLUMNS``; the frontmatter is stored as JSON."""
    return NoteRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], json.loads(r[9]), r[10], r[11])


class NoteQueries(LedgerConnection):
    # -- files for the planner ------------------------------------------------------------

    def known_files(self) -> dict[str, KnownFile]:
        known = {row[0]: KnownFile(*row) for row in self.db.execute(f"SELECT {_KNOWN} FROM notes")}
        for path, size, mtime, ctime in self.db.execute("SELECT path, size, mtime_ns, ctime_ns FROM skipped"):
            known.setdefault(path, KnownFile(path, size, mtime, ctime, None))
        return known

    def known_note(self, path: str) -> KnownFile | None:
        """What the ledger remembers of one indexed note's file (``show`` checks it is current)."""
        row = self.db.execute(f"SELECT {_KNOWN} FROM notes WHERE path=?", (path,)).fetchone()
        return KnownFile(*row) if row else None

    # -- writes (call inside transaction()) ----------------------------------------------

    def upsert_note(self, note: ParsedNote, *, tap: str, size: int, mtime_ns: int, ctime_ns: int,
                    digest: str, note_id: int | None = None, now: float | None = None,
                    section_ids_above: int = 0) -> int:
        """Insert or replace a note and its sections, links and tags; returns the note id.

        Passing ``note_id`` keeps the identity of a moved note (its path changes, its id and
        therefore its reinforcements and vectors do not). Its sections get ids above
        ``section_ids_above`` (see sections.insert_sections).
        """
        from vault_engine.paths import note_stem

        notion_id = note.meta.get("notion_id")
        values = (
            note.path, note_stem(note.path).casefold(), note.title, note.kind, note.project, tap,
            size, mtime_ns, ctime_ns, digest, note.doc_time, json.dumps(note.meta, ensure_ascii=False),
            note.yaml_error, str(notion_id).lower() if notion_id else None, now or time.time(),
        )
        if note_id is None:
            row = self.db.execute("SELECT id FROM notes WHERE path=?", (note.path,)).fetchone()
            note_id = row[0] if row else None
        if note_id is None:
            cur = self.db.execute(
                "INSERT INTO notes(path, name_key, title, kind, project, tap, size, mtime_ns, ctime_ns, hash,"
                " doc_time, meta, yaml_error, notion_id, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                values,
            )
            assert cur.lastrowid is not None  # set by every INSERT
            note_id = cur.lastrowid
        else:
            # An edit the index reads: its content differs from what it last read (a note read
            # again for a new EXTRACTION_VERSION, or moved, is none); decay counts from it. A
            # Notion page the import wrote again is no edit of the note: an undated page changed
            # in Notion had become new, and outranked the page that answered (qa146); a note as
            # the import wrote it holds no edit at all, whatever an earlier release recorded
            self.db.execute(
                "UPDATE notes SET edited_at=CASE WHEN ? THEN NULL WHEN hash<>? THEN ? ELSE edited_at END WHERE id=?",
                (note.as_imported, digest, values[-1], note_id))
            self.db.execute(
                "UPDATE notes SET path=?, name_key=?, title=?, kind=?, project=?, tap=?, size=?,"
                " mtime_ns=?, ctime_ns=?, hash=?, doc_time=?, meta=?, yaml_error=?, notion_id=?, indexed_at=?"
                " WHERE id=?",
                (*values, note_id),
            )
            for table in ("sections", "links", "tags", "dead_ends", "accepted"):
                self.db.execute(f"DELETE FROM {table} WHERE note_id=?", (note_id,))
        self.db.execute("DELETE FROM skipped WHERE path=?", (note.path,))
        insert_sections(self.db, note_id, note, section_ids_above)
        insert_links(self.db, note_id, note)
        self.db.executemany("INSERT INTO tags(note_id, tag) VALUES (?, ?)", [(note_id, t) for t in note.tags])
        insert_dead_ends(self.db, note_id, note)
        insert_accepted(self.db, note_id, note)
        return note_id

    def touch_note(self, path: str, *, size: int, mtime_ns: int, ctime_ns: int) -> None:
        """Same content, new stat (a ``touch``, a chmod, a git checkout): remember the new stat
        only, the change time too, or the file would be read again by every index."""
        stat = (size, mtime_ns, ctime_ns, path)
        self.db.execute("UPDATE notes SET size=?, mtime_ns=?, ctime_ns=? WHERE path=?", stat)
        self.db.execute("UPDATE skipped SET size=?, mtime_ns=?, ctime_ns=? WHERE path=?", stat)

    def delete_note(self, path: str) -> None:
        self.db.execute("DELETE FROM notes WHERE path=?", (path,))
        self.db.execute("DELETE FROM skipped WHERE path=?", (path,))

    def record_skipped(self, path: str, reason: str, *, size: int, mtime_ns: int, ctime_ns: int) -> None:
        """A file that cannot be indexed, with its stat: it is not read again until that changes."""
        self.db.execute("DELETE FROM notes WHERE path=?", (path,))
        self.db.execute(
            "INSERT OR REPLACE INTO skipped(path, reason, size, mtime_ns, ctime_ns) VALUES (?,?,?,?,?)",
            (path, reason, size, mtime_ns, ctime_ns),
        )

    # -- reads ----------------------------------------------------------------------------

    def note_id(self, path: str) -> int | None:
        row = self.db.execute("SELECT id FROM notes WHERE path=?", (path,)).fetchone()
        return row[0] if row else None

    def note_by_path(self, path: str, *, casefold: bool = False) -> NoteRow | None:
        where = "path=? COLLATE NOCASE" if casefold else "path=?"
        row = self.db.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE {where}", (path,)).fetchone()
        return note_row(row) if row else None

    def count_named(self, file_name: str) -> int:
        """How many notes have this file name, in any folder, whatever its case (as Obsidian
        resolves a wikilink by name)."""
        name = file_name.casefold()
        return sum(path.rsplit("/", 1)[-1].casefold() == name for (path,) in self.db.execute("SELECT path FROM notes"))

    def notion_ids_of(self, paths: Iterable[str]) -> dict[str, str]:
        """path -> Notion page id, for those of ``paths`` that are Notion pages."""
        found: dict[str, str] = {}
        wanted = list(paths)
        for start in range(0, len(wanted), 500):  # SQLite's bound-parameter limit
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self.db.execute(f"SELECT path, notion_id FROM notes WHERE notion_id IS NOT NULL "
                                         f"AND path IN ({marks})", chunk).fetchall())
        return found

    def settle_notion_ids(self, ids: Iterable[str], first: Callable[[str, dict[str, Any], str], Any]) -> None:
        """Give each of ``ids`` to one note, the first by ``first(path, meta, id)`` of the notes
        whose properties carry it: a copy of a page's note carries its id too, and its hits
        were named by the page's ``notion://`` ref (qa34 N2). The others keep it in their meta."""
        wanted = {str(i).lower() for i in ids}
        holders: dict[str, list[tuple[int, str, dict[str, Any]]]] = {i: [] for i in wanted}
        # only the holders of these ids, read by SQLite: not every page's properties each batch
        for note_id, path, meta_text, ident in rows_in(
                self.db, "SELECT id, path, meta, lower(CAST(json_extract(meta, '$.notion_id') AS TEXT)) AS ident "
                         "FROM notes WHERE ident IN ({marks})", wanted):
            holders[ident].append((note_id, path, json.loads(meta_text)))
        for ident, notes in holders.items():
            ranked = sorted(notes, key=lambda n: first(n[1], n[2], ident))
            for rank, (note_id, _, _) in enumerate(ranked):
                self.db.execute("UPDATE notes SET notion_id=? WHERE id=?", (ident if rank == 0 else None, note_id))

    def note_by_notion_id(self, notion_id: str) -> NoteRow | None:
        row = self.db.execute(
            f"SELECT {NOTE_COLUMNS} FROM notes WHERE notion_id=?", (notion_id.lower(),)).fetchone()
        return note_row(row) if row else None

    def notes_by_notion_id_ending(self, ending: str) -> list[NoteRow]:
        """The notes whose Notion id ends with ``ending`` (hex digits: the short id in a page's
        file name), by path."""
        rows = self.db.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE notion_id LIKE ? ORDER BY path",
                               ("%" + ending.lower(),)).fetchall()
        return [note_row(r) for r in rows]

    def notes(self, *, project: str | None = None, kinds: Iterable[str] | None = None) -> list[NoteRow]:
        """Every note, or those of ``project`` and of one of ``kinds`` when given (in no
        promised order: callers that show them sort them)."""
        clauses, params = [], []
        if project is not None:
            clauses.append("project=?")
            params.append(project)
        if kinds is not None:
            kinds = list(kinds)
            clauses.append(f"kind IN ({','.join('?' * len(kinds))})")
            params += kinds
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        return [note_row(r) for r in self.db.execute(f"SELECT {NOTE_COLUMNS} FROM notes{where}", params)]

    def doc_times(self, tap: str) -> list[float]:
        """The dates the notes of ``tap`` state (their own, not their files')."""
        rows = self.db.execute("SELECT doc_time FROM notes WHERE tap=? AND doc_time IS NOT NULL", (tap,))
        return [r[0] for r in rows]

    def notes_by_ids(self, ids: Iterable[int]) -> dict[int, NoteRow]:
        rows = rows_in(self.db, f"SELECT {NOTE_COLUMNS} FROM notes WHERE id IN ({{marks}})", set(ids))
        return {row[0]: note_row(row) for row in rows}

    def note_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM notes")]

    def kinds(self) -> list[str]:
        """The kinds the indexed notes are of."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT kind FROM notes ORDER BY kind")]

    def projects_under(self, folder: str) -> list[tuple[str, str]]:
        """(path, project) of the notes under ``folder/`` that have a project."""
        prefix = folder.rstrip("/") + "/"
        return self.db.execute("SELECT path, project FROM notes WHERE project IS NOT NULL AND substr(path, 1, ?) = ? "
                               "ORDER BY path", (len(prefix), prefix)).fetchall()

    def projects(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT project FROM notes WHERE project IS NOT NULL ORDER BY project")]

    def skipped(self) -> list[tuple[str, str]]:
        return self.db.execute("SELECT path, reason FROM skipped ORDER BY path").fetchall()

    def yaml_errors(self) -> list[tuple[str, str]]:
        return self.db.execute(
            "SELECT path, yaml_error FROM notes WHERE yaml_error IS NOT NULL ORDER BY path").fetchall()

    def tags_of(self, note_ids: Iterable[int]) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for note_id, tag in rows_in(self.db, "SELECT note_id, tag FROM tags WHERE note_id IN ({marks})", set(note_ids)):
            found.setdefault(note_id, []).append(tag)
        return found
