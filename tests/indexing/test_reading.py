"""Each key is read by the reader of the source of the tap whose scan found it
(vault_engine/indexing/reading.py), never by a guess from the key's shape."""

from dataclasses import replace

import pytest

from vault_engine.config import READS_IN_PLACE, SOURCES, TapConfig, load_config
from vault_engine.errors import VaultError
from vault_engine.indexing import reading
from vault_engine.indexing.code_sync import add_code_files
from vault_engine.sources.vault.files import scan_vault
from vault_engine.vault import Vault

REPO_TAP = '[taps.repo]\nsource = "code"\nroot = "../repo"\npaths = ["**"]\n'


@pytest.fixture
def beside(tmp_path):
    """A vault with a note and a Notion page, and a repository beside it read by a code tap."""
    vault, repo = tmp_path / "vault", tmp_path / "repo"
    (vault / "notion").mkdir(parents=True)
    (repo / "pkg").mkdir(parents=True)
    (vault / "a.md").write_text("# A\nhello\n")
    (vault / "notion" / "Page 1234abcd.md").write_text("# Page\nwritten by the notion tap\n")
    (vault / "vault-engine.toml").write_text(REPO_TAP)
    (repo / "pkg" / "a.py").write_text("def f():\n    return 1\n")
    (repo / "pkg" / "gen.py").write_text("# @generated\ndef g():\n    return 2\n")
    (repo / "README.md").write_text("# Repo\nneither a note nor code\n")
    return vault


def test_the_scan_records_the_tap_that_found_each_key(beside):
    """The repository's "**" is relative to its root: it claims no note of the vault (it did)."""
    config = load_config(beside)
    scan = scan_vault(config)
    add_code_files(config, scan)
    assert scan.origin == {"a.md": "vault", "notion/Page 1234abcd.md": "vault",
                           "repo:pkg/a.py": "repo", "repo:pkg/gen.py": "repo"}
    assert set(scan.origin) == set(scan.notes)


def test_a_key_goes_to_the_reader_of_its_origin_s_source(beside, monkeypatch):
    config = load_config(beside)
    seen: dict[str, list[str]] = {"vault": [], "code": []}
    for source in seen:
        monkeypatch.setitem(reading.READERS, source,
                            lambda config, key, known_hash, source=source: seen[source].append(key) or reading.ReadResult(key))
    reading.read_many(config, {"a.md": "vault", "repo:pkg/a.py": "repo", "notion/Page 1234abcd.md": "vault"})
    assert seen == {"vault": ["a.md", "notion/Page 1234abcd.md"], "code": ["repo:pkg/a.py"]}


@pytest.mark.parametrize("workers", [False, True])
def test_the_readers_parse_notes_and_files_read_in_place(beside, monkeypatch, workers):
    if workers:  # the keys travel to the worker processes with their source
        monkeypatch.setattr(reading, "PARALLEL_READ_THRESHOLD", 0)
    config = load_config(beside)
    reads = reading.read_many(config, {"a.md": "vault", "notion/Page 1234abcd.md": "vault",
                                       "repo:pkg/a.py": "repo", "repo:pkg/gen.py": "repo"})
    note, page, code, generated = (reads[k] for k in ("a.md", "notion/Page 1234abcd.md", "repo:pkg/a.py",
                                                      "repo:pkg/gen.py"))
    assert (note.tap, note.code, note.note.kind) == ("vault", None, "note")
    assert (page.tap, page.code) == ("notion", None)  # the notion tap's note, read by the vault's reader
    assert code.tap == "repo" and code.code is not None and code.note.kind == "code"
    assert generated.note is None and generated.problem.startswith("generated")
    on_disk = (beside.parent / "repo" / "pkg" / "gen.py").stat()
    assert (generated.stat.size, generated.stat.mtime_ns) == (on_disk.st_size, on_disk.st_mtime_ns)


@pytest.mark.parametrize("workers", [False, True])
def test_content_that_hashes_to_the_ledger_s_is_not_parsed(beside, monkeypatch, workers):
    """A touch, a chmod or a ledger that knows no change time: hashed, never parsed (for a
    source file, tree-sitter is the cost); other content is parsed as ever."""
    if workers:
        monkeypatch.setattr(reading, "PARALLEL_READ_THRESHOLD", 0)
    config = load_config(beside)
    origins = {"a.md": "vault", "repo:pkg/a.py": "repo"}
    digests = {key: read.digest for key, read in reading.read_many(config, origins).items()}
    same = reading.read_many(config, origins, known_hashes=digests)
    assert all(r.same and r.note is None and r.code is None and r.problem is None for r in same.values())
    assert {key: r.digest for key, r in same.items()} == digests
    on_disk = (beside.parent / "repo" / "pkg" / "a.py").stat()
    assert same["repo:pkg/a.py"].stat.ctime_ns == on_disk.st_ctime_ns
    other = reading.read_many(config, origins, known_hashes=dict.fromkeys(origins, "another hash"))
    assert not any(r.same for r in other.values()) and other["repo:pkg/a.py"].code is not None


def test_a_tap_with_no_reader_for_its_source_is_a_clear_error(beside):
    config = load_config(beside)
    odd = replace(config, taps=(*config.taps, TapConfig("odd", source="gopher", paths=("odd/**",))))
    with pytest.raises(VaultError, match=r"tap 'odd' found files to index, but its source 'gopher' has no reader"):
        reading.read_many(odd, {"a.md": "vault", "odd/x": "odd"})
    with pytest.raises(VaultError, match="source 'notion' has no reader"):  # it writes into the vault
        reading.read_many(config, {"notion/Page 1234abcd.md": "notion"})


def test_every_source_that_reads_in_place_has_a_reader_and_one_that_writes_into_the_vault_none():
    assert set(READS_IN_PLACE) <= set(SOURCES)
    assert set(reading.READERS) == {"vault"} | READS_IN_PLACE


def test_a_skipped_file_beside_the_vault_keeps_its_stat_and_is_not_read_again(beside):
    with Vault(beside) as vault:
        first = vault.index(embed=False)
        known = vault.ledger.known_files()["repo:pkg/gen.py"]
        again = vault.index(embed=False)
        paths = vault.ledger.note_paths()
    on_disk = (beside.parent / "repo" / "pkg" / "gen.py").stat()
    assert (known.size, known.mtime_ns, known.ctime_ns, known.hash) == (
        on_disk.st_size, on_disk.st_mtime_ns, on_disk.st_ctime_ns, None)
    assert (first.new, first.source_files) == (2, 1)  # two notes; pkg/a.py (gen.py is skipped)
    assert (again.new, again.modified, again.source_files) == (0, 0, 0)  # was modified every run
    assert [s.path for s in first.skipped] == [s.path for s in again.skipped] == ["repo:pkg/gen.py"]
    assert sorted(paths) == ["a.md", "notion/Page 1234abcd.md", "repo:pkg/a.py"]
