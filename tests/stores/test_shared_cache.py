"""The shared vector cache (vault_engine/stores/shared_cache.py): content-addressed batch
files that many writers add to at once, a file of another model never read, damaged files
skipped, and the model's export shared with its digest."""

import json
import subprocess
import sys

import numpy as np
import pytest

from vault_engine.stores.shared_cache import EXPORTS, SharedVectorCache, fetch_export, key_folder, publish_export

KEY = "model-a#1|window=256|recipe"


def vectors(rows: int, seed: int, dim: int = 8) -> np.ndarray:
    out = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_what_one_writer_stores_another_reads(tmp_path):
    items = {"h1": vectors(1, 1), "h2": vectors(3, 2)}
    SharedVectorCache(tmp_path, KEY).put_many(items)
    reader = SharedVectorCache(tmp_path, KEY)
    found = reader.get_many(["h1", "h2", "absent"])
    assert set(found) == {"h1", "h2"} and reader.read == 2
    assert np.array_equal(found["h2"], items["h2"]) and found["h2"].shape == (3, 8)
    assert reader.count() == 2


def test_every_save_is_a_new_file_and_nothing_is_rewritten(tmp_path):
    cache = SharedVectorCache(tmp_path, KEY)
    first = cache.put_many({"h1": vectors(1, 1)})
    before = first.read_bytes()
    second = cache.put_many({"h1": vectors(1, 1), "h2": vectors(1, 2)})
    assert first != second and first.read_bytes() == before
    assert cache.files() == sorted([first, second]) and cache.put_many({}) is None


def test_a_cache_of_another_model_or_window_is_ignored(tmp_path, caplog):
    SharedVectorCache(tmp_path, "model-b#1|window=256|recipe").put_many({"h1": vectors(1, 1)})
    SharedVectorCache(tmp_path, "model-a#1|window=128|recipe").put_many({"h1": vectors(1, 2)})
    assert SharedVectorCache(tmp_path, KEY).get_many(["h1"]) == {}
    # A file moved into this model's folder still names its own key inside: not trusted.
    other = SharedVectorCache(tmp_path, "model-b#1|window=256|recipe").files()[0]
    mine = key_folder(tmp_path, KEY)
    mine.mkdir()
    other.rename(mine / other.name)
    assert SharedVectorCache(tmp_path, KEY).get_many(["h1"]) == {}
    assert "of another model" in caplog.text


def test_damaged_and_unfinished_files_are_skipped(tmp_path, caplog):
    cache = SharedVectorCache(tmp_path, KEY)
    good = cache.put_many({"h1": vectors(1, 1)})
    (cache.folder / "0-broken.npz").write_bytes(good.read_bytes()[:100])  # a truncated copy
    (cache.folder / f".{good.name}.ab12.tmp").write_bytes(b"a writer at work")
    found = cache.get_many(["h1"])
    assert list(found) == ["h1"] and "cannot read" in caplog.text and "0-broken" in caplog.text
    assert all(not p.name.startswith(".") for p in cache.files())


WRITER = """
import sys
from pathlib import Path
import numpy as np
from vault_engine.stores.shared_cache import SharedVectorCache
cache = SharedVectorCache(Path(sys.argv[1]), sys.argv[2])
seed = int(sys.argv[3])
for batch in range(40):  # overlapping hashes: both writers store h0..h79
    hashes = [f"h{(batch * 2 + i) % 80}" for i in range(6)]
    cache.put_many({h: np.full((1 + int(h[1:]) % 3, 8), int(h[1:]), dtype=np.float32) for h in hashes})
print("done")
"""


def test_two_processes_writing_at_once_never_corrupt_it(tmp_path):
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), KEY, str(seed)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in (1, 2)]
    outs = [w.communicate(timeout=120) for w in writers]
    assert [w.returncode for w in writers] == [0, 0], outs
    cache = SharedVectorCache(tmp_path, KEY)
    assert len(cache.files()) == 80  # one file per batch and writer, none lost or merged
    assert not [p for p in cache.folder.iterdir() if p.name.startswith(".")]  # no leftovers
    found = cache.get_many([f"h{i}" for i in range(80)])
    assert len(found) == 80
    for name, rows in found.items():
        value = int(name[1:])
        assert rows.shape == (1 + value % 3, 8) and (rows == value).all()


def test_an_export_travels_with_its_digest_and_a_changed_one_is_refused(tmp_path):
    shared, local = tmp_path / "shared", tmp_path / "local"
    export = tmp_path / "query-model-abc.onnx"
    export.write_bytes(b"graph bytes" * 1000)
    probes = np.ones((2, 4), dtype=np.float32)
    publish_export(shared, export, lambda: probes)
    seen = []
    assert fetch_export(shared, local / export.name, lambda path, p: seen.append(p) or True)
    assert (local / export.name).read_bytes() == export.read_bytes() and seen == [probes.tolist()]
    publish_export(shared, export, lambda: pytest.fail("published again"))  # there already
    (shared / EXPORTS / export.name).write_bytes(b"tampered")
    (local / export.name).unlink()
    assert not fetch_export(shared, local / export.name, lambda path, p: True)
    assert not (local / export.name).exists() and list(local.iterdir()) == []
    assert not fetch_export(shared, local / "query-model-other.onnx", lambda path, p: True)


def test_an_export_whose_probe_vectors_differ_is_refused(tmp_path):
    export = tmp_path / "query-model-abc.onnx"
    export.write_bytes(b"graph")
    publish_export(tmp_path / "shared", export, lambda: np.zeros((1, 2), dtype=np.float32))
    manifest = json.loads((tmp_path / "shared" / EXPORTS / "query-model-abc.json").read_text())
    assert manifest["name"] == export.name and len(manifest["digest"]) == 32
    assert not fetch_export(tmp_path / "shared", tmp_path / "local" / export.name, lambda path, p: False)


def test_a_copy_the_full_disk_refused_blames_the_disk_not_the_cache(tmp_path, monkeypatch, caplog):
    """"model export .../cache/... not used (No space left on device)" sent the user to the
    cache's healthy file; the space that ran out was the vault's (qa44)."""
    from vault_engine.stores import shared_cache

    export = tmp_path / "query-model-abc.onnx"
    export.write_bytes(b"graph")
    publish_export(tmp_path / "shared", export, lambda: np.zeros((1, 2), dtype=np.float32))

    def full(source, out):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shared_cache, "_copy", full)
    with caplog.at_level("WARNING"):
        assert not fetch_export(tmp_path / "shared", tmp_path / "vault" / export.name, lambda path, p: True)
    assert [r.getMessage() for r in caplog.records] == [
        f"no room to copy the model export into {tmp_path / 'vault'}: the disk is full; free some space"]
    assert (tmp_path / "shared" / EXPORTS / export.name).exists()  # the cache's file is kept


def test_a_fetched_export_is_a_copy_so_damage_to_one_vaults_file_stays_there(tmp_path):
    # hard-linked, a vault's export truncated in place (`: > query-model-*.onnx`) was every
    # vault's and the cache's: every search of every vault fell back to torch (qa13, qa15)
    shared = tmp_path / "shared"
    export = tmp_path / "query-model-abc.onnx"
    export.write_bytes(b"graph bytes" * 1000)
    publish_export(shared, export, lambda: np.ones((1, 2), dtype=np.float32))
    one, two = (tmp_path / name / export.name for name in ("one", "two"))
    assert fetch_export(shared, one, lambda path, p: True) and fetch_export(shared, two, lambda path, p: True)
    assert len({one.stat().st_ino, two.stat().st_ino, (shared / EXPORTS / export.name).stat().st_ino}) == 3
    one.write_bytes(b"")
    assert two.read_bytes() == (shared / EXPORTS / export.name).read_bytes() == export.read_bytes()


def test_a_damaged_shared_export_is_replaced_by_the_next_one_published(tmp_path):
    # the cache's damaged export was refused by every index, and never written again
    shared = tmp_path / "shared"
    export = tmp_path / "query-model-abc.onnx"
    export.write_bytes(b"graph bytes" * 1000)
    publish_export(shared, export, lambda: np.ones((1, 2), dtype=np.float32))
    (shared / EXPORTS / export.name).write_bytes(b"")
    assert not fetch_export(shared, tmp_path / "local" / export.name, lambda path, p: True)
    publish_export(shared, export, lambda: np.ones((1, 2), dtype=np.float32))  # the export made here instead
    assert fetch_export(shared, tmp_path / "local" / export.name, lambda path, p: True)
    assert (tmp_path / "local" / export.name).read_bytes() == export.read_bytes()
