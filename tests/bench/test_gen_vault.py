"""bench/gen_vault.py (and gen_notes.py): a deterministic, realistic synthetic vault."""

from __future__ import annotations

import statistics
from pathlib import Path

import gen_notes
import gen_vault
import pytest

from vault_engine.vault import Vault


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def vault_400(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gen") / "vault"
    gen_vault.generate(root, 400, seed=11)
    return root


def test_same_seed_gives_a_byte_identical_vault(tmp_path):
    gen_vault.generate(tmp_path / "a", 80, seed=5)
    gen_vault.generate(tmp_path / "b", 80, seed=5)
    gen_vault.generate(tmp_path / "c", 80, seed=6)
    a, b, c = (files_of(tmp_path / name) for name in "abc")
    assert a == b
    assert a != c
    assert sum(name.endswith(".md") for name in a) == 80


def test_note_sizes_are_log_normal_around_two_kilobytes(vault_400):
    sizes = [p.stat().st_size for p in vault_400.rglob("*.md")]
    assert len(sizes) == 400
    assert 1500 <= statistics.median(sizes) <= 2800
    assert 2300 <= statistics.mean(sizes) <= 4200
    assert statistics.mean(sizes) > statistics.median(sizes)  # a long right tail
    assert max(sizes) <= gen_vault.MAX_BYTES + 5000  # capped (a block may overshoot a little)


def test_folders_follow_the_vault_conventions(vault_400):
    paths = [str(p.relative_to(vault_400)) for p in vault_400.rglob("*.md")]
    for prefix in ("specs/", "notion/", "memory/"):
        assert any(p.startswith(prefix) for p in paths), prefix
    parts = [p.split("/") for p in paths]
    assert any(len(q) == 4 and q[0] == "projects" and q[2] == "checkpoints" for q in parts)
    assert any(len(q) == 4 and q[0] == "projects" and q[2] == "working" for q in parts)
    assert any(len(q) >= 4 and q[0] not in ("projects", "specs", "notion", "memory") for q in parts)
    assert (vault_400 / ".obsidian" / "app.json").is_file()
    assert list((vault_400 / "attachments").glob("*.png"))


def test_text_carries_every_construct_the_indexer_must_handle(vault_400):
    text = "\n".join(p.read_text(encoding="utf-8") for p in vault_400.rglob("*.md"))
    for construct in ("\n---\n", "\n## ", "\n### ", "\n- ", "\n1. ", "\n```", "> [!", "| ", "%% ",
                      "|", "#^blk", "![[", "[[#", "](", "%20", "- Reason: ", "DEADEND: ", "#deadend"):
        assert construct in text, construct
    assert f"[[{gen_notes.FAKE_LINK} " in text


def test_indexing_it_resolves_links_and_ignores_the_fake_ones(vault_400, tmp_path):
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(vault_400, root)
    with Vault(root) as vault:
        report = vault.index(embed=False)
        links = vault.all_links()
        errors = vault.status()["yaml_errors"]
    assert report.new == 400 and not report.skipped and not errors
    raws = [link.raw for link in links]
    assert len(links) > 400 * 4  # several links per note, like a real vault
    assert not [r for r in raws if gen_notes.FAKE_LINK in r]  # code and comments hold no links
    unresolved = [link.raw for link in links if not link.resolved]
    assert unresolved and len(unresolved) < 0.03 * len(links)
    assert all(gen_notes.UNRESOLVED in raw for raw in unresolved)  # nothing else is left dangling


def test_the_command_line_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    out = tmp_path / "vault"
    assert gen_vault.main(["--notes", "5", "--seed", "2", str(out)]) == 0
    before = files_of(out)
    assert gen_vault.main(["--notes", "5", str(out)]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert files_of(out) == before
