"""The watcher's pulse (vault_engine/daemon/heartbeat.py): each beat touches the health file
and checks that the vault folder is still the one the watcher started on. Beats are called
directly (``check``): no thread, no waiting."""

from __future__ import annotations

import os

from vault_engine.daemon.heartbeat import Heartbeat


def pulse(root, lost: list[str], beats: list[int]) -> Heartbeat:
    return Heartbeat(root, root / ".vault-engine" / "index", beat=lambda: beats.append(1),
                     vault_lost=lost.append, index_lost=lambda: None)


def test_a_vault_still_in_place_beats(tmp_path):
    lost, beats = [], []
    assert pulse(tmp_path, lost, beats).check() and beats == [1] and lost == []


def test_a_moved_vault_is_called_gone_not_deleted(tmp_path):
    root = tmp_path / "vault"
    root.mkdir()
    lost, beats = [], []
    heartbeat = pulse(root, lost, beats)
    os.rename(root, tmp_path / "elsewhere")
    assert not heartbeat.check() and beats == []
    (message,) = lost
    assert f"the vault folder {root} is gone (moved or deleted)" in message
    assert "was deleted" not in message
    assert "start `vault-engine watch` again where it is now" in message
    assert not root.exists()  # the pulse never makes the folder again


def test_a_folder_made_in_the_vaults_place_is_not_the_vault(tmp_path):
    root = tmp_path / "vault"
    root.mkdir()
    lost: list[str] = []
    heartbeat = pulse(root, lost, [])
    os.rename(root, tmp_path / "elsewhere")
    root.mkdir()  # another folder at the same path
    assert not heartbeat.check()
    assert "is now another folder" in lost[0]
