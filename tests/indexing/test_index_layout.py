"""The index folder as older releases left it: files directly in ``index/``, and ``current``
a real folder (a query model exported there before the first generation)."""

import os
import shutil

from vault_engine.vault import Vault


def test_an_older_layout_with_a_current_folder_becomes_a_generation(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nApples and pears.\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
    index = tmp_path / ".vault-engine" / "index"
    live = index / os.readlink(index / "current")
    for path in live.iterdir():  # the old layout: the live files directly in index/
        shutil.move(str(path), index / path.name)
    (index / "current").unlink()
    shutil.rmtree(live)
    (index / "current").mkdir()
    (index / "current" / "query-model-test.onnx").write_bytes(b"an export")

    with Vault(tmp_path) as vault:
        report = vault.index(embed=False)
        assert report.new + report.modified + report.unchanged == 1
        assert vault.search("pears", lexical_only=True).hits
    assert (index / "current").is_symlink()
    assert (index / "current" / "query-model-test.onnx").read_bytes() == b"an export"  # carried over
    assert not (index / "ledger.sqlite").exists()  # the old files are gone once the generation is live


def test_a_long_lived_vaults_model_writes_its_query_export_into_the_live_generation(make_vault):
    # a watcher's model kept the first generation as its export folder: after another
    # process's rebuild it made that deleted folder again (qa7 #8)
    root = make_vault({"a.md": "# A\nalpha\n"})
    watcher = Vault(root)
    watcher.index(embed=False)
    model = watcher.embedder()  # built, not loaded
    first = model.query_dir
    with Vault(root) as other:
        other.index(rebuild=True, embed=False)
    watcher.status()  # any operation follows the live generation
    assert model.query_dir == watcher.config.index_dir != first
    assert model.query_dir.name == os.readlink(root / ".vault-engine" / "index" / "current")
    watcher.close()


def test_a_watcher_batch_removes_a_generation_replaced_over_a_minute_ago(make_vault):
    root = make_vault({"a.md": "# A\nalpha\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        replaced = root / ".vault-engine" / "index" / "g1-1"
        replaced.mkdir()
        (replaced / ".replaced").write_text("1\n")  # long ago
        (root / "a.md").write_text("# A\nbeta\n")
        vault.index_paths(["a.md"])
        assert not replaced.exists()


def test_with_its_current_link_lost_the_newest_generation_left_lends_its_caches(make_vault):
    # every section was embedded again, though the orphaned generation held all their vectors (qa14)
    from vault_engine.stores.embedder import FakeEmbedder

    root = make_vault({"a.md": "# A\nalpha apples\n", "b.md": "# B\nbeta pears\n"})
    model = FakeEmbedder(dimension=16, max_tokens=64)
    with Vault(root, embedder=model) as vault:
        assert vault.index().embedded == 2
    (root / ".vault-engine" / "index" / "current").unlink()
    again = FakeEmbedder(dimension=16, max_tokens=64)
    with Vault(root, embedder=again) as vault:
        report = vault.index()
        assert report.embedded == 2 and again.texts == []  # from the cache it carried over
        assert vault.status()["semantic"]["coverage"] == 1.0


def test_an_index_waiting_for_another_writer_says_so_to_whoever_asked(make_vault):
    """The TUI's F5 showed only "indexing…" for the 40 s it waited for a CLI run (qa38 F4):
    the line the CLI logs goes to ``waiting`` too."""
    import fcntl
    import os
    import threading

    from vault_engine.layout import WRITE_LOCK

    root = make_vault({"a.md": "# A\nalpha\n"}, config="[model]\nenabled = false\n")
    with Vault(root) as vault:
        vault.index()
    said: list[str] = []
    fd = os.open(root / ".vault-engine" / WRITE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another writer at work

    def index() -> None:  # a Vault of its own thread, as the TUI's F5 has
        with Vault(root) as vault:
            vault.index(waiting=said.append)

    run = threading.Thread(target=index)
    run.start()
    for _ in range(100):
        if said:
            break
        run.join(0.05)
    os.close(fd)  # the other writer is done
    run.join(30)
    assert not run.is_alive() and len(said) == 1
    assert said[0].startswith("waiting for ") and said[0].endswith("which is writing the index of this vault")


def test_a_rebuild_whose_switch_is_done_succeeds_though_the_old_index_cannot_be_marked(make_vault, monkeypatch):
    """On a nearly full disk `index --rebuild` said "the disk is full ... nothing of yours was
    changed" after the new index had gone live: the replaced generation's mark failed (qa137)."""
    import errno
    from pathlib import Path

    root = make_vault({"a.md": "# A\nalpha\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        before = os.readlink(root / ".vault-engine" / "index" / "current")
        (root / "a.md").write_text("# A\nbeta\n")
        write_text = Path.write_text

        def full_for_the_mark(self, *args, **kwargs):
            if self.name == ".replaced":
                raise OSError(errno.ENOSPC, "No space left on device")
            return write_text(self, *args, **kwargs)

        monkeypatch.setattr(Path, "write_text", full_for_the_mark)
        vault.index(rebuild=True, embed=False)
        after = os.readlink(root / ".vault-engine" / "index" / "current")
        assert after != before and (root / ".vault-engine" / "index" / before).is_dir()  # kept for readers
        assert vault.search("beta", lexical_only=True).hits[0].path == "a.md"
