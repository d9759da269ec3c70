"""The index folder as older releases left it: files directly in ``index/``, and ``current``
a real folder (a query model exported there before the first generation)."""

import os
import shutil

from vault_engine.vault import Vault


def test_an_older_layout_with_a_current_folder_becomes_a_generation(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nApples and pears.\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
    index = tmp_path / ".vault-engine" / "index"
    live = index / os.readlink(index / "current")
    for path in live.iterdir():  # the old layout: the live files directly in index/
        shutil.move(str(path), index / path.name)
    (index / "current").unlink()
    shutil.rmtree(live)
    (index / "current").mkdir()
    (index / "current" / "query-model-test.onnx").write_bytes(b"an export")

    with Vault(tmp_path) as vault:
        report = vault.index(embed=False)
        assert report.new + report.modified + report.unchanged == 1
        assert vault.search("pears", lexical_only=True).hits
    assert (index / "current").is_symlink()
    assert (index / "current" / "query-model-test.onnx").read_bytes() == b"an export"  # carried over
    assert not (index / "ledger.sqlite").exists()  # the old files are gone once the generation is live
