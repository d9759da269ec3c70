"""The SQLite ledger (vault_engine/stores/ledger/)."""

import sqlite3

import pytest

from vault_engine.stores.ledger import SCHEMA_VERSION, Ledger
from vault_engine.stores.ledger import connection as ledger_module  # where the schema is migrated

# What versions 12 and 13 added, dropped to stand in for an older ledger.
DROP_15 = "ALTER TABLE accepted DROP COLUMN in_force; "
DROP_14 = "ALTER TABLE notes DROP COLUMN edited_at; " + DROP_15
DROP_13 = "ALTER TABLE dead_ends DROP COLUMN described_at; " + DROP_14
DROP_12 = "ALTER TABLE dead_ends DROP COLUMN record_title; ALTER TABLE dead_ends DROP COLUMN record_status; " + DROP_13


def test_wal_mode_and_schema_version(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite")
    assert ledger.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert ledger.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_an_unknown_old_version_is_rebuilt(tmp_path):
    path = tmp_path / "l.sqlite"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE notes (junk TEXT); PRAGMA user_version=0;")
    db.execute("PRAGMA user_version=1")  # older than any migration step
    db.commit()
    db.close()
    ledger = Ledger(path)
    columns = [r[1] for r in ledger.db.execute("PRAGMA table_info(notes)")]
    assert "path" in columns and "junk" not in columns


def test_a_migration_step_runs_instead_of_a_rebuild(tmp_path, monkeypatch):
    path = tmp_path / "l.sqlite"
    Ledger(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO meta(key, value) VALUES ('keep', 'me')")
    monkeypatch.setattr(ledger_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(ledger_module.MIGRATIONS, SCHEMA_VERSION + 1, "ALTER TABLE notes ADD COLUMN extra TEXT;")
    ledger = Ledger(path)
    assert ledger.get_meta("keep") == "me"
    assert "extra" in [r[1] for r in ledger.db.execute("PRAGMA table_info(notes)")]


def test_a_ledger_of_version_9_is_migrated_with_change_times_unknown(make_vault):
    """Version 10 keeps each file's inode change time; a ledger from before keeps its notes
    (no rebuild: their vectors stay) and knows no change time, so each file is hashed once."""
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "alpha", "bad.md": b"\x00binary"})
    with Vault(root) as v:
        v.index(embed=False)
        assert v.ledger.known_files()["a.md"].ctime_ns == (root / "a.md").stat().st_ctime_ns
        v.ledger.db.executescript("ALTER TABLE notes DROP COLUMN ctime_ns; ALTER TABLE skipped DROP COLUMN ctime_ns;"
                                  "ALTER TABLE sections DROP COLUMN anchor; " + DROP_12 + "PRAGMA user_version=9;")
    with Vault(root) as v:
        known = v.ledger.known_files()
        assert v.ledger.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert (known["a.md"].ctime_ns, known["bad.md"].ctime_ns) == (None, None)
        assert known["a.md"].hash is not None and v.ledger.get_meta("last_index") is not None


def test_a_ledger_of_version_10_gains_section_anchors_when_its_notes_are_read_again(make_vault):
    """Version 11 names a section under a repeated heading by its heading path; a ledger from
    before keeps its sections (their refs fall back to the heading) until ``index`` reads the
    notes again for the new extraction."""
    from vault_engine.vault import Vault

    root = make_vault({"rep.md": "# Doc\n## A\n### Tokens\none\n## B\n### Tokens\ntwo\n"})
    with Vault(root) as v:
        v.index(embed=False)
        v.ledger.db.executescript("ALTER TABLE sections DROP COLUMN anchor; " + DROP_12 + "PRAGMA user_version=10;"
                                  "UPDATE meta SET value='an older reader' WHERE key='extraction';")
    with Vault(root) as v:
        note = v.ledger.note_by_path("rep.md")
        assert [s.ref_heading for s in v.ledger.sections_of(note.id)] == ["Tokens", "Tokens"]
        v.index(embed=False)
        note = v.ledger.note_by_path("rep.md")
        assert [s.ref_heading for s in v.ledger.sections_of(note.id)] == ["A#Tokens", "B#Tokens"]


def test_a_ledger_of_version_12_learns_where_records_argue_their_options_when_read_again(make_vault):
    from vault_engine.vault import Vault

    record = ("# Store chats\n## Considered Options\n* JSON\n* MVStore\n## Decision Outcome\n"
              'Chosen option: "MVStore"\n## Pros and Cons of the Options\n### JSON\n* Bad, because verbose\n')
    root = make_vault({"decisions/0001.md": record})
    with Vault(root) as v:
        v.index(embed=False)
        v.ledger.db.executescript(DROP_13 + "PRAGMA user_version=12;"
                                  "UPDATE meta SET value='an older reader' WHERE key='extraction';")
    with Vault(root) as v:
        assert v.search("verbose", lexical_only=True).hits[0].ruled_out == ()  # kept, not yet read again
        v.index(embed=False)
        assert v.search("verbose", lexical_only=True).hits[0].ruled_out == ("JSON",)


def test_transaction_rolls_back_on_error(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite")
    with pytest.raises(RuntimeError):
        with ledger.transaction():
            ledger.set_meta("k", "v")
            raise RuntimeError("boom")
    assert ledger.get_meta("k") is None


def test_a_ledger_rebuilt_for_a_new_version_asks_for_an_index(make_vault):
    from vault_engine.errors import IndexMissing
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "alpha"})
    with Vault(root) as v:
        v.index()
        v.ledger.db.execute("PRAGMA user_version=1")
        v.ledger.db.commit()
    with Vault(root) as v, pytest.raises(IndexMissing, match="from another version"):
        v.search("alpha", lexical_only=True)


def test_notes_filter_by_project_and_kinds(make_vault):
    from vault_engine.vault import Vault

    root = make_vault({
        "projects/p/checkpoints/1.md": "---\nproject: p\n---\n# one\n",
        "projects/p/working/w.md": "---\nproject: p\n---\n# working\n",
        "projects/q/checkpoints/2.md": "---\nproject: q\n---\n# two\n",
        "specs/s.md": "---\nproject: p\n---\n# spec\n",
    })
    with Vault(root) as v:
        v.index(embed=False)
        paths = lambda **kw: sorted(n.path for n in v.ledger.notes(**kw))  # noqa: E731
        assert len(paths()) == 4
        assert paths(project="p") == ["projects/p/checkpoints/1.md", "projects/p/working/w.md", "specs/s.md"]
        assert paths(project="p", kinds=("checkpoint", "working-note")) == [
            "projects/p/checkpoints/1.md", "projects/p/working/w.md"]
        assert paths(kinds=("checkpoint",)) == ["projects/p/checkpoints/1.md", "projects/q/checkpoints/2.md"]
        assert paths(kinds=()) == []


def test_a_ledger_written_by_a_newer_release_is_left_as_it_is(make_vault):
    """A watcher or TUI started before an upgrade dropped the newer ledger as "another
    version" and each process then rebuilt over the other (two QA runs lost their index)."""
    from vault_engine.errors import IndexFromNewerRelease
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "# A\nalpha\n"})
    with Vault(root) as v:
        v.index(embed=False)
        path = v.ledger.path
        v.ledger.db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
        v.ledger.db.commit()
    with pytest.raises(IndexFromNewerRelease, match=f"ledger version {SCHEMA_VERSION + 1}, this one reads"):
        Ledger(path)
    db = sqlite3.connect(path)
    assert db.execute("SELECT path FROM notes").fetchall() == [("a.md",)]  # nothing dropped
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    db.commit()
    db.close()
    with Vault(root) as v:
        assert v.search("alpha", lexical_only=True).hits[0].ref == "a.md#A"


def test_damage_a_read_met_is_marked_once_and_every_open_says_it(tmp_path):
    """Marked by the read that met it, so `index` repairs it (qa60); said once per open, not
    "a read met: a read met: ..." (qa64)."""
    from vault_engine.errors import IndexDamaged

    path = tmp_path / "ledger.sqlite"
    Ledger(path).close()
    ledger_module.damaged(path, sqlite3.DatabaseError("database disk image is malformed"))
    for _ in range(3):
        with pytest.raises(IndexDamaged) as raised:
            Ledger(path)
        assert str(raised.value).count("a read met:") == 1 and "database disk image is malformed" in str(raised.value)


def test_a_ledger_of_version_13_learns_of_edits_from_the_next_one_it_reads(make_vault):
    """Version 14 keeps when an index read a note's new content (decay counts from it)."""
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "# A\none\n"}, config="[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(embed=False)
        v.ledger.db.executescript(DROP_14 + "PRAGMA user_version=13;")
    with Vault(root) as v:
        assert v.ledger.note_by_path("a.md").edited_at is None
        (root / "a.md").write_text("# A\ntwo\n", encoding="utf-8")
        v.index(embed=False, now=1_790_000_000.0)
        assert v.ledger.note_by_path("a.md").edited_at == 1_790_000_000.0


def test_a_ledger_of_version_14_learns_which_records_are_in_force_when_read_again(make_vault):
    """Version 15 marks what a record no longer in force chose on the statement itself: a
    superseded record that rejects nothing had still counted as chosen (qa132)."""
    from vault_engine.vault import Vault

    record = "---\ntype: decision\nstatus: superseded by ADR-0012\n---\n# Redlock\n## Decision\nUse Redis Redlock.\n"
    root = make_vault({"decisions/0001-redlock.md": record}, config="[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(embed=False)
        v.ledger.db.executescript(DROP_15 + "PRAGMA user_version=14;")
    with Vault(root) as v:
        assert v.ledger.accepted_texts() == ["Use Redis Redlock."]  # migrated: in force until read again
        (root / "decisions/0001-redlock.md").write_text(record + "\n", encoding="utf-8")
        v.index(embed=False)
        assert v.ledger.accepted_texts() == []
