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
