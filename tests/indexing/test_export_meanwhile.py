"""A machine's first index makes the model's ONNX export while the words are indexed (a child
process started as the plan shows notes to embed), keeps the encoder that checked it, and a
run that stops before it is used leaves no process and no file behind. With the real model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from vault_engine.stores import embedder as embedder_module
from vault_engine.stores import export_worker
from vault_engine.vault import Vault

NOTES = {"a.md": "# Alpha\nring buffers for audio frames\n", "b.md": "# Beta\nwebhooks are retried twice\n"}


def write_vault(root):
    root.mkdir()
    for rel, text in NOTES.items():
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.model
def test_the_first_index_exports_while_its_words_are_indexed(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULT_ENGINE_CACHE", "")  # no user cache: this index has to export
    monkeypatch.setattr(embedder_module, "_VERIFIED_EXPORTS", {})  # nor an export this process made
    root = tmp_path / "vault"
    write_vault(root)
    events: list[str] = []
    started = export_worker.ExportChild.__init__

    def recording(self, *args, **kw):
        events.append("export started")
        started(self, *args, **kw)

    monkeypatch.setattr(export_worker.ExportChild, "__init__", recording)

    def progress(stage, done, total):
        if not events or events[-1] != stage:
            events.append(stage)

    with Vault(root) as vault:
        report = vault.index(progress=progress)
        status = vault.status()["semantic"]
        hit = vault.search("audio ring buffer").hits[0]
    assert events.count("export started") == 1, events
    assert events.index("export started") < events.index("lexical") < events.index("model"), events
    assert report.embedded == 2 and status["query_model"] and status["runtime"] == "onnxruntime"
    assert hit.path == "a.md"
    leftovers = [p.name for p in (root / ".vault-engine").rglob("*.tmp")]
    assert leftovers == []


@pytest.mark.model
def test_no_export_is_started_where_the_users_cache_holds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULT_ENGINE_CACHE", str(tmp_path / "user-cache"))
    first, second = tmp_path / "first", tmp_path / "second"
    write_vault(first)
    write_vault(second)
    with Vault(first) as vault:
        vault.index()  # exports, and keeps the export in the user's cache
    started = []
    monkeypatch.setattr(export_worker, "ExportChild", lambda *args: started.append(args))
    monkeypatch.setattr(embedder_module, "_VERIFIED_EXPORTS", {})  # as a new process: only the cache has it
    with Vault(second) as vault:
        report = vault.index()
        assert vault.status()["semantic"]["query_model"]
    assert started == [] and report.embedded == 2 and not report.notices


SCRIPT = """
import json, sys
from pathlib import Path
from vault_engine.vault import Vault

vault = Vault(Path(sys.argv[1]))
embedder = vault.embedder()  # the one the first index's new generation uses too

def progress(stage, done, total):
    child = embedder._export_child
    if stage == "lexical" and child is not None:
        print(json.dumps(child.process.pid), flush=True)
        raise KeyboardInterrupt

try:
    vault.index(progress=progress)
except KeyboardInterrupt:
    sys.exit(130)
"""


@pytest.mark.model
def test_an_index_stopped_before_its_export_is_used_leaves_no_process_or_file(tmp_path):
    root = tmp_path / "vault"
    write_vault(root)
    env = {**os.environ, "VAULT_ENGINE_CACHE": ""}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 130, done.stderr
    pid = json.loads(done.stdout.strip().splitlines()[-1])
    deadline = time.monotonic() + 1  # an export left running takes seconds more to end
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    index = root / ".vault-engine"
    assert [p.name for p in index.rglob("*.tmp")] + [p.name for p in index.rglob("*.npy")] == []
    assert list(index.rglob("query-model-*.onnx")) == []  # nothing half made is kept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.model
def test_a_failed_index_stops_its_export_in_a_process_that_lives_on(tmp_path, monkeypatch):
    """The TUI and the daemon outlive a failed run: the export it began ends with it."""
    monkeypatch.setenv("VAULT_ENGINE_CACHE", "")
    monkeypatch.setattr(embedder_module, "_VERIFIED_EXPORTS", {})
    root = tmp_path / "vault"
    write_vault(root)
    children: list[export_worker.ExportChild] = []
    started = export_worker.ExportChild.__init__

    def recording(self, *args, **kw):
        children.append(self)
        started(self, *args, **kw)

    monkeypatch.setattr(export_worker.ExportChild, "__init__", recording)

    def progress(stage, done, total):
        if stage == "lexical" and children:
            raise RuntimeError("the disk filled up")

    with Vault(root) as vault:  # no model yet: the first index's new generation makes its own
        with pytest.raises(RuntimeError, match="disk filled up"):
            vault.index(progress=progress)
    [child] = children
    assert child.process.poll() is not None  # ended now, not when this process exits
    assert not child.traced.exists() and not child.expected.exists()
    assert child not in export_worker._unfinished
