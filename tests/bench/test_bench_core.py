"""bench/bench_core.py: queries, stage timing, the report, and one small end-to-end run."""

from __future__ import annotations

import bench_core
import common
import gen_vault
import pytest


@pytest.fixture(scope="module")
def small_vault(tmp_path_factory):
    root = tmp_path_factory.mktemp("core") / "vault"
    gen_vault.generate(root, 60, seed=4)
    return root


def test_queries_are_varied_deterministic_and_include_misses(small_vault):
    queries = bench_core.build_queries(small_vault, 200)
    assert queries == bench_core.build_queries(small_vault, 200)
    assert len(queries) == 200
    texts = [q.text for q in queries]
    assert len(set(texts)) > 150
    assert any(t.startswith('"') for t in texts)  # phrases
    assert any(" " not in t for t in texts)  # single words
    assert any(q.kind for q in queries)  # filtered by kind
    assert sum(t.startswith("qzxv") for t in texts) == 4  # misses


def test_stage_timers_measure_and_then_restore_the_indexer(small_vault, tmp_path):
    from vault_engine.indexing import indexer
    from vault_engine.stores.lexical import WhooshIndex
    from vault_engine.vault import Vault

    before = (indexer.read_many, WhooshIndex.apply)
    root = common.fresh_copy(small_vault, tmp_path, "v")
    with Vault(root) as vault, bench_core.stage_timers() as stages:
        vault.index(embed=False)
    assert (indexer.read_many, WhooshIndex.apply) == before
    assert stages["read + parse"] > 0
    assert stages["Whoosh: add_document + commit"] > 0


def test_render_marks_each_number_against_its_target():
    figures = bench_core.Figures("vault", 10, 0.1, values={"full_cli": 20.0, "help": 90.0},
                                 stages={"Whoosh: add_document + commit": 3.0},
                                 problems=["something broke"])
    figures.values["full_inprocess"] = 4.0
    text = bench_core.render([figures], "the machine")
    assert "| full index, cold CLI `index --no-embed` | <= 15.00 s | 20.00 s **over** |" in text
    assert "| `vault-engine --help`, median | <= 150.0 ms | 90.0 ms ok |" in text
    assert "3.00 s (75%)" in text and "1.00 s (25%)" in text  # stage, and the rest
    assert "Machine: the machine." in text and "something broke" in text


def test_a_small_run_end_to_end_writes_its_section(small_vault, tmp_path, monkeypatch, capsys):
    results = tmp_path / "RESULTS.md"
    monkeypatch.setattr(common, "RESULTS", results)
    monkeypatch.setattr(bench_core, "CACHE", tmp_path / "cache")
    args = ["--vault", str(small_vault), "--no-corpus", "--queries", "30", "--runs", "2", "--write"]
    assert bench_core.main(args) == 0, capsys.readouterr().out
    text = results.read_text()
    assert "<!-- core -->" in text and "<!-- /core -->" in text
    for _, label, _, _ in bench_core.ROWS:
        row = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
        assert "n/a" not in row
    assert "60 notes" in text and "Problems" not in text
    assert list(small_vault.glob(".vault-engine")) == []  # the source was never indexed


def test_profile_names_the_costs_of_a_serial_index(small_vault, tmp_path):
    text = bench_core.profile(small_vault, tmp_path, top=5)
    assert "| Whoosh |" in text and "markdown-it" in text
    assert "function calls" in text
