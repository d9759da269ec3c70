"""Our own interrupted Whoosh commit told from damage (vault_engine/indexing/integrity.py).

In-process: a run whose Whoosh commit is followed by an error rolls its ledger transaction
back, which is what a kill there leaves (tests/faults/test_interrupted_commit.py kills a
real process, through the CLI and the watcher).
"""

import json
import os
import shutil

import pytest

from vault_engine.errors import IndexDamaged
from vault_engine.indexing.integrity import (
    CHANGED_BEHIND_US,
    INTERRUPTED,
    INTERRUPTED_REBUILD,
    LEXICAL_COMMIT,
    LEXICAL_CONTENT,
    LEXICAL_FINGERPRINT,
    begin_lexical_commit,
    check_before_reading,
    interruption,
    lexical_damage,
)
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.stores.lexical import WhooshIndex
from vault_engine.vault import Vault

NOTES = {
    "alpha.md": "# Alpha\nThe quick brown fox.\n## Details\nmore about foxes\n",
    "beta.md": "# Beta\nSlow turtles win races.\n",
    "sub/delta.md": "# Delta\nCrocodiles sunbathe.\n",
}


class Killed(Exception):
    """Stands for the kill: raised once Whoosh has committed, inside the ledger transaction."""


@pytest.fixture
def vault(make_vault):
    with Vault(make_vault(NOTES), embedder=FakeEmbedder()) as v:
        v.index()
        yield v


def interrupt_a_run(vault, monkeypatch) -> None:
    """Change the vault and run `index`, stopped right after Whoosh's commit."""
    (vault.root / "beta.md").write_text("# Beta\nFast turtles lose races.\n", encoding="utf-8")
    (vault.root / "epsilon.md").write_text("# Epsilon\nEmus sprint.\n", encoding="utf-8")
    original = WhooshIndex.apply

    def then_killed(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(WhooshIndex, "apply", then_killed)
        with pytest.raises(Killed):
            vault.index()


def never_writing() -> bool:
    return False


def test_searches_read_through_an_interrupted_run_with_a_notice(vault, monkeypatch):
    interrupt_a_run(vault, monkeypatch)
    for lexical_only in (True, False):  # words alone, and words with meaning (fake vectors)
        found = vault.search("crocodiles", lexical_only=lexical_only)
        assert found.hits[0].path == "sub/delta.md"
        assert any(INTERRUPTED in n for n in found.notices), found.notices
    assert all(h.path != "epsilon.md" for h in vault.search("emus sprint").hits)  # the old state


def test_the_next_run_names_the_interruption_and_repairs(vault, monkeypatch):
    interrupt_a_run(vault, monkeypatch)
    assert lexical_damage(vault.ledger, vault.lexical) == INTERRUPTED
    (line,) = vault.status()["damage"]
    assert INTERRUPTED in line and "`vault-engine index`" in line
    notices = vault.index().notices
    assert any(INTERRUPTED in n and "rebuilt" in n for n in notices), notices
    assert vault.ledger.get_meta(LEXICAL_COMMIT) is None
    assert vault.status()["damage"] == []
    assert vault.search("emus", lexical_only=True).hits[0].path == "epsilon.md"


def test_a_mark_without_a_changed_file_changes_nothing(vault):
    begin_lexical_commit(vault.ledger, rebuild=False)  # a run killed before Whoosh's commit
    assert check_before_reading(vault.ledger, vault.lexical, never_writing) is None
    assert lexical_damage(vault.ledger, vault.lexical) is None


def test_a_killed_rebuild_is_damage(vault):
    begin_lexical_commit(vault.ledger, rebuild=True)
    vault.lexical.reset()
    with pytest.raises(IndexDamaged, match=INTERRUPTED_REBUILD):
        check_before_reading(vault.ledger, vault.lexical, never_writing)


def test_files_changed_without_a_mark_are_damage(vault):
    with vault.ledger.transaction():
        vault.ledger.set_meta(LEXICAL_FINGERPRINT, "elsewhere:1:1")
    with pytest.raises(IndexDamaged, match="outside vault-engine"):
        check_before_reading(vault.ledger, vault.lexical, never_writing)
    assert check_before_reading(vault.ledger, vault.lexical, lambda: True) is None  # a writer at work
    assert lexical_damage(vault.ledger, vault.lexical) == CHANGED_BEHIND_US


def test_interruption_trusts_only_the_mark_of_the_run_after_the_record():
    before, after = "a.trm:1:1|_MAIN_1.toc:1:1", "a.trm:1:1|b.trm:2:2|_MAIN_2.toc:1:2"
    update = json.dumps({"replaces": before, "rebuild": False})
    assert interruption(update, before, after) == INTERRUPTED
    assert interruption(None, before, after) is None
    assert interruption(json.dumps({"replaces": "older", "rebuild": False}), before, after) is None
    assert interruption(json.dumps({"replaces": before, "rebuild": True}), before, "") == INTERRUPTED_REBUILD
    assert interruption(update, before, "a.trm:9:9|_MAIN_2.toc:1:2") is None  # rewritten in place


def copy_without_times(source, target) -> None:
    """What `cp -r` does: the same bytes, every file and folder new, with the copy's times."""
    shutil.copytree(source, target, copy_function=shutil.copyfile, symlinks=True)


def whoosh_files(vault):
    """Whoosh's segment files and table of contents (its lock file is not part of the record)."""
    return sorted(p for p in vault.lexical.folder.iterdir() if p.is_file() and p.name != "MAIN_WRITELOCK")


def garble_in_place(path) -> None:
    """Other bytes at the same size, and the old time put back: only the bytes tell."""
    info = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1))


def test_a_copy_of_the_vault_searches_and_its_next_run_records_its_times(vault, tmp_path):
    vault.close()
    copy_without_times(vault.root, tmp_path / "copy")
    with Vault(tmp_path / "copy", embedder=FakeEmbedder()) as copy:
        assert copy.lexical.fingerprint() != copy.ledger.get_meta(LEXICAL_FINGERPRINT)  # new times
        assert copy.search("crocodiles", lexical_only=True).hits[0].path == "sub/delta.md"
        status = copy.status()
        assert status["damage"] == [] and status["stale"] == {"changed": 0, "missing": 0, "new": 0, "paths": [], "settings": False}  # same bytes
        (copy.root / "beta.md").write_text("# Beta\nSlow turtles lose races.\n", encoding="utf-8")
        assert copy.status()["stale"] == {"changed": 1, "missing": 0, "new": 0, "paths": ["beta.md"], "settings": False}  # named (qa25 #9)
        (copy.root / "beta.md").write_text(NOTES["beta.md"], encoding="utf-8")
        report = copy.index()
        assert not report.notices and report.new == report.modified == 0  # nothing rebuilt
        assert copy.ledger.get_meta(LEXICAL_FINGERPRINT) == copy.lexical.fingerprint()  # its own times


def test_a_touched_file_is_not_damage_a_rewritten_one_is(vault):
    touched, rewritten = whoosh_files(vault)[:2]
    os.utime(touched, ns=(1, 1))
    assert check_before_reading(vault.ledger, vault.lexical, never_writing) is None
    assert lexical_damage(vault.ledger, vault.lexical) is None
    garble_in_place(rewritten)
    with pytest.raises(IndexDamaged, match="outside vault-engine"):
        check_before_reading(vault.ledger, vault.lexical, never_writing)
    assert lexical_damage(vault.ledger, vault.lexical) == CHANGED_BEHIND_US


@pytest.mark.parametrize("damage", ["rewritten at its size", "grown"])
def test_a_copy_with_a_damaged_file_is_damage(vault, tmp_path, damage):
    vault.close()
    copy_without_times(vault.root, tmp_path / "copy")
    with Vault(tmp_path / "copy", embedder=FakeEmbedder()) as copy:
        damaged = max(whoosh_files(copy), key=lambda p: p.stat().st_size)
        if damage == "grown":
            with open(damaged, "ab") as grown:
                grown.write(b"x")
        else:
            garble_in_place(damaged)
        with pytest.raises(IndexDamaged, match="outside vault-engine"):
            check_before_reading(copy.ledger, copy.lexical, never_writing)
        assert lexical_damage(copy.ledger, copy.lexical) == CHANGED_BEHIND_US


def test_an_index_recorded_without_digests_gets_them_at_the_next_run(vault):
    with vault.ledger.transaction():
        vault.ledger.delete_meta(LEXICAL_CONTENT)
    os.utime(whoosh_files(vault)[0], ns=(1, 1))  # without digests, times are all there is
    assert lexical_damage(vault.ledger, vault.lexical) == CHANGED_BEHIND_US
    assert vault.index().notices  # rebuilt, and says why
    assert vault.ledger.get_meta(LEXICAL_CONTENT) is not None
