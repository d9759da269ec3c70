"""A lane's Vault stays open for the whole session: it must answer from the index another
process just wrote (``vault-engine index`` or ``index --rebuild`` in a terminal, the watcher),
never from the files it opened first. Issue 12 suspected it kept searching stale vectors.
A rebuild is a new generation the Vault follows, an incremental index a new vectors file FAISS
reloads; a Whoosh folder made again in place (a repair) is what the lane's thread itself
notices (vault_engine/vault_thread.py) and reopens the stores for.

The other process is a real one; both sides embed with the FakeEmbedder, so the vectors are
real FAISS vectors without loading the model.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from tests.tui.conftest import TUI_NOW
from tui.lanes import VaultLane
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

# The index run of "another terminal": the CLI's Vault.index, with the fake embedder.
OTHER_PROCESS = """
import shutil
import sys
from pathlib import Path
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

with Vault(Path(sys.argv[1]), embedder=FakeEmbedder()) as vault:
    if sys.argv[2] == "repair":  # the Whoosh folder lost: `index --no-embed` makes it again, in place
        shutil.rmtree(vault.config.index_dir / "whoosh")
    vault.index(rebuild=sys.argv[2] == "rebuild", now=float(sys.argv[3]), embed=sys.argv[2] != "repair")
"""
NEW_NOTE = ("specs/radio-link.md",
            "---\ntype: spec\n---\n# Radio link\n\nquokkaflux telemetry over zirconblade at 868 MHz\n")


def index_elsewhere(root, how: str) -> None:
    done = subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(root), how, str(TUI_NOW)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture
def embedded_vault(sample_vault):
    with Vault(sample_vault, embedder=FakeEmbedder()) as vault:
        vault.index(now=TUI_NOW)
    return sample_vault


def search(vault: Vault, query: str, **options):
    return vault.search(query, k=5, now=TUI_NOW, **options)


@pytest.mark.parametrize("how", ["rebuild", "incremental"])
def test_a_lane_searches_what_another_process_just_indexed(embedded_vault, how):
    lane = VaultLane(embedded_vault, "query", open_vault=lambda root: Vault(root, embedder=FakeEmbedder()))
    path, text = NEW_NOTE

    async def scenario():
        before = await lane.call(search, "quokkaflux zirconblade telemetry", semantic_only=True)
        (embedded_vault / path).write_text(text, encoding="utf-8")
        await asyncio.to_thread(index_elsewhere, embedded_vault, how)
        semantic = await lane.call(search, "quokkaflux zirconblade telemetry", semantic_only=True)
        hybrid = await lane.call(search, "quokkaflux zirconblade telemetry")
        lexical = await lane.call(search, "quokkaflux", lexical_only=True)
        return before, semantic, hybrid, lexical

    try:
        before, semantic, hybrid, lexical = asyncio.run(scenario())
    finally:
        lane.close()
    assert path not in [h.path for h in before.hits]
    assert semantic.hits and semantic.hits[0].path == path, semantic.notices
    assert hybrid.arms == ("lexical", "semantic") and not hybrid.notices
    assert hybrid.hits[0].path == path and lexical.hits[0].path == path


def test_a_lane_searches_the_words_of_a_whoosh_folder_another_process_made_again(embedded_vault):
    """A repair deletes the Whoosh folder and writes it anew under the same name, with the same
    generation number: Whoosh's own ``up_to_date`` says the open searcher is current, and it
    would keep reading the deleted segments. The lane reopens its stores instead. (Words only:
    no new vectors file, whose replacement would make the lane reopen anyway.)"""
    lane = VaultLane(embedded_vault, "query", open_vault=lambda root: Vault(root, embedder=FakeEmbedder()))
    path, text = NEW_NOTE

    async def scenario():
        before = await lane.call(search, "quokkaflux", lexical_only=True)
        (embedded_vault / path).write_text(text, encoding="utf-8")
        await asyncio.to_thread(index_elsewhere, embedded_vault, "repair")
        return before, await lane.call(search, "quokkaflux", lexical_only=True)

    try:
        before, after = asyncio.run(scenario())
    finally:
        lane.close()
    assert not before.hits
    assert [h.path for h in after.hits] == [path]
