"""Partial plans: Indexer.apply_paths via Vault.index_paths, and the partial scan behind it
(vault_engine/indexing/indexer.py, vault_engine/sources/vault/files.py). Real SQLite, real
Whoosh; each test checks the result against what a full `index` would say."""

from __future__ import annotations

import os

import pytest

from vault_engine.config import parse_config
from vault_engine.sources.vault.files import is_indexable, scan_paths, scan_vault
from vault_engine.vault import Vault

NOTES = {
    "alpha.md": "# Alpha\nFoxes jump over [[beta]] and ![[pic.png]].\n",
    "beta.md": "# Beta\nTurtles win races.\n",
    "docs/one.md": "# One\nKoalas sleep.\n",
    "docs/deep/two.md": "# Two\nPandas eat.\n",
    "pic.png": b"\x89PNG",
}


@pytest.fixture
def vault(make_vault):
    v = Vault(make_vault(NOTES, config="[model]\nenabled = false\n"))
    v.index(embed=False)
    yield v
    v.close()


def full_index_agrees(vault: Vault) -> bool:
    """After a partial apply, a full index must find nothing left to do."""
    report = vault.index(embed=False)
    return (report.new, report.modified, report.deleted, report.moved) == (0, 0, 0, 0)


def test_only_the_given_paths_are_compared(vault):
    (vault.root / "beta.md").write_text("# Beta\nTurtles lose.\n")
    (vault.root / "alpha.md").write_text("# Alpha\nChanged but not reported.\n")
    report = vault.index_paths(["beta.md"])
    assert (report.modified, report.new, report.deleted) == (1, 0, 0)
    assert report.unchanged == 0  # nothing else was even looked at
    hits = vault.search("foxes", lexical_only=True, decay=False).hits
    assert [h.path for h in hits] == ["alpha.md"]  # alpha's change waits for its own event


def test_a_folder_stands_for_everything_under_it(vault):
    os.rename(vault.root / "docs", vault.root / "guide")
    ids = {p: vault.ledger.note_id(p) for p in ("docs/one.md", "docs/deep/two.md")}
    report = vault.index_paths(["docs/", "guide/"])
    assert report.moved == 2
    assert vault.ledger.note_id("guide/one.md") == ids["docs/one.md"]
    assert vault.ledger.note_id("guide/deep/two.md") == ids["docs/deep/two.md"]
    assert full_index_agrees(vault)


def test_a_rename_seen_only_from_its_new_side_is_still_a_move(vault):
    note_id = vault.ledger.note_id("beta.md")
    os.rename(vault.root / "beta.md", vault.root / "docs" / "beta.md")
    report = vault.index_paths(["docs/beta.md"])  # the old side's event has not come yet
    assert (report.moved, report.new, report.deleted) == (1, 0, 0)
    assert vault.ledger.note_id("docs/beta.md") == note_id
    assert vault.index_paths(["beta.md"]).deleted == 0  # the late event finds nothing to do


def test_deleting_a_folder_removes_its_notes_from_every_store(vault):
    for rel in ("docs/deep/two.md", "docs/one.md"):
        (vault.root / rel).unlink()
    os.rmdir(vault.root / "docs" / "deep")
    os.rmdir(vault.root / "docs")
    report = vault.index_paths(["docs/"])
    assert report.deleted == 2
    assert vault.search("koalas pandas", lexical_only=True).status == "miss"
    assert vault.lexical.doc_count() == vault.ledger.section_count()


def test_attachments_outside_the_paths_are_kept(vault):
    (vault.root / "new.png").write_bytes(b"x")
    vault.index_paths(["new.png"])
    assert sorted(vault.ledger.attachment_paths()) == ["new.png", "pic.png"]
    (vault.root / "pic.png").unlink()
    vault.index_paths(["pic.png"])
    assert vault.ledger.attachment_paths() == ["new.png"]
    link = [link_ for link_ in vault.links("alpha.md") if link_.raw == "![[pic.png]]"][0]
    assert not link.resolved  # the embed's target went away: re-resolved, not stale


def test_a_new_note_resolves_links_waiting_for_it(make_vault):
    v = Vault(make_vault({"a.md": "# A\nsee [[later]]\n"}, config="[model]\nenabled = false\n"))
    v.index(embed=False)
    (v.root / "later.md").write_text("# Later\n")
    v.index_paths(["later.md"])
    assert [link.target_path for link in v.links("a.md")] == ["later.md"]
    v.close()


def test_bad_files_are_skipped_with_a_reason_and_the_rest_applies(vault):
    (vault.root / "bad.md").write_bytes(b"# Bad\n\xff\xfe not utf-8\n")
    (vault.root / "good.md").write_text("# Good\nOtters.\n")
    report = vault.index_paths(["bad.md", "good.md"])
    assert report.new == 1  # good.md: a file that cannot be read is counted with the skipped ones
    assert [s.path for s in report.skipped] == ["bad.md"] and "UTF-8" in report.skipped[0].reason
    assert [h.path for h in vault.search("otters", lexical_only=True).hits] == ["good.md"]


# -- the partial scan ---------------------------------------------------------------------------


@pytest.mark.parametrize("rel, expected", [
    ("a.md", True), ("docs/a.md", True), (".obsidian/app.json", False), ("x/.git/HEAD", False),
    (".trash/a.md", False), ("templates/t.md", False), ("templates/sub/x.md", False), ("drafts/a.md", False),
    ("notes/drafts.md", True), (".github/ISSUE.md", False), ("a/.#lock.md", False), (".x.md", False),
    ("a.md~", False), ("docs/#a.md#", False), ("pic.png", True), ("#tag.png", True),
])
def test_is_indexable_follows_the_scan_rules(tmp_path, rel, expected):
    config = parse_config(tmp_path, {"exclude": ["templates/**", "drafts"]})
    assert is_indexable(config, rel) is expected


def test_scan_paths_agrees_with_a_full_scan(make_vault):
    root = make_vault({**NOTES, ".obsidian/app.json": "{}", "templates/t.md": "# T\n"})
    config = parse_config(root, {"exclude": ["templates/**"]})
    full = scan_vault(config)
    part = scan_paths(config, ["alpha.md", "docs/", "pic.png", "gone.md", ".obsidian/app.json",
                               "templates/t.md"])
    assert part.notes == {p: s for p, s in full.notes.items() if p != "beta.md"}
    assert part.attachments == ["pic.png"]


def test_editor_backups_are_no_attachments(make_vault):
    # vim's and emacs' `alpha.md~` and emacs' `#alpha.md#` were counted (and resolved) as attachments
    root = make_vault({**NOTES, "alpha.md~": "# old\n", "docs/#one.md#": "# autosave\n"})
    config = parse_config(root, {})
    assert "pic.png" in scan_vault(config).attachments
    assert not {"alpha.md~", "docs/#one.md#"} & set(scan_vault(config).attachments)
    assert scan_paths(config, ["alpha.md~", "docs/#one.md#"]).attachments == []


@pytest.mark.parametrize("target", ["..", "deep"])
def test_a_link_to_a_folder_of_the_vault_is_a_loop_for_the_watcher_too(vault, target):
    # `ln -s .. docs/up`: the watcher indexed every note under it a second time (qa7 #1)
    (vault.root / "docs" / "up").symlink_to(target, target_is_directory=True)
    report = vault.index_paths(["docs/up"])
    assert (report.new, [s.path for s in report.skipped]) == (0, ["docs/up"])
    assert "already indexed through another path" in report.skipped[0].reason
    assert vault.index_paths(["docs/up/alpha.md"]).new == 0  # a path through the link: not a note
    assert sorted(vault.ledger.note_paths()) == ["alpha.md", "beta.md", "docs/deep/two.md", "docs/one.md"]
    assert full_index_agrees(vault)


def test_the_real_folder_is_indexed_whichever_path_the_walk_meets_first(make_vault):
    # "a" is listed before "z" in no particular order: the link is skipped, never the folder
    root = make_vault({"z/note.md": "# Z\n", "m/n.md": "# M\n"})
    (root / "a").mkdir()
    (root / "a" / "link").symlink_to("../z", target_is_directory=True)
    (root / "z" / "mlink").symlink_to("../m", target_is_directory=True)
    scan = scan_vault(parse_config(root, {}))
    assert sorted(scan.notes) == ["m/n.md", "z/note.md"]
    assert sorted(p.path for p in scan.problems) == ["a/link", "z/mlink"]


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_linked_note_is_compared_when_only_its_target_is_named(vault, link):
    # the event names beta.md; docs/alias.md shows the same file (qa7 #2)
    alias = vault.root / "docs" / "alias.md"
    if link == "symlink":
        alias.symlink_to("../beta.md")
    else:
        os.link(vault.root / "beta.md", alias)
    assert vault.index_paths(["docs/alias.md"]).new == 1
    with open(vault.root / "beta.md", "a") as out:
        out.write("Zebrafoo appended.\n")
    assert vault.index_paths(["beta.md"]).modified == 2
    hits = vault.search("zebrafoo", lexical_only=True, decay=False).hits
    assert sorted(h.path for h in hits) == ["beta.md", "docs/alias.md"]
    assert full_index_agrees(vault)


def test_a_broken_link_becomes_a_note_when_its_target_is_made(vault):
    (vault.root / "pending.md").symlink_to("later.md")
    report = vault.index(embed=False)
    assert [s.path for s in report.skipped] == ["pending.md"]
    assert not vault.index_paths(["beta.md"]).skipped  # a broken link is not said again on every batch
    (vault.root / "later.md").write_text("# Later\nQuokkabar.\n")
    report = vault.index_paths(["later.md"])
    assert (report.new, report.skipped) == (2, ())
    hits = vault.search("quokkabar", lexical_only=True, decay=False).hits
    assert sorted(h.path for h in hits) == ["later.md", "pending.md"]
    assert full_index_agrees(vault)


def test_a_state_folder_removed_while_the_index_is_open_is_not_made_again(vault):
    # rm -rf .vault-engine during a watcher's batch: the batch made the folder again, with a
    # write.lock and no index in it (qa173 B3); it says what happened and writes nothing
    import shutil

    from vault_engine.errors import VaultError

    shutil.rmtree(vault.root / ".vault-engine")
    (vault.root / "beta.md").write_text("# Beta\nTurtles lose.\n")
    for work in (lambda: vault.index_paths(["beta.md"]), vault.embed_pending):
        with pytest.raises(VaultError, match="was removed while the index was open"):
            work()
    assert not (vault.root / ".vault-engine").exists()


def test_a_state_folder_removed_while_index_writes_is_one_line_not_a_traceback(vault, monkeypatch):
    # rm -rf .vault-engine during `index`: a raw FileNotFoundError traceback (qa198)
    import shutil

    from vault_engine.errors import VaultError

    def removed_meanwhile(*args, **kwargs):
        shutil.rmtree(vault.root / ".vault-engine")
        raise FileNotFoundError(2, "No such file or directory", str(vault.root / ".vault-engine" / "index" / "x"))

    monkeypatch.setattr(Vault, "_index_locked", removed_meanwhile)
    with pytest.raises(VaultError, match=r"was removed while this run wrote the index: nothing of yours was changed; "
                                         r"run `vault-engine index` to build it again"):
        vault.index(embed=False)
