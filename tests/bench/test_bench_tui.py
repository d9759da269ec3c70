"""bench/bench_tui.py: one real round on sample-vault/ times every interaction."""

from __future__ import annotations

import asyncio

import bench_tui

from vault_engine.vault import Vault


def test_one_round_times_start_search_note_and_proposal(sample_vault):
    with Vault(sample_vault) as vault:
        vault.index(embed=False)
    times = asyncio.run(bench_tui.one_round(sample_vault, "sample-vault"))
    assert set(times) == {"start", "search", "note", "proposal"}
    assert len(times["search"]) == len(bench_tui.QUERIES["sample-vault"])
    assert all(t > 0 for values in times.values() for t in values)
    assert min(times["search"]) >= 0.25  # the debounce is part of what a typist waits for
