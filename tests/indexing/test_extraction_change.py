"""An upgrade that reads notes differently, or a new [kinds] rule, reaches notes that did not
change: the next index re-reads them all instead of trusting the ledger."""

from vault_engine.cli.render import index_report
from vault_engine.indexing import indexer
from vault_engine.vault import Vault


def _kinds(vault: Vault) -> dict[str, str]:
    return {n.path: n.kind for n in vault.ledger.notes()}


def test_kinds_rule_change_reaches_unchanged_notes(tmp_path):
    (tmp_path / "adr").mkdir()
    (tmp_path / "adr" / "0001-use-x.md").write_text("# Use X\n\nBody.\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
        assert _kinds(vault)["adr/0001-use-x.md"] == "note"
    (tmp_path / "vault-engine.toml").write_text('[kinds]\ndecision = ["adr/**"]\n')
    with Vault(tmp_path) as vault:
        changes = vault.index(embed=False)
        assert _kinds(vault)["adr/0001-use-x.md"] == "decision"
        assert (changes.modified, changes.read_again) == (0, 1) and any("read again" in n for n in changes.notices)
        again = vault.index(embed=False)  # once re-read, trusted again
        assert (again.modified, again.unchanged, again.notices) == (0, 1, ())


def test_a_new_max_file_mb_reaches_the_files_skipped_or_read_under_the_old_one(tmp_path):
    """The skip line says "raise max_file_mb"; raising it changed nothing until a rebuild."""
    (tmp_path / "huge.md").write_text("# Huge\n" + "quokka burrows in the dunes\n" * 80_000)  # 2.2 MB
    (tmp_path / "small.md").write_text("# Small\nhello\n")
    for limit, skipped in ((1, True), (10, False), (1, True)):
        (tmp_path / "vault-engine.toml").write_text(f"max_file_mb = {limit}\n")
        with Vault(tmp_path) as vault:
            changes = vault.index(embed=False)
            assert ("huge.md" in {s.path for s in changes.skipped}) is skipped
            assert (vault.search("quokka", lexical_only=True).status == "miss") is skipped


def test_a_new_tap_or_new_tap_paths_reach_the_notes_they_claim(tmp_path):
    """A tap added to vault-engine.toml owned nothing until a rebuild: `search --tap meetings`
    answered "a miss, not a guess" and its decay never applied."""
    (tmp_path / "meetings").mkdir()
    (tmp_path / "meetings" / "review.md").write_text("# Design review\nWe chose the outbox.\n")
    for config, tap in (("", "vault"), ('[taps.meetings]\npaths = ["meetings/**"]\nhalf_life_days = 7\n', "meetings"),
                        ('[taps.meetings]\npaths = ["elsewhere/**"]\nhalf_life_days = 7\n', "vault")):
        (tmp_path / "vault-engine.toml").write_text(config)
        with Vault(tmp_path) as vault:
            vault.index(embed=False)
            taps = {n.path: n.tap for n in vault.ledger.notes()}
            assert taps == {"meetings/review.md": tap}
            if tap == "meetings":
                assert vault.search("outbox", tap="meetings", lexical_only=True).status == "hit"


def test_parser_version_change_rereads_every_note(tmp_path, monkeypatch):
    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n\nText of {name}.\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
    monkeypatch.setattr(indexer, "extraction_key", lambda config: "a newer parser")
    (tmp_path / "b.md").write_text("# b\n\nText of b, edited.\n")
    with Vault(tmp_path) as vault:
        changes = vault.index(embed=False)
        # the edited note is the one modified; the other was read again, no edit (qa102: a
        # line of vault-engine.toml had reported "109 modified" of a vault nobody edited)
        assert (changes.new, changes.modified, changes.read_again, changes.deleted) == (0, 1, 1, 0)
        assert "0 new, 1 modified, 1 read again, 0 moved" in index_report(changes)
        assert {n.path for n in vault.ledger.notes()} == {"a.md", "b.md"}
        assert vault.search("edited", lexical_only=True).hits


def test_a_reread_builds_the_words_index_anew_so_bm25_counts_no_deleted_document(tmp_path, monkeypatch):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n\nText of {name}.\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
        before = vault.search("text", lexical_only=True).hits[0].scores.lexical
    monkeypatch.setattr(indexer, "extraction_key", lambda config: "a newer parser")
    with Vault(tmp_path) as vault:
        changes = vault.index(embed=False)
        whoosh = vault.lexical.load()
        assert (whoosh.doc_count_all(), whoosh.doc_count()) == (3, 3)  # deleted ones would count in the first
        assert vault.search("text", lexical_only=True).hits[0].scores.lexical == before
        assert not any("could not be trusted" in n for n in changes.notices)  # a rebuild, not a repair


def test_notes_read_by_a_newer_release_are_not_read_again_by_an_older_one(tmp_path):
    """An older watcher re-read every note its way after a newer `index` had, and back."""
    import pytest

    from vault_engine.errors import IndexFromNewerRelease
    from vault_engine.parsing.note import EXTRACTION_VERSION

    (tmp_path / "a.md").write_text("# A\nalpha\n")
    newer = str(int(EXTRACTION_VERSION) + 1)
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
        key = vault.ledger.get_meta(indexer.EXTRACTION)
        with vault.ledger.transaction():
            vault.ledger.set_meta(indexer.EXTRACTION, newer + key[len(EXTRACTION_VERSION):])
    (tmp_path / "b.md").write_text("# B\nbeta\n")
    with Vault(tmp_path) as vault:
        for run in (lambda: vault.index(embed=False), lambda: vault.index_paths(["b.md"])):
            with pytest.raises(IndexFromNewerRelease, match=f"notes read by extraction {newer}, this one reads"):
                run()
        assert [n.path for n in vault.ledger.notes()] == ["a.md"]  # nothing written
        assert vault.ledger.get_meta(indexer.EXTRACTION).startswith(newer + "|")


def test_a_settings_change_not_yet_indexed_is_said_by_status_search_and_decay(make_vault, cli):
    """A tap added to vault-engine.toml did nothing until the next index and nothing said so:
    `status` read "0 changed", `search --tap meetings` was "a miss, not a guess", and `decay`
    told the user to configure the tap they had just configured (qa87)."""
    root = make_vault({"meetings/review.md": "# Design review\nWe reviewed the quokka design.\n",
                       "other.md": "# Other\nquokka notes\n"}, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "status", "--json").json["stale"]["settings"] is False
    with (root / "vault-engine.toml").open("a") as toml:
        toml.write('\n[taps.meetings]\nsource = "vault"\npaths = ["meetings/**"]\nhalf_life_days = 7\n')
    status = cli("--vault", root, "status")
    assert "vault-engine.toml changed since: run `vault-engine index`" in status.out
    miss = cli("--vault", root, "search", "quokka", "--tap", "meetings", "--lexical", "--json").json
    assert miss["status"] == "miss" and any("vault-engine.toml changed since the last index" in n
                                            for n in miss["notices"])
    hit = cli("--vault", root, "search", "quokka", "--lexical", "--json").json
    assert hit["status"] == "hit" and any("vault-engine.toml changed" in n for n in hit["notices"])
    decay = cli("--vault", root, "decay", "--tap", "meetings")
    assert "no note in taps.meetings (meetings/**)" in decay.out and "run `vault-engine index`" in decay.out
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "status", "--json").json["stale"]["settings"] is False
    assert cli("--vault", root, "decay", "--tap", "meetings", "--json").json["documents"][0]["ref"] \
        == "meetings/review.md"
    again = cli("--vault", root, "search", "quokka", "--lexical", "--json").json
    assert not any("vault-engine.toml" in n for n in again["notices"])


def test_decay_of_a_tap_whose_paths_hold_no_note_says_so(make_vault, cli):
    root = make_vault({"archive/old.md": "# Old\n"},
                      config='[model]\nenabled = false\n[taps.archive]\nsource = "vault"\npaths = ["archvie/**"]\n'
                             "half_life_days = 10\n")
    assert cli("--vault", root, "index").code == 0
    said = cli("--vault", root, "decay", "--tap", "archive").out
    assert "no note in taps.archive (archvie/**): check the paths" in said
    assert "does not decay" in cli("--vault", root, "decay", "--tap", "vault").out


def test_an_exclude_added_since_the_last_index_is_said_beside_the_note_it_hides(make_vault, cli):
    root = make_vault({"private/diary.md": "# Diary\nquokka secrets\n"}, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    (root / "vault-engine.toml").write_text('exclude = ["private/**"]\n[model]\nenabled = false\n')
    hit = cli("--vault", root, "search", "quokka", "--lexical", "--json").json
    assert any("vault-engine.toml changed since the last index" in n for n in hit["notices"])
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "search", "quokka", "--lexical", "--json").json["status"] == "miss"


def test_index_and_status_name_a_notes_tap_whose_paths_match_no_note(make_vault, cli):
    """As a code tap's are named: a typo decayed nothing, and nothing said so (qa87)."""
    root = make_vault({"archive/old.md": "# Old\n"},
                      config='[model]\nenabled = false\n[taps.archive]\nsource = "vault"\npaths = ["archvie/**"]\n')
    line = "taps.archive: paths 'archvie/**' match no note of the vault"
    assert line in cli("--vault", root, "index").err
    assert {"path": "taps.archive", "reason": line.partition(": ")[2] + ": fix paths (globs relative to the vault) "
            "in vault-engine.toml"} in cli("--vault", root, "status", "--json").json["skipped_files"]
    (root / "vault-engine.toml").write_text('[model]\nenabled = false\n[taps.archive]\nsource = "vault"\n'
                                            'paths = ["archive/**"]\n')
    assert "taps.archive" not in cli("--vault", root, "index").err
