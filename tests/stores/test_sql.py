"""SQLite helpers shared by the stores (vault_engine/stores/sql.py)."""

import sqlite3

import pytest

from vault_engine.stores.sql import is_corruption, rows_in


def test_rows_in_binds_a_list_of_any_length_in_chunks():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, tag TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?)", [(i, "even" if i % 2 == 0 else "odd") for i in range(1200)])
    wanted = list(range(0, 1200, 3))  # 400 ids, read three at a time below
    rows = list(rows_in(db, "SELECT id FROM t WHERE tag=? AND id IN ({marks}) ORDER BY id", wanted,
                        ("even",), size=3))
    assert [r[0] for r in rows] == [i for i in wanted if i % 2 == 0]
    assert list(rows_in(db, "SELECT id FROM t WHERE id IN ({marks})", [])) == []
    assert len(list(rows_in(db, "SELECT id FROM t WHERE id IN ({marks})", range(40_000)))) == 1200


def test_only_a_damaged_file_counts_as_corruption(tmp_path):
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.DatabaseError) as caught:
        sqlite3.connect(path).execute("SELECT 1 FROM sqlite_master").fetchall()
    assert is_corruption(caught.value)
    assert not is_corruption(sqlite3.OperationalError("database is locked"))
