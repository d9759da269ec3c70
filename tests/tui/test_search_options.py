"""The query history on disk: written whole and private, read back, and never fatal."""

import os
import stat

import pytest

from tui.search_options import HISTORY_SIZE, QueryHistory, history_path, load_history, save_history


def test_a_saved_history_reads_back_the_same_and_only_its_user_can_read_it(tmp_path):
    history = QueryHistory()
    for query in ("token refresh", "beamforming", "café ☕"):
        history.add(query)
    path = history_path(tmp_path)
    save_history(history, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_history(path).queries == ["token refresh", "beamforming", "café ☕"]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name, f"{path.name}.lock"]  # no temp file


def test_a_file_written_wider_is_made_private_again(tmp_path):
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.write_text('{"queries": ["old"]}')
    os.chmod(path, 0o644)
    save_history(load_history(path), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(("content", "kept"), [(b"not json", []), (b'{"queries": "token"}', []),
                                               (b"[1, 2]", []), (b"\xff\xfe", []),
                                               (b'{"queries": ["ok", 3, null]}', ["ok"])])
def test_a_bad_history_file_is_ignored(tmp_path, content, kept):
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.write_bytes(content)
    assert load_history(path).queries == kept


def test_an_unreadable_or_missing_history_file_is_an_empty_history(tmp_path):
    assert load_history(history_path(tmp_path)).queries == []
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.mkdir()  # a folder where the file should be: reading it fails
    assert load_history(path).queries == []
    with pytest.raises(OSError):
        save_history(QueryHistory(["x"]), path)


def test_two_tuis_saving_to_one_vault_keep_each_others_queries_in_the_order_settled_on(tmp_path):
    path = history_path(tmp_path)
    first, second = load_history(path), load_history(path)  # two TUIs opened on one vault
    first.add("token refresh")
    save_history(first, path)
    second.add("beamforming")
    save_history(second, path)
    first.add("webhook retries")
    first.add("token refresh")  # settled on again: now the newest
    save_history(first, path)
    assert load_history(path).queries == ["beamforming", "webhook retries", "token refresh"]
    assert first.queries == ["beamforming", "webhook retries", "token refresh"]  # ↑ recalls the other's too
    assert (first.back(), first.back()) == ("token refresh", "webhook retries")
    second.add("dma ring")
    save_history(second, path)
    assert load_history(path).queries == ["beamforming", "webhook retries", "token refresh", "dma ring"]


def test_a_merged_history_keeps_the_newest_within_the_cap(tmp_path):
    path = history_path(tmp_path)
    other = QueryHistory()
    for n in range(HISTORY_SIZE):
        other.add(f"other {n}")
    save_history(other, path)
    ours = QueryHistory()
    ours.add("ours")
    save_history(ours, path)
    saved = load_history(path).queries
    assert len(saved) == HISTORY_SIZE and saved[-1] == "ours" and saved[0] == "other 1"


def test_a_save_that_failed_is_merged_by_the_next_one(tmp_path):
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.mkdir()  # cannot be written over
    history = QueryHistory()
    history.add("beamforming")
    with pytest.raises(OSError):
        save_history(history, path)
    assert history.queries == ["beamforming"] and history.unsaved == ["beamforming"]
    path.rmdir()
    history.add("token refresh")
    save_history(history, path)
    assert load_history(path).queries == ["beamforming", "token refresh"] and history.unsaved == []


@pytest.mark.parametrize("content", [b"\x00{not json", b'{"queries": 7}', b"\xff\xfe"])
def test_a_bad_history_file_is_replaced_by_a_good_one_on_save(tmp_path, content):
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.write_bytes(content)
    history = load_history(path)
    assert history.queries == []
    history.add("beamforming")
    save_history(history, path)
    assert load_history(path).queries == ["beamforming"]


def test_a_history_path_that_points_at_a_note_never_writes_into_the_note(tmp_path):
    note = tmp_path / "notes" / "plan.md"
    note.parent.mkdir()
    note.write_text("# Plan\n\nmy notes\n", encoding="utf-8")
    path = history_path(tmp_path)
    path.parent.mkdir()
    path.symlink_to(note)
    history = load_history(path)  # a note is no history: empty
    assert history.queries == []
    history.add("beamforming")
    save_history(history, path)
    assert note.read_text(encoding="utf-8") == "# Plan\n\nmy notes\n"
    assert not path.is_symlink() and load_history(path).queries == ["beamforming"]


def test_the_kind_filter_offers_code_where_search_takes_it(sample_vault, code_vault):
    """The TUI offered the note kinds only: `--kind code` of the CLI and MCP had no choice (qa33 R12)."""
    from tui.search_options import filter_choices
    from vault_engine.vault import Vault

    with Vault(code_vault) as vault:
        assert filter_choices(vault).kinds[-1] == "code"
    (sample_vault / "vault-engine.toml").write_text("")
    with Vault(sample_vault) as vault:
        assert "code" not in filter_choices(vault).kinds
