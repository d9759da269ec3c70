"""What every SQLite store of vault-engine needs below its own tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from pathlib import Path

CHUNK = 500  # values per IN (...): well under SQLite's limit on bound variables (32,766)
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26  # primary result codes of a damaged file


def is_corruption(exc: BaseException) -> bool:
    """An SQLite error that says the file is damaged (not busy, not locked, not full)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.DatabaseError) and code is not None and code & 0xFF in (
        SQLITE_CORRUPT, SQLITE_NOTADB)


def rows_in(db: sqlite3.Connection, sql: str, values: Iterable, params: tuple = (),
            size: int = CHUNK) -> Iterator[tuple]:
    """The rows of ``sql`` for every one of ``values``: its ``{marks}`` becomes the
    placeholders of one chunk of ``size`` values at a time (bound after ``params``, the
    placeholders written before it), so a list of any length binds. Rows come chunk by chunk,
    each chunk in SQLite's order."""
    values = list(values)
    for start in range(0, len(values), size):
        chunk = values[start:start + size]
        yield from db.execute(sql.replace("{marks}", ",".join("?" * len(chunk))), (*params, *chunk))


def copy_database(source: Path, target: Path) -> bool:
    """A consistent copy of an SQLite file even while another process writes it; False (and
    no ``target``) when ``source`` is damaged."""
    try:
        with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
            src.backup(dst)
    except sqlite3.DatabaseError:
        target.unlink(missing_ok=True)
        return False
    return True
