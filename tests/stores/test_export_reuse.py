"""A process that indexes a second vault copies its verified ONNX export instead of loading
torch again to make the same bytes; an export changed since it was verified is not copied."""

from __future__ import annotations

import pytest

from vault_engine.stores import export_worker
from vault_engine.vault import Vault

NOTES = {"a.md": "# Alpha\nbuffers and rings\n", "b.md": "# Beta\nwebhooks retried\n"}


def exports(root):
    return sorted((root / ".vault-engine" / "index" / "current").glob("query-model-*.onnx"))


@pytest.mark.model
def test_a_second_vault_copies_the_export_and_a_changed_one_is_not_copied(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULT_ENGINE_CACHE", "")  # this process's own copy, not the run's cache
    roots = []
    for name in ("first", "second", "third"):
        root = tmp_path / name
        root.mkdir()
        for rel, text in NOTES.items():
            (root / rel).write_text(text, encoding="utf-8")
        roots.append(root)
    with Vault(roots[0]) as vault:
        vault.index()
    [made] = exports(roots[0])

    calls = []
    monkeypatch.setattr(export_worker, "export_in_subprocess",
                        lambda *args: calls.append(args) or "exported again")
    with Vault(roots[1]) as vault:
        vault.index()
        assert vault.status()["semantic"]["query_model"]
    [copied] = exports(roots[1])
    assert calls == [] and copied.read_bytes() == made.read_bytes() and copied.stat().st_ino != made.stat().st_ino

    copied.write_bytes(b"changed since it was verified")  # the last verified one: what a copy takes
    with Vault(roots[2]) as vault:
        report = vault.index()
    assert len(calls) == 1 and exports(roots[2]) == []  # made afresh (here: refused), never copied
    assert any("exported again" in n for n in report.notices), report.notices


def test_what_a_killed_index_left_beside_the_export_is_swept_and_a_live_writers_kept(tmp_path):
    # a kill -9 during the export left a 90 MB traced graph in the live generation for good
    import os
    import subprocess
    import sys

    from vault_engine.stores.embedder import sweep_leftovers

    target = tmp_path / "query-model-abc.onnx"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    names = [f".{target.name}.{dead}.tmp", f".{target.name}.{dead}.tmp.probes.npy", f".{target.name}.copy.tmp",
             f".{target.name}.fetch.tmp", f".{target.name}.{os.getpid()}.tmp",  # this process's child writes it
             f".{target.name}.{os.getppid()}.tmp", ".other.onnx.1.tmp", "notes.md"]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    sweep_leftovers(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[4:])


def test_the_export_child_ends_when_its_parent_is_gone(tmp_path):
    # kill -9 of `index` left its export child tracing on for 10-14 s, reparented to pid 1
    import json
    import subprocess
    import sys
    from dataclasses import asdict

    from vault_engine.stores.embedder import ModelSpec

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    child = subprocess.run([sys.executable, "-m", "vault_engine.stores.export_worker",
                            json.dumps(asdict(ModelSpec())), str(tmp_path / "t"), str(tmp_path / "p"), gone],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 1 and child.stdout == "" and not list(tmp_path.iterdir())


def test_a_user_cache_that_cannot_be_made_is_said_once(tmp_path, monkeypatch, caplog):
    """An index asks for the export twice (before embedding, and for queries): the same
    notice came twice (qa44)."""
    from vault_engine.stores import embedder as module
    from vault_engine.stores.embedder import SentenceTransformerEmbedder

    monkeypatch.setattr(module, "_VERIFIED_EXPORTS", {})  # the dummy below must not be copied to other vaults
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("VAULT_ENGINE_CACHE", str(blocked))
    embedder = SentenceTransformerEmbedder(query_dir=tmp_path / "index")
    embedder.query_model_path.parent.mkdir(parents=True)
    embedder.query_model_path.write_bytes(b"an export already here: nothing is made")
    with caplog.at_level("WARNING"):
        assert embedder.save_query_model() is None and embedder.save_query_model() is None
    said = [r.getMessage() for r in caplog.records if "cannot make the model export cache" in r.getMessage()]
    assert len(said) == 1 and str(blocked) in said[0]
