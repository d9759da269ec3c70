"""The SQLite ledger: notes, sections, links, tags, content hashes, skipped files.

Derived state: everything here can be rebuilt from the notes (the durable reinforcement log
lives in ``.vault-engine/ledger/``). WAL mode lets readers run while the indexer writes; each
index run applies its whole batch in one transaction, so a reader never sees half of it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from vault_engine.errors import IndexDamaged
from vault_engine.stores.ledger_schema import (
    DEAD_END_COLUMNS,
    MIGRATIONS,
    NOTE_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    SECTION_COLUMNS,
    DeadEndRow,
    IndexedSection,
    KnownFile,
    NoteRow,
    SectionRow,
    dead_end_row,
    note_row,
    section_row,
)
from vault_engine.stores.reinforcements import Reinforced
from vault_engine.stores.sql import rows_in

if TYPE_CHECKING:  # what a reader needs is the schema; the parsers and analyzer serve writers
    from vault_engine.model import ParsedNote, Section

class Ledger:
    """One SQLite connection over ``ledger.sqlite``. Not shared across threads."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = path
        self._coverage: tuple[tuple[int, int], float] | None = None  # see semantic_coverage
        try:
            if readonly:
                self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(path, timeout=30)
                self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA synchronous=NORMAL")
            problem = self.damage()
            if problem:
                raise sqlite3.DatabaseError(problem)
            if not readonly:
                self._migrate()
        except sqlite3.DatabaseError as exc:
            raise damaged(path, exc) from exc

    def damage(self) -> str | None:
        """A cheap look for damage, before anything trusts the file: a main file shorter than
        its own header says it is (a truncated copy). Costs two pragmas and a stat; damage
        elsewhere surfaces as an error when the page is read, and is reported the same way."""
        page_size = self.db.execute("PRAGMA page_size").fetchone()[0]
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        wal = self.path.with_name(self.path.name + "-wal")
        if not (wal.exists() and wal.stat().st_size) and self.path.stat().st_size < pages * page_size:
            return f"the file is {self.path.stat().st_size} bytes, its header says {pages * page_size}"
        return None

    def close(self) -> None:
        self.db.close()

    # -- schema ---------------------------------------------------------------------------

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if 0 < version < SCHEMA_VERSION and all(v in MIGRATIONS for v in range(version + 1, SCHEMA_VERSION + 1)):
            for step in range(version + 1, SCHEMA_VERSION + 1):
                self.db.executescript(MIGRATIONS[step])
        elif version:
            self._drop_all()  # too old or from a newer release: derived state, rebuilt from the notes
        self.db.executescript(SCHEMA)
        self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self.db.commit()

    def _drop_all(self) -> None:
        tables = [r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            self.db.execute(f"DROP TABLE IF EXISTS {table}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Everything inside commits together or not at all. Nested, the inner one is part
        of the outer (an index run holds one across the ledger and the Whoosh commit)."""
        if self.db.in_transaction:
            yield self.db
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
            yield self.db
        except BaseException:
            self.db.rollback()
            raise
        else:
            self.db.commit()

    # -- meta -----------------------------------------------------------------------------

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

    # -- files for the planner ------------------------------------------------------------

    def known_files(self) -> dict[str, KnownFile]:
        known = {
            path: KnownFile(path, size, mtime, digest)
            for path, size, mtime, digest in self.db.execute("SELECT path, size, mtime_ns, hash FROM notes")
        }
        for path, size, mtime in self.db.execute("SELECT path, size, mtime_ns FROM skipped"):
            known.setdefault(path, KnownFile(path, size, mtime, None))
        return known

    # -- writes (call inside transaction()) ----------------------------------------------

    def upsert_note(self, note: ParsedNote, *, tap: str, size: int, mtime_ns: int, digest: str,
                    note_id: int | None = None, now: float | None = None) -> int:
        """Insert or replace a note and its sections, links and tags; returns the note id.

        Passing ``note_id`` keeps the identity of a moved note (its path changes, its id and
        therefore its reinforcements and vectors do not).
        """
        from vault_engine.paths import note_stem

        notion_id = note.meta.get("notion_id")
        values = (
            note.path, note_stem(note.path).casefold(), note.title, note.kind, note.project, tap,
            size, mtime_ns, digest, note.doc_time, json.dumps(note.meta, ensure_ascii=False),
            note.yaml_error, str(notion_id).lower() if notion_id else None, now or time.time(),
        )
        if note_id is None:
            row = self.db.execute("SELECT id FROM notes WHERE path=?", (note.path,)).fetchone()
            note_id = row[0] if row else None
        if note_id is None:
            cur = self.db.execute(
                "INSERT INTO notes(path, name_key, title, kind, project, tap, size, mtime_ns, hash,"
                " doc_time, meta, yaml_error, notion_id, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                values,
            )
            assert cur.lastrowid is not None  # set by every INSERT
            note_id = cur.lastrowid
        else:
            self.db.execute(
                "UPDATE notes SET path=?, name_key=?, title=?, kind=?, project=?, tap=?, size=?,"
                " mtime_ns=?, hash=?, doc_time=?, meta=?, yaml_error=?, notion_id=?, indexed_at=?"
                " WHERE id=?",
                (*values, note_id),
            )
            for table in ("sections", "links", "tags", "dead_ends", "accepted"):
                self.db.execute(f"DELETE FROM {table} WHERE note_id=?", (note_id,))
        self.db.execute("DELETE FROM skipped WHERE path=?", (note.path,))
        self._insert_children(note_id, note)
        return note_id

    def _insert_children(self, note_id: int, note: ParsedNote) -> None:
        from vault_engine.parsing.checkpoints import lead_sentence
        from vault_engine.parsing.links import target_key

        self.db.executemany(
            "INSERT INTO sections(note_id, ord, heading, heading_path, level, line_start, line_end,"
            " text, hash) VALUES (?,?,?,?,?,?,?,?,?)",
            [(note_id, i, s.heading, json.dumps(s.heading_path, ensure_ascii=False), s.level,
              s.line_start, s.line_end, s.text, section_hash(note.title, s))
             for i, s in enumerate(note.sections)],
        )
        self.db.executemany(
            "INSERT INTO links(note_id, line, raw, target, subpath, display, embed, style, target_key)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            [(note_id, link.line, link.raw, link.target, link.subpath, link.display, int(link.embed), link.style,
              target_key(link.target)) for link in note.links],
        )
        self.db.executemany("INSERT INTO tags(note_id, tag) VALUES (?, ?)", [(note_id, t) for t in note.tags])
        self.db.executemany(
            "INSERT INTO dead_ends(note_id, ord, text, reason, source, line, heading, slug, agent, at,"
            " detail, terms, lead_terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(note_id, i, d.text, d.reason, d.source, d.line, d.heading, d.slug, d.agent, d.when, d.detail,
              _terms(d.text), _terms(lead_sentence(d.detail, d.text) or "")) for i, d in enumerate(note.dead_ends)],
        )
        self.db.executemany(
            "INSERT INTO accepted(note_id, ord, text, line, heading) VALUES (?,?,?,?,?)",
            [(note_id, i, a.text, a.line, a.heading) for i, a in enumerate(note.accepted)],
        )

    def touch_note(self, path: str, size: int, mtime_ns: int) -> None:
        """Same content, new stat (a ``touch`` or a git checkout): remember the new stat only."""
        self.db.execute("UPDATE notes SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))
        self.db.execute("UPDATE skipped SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))

    def delete_note(self, path: str) -> None:
        self.db.execute("DELETE FROM notes WHERE path=?", (path,))
        self.db.execute("DELETE FROM skipped WHERE path=?", (path,))

    def record_skipped(self, path: str, reason: str, size: int, mtime_ns: int) -> None:
        self.db.execute("DELETE FROM notes WHERE path=?", (path,))
        self.db.execute(
            "INSERT OR REPLACE INTO skipped(path, reason, size, mtime_ns) VALUES (?,?,?,?)",
            (path, reason, size, mtime_ns),
        )

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

    def note_id(self, path: str) -> int | None:
        row = self.db.execute("SELECT id FROM notes WHERE path=?", (path,)).fetchone()
        return row[0] if row else None

    def note_by_path(self, path: str, *, casefold: bool = False) -> NoteRow | None:
        where = "path=? COLLATE NOCASE" if casefold else "path=?"
        row = self.db.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE {where}", (path,)).fetchone()
        return note_row(row) if row else None

    def note_by_notion_id(self, notion_id: str) -> NoteRow | None:
        row = self.db.execute(
            f"SELECT {NOTE_COLUMNS} FROM notes WHERE notion_id=?", (notion_id.lower(),)).fetchone()
        return note_row(row) if row else None

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

    def notes_by_ids(self, ids: Iterable[int]) -> dict[int, NoteRow]:
        rows = rows_in(self.db, f"SELECT {NOTE_COLUMNS} FROM notes WHERE id IN ({{marks}})", set(ids))
        return {row[0]: note_row(row) for row in rows}

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

    def links_of(self, note_id: int) -> list[sqlite3.Row]:
        return self._links("WHERE l.note_id=? ORDER BY l.line, l.id", (note_id,))

    def backlinks_to(self, path: str) -> list[sqlite3.Row]:
        return self._links("WHERE l.target_path=? ORDER BY n.path, l.line", (path,))

    def all_links(self) -> list[sqlite3.Row]:
        return self._links("ORDER BY n.path, l.line, l.id", ())

    def unresolved_links(self) -> list[sqlite3.Row]:
        return self._links("WHERE l.target_path IS NULL ORDER BY n.path, l.line", ())

    def _links(self, where: str, params: tuple) -> list[sqlite3.Row]:
        self.db.row_factory = sqlite3.Row
        try:
            return self.db.execute(
                "SELECT l.*, n.path AS source, t.notion_id AS target_notion_id FROM links l"
                " JOIN notes n ON n.id=l.note_id LEFT JOIN notes t ON t.path=l.target_path "
                + where, params).fetchall()
        finally:
            self.db.row_factory = None

    def links_to_resolve(self, keys: Iterable[str] | None, note_ids: Iterable[int]) -> list[tuple]:
        """Links whose resolution may have changed: by target key, by owner note, or all."""
        sql = "SELECT l.id, n.path, l.target, l.subpath, l.style FROM links l JOIN notes n ON n.id=l.note_id"
        if keys is None:
            return self.db.execute(sql).fetchall()
        rows: dict[int, tuple] = {}
        for r in rows_in(self.db, sql + " WHERE l.target_key IN ({marks})", sorted(set(keys))):
            rows[r[0]] = r
        for r in rows_in(self.db, sql + " WHERE l.note_id IN ({marks})", sorted(set(note_ids))):
            rows[r[0]] = r
        return list(rows.values())

    def note_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM notes")]

    def attachment_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM attachments")]

    def projects(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT project FROM notes WHERE project IS NOT NULL ORDER BY project")]

    def skipped(self) -> list[tuple[str, str]]:
        return self.db.execute("SELECT path, reason FROM skipped ORDER BY path").fetchall()

    def yaml_errors(self) -> list[tuple[str, str]]:
        return self.db.execute(
            "SELECT path, yaml_error FROM notes WHERE yaml_error IS NOT NULL ORDER BY path").fetchall()

    def section_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM sections").fetchone()[0]

    def counts(self) -> dict[str, int]:
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "notes": one("SELECT COUNT(*) FROM notes"),
            "sections": one("SELECT COUNT(*) FROM sections"),
            "links": one("SELECT COUNT(*) FROM links"),
            "unresolved_links": one("SELECT COUNT(*) FROM links WHERE target_path IS NULL"),
            "ambiguous_links": one("SELECT COUNT(*) FROM links WHERE ambiguous=1"),
            "attachments": one("SELECT COUNT(*) FROM attachments"),
            "skipped": one("SELECT COUNT(*) FROM skipped"),
        }

    def sections_for_index(self, note_ids: Iterable[int] | None = None) -> Iterator[IndexedSection]:
        """What the search indexes need of each section (of these notes, or all)."""
        sql = ("SELECT s.id, s.note_id, s.heading_path, s.text, s.heading, n.title, n.path, n.kind,"
               " n.project, n.tap FROM sections s JOIN notes n ON n.id=s.note_id")
        rows = self.db.execute(sql) if note_ids is None else rows_in(
            self.db, sql + " WHERE s.note_id IN ({marks})", note_ids)
        yield from map(IndexedSection._make, rows)

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

    def tags_of(self, note_ids: Iterable[int]) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for note_id, tag in rows_in(self.db, "SELECT note_id, tag FROM tags WHERE note_id IN ({marks})", set(note_ids)):
            found.setdefault(note_id, []).append(tag)
        return found

    # -- embedded state: which sections have vectors in vectors.faiss ------------------------
    # A row dies with its section (ON DELETE CASCADE), so an edited, moved or deleted section
    # is never taken for embedded, even when SQLite reuses its id for a new section.

    def sections_to_embed(self) -> list[tuple[int, str]]:
        """Sections without vectors: (section id, text hash); texts come per batch from
        :meth:`texts_to_embed`, so a large vault is never held in memory at once."""
        return self.db.execute(
            "SELECT s.id, s.hash FROM sections s LEFT JOIN embedded e ON e.section_id=s.id"
            " WHERE e.section_id IS NULL ORDER BY s.id").fetchall()

    def texts_to_embed(self, section_ids: list[int]) -> list[tuple[int, str, str, tuple[str, ...], str]]:
        """(section id, text hash, note title, heading path, text), in the order asked."""
        found = {sid: (sid, digest, title, tuple(json.loads(path)), text)
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

    def semantic_coverage(self) -> float:
        """Embedded sections / all sections (1.0 for an empty vault: nothing is missing).

        Every search reports it, and counting every row twice was a visible share of a search
        at 50,000 sections (bench/RESULTS.md, *Hybrid search*): the answer is kept until a
        write, ours or another process's, changes it."""
        version = (self.db.execute("PRAGMA data_version").fetchone()[0], self.db.total_changes)
        if self._coverage is None or self._coverage[0] != version:
            sections = self.section_count()
            value = 1.0 if sections == 0 else round(self.embedded_counts()[0] / sections, 4)
            self._coverage = (version, value)
        return self._coverage[1]

    def section_hashes(self) -> set[str]:
        """Text hashes of every section: what the vector cache must keep."""
        return {r[0] for r in self.db.execute("SELECT DISTINCT hash FROM sections")}


    # -- reinforcements (a cache of the durable log) ----------------------------------------

    def reinforcements(self) -> dict[str, Reinforced]:
        return {r[0]: Reinforced(*r) for r in self.db.execute(
            "SELECT path, last_at, count, last_by, last_why FROM reinforcements")}

    def save_reinforcements(self, state: dict[str, Reinforced], offset: int) -> None:
        with self.transaction():
            self.db.execute("DELETE FROM reinforcements")
            self.db.executemany(
                "INSERT INTO reinforcements(path, last_at, count, last_by, last_why) VALUES (?,?,?,?,?)",
                [(r.path, r.last_at, r.count, r.last_by, r.last_why) for r in state.values()])
            self.set_meta("reinforce_offset", str(offset))

    def reinforced_at(self, paths: Iterable[str]) -> dict[str, float]:
        return dict(rows_in(self.db, "SELECT path, last_at FROM reinforcements WHERE path IN ({marks})", set(paths)))


def damaged(path: Path, exc: Exception) -> IndexDamaged:
    """The error every damaged ledger becomes: what, where, and the one command that repairs it."""
    return IndexDamaged(f"the index ledger {path} is damaged ({exc}): run `vault-engine index`, which "
                        "rebuilds it from the notes (nothing of yours is lost)")


def _terms(text: str) -> str:
    """What ``deadend check`` compares of a text, stored once: analyzed content words."""
    from vault_engine.parsing.checkpoints import match_text
    from vault_engine.stores.lexical import analyze

    return " ".join(analyze(match_text(text)))


def section_hash(title: str, section: Section) -> str:
    """Identity of what a section says (title and heading path included: both are searched)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    digest.update(title.encode())
    digest.update("\x1f".join(section.heading_path).encode())
    digest.update(section.text.encode())
    return digest.hexdigest()

