"""bench/common.py: percentiles, RESULTS.md sections, cold CLI runs and their memory."""

from __future__ import annotations

import common
import pytest


def test_percentile_interpolates_between_ranks():
    assert common.percentile([4, 1, 3, 2], 50) == 2.5
    assert common.percentile([4, 1, 3, 2], 0) == 1
    assert common.percentile([4, 1, 3, 2], 100) == 4
    assert common.percentile(list(range(101)), 95) == 95
    assert common.median([7.0]) == 7.0
    with pytest.raises(ValueError):
        common.percentile([], 50)


def test_write_section_replaces_only_its_own_markers(tmp_path):
    results = tmp_path / "RESULTS.md"
    common.write_section("core", "## Core\n\nold numbers", results)
    common.write_section("notion", "## Notion\n\nnotion numbers", results)
    common.write_section("core", "## Core\n\nnew numbers\n", results)
    text = results.read_text()
    assert text.startswith("# Benchmark results")
    assert "new numbers" in text and "old numbers" not in text
    assert "notion numbers" in text
    assert text.count("<!-- core -->") == 1 and text.count("<!-- /core -->") == 1
    assert text.index("<!-- core -->") < text.index("<!-- notion -->")  # kept in place


def test_run_cli_reports_exit_code_output_and_time():
    run = common.run_cli(["--help"])
    assert run.returncode == 0
    assert "usage: vault-engine" in run.stdout
    assert 0 < run.seconds < 30
    failed = common.run_cli(["--vault", "/nonexistent/vault/folder", "status"])
    assert failed.returncode == 1
    assert "does not exist" in failed.stderr


def test_peak_rss_is_the_child_not_the_bench_process():
    ballast = bytearray(400 * 1024 * 1024)  # the bench process after an in-process index
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page so it is resident
    run = common.run_cli(["--help"], sample_memory=True)
    del ballast
    assert 5 < run.max_rss_mb < 200
    assert run.tree_peak_mb is not None and 0 < run.tree_peak_mb < 200


def test_fresh_copy_leaves_the_index_behind(tmp_path):
    source = tmp_path / "source"
    (source / ".vault-engine" / "index").mkdir(parents=True)
    (source / "a.md").write_text("# A\n")
    (source / ".vault-engine" / "index" / "ledger.sqlite").write_text("x")
    copy = common.fresh_copy(source, tmp_path, "copy")
    assert (copy / "a.md").read_text() == "# A\n"
    assert not (copy / ".vault-engine").exists()
    assert common.vault_size(copy) == (1, 4)
