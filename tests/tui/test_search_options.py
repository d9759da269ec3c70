"""The query history on disk: written whole and private, read back, and never fatal."""

import os
import stat

import pytest

from tui.search_options import QueryHistory, history_path, load_history, save_history


def test_a_saved_history_reads_back_the_same_and_only_its_user_can_read_it(tmp_path):
    history = QueryHistory()
    for query in ("token refresh", "beamforming", "café ☕"):
        history.add(query)
    path = history_path(tmp_path)
    save_history(history, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_history(path).queries == ["token refresh", "beamforming", "café ☕"]
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


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
