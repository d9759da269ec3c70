"""The watcher and a code tap whose root is outside the vault (``root = "../repo"``): its
events become the tap's keys, and a real watchdog feed brings saves, new files, deletes and
renames there into the index like saves in the vault."""

from __future__ import annotations

import os
import threading
import time

import pytest
from watchdog.events import DirMovedEvent, FileCreatedEvent, FileModifiedEvent, FileMovedEvent

from vault_engine.config import parse_config
from vault_engine.indexing.watcher import ChangeFeed, Debouncer, event_paths, outside_code_taps, watch_loop
from vault_engine.vault import Vault

CONFIG = ('[taps.repo]\nsource = "code"\nroot = "../repo"\npaths = ["pkg/**"]\nexclude = ["pkg/old/**"]\n'
          '[model]\nenabled = false\n')
REPO = {
    "pkg/orders.py": "from pkg.pricing import price_of\n\n\ndef place(sku):\n    return price_of(sku)\n",
    "pkg/pricing.py": "def price_of(sku):\n    return 2\n",
}


def make_repo(tmp_path, files=REPO):
    vault, repo = tmp_path / "vault", tmp_path / "repo"
    vault.mkdir()
    (vault / "vault-engine.toml").write_text(CONFIG)
    (vault / "note.md").write_text("# Note\nSee `pkg.pricing.price_of`.\n")
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return vault, repo


def test_events_under_an_outside_root_become_the_taps_keys(tmp_path):
    vault, repo = make_repo(tmp_path)
    import tomllib

    config = parse_config(vault, tomllib.loads(CONFIG))
    outside = outside_code_taps(config)
    assert [t.name for t in outside] == ["repo"]
    assert event_paths(config, FileModifiedEvent(f"{repo}/pkg/orders.py"), outside) == ["repo:pkg/orders.py"]
    assert event_paths(config, FileMovedEvent(f"{repo}/pkg/a.py", f"{repo}/pkg/b.py"), outside) == \
        ["repo:pkg/a.py", "repo:pkg/b.py"]
    assert event_paths(config, DirMovedEvent(f"{repo}/pkg/x", f"{repo}/pkg/y"), outside) == ["repo:pkg/x/", "repo:pkg/y/"]
    for ignored in (".git/index", "pkg/node_modules/d/i.js", "pkg/notes.txt", "pkg/old/legacy.py", "pkg/__pycache__/a.pyc"):
        assert event_paths(config, FileCreatedEvent(f"{repo}/{ignored}"), outside) == [], ignored
    assert event_paths(config, FileModifiedEvent(f"{repo}/pkg/orders.py")) == []  # no taps given: outside the vault


class WatchedRepo:
    """A real ChangeFeed over the vault and the repository beside it; bursts applied with
    Vault.index_paths on the loop's thread, as the daemon does."""

    def __init__(self, vault):
        self.reader = Vault(vault)
        self.reader.index(embed=False)
        self.bursts, self.errors = [], []
        self.feed = ChangeFeed(self.reader.config)
        self.feed.start()
        self.thread = threading.Thread(target=self._loop, args=(vault,))
        self.thread.start()

    def _loop(self, vault):
        writer = Vault(vault)

        def apply(burst):
            try:
                self.bursts.append((burst, writer.index_paths(burst.paths)))
            except Exception as exc:  # surfaced by wait_for
                self.errors.append(exc)

        try:
            watch_loop(self.feed.queue, Debouncer(quiet=0.05), apply)
        finally:
            writer.close()

    def wait_for(self, condition, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert not self.errors, self.errors
            if condition():
                return
            time.sleep(0.05)
        raise AssertionError(f"not within {timeout} s; bursts: {[sorted(b.paths) for b, _ in self.bursts]}")

    def callers(self, symbol):
        return {n.ref for n in self.reader.calls(symbol).nodes}

    def stop(self):
        self.feed.stop()
        self.thread.join(10)
        self.reader.close()


@pytest.fixture
def watched(tmp_path):
    vault, repo = make_repo(tmp_path)
    w = WatchedRepo(vault)
    w.repo = repo
    yield w
    w.stop()


def test_a_save_in_a_repository_beside_the_vault_is_indexed(watched):
    assert watched.callers("price_of") == {"repo:pkg/orders.py#place"}
    (watched.repo / "pkg" / "cli.py").write_text("from pkg.pricing import price_of\n\n\ndef main():\n    return price_of('a')\n")
    watched.wait_for(lambda: watched.callers("price_of") == {"repo:pkg/orders.py#place", "repo:pkg/cli.py#main"})
    orders = watched.repo / "pkg" / "orders.py"
    orders.write_text(orders.read_text().replace("def place(sku)", "def order(sku)"))
    watched.wait_for(lambda: watched.reader.find("order").status == "hit")
    assert watched.callers("price_of") == {"repo:pkg/orders.py#order", "repo:pkg/cli.py#main"}
    assert all(p.startswith("repo:") for b, _ in watched.bursts for p in b.paths)


def test_a_delete_and_a_rename_in_the_repository_follow(watched):
    (watched.repo / "pkg" / "orders.py").unlink()
    watched.wait_for(lambda: watched.reader.calls("price_of").status == "no_callers")
    os.rename(watched.repo / "pkg" / "pricing.py", watched.repo / "pkg" / "prices.py")
    watched.wait_for(lambda: watched.reader.find("price_of").status == "hit" and
                     watched.reader.find("price_of").hits[0].path == "repo:pkg/prices.py")
    assert watched.reader.ledger.note_by_path("repo:pkg/pricing.py") is None
    assert watched.reader.status()["code"]["fresh"]


def test_a_new_note_of_a_source_files_size_does_not_drop_that_file(tmp_path):
    """A known file beside the vault is never mistaken for the vanished half of a rename
    (it is not under the vault's folder, which is where it used to be looked for)."""
    vault, repo = make_repo(tmp_path)
    with Vault(vault) as v:
        v.index(embed=False)
        size = (repo / "pkg" / "pricing.py").stat().st_size
        (vault / "same.md").write_text("x" * (size - 1) + "\n")
        v.index_paths(["same.md"])
        assert v.ledger.note_by_path("repo:pkg/pricing.py") is not None


def test_a_code_root_that_cannot_be_watched_leaves_the_vault_watched(tmp_path, monkeypatch, caplog):
    from watchdog.observers import Observer

    vault, repo = make_repo(tmp_path)
    real = Observer.schedule

    def schedule(self, handler, path, **kwargs):
        if os.fspath(path) == os.fspath(repo.resolve()):
            raise OSError(28, "No space left on device")  # ENOSPC: out of inotify watches
        return real(self, handler, path, **kwargs)

    monkeypatch.setattr(Observer, "schedule", schedule)
    with Vault(vault) as v:
        v.index(embed=False)
        feed = ChangeFeed(v.config)
        feed.start()
        try:
            (vault / "new.md").write_text("# New\n")
            assert feed.queue.get(timeout=5) == ["new.md"]
        finally:
            feed.stop()
    assert "cannot watch the code root" in caplog.text and "max_user_watches" in caplog.text
