"""Incremental indexing end to end: real SQLite, real Whoosh (vault_engine/indexing/indexer.py)."""

import os
import shutil
import unicodedata

import pytest

from vault_engine.vault import Vault

NOTES = {
    "alpha.md": "# Alpha\nThe quick brown fox jumps over [[beta]].\n## Details\nmore about foxes\n",
    "beta.md": "# Beta\nSlow turtles win races. See [[alpha#Details]] and [[gamma]].\n",
    "sub/delta.md": "---\ntags: [reptile]\n---\n# Delta\nCrocodiles sunbathe.\n",
}


def refs(result):
    return [hit.ref for hit in result.hits]


@pytest.fixture
def vault(make_vault):
    v = Vault(make_vault(NOTES))
    v.index()
    yield v
    v.close()


def test_full_index_counts_and_resolves(vault):
    counts = vault.ledger.counts()
    assert (counts["notes"], counts["sections"]) == (3, 4)
    assert counts["unresolved_links"] == 1  # [[gamma]] does not exist yet
    assert refs(vault.search("crocodiles", lexical_only=True)) == ["sub/delta.md#Delta"]
    assert vault.lexical.doc_count() == 4


def test_nothing_changed_reads_nothing(vault):
    report = vault.index()
    assert (report.new, report.modified, report.deleted, report.moved, report.unchanged) == (0, 0, 0, 0, 3)


def test_modify_replaces_old_text_in_every_store(vault):
    path = vault.root / "alpha.md"
    path.write_text("# Alpha\nNow about lemurs.\n")
    os.utime(path, ns=(1, 1))  # a different mtime even on coarse file systems
    report = vault.index()
    assert (report.modified, report.unchanged) == (1, 2)
    assert refs(vault.search("lemurs", lexical_only=True)) == ["alpha.md#Alpha"]
    assert vault.search("foxes", lexical_only=True).status == "miss"
    assert vault.lexical.doc_count() == vault.ledger.section_count() == 3


def test_touch_without_change_is_not_a_modification(vault):
    os.utime(vault.root / "beta.md", ns=(5, 5))
    report = vault.index()
    assert (report.modified, report.unchanged) == (0, 3)
    assert vault.index().unchanged == 3  # the new stat was remembered


def rewrite_keeping_size_and_mtime(path, old, new):
    """What ``cp -p``, ``rsync -a`` or ``touch -r`` leave behind: other words, the same size,
    the old mtime."""
    before = path.stat()
    text = path.read_text().replace(old, new)
    assert len(old) == len(new) and text != path.read_text()
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def spy_on_reads(monkeypatch):
    """The notes read (and hashed) and the notes parsed, in order, by the indexer."""
    from vault_engine.indexing import reading

    seen: dict[str, list[str]] = {"read": [], "parsed": []}
    real_read, real_parse = reading.read_note, reading.parse_note
    monkeypatch.setattr(reading, "read_note", lambda root, rel, *a: seen["read"].append(rel) or real_read(root, rel, *a))
    monkeypatch.setattr(reading, "parse_note", lambda rel, *a: seen["parsed"].append(rel) or real_parse(rel, *a))
    return seen


def test_a_same_size_rewrite_with_the_old_mtime_is_read_again(vault):
    """Size and mtime can both come back (a copy that keeps times, a restore); the inode's
    change time cannot: the note is read and its new words replace the old ones."""
    rewrite_keeping_size_and_mtime(vault.root / "beta.md", "turtles", "lizards")
    report = vault.index()
    assert (report.modified, report.unchanged) == (1, 2)
    assert refs(vault.search("lizards", lexical_only=True)) == ["beta.md#Beta"]
    assert vault.search("turtles", lexical_only=True).status == "miss"


def test_a_touch_is_hashed_not_parsed_and_remembered(vault, monkeypatch):
    seen = spy_on_reads(monkeypatch)
    os.chmod(vault.root / "beta.md", 0o600)  # moves the change time alone, as a touch -r would
    report = vault.index()
    assert (report.modified, report.unchanged) == (0, 3)
    assert seen == {"read": ["beta.md"], "parsed": []}
    assert vault.index().unchanged == 3
    assert seen == {"read": ["beta.md"], "parsed": []}  # the new stat was remembered: nothing read


def test_a_note_deleted_between_the_scan_and_its_read_is_a_deletion_not_a_skipped_file(vault, monkeypatch):
    """A `git checkout` under way: each such note was a line "skipped ...: vanished while
    indexing" and "1 of them indexed until now, left out until readable" (qa61)."""
    from vault_engine.indexing import reading

    real_read = reading.read_note

    def read_after_a_checkout(root, rel, *rest):
        if rel == "beta.md":
            (root / rel).unlink()
        return real_read(root, rel, *rest)

    (vault.root / "beta.md").write_text("# Beta\nEdited, then checked out of existence.\n")
    (vault.root / "alpha.md").write_text("# Alpha\nEdited too.\n")
    monkeypatch.setattr(reading, "read_note", read_after_a_checkout)
    report = vault.index()
    assert (report.modified, report.deleted, report.skipped, report.left_out) == (1, 1, (), 0)
    assert vault.status()["notes"] == 2 and vault.search("turtles", lexical_only=True).status == "miss"


def test_a_ledger_without_change_times_hashes_every_note_once_and_rewrites_only_changed_ones(vault, monkeypatch):
    """A ledger of version 9 knows no change time: each note is hashed once (not parsed, not
    written, not embedded again) unless its content differs, which that version could miss."""
    vault.ledger.db.executescript("ALTER TABLE notes DROP COLUMN ctime_ns; ALTER TABLE skipped DROP COLUMN ctime_ns;"
                                  "ALTER TABLE sections DROP COLUMN anchor; ALTER TABLE dead_ends DROP COLUMN record_title;"
                                  "ALTER TABLE dead_ends DROP COLUMN record_status; ALTER TABLE dead_ends DROP COLUMN described_at;"
                                  "ALTER TABLE notes DROP COLUMN edited_at; ALTER TABLE accepted DROP COLUMN in_force;"
                                  "PRAGMA user_version=9;")
    vault.close()
    rewrite_keeping_size_and_mtime(vault.root / "beta.md", "turtles", "lizards")  # missed by version 9
    seen = spy_on_reads(monkeypatch)
    report = vault.index()
    assert (report.new, report.modified, report.unchanged) == (0, 1, 2)  # upgraded in place, not rebuilt
    assert sorted(seen["read"]) == ["alpha.md", "beta.md", "sub/delta.md"] and seen["parsed"] == ["beta.md"]
    assert refs(vault.search("lizards", lexical_only=True)) == ["beta.md#Beta"]
    assert vault.index().unchanged == 3 and len(seen["read"]) == 3  # the change times are remembered now


def test_rename_keeps_identity_and_rewires_links(vault):
    before = vault.ledger.note_id("sub/delta.md")
    (vault.root / "sub/delta.md").rename(vault.root / "gamma.md")
    report = vault.index()
    assert (report.moved, report.new, report.deleted) == (1, 0, 0)
    assert vault.ledger.note_id("gamma.md") == before
    gamma_link = [link for link in vault.links("beta.md") if "gamma" in link.raw][0]
    assert gamma_link.resolved and gamma_link.target_path == "gamma.md"  # was unresolved
    assert refs(vault.search("crocodiles", lexical_only=True)) == ["gamma.md#Delta"]


def test_deleting_a_target_unresolves_links_to_it(vault):
    (vault.root / "alpha.md").unlink()
    report = vault.index()
    assert report.deleted == 1
    links = {link.raw: link.resolved for link in vault.links("beta.md")}
    assert links == {"[[alpha#Details]]": False, "[[gamma]]": False}
    assert vault.search("foxes", lexical_only=True).status == "miss"


def test_new_attachment_resolves_an_embed(vault):
    (vault.root / "beta.md").write_text("# Beta\n![[chart.png]]\n")
    vault.index()
    assert [link.resolved for link in vault.links("beta.md")] == [False]
    (vault.root / "img").mkdir()
    (vault.root / "img/chart.png").write_bytes(b"\x89PNG")
    vault.index()
    assert [link.target_path for link in vault.links("beta.md")] == ["img/chart.png"]


def test_index_is_derived_state(vault):
    before = [h.to_json() for h in vault.search("turtles foxes", lexical_only=True).hits]
    links_before = [link.to_json() for link in vault.all_links()]
    vault.close()
    shutil.rmtree(vault.root / ".vault-engine" / "index")
    vault.index()
    assert [h.to_json() for h in vault.search("turtles foxes", lexical_only=True).hits] == before
    assert [link.to_json() for link in vault.all_links()] == links_before


def test_a_lost_whoosh_index_is_repaired_from_the_ledger(vault):
    vault.lexical.reset()
    assert vault.status()["lexical"]["agrees"] is False
    report = vault.index()
    assert report.notices and "rebuilt" in report.notices[0]
    assert vault.status()["lexical"]["agrees"] is True
    assert refs(vault.search("crocodiles", lexical_only=True)) == ["sub/delta.md#Delta"]


def test_a_lexical_index_unlike_its_last_commit_is_repaired(vault):
    """Whoosh's files unlike the fingerprint the ledger recorded, and no run of ours under
    way: the next index rebuilds Whoosh from the ledger and says so."""
    from vault_engine.indexing.integrity import LEXICAL_FINGERPRINT

    with vault.ledger.transaction():
        vault.ledger.set_meta(LEXICAL_FINGERPRINT, "[]")
    notices = vault.index().notices
    assert any("lexical" in n for n in notices), notices
    assert vault.status()["lexical"]["agrees"]
    assert vault.ledger.get_meta(LEXICAL_FINGERPRINT) == vault.lexical.fingerprint()


def test_rebuild_starts_from_scratch(vault):
    report = vault.index(rebuild=True)
    assert (report.new, report.sections) == (3, 4)


def test_excluded_and_ignored_folders_are_not_indexed(make_vault):
    root = make_vault({"keep.md": "x", "drafts/no.md": "x", ".obsidian/no.md": "x", ".trash/no.md": "x",
                       ".git/no.md": "x", "deep/drafts/yes.md": "x"},
                      config='exclude = ["drafts/**"]\n')
    with Vault(root) as v:
        v.index()
        assert sorted(v.ledger.note_paths()) == ["deep/drafts/yes.md", "keep.md"]


def test_hidden_files_and_folders_are_left_out_as_obsidian_leaves_them_out(make_vault):
    """An emacs lock (`.#keep.md`, a symlink to nowhere) was reported as a broken note on every
    run; `.github/` issue templates and `.x.md` were indexed, which Obsidian never shows."""
    root = make_vault({"keep.md": "x", ".github/ISSUE.md": "x", "sub/.hidden.md": "x"})
    (root / ".#keep.md").symlink_to("user@host.1234:1700000000")
    with Vault(root) as v:
        report = v.index()
        assert v.ledger.note_paths() == ["keep.md"] and report.skipped == ()


def test_many_files_take_the_parallel_path(make_vault):
    files = {f"n{i:04d}.md": f"# Note {i}\nword{i} shared text [[n{(i + 1) % 500:04d}]]\n" for i in range(500)}
    with Vault(make_vault(files)) as v:
        report = v.index()
        assert (report.new, report.sections) == (500, 500)
        assert v.ledger.counts()["unresolved_links"] == 0
        assert refs(v.search("word123", lexical_only=True)) == ["n0123.md#Note 123"]


def test_a_notion_page_renamed_with_its_title_keeps_its_identity_and_reinforcements(make_vault):
    page = "---\nnotion_id: e445ee1fb7ff4591be2de17d906df97e\n---\n# {title}\nThe study plan for spring.\n"
    root = make_vault({"notion/Research study e445ee1f.md": page.format(title="Research study")})
    with Vault(root) as v:
        v.index(embed=False)
        before = v.ledger.note_id("notion/Research study e445ee1f.md")
        v.reinforce("notion://e445ee1fb7ff4591be2de17d906df97e", by="ana")
        (root / "notion/Research study e445ee1f.md").unlink()
        (root / "notion/Research programme e445ee1f.md").write_text(page.format(title="Research programme"))
        report = v.index(embed=False)
        assert (report.moved, report.new, report.deleted) == (1, 0, 0)
        assert v.ledger.note_id("notion/Research programme e445ee1f.md") == before
        assert "notion/Research programme e445ee1f.md" in v.ledger.reinforcements()
        assert v.show("notion://e445ee1fb7ff4591be2de17d906df97e").path == "notion/Research programme e445ee1f.md"


def test_a_copy_of_a_pages_note_is_no_page_until_the_pages_own_note_is_gone(make_vault):
    """An Obsidian copy carries the page's notion_id: its hits were named notion://<id>, whose
    `show` opened the other file (qa34 N2). The note at the import's name holds the id."""
    ident = "e445ee1fb7ff4591be2de17d906df97e"
    page = f"---\nnotion_id: {ident}\ntitle: Research study\n---\n# Research study\nThe study plan for spring.\n"
    copy = page.replace("The study plan", "My zebrafish draft of the study plan")
    root = make_vault({"notion/Research study 906df97e.md": page, "notion/Research study 906df97e 1.md": copy})
    with Vault(root) as v:
        v.index(embed=False)
        [hit] = v.search("zebrafish", lexical_only=True).hits
        assert hit.ref == "notion/Research study 906df97e 1.md#Research study"
        assert v.show(f"notion://{ident}").path == "notion/Research study 906df97e.md"
        (root / "notion/Research study 906df97e.md").unlink()
        v.index(embed=False)
        assert v.show(f"notion://{ident}").path == "notion/Research study 906df97e 1.md"  # the one left
        assert v.search("zebrafish", lexical_only=True).hits[0].ref == f"notion://{ident}#Research study"


def test_a_note_moved_and_edited_in_one_run_keeps_its_identity_and_reinforcements(make_vault):
    # `git mv` then an edit (or a rename merged with a teammate's edit) was a new note and a
    # deleted one, and the note's reinforcement was lost (qa25 #3)
    text = "# Webhook delivery\nRetries back off exponentially, capped at six hours.\nSigned with HMAC.\n"
    root = make_vault({"specs/webhook-delivery.md": text, "specs/other.md": "# Other\nnothing alike\n"})
    with Vault(root) as v:
        v.index(embed=False)
        before = v.ledger.note_id("specs/webhook-delivery.md")
        v.reinforce("specs/webhook-delivery.md", by="ben")
        (root / "specs/webhook-delivery.md").unlink()
        (root / "specs/webhooks").mkdir()
        (root / "specs/webhooks/webhook-delivery.md").write_text(text + "Deliveries are logged.\n")
        (root / "specs/other.md").unlink()  # gone, and a note of that name that shares no word comes
        (root / "specs/webhooks/other.md").write_text("# Unrelated\nA different page entirely.\n")
        report = v.index(embed=False)
        assert (report.moved, report.new, report.deleted) == (1, 1, 1)
        assert v.ledger.note_id("specs/webhooks/webhook-delivery.md") == before
        assert "specs/webhooks/webhook-delivery.md" in v.ledger.reinforcements()
        assert "Deliveries are logged" in v.show("specs/webhooks/webhook-delivery.md").text


def test_a_note_renamed_and_edited_in_one_burst_keeps_its_reinforcement_whatever_its_new_name(make_vault):
    """Renamed and written within one watcher batch (Obsidian updating a note's links to
    itself), a note came as "1 new, 1 deleted" and its reinforcement was lost (qa49)."""
    text = "# Sharding\nShard the search index by tenant, eight shards per node.\nRebalance weekly.\n"
    root = make_vault({"specs/search-sharding.md": text, "specs/other.md": "# Other\nnothing alike\n"})
    with Vault(root) as v:
        v.index(embed=False)
        before = v.ledger.note_id("specs/search-sharding.md")
        v.reinforce("specs/search-sharding.md", by="qa")
        (root / "specs/search-sharding.md").rename(root / "specs/shard-plan-v2.md")
        with (root / "specs/shard-plan-v2.md").open("a") as note:
            note.write("See [[shard-plan-v2]].\n")
        report = v.index(embed=False)
        assert (report.moved, report.new, report.deleted) == (1, 0, 0)
        assert v.ledger.note_id("specs/shard-plan-v2.md") == before
        assert "specs/shard-plan-v2.md" in v.ledger.reinforcements()
        (root / "specs/shard-plan-v2.md").unlink()  # the only new note shares no word: no move
        (root / "specs/unrelated.md").write_text("# Lunch\nPizza on Fridays.\n")
        unrelated = v.index(embed=False)
        assert (unrelated.moved, unrelated.new, unrelated.deleted) == (0, 1, 1)
        assert "specs/unrelated.md" not in v.ledger.reinforcements()


def test_a_daily_note_deleted_while_the_next_is_written_hands_it_nothing(make_vault):
    """One deleted and one new note of two names were paired at half their words shared, and
    two notes of one template share that: the new day took the old one's identity and its
    reinforcement (qa172). A rename keeps every word of the old note but its name."""
    template = "## Tasks\n\n- [ ] review inbox\n- [ ] plan day\n\n## Notes\n\nstandup meeting notes\n"
    root = make_vault({"daily/2024-01-01.md": f"# 2024-01-01\n\n{template}\nfixed the login bug\n",
                       "other.md": "# Other\nx\n"})
    with Vault(root) as v:
        v.index(embed=False)
        before = v.ledger.note_id("daily/2024-01-01.md")
        v.reinforce("daily/2024-01-01.md", by="ben")
        (root / "daily/2024-01-01.md").unlink()
        (root / "daily/2024-03-15.md").write_text(f"# 2024-03-15\n\n{template}\nwrote the quarterly report\n")
        report = v.index(embed=False)
        assert (report.moved, report.new, report.deleted) == (0, 1, 1)
        assert v.ledger.note_id("daily/2024-03-15.md") != before
        assert "daily/2024-03-15.md" not in v.ledger.reinforcements()


def test_a_run_never_gives_a_new_section_the_id_of_one_it_removed(vault):
    """SQLite hands out the highest id plus one: without care, a note rewritten or deleted
    and replaced in one run gives its ids to the new sections, and a Whoosh committed by a
    run killed before the ledger's commit would name old sections with new text."""
    root = vault.root
    (root / "zeta.md").write_text("# Zeta\nZebras graze.\n## More\nstripes\n", encoding="utf-8")
    vault.index()
    highest = vault.ledger.max_section_id()
    (root / "zeta.md").write_text("# Zeta\nZebras run.\n## More\nstripes, again\n", encoding="utf-8")
    vault.index()
    rewritten = {s.id for s in vault.ledger.sections_of(vault.ledger.note_id("zeta.md"))}
    assert min(rewritten) > highest
    (root / "zeta.md").unlink()
    (root / "eta.md").write_text("# Eta\nEagles soar.\n", encoding="utf-8")
    vault.index()
    assert min(s.id for s in vault.ledger.sections_of(vault.ledger.note_id("eta.md"))) > max(rewritten)


def test_a_new_note_named_in_nfd_resolves_a_link_typed_in_nfc(vault):
    """The re-resolution key of a new file (as macOS names it) is the key of the link."""
    (vault.root / "beta.md").write_text("# Beta\nSee [[Café notes]].\n")
    vault.index()
    assert [link.resolved for link in vault.links("beta.md")] == [False]
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    (vault.root / nfd).write_text("# Café\n")
    vault.index()
    assert [link.target_path for link in vault.links("beta.md")] == [nfd]


def test_notes_in_a_folder_that_cannot_be_listed_are_left_out_not_deleted(vault, monkeypatch):
    """A `chmod 000` folder: its notes were counted deleted, and `show` of one asked whether it
    had been renamed or deleted (qa60). They are unreadable, as a `chmod 000` note is."""
    from vault_engine.sources.vault import files

    real_scandir = files.os.scandir

    def scandir(folder):
        if os.path.basename(folder) == "sub":
            raise PermissionError(13, "Permission denied", str(folder))
        return real_scandir(folder)

    monkeypatch.setattr(files.os, "scandir", scandir)
    for run in range(2):  # and again: still left out, not forgotten
        report = vault.index()
        assert (report.deleted, report.left_out) == (0, 1 - run)
        reasons = {s.path: s.reason for s in report.skipped}
        assert reasons["sub/delta.md"] == ("cannot list folder: permission denied: make the folder readable to "
                                           "index what it holds (sub/)")
        assert reasons["sub"].startswith("cannot list folder")
    assert vault.search("crocodiles", lexical_only=True).status == "miss"
    monkeypatch.setattr(files.os, "scandir", real_scandir)
    assert vault.index().new == 1 and vault.search("crocodiles", lexical_only=True).hits


def test_notes_in_a_folder_listed_but_not_entered_are_left_out_not_deleted(vault, monkeypatch):
    """`chmod 644` on a folder: its names can be listed, but every stat says "Permission
    denied"; its notes were counted deleted (qa64), as an unlistable folder's had been."""
    from vault_engine.sources.vault import files

    real_scandir = files.os.scandir

    class NotEntered:
        def __init__(self, entry):
            self._entry = entry

        def __getattr__(self, name):
            return getattr(self._entry, name)

        def stat(self, **_):
            raise PermissionError(13, "Permission denied", self._entry.path)

    def scandir(folder):
        entries = list(real_scandir(folder))
        return [NotEntered(e) for e in entries] if os.path.basename(folder) == "sub" else entries

    monkeypatch.setattr(files.os, "scandir", scandir)
    report = vault.index()
    assert (report.deleted, report.left_out) == (0, 1)
    assert [s.reason for s in report.skipped if s.path == "sub/delta.md"] == ["cannot stat: Permission denied"]
    monkeypatch.setattr(files.os, "scandir", real_scandir)
    assert vault.index().new == 1


def test_a_folder_deleted_takes_its_notes_with_it_by_a_full_index_or_the_watchers(vault):
    """A folder that is gone is no folder that cannot be listed: its notes are deleted."""
    from vault_engine.sources.vault.files import scan_vault

    shutil.rmtree(vault.root / "sub")
    assert scan_vault(vault.config, under="sub").unlisted == {}  # (a scan of it fails: it is gone)
    report = vault.index_paths(["sub"])
    assert (report.deleted, report.left_out, report.skipped) == (1, 0, ())
    (vault.root / "sub").mkdir()
    (vault.root / "sub" / "delta.md").write_text("# Delta\nCrocodiles sunbathe.\n")
    assert vault.index().new == 1
    shutil.rmtree(vault.root / "sub")
    assert (vault.index().deleted, vault.status()["notes"]) == (1, 2)


def test_a_vault_inside_this_one_is_said_until_it_is_excluded(make_vault, cli):
    """A folder with its own vault-engine.toml was taken in without a word (qa99)."""
    root = make_vault({"a.md": "# A\n\nalpha\n", "inner/b.md": "# B\n\nbeta\n", "inner/vault-engine.toml": ""},
                      config="[model]\nenabled = false\n")
    said = cli("--vault", root, "index").err
    assert ('inner/ is a vault of its own (its vault-engine.toml or index): its notes are indexed here too; to leave '
            'them out, add "inner/**" to exclude in this vault\'s vault-engine.toml') in said
    (root / "inner" / "vault-engine.toml").unlink()
    (root / "inner" / ".vault-engine").mkdir()  # indexed by itself, with no settings file (qa101)
    assert "inner/ is a vault of its own" in cli("--vault", root, "index").err
    (root / "vault-engine.toml").write_text('exclude = ["inner/**"]\n[model]\nenabled = false\n')
    assert "is a vault of its own" not in cli("--vault", root, "index").err


def test_a_named_pipe_beside_a_note_or_in_a_code_tap_is_no_file_to_wait_on(make_vault):
    """A FIFO named `kep.yaml` beside a record, or `.gitignore` or `go.mod` in a code tap, was
    read as the file would be: `index` and `status` waited for a writer forever (qa172)."""
    import threading

    root = make_vault({"keps/0001-x/README.md": "# KEP 1\nalpha\n", "src/app.py": "def f():\n    pass\n"},
                      config='[taps.code]\nsource = "code"\npaths = ["src/**"]\n')
    pipes = [root / "keps/0001-x/kep.yaml", root / "src/.gitignore", root / "src/go.mod"]
    for pipe in pipes:
        os.mkfifo(pipe)
    done = []

    def run():
        with Vault(root) as v:
            v.index(embed=False)
            done.append(v.status()["notes"])

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    hung = worker.is_alive()
    while worker.is_alive():  # release a reader left waiting, so the test ends either way
        for pipe in pipes:
            try:
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        worker.join(0.5)
    assert not hung and done == [1]
