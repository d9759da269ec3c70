"""The ledger's one connection: opening (and refusing a damaged file), the schema's version,
and the transaction every entity's writes share."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vault_engine.errors import (
    IndexDamaged,
    IndexFromNewerRelease,
    disk_full,
    disk_is_full,
    from_newer_release,
    not_writable,
    over_size_limit,
    under_size_limit,
)
from vault_engine.paths import make_state_folder
from vault_engine.stores.ledger.schema import MIGRATIONS, SCHEMA, SCHEMA_VERSION


class LedgerConnection:
    """One SQLite connection over ``ledger.sqlite``. Not shared across threads. Each
    entity's queries (notes.py, sections.py, ...) are a subclass of this one."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = path
        self.readonly = readonly
        self._coverage: tuple[tuple[int, int], tuple[float, int]] | None = None  # see Ledger.semantic_coverage
        # a file there with no byte (a write cut off by a power loss) is no new ledger: SQLite
        # would open it as one, and it read as "empty or from another version" (qa97)
        self._was_empty = path.is_file() and path.stat().st_size == 0
        try:
            if readonly:  # a folder no one here may write: SQLite could not even make the WAL's -shm
                self.db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, timeout=30)
            else:
                make_state_folder(path.parent)
                self.db = sqlite3.connect(path, timeout=30)
                self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA synchronous=NORMAL")
            problem = self.damage()
            if problem:
                raise sqlite3.DatabaseError(problem)
            if not readonly:
                self._migrate()
        except IndexFromNewerRelease:
            self.db.close()
            raise
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or not os.access(path.parent, os.W_OK):
                raise not_writable(path) from exc  # not damage: rebuilding would not help
            if disk_full(exc, path):  # nor this: the repair would fail the same way
                raise disk_is_full(path) from exc
            if under_size_limit(exc):  # nor a write past `ulimit -f`, which SQLite names no better (qa97)
                raise over_size_limit(path) from exc
            raise damaged(path, exc) from exc
        except sqlite3.DatabaseError as exc:
            raise damaged(path, exc) from exc

    def damage(self) -> str | None:
        """A cheap look for damage, before anything trusts the file: damage a read met before
        (:func:`damaged` marks it), or a main file shorter than its own header says it is (a
        truncated copy). Costs two pragmas and two stats; damage elsewhere surfaces as an
        error when the page is read, and is reported the same way."""
        try:
            return MET + damage_mark(self.path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            pass  # no mark: none met
        wal = self.path.with_name(self.path.name + "-wal")
        in_wal = wal.exists() and wal.stat().st_size > 0  # what the main file lacks may be there
        if self._was_empty and not in_wal:
            return "the file is empty (0 bytes: a write cut off, a power loss?)"
        page_size = self.db.execute("PRAGMA page_size").fetchone()[0]
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        if not in_wal and self.path.stat().st_size < pages * page_size:
            return f"the file is {self.path.stat().st_size} bytes, its header says {pages * page_size}"
        return None

    def close(self) -> None:
        self.db.close()

    # -- schema ---------------------------------------------------------------------------

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise from_newer_release(self.path.parent, f"ledger version {version}, this one reads {SCHEMA_VERSION}")
        if 0 < version < SCHEMA_VERSION and all(v in MIGRATIONS for v in range(version + 1, SCHEMA_VERSION + 1)):
            for step in range(version + 1, SCHEMA_VERSION + 1):
                self.db.executescript(MIGRATIONS[step])
        elif version:
            self._drop_all()  # too old to migrate: derived state, rebuilt from the notes
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


def damaged(path: Path, exc: Exception) -> IndexDamaged:
    """The error every damaged ledger becomes: what, where, and the one command that repairs it.
    The damage is marked beside the file, so `index` repairs it: a page garbled mid-file is
    found only by the read that meets it, and an index run that read no such page said
    "0 new, 35 unchanged" while every search still said "damaged: run `vault-engine index`"
    (qa60). A rebuild is a new generation's folder, without the mark."""
    try:
        damage_mark(path).write_text(str(exc).removeprefix(MET), encoding="utf-8")  # (once, not per open)
    except OSError:  # a folder we may not write: `index` cannot repair it either, and says why
        pass
    return IndexDamaged(f"the index ledger {path} is damaged ({exc}): run `vault-engine index`, which "
                        "rebuilds it from the notes (nothing of yours is lost)")


MET = "a read met: "  # what a damage mark's reason is said after


def damage_mark(path: Path) -> Path:
    """Where damage a read met in the ledger at ``path`` is marked."""
    return path.with_name(path.name + ".damaged")
