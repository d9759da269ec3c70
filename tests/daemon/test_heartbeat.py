"""The watcher's pulse (vault_engine/daemon/heartbeat.py): each beat touches the health file
and checks that the vault folder is still the one the watcher started on. Beats are called
directly (``check``): no thread, no waiting."""

from __future__ import annotations

import os

import pytest

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


def test_a_generation_swapped_in_by_another_process_wakes_the_embedding(tmp_path):
    index_root = tmp_path / ".vault-engine" / "index"
    for generation in ("g1", "g2"):
        (index_root / generation).mkdir(parents=True)
    (index_root / "current").symlink_to("g1")
    woken: list[int] = []
    heartbeat = Heartbeat(tmp_path, index_root, beat=lambda: None, vault_lost=print, index_lost=lambda: None,
                          generation_changed=lambda: woken.append(1))
    assert heartbeat.check() and woken == []
    os.replace(_link(index_root, "g2"), index_root / "current")  # index --rebuild: one rename
    assert heartbeat.check() and woken == [1]
    assert heartbeat.check() and woken == [1]  # once per swap


def _link(folder, target):
    temp = folder / ".current-tmp"
    temp.symlink_to(target)
    return temp


def test_a_removed_lock_file_stops_the_pulse_before_it_writes(tmp_path):
    removed, lost, beats = [False], [], []
    heartbeat = Heartbeat(tmp_path, tmp_path / ".vault-engine" / "index", beat=lambda: beats.append(1),
                          vault_lost=lost.append, index_lost=lambda: None, lock_removed=lambda: removed[0])
    assert heartbeat.check() and beats == [1]
    removed[0] = True  # rm -rf .vault-engine
    assert not heartbeat.check() and beats == [1]
    assert "was removed" in lost[0] and "Start `vault-engine watch` again" in lost[0]


@pytest.mark.parametrize("removed", ["current", "g1"], ids=["the current link", "the generation it points at"])
def test_a_lost_current_link_or_generation_is_a_lost_index(tmp_path, removed):
    """Only `index/current` removed (qa61), or only the live generation's folder, `rm -rf` of
    it leaving its link (qa64): every command said "the running watcher is building it"
    while the watcher waited for a save to rebuild."""
    index_root = tmp_path / ".vault-engine" / "index"
    (index_root / "g1").mkdir(parents=True)
    (index_root / "current").symlink_to("g1")
    lost: list[int] = []
    heartbeat = Heartbeat(tmp_path, index_root, beat=lambda: None, vault_lost=print,
                          index_lost=lambda: lost.append(1))
    assert heartbeat.check() and lost == []
    if removed == "current":
        (index_root / removed).unlink()
    else:
        (index_root / removed).rmdir()
    assert heartbeat.check() and lost == [1]
    assert heartbeat.check() and lost == [1]  # once: the rebuild it asks for makes the index again
