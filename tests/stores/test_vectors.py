"""The FAISS vector store and the vector cache (vault_engine/stores/vectors.py), on real FAISS
and SQLite."""

import os

import numpy as np
import pytest

from vault_engine.stores.vectors import WINDOW_BITS, FaissIndex, VectorCache, vector_ids

HALF = 1e-3  # rows are kept in half precision: a cosine is good to about 1e-4


def unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def store(tmp_path) -> FaissIndex:
    index = FaissIndex(tmp_path / "vectors.faiss")
    # section 1 has two windows, sections 2 and 3 one each
    index.index([1, 1, 2, 3], np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1), unit(1, 1, 0)]))
    return index


def test_vector_ids_number_the_windows_of_each_section():
    assert vector_ids([7, 7, 9, 7]).tolist() == [7 << WINDOW_BITS, (7 << WINDOW_BITS) | 1,
                                                 9 << WINDOW_BITS, (7 << WINDOW_BITS) | 2]


def test_search_answers_sections_scored_by_their_best_window(store):
    found = store.search(unit(0, 1, 0), 10)
    assert [i for i, _ in found] == [1, 3, 2]
    assert found[0][1] == pytest.approx(1.0)  # window 1 of section 1, not window 0
    assert found[1][1] == pytest.approx(np.sqrt(0.5), abs=HALF)
    assert store.count() == 4 and store.section_ids() == {1, 2, 3}


def test_a_filtered_search_widens_until_it_finds_allowed_sections(tmp_path):
    store = FaissIndex(tmp_path / "v.faiss")
    near = [unit(1, 0.01 * i, 0) for i in range(30)]  # sections 0..29 crowd the top
    store.index(list(range(31)), np.stack(near + [unit(0, 0, 1)]))
    assert store.search(unit(1, 0, 0), 2, allowed={30}) == [(30, pytest.approx(0.0, abs=1e-6))]
    assert [i for i, _ in store.search(unit(1, 0, 0), 2, allowed={5, 7})] == [5, 7]


def test_search_fills_the_limit_with_sections_even_when_windows_crowd_the_top(tmp_path):
    store = FaissIndex(tmp_path / "v.faiss")
    many = np.stack([unit(1, 0.01 * i, 0) for i in range(20)])
    store.index([1] * 20 + [2], np.vstack([many, unit(0.9, 0, 0.1)]))
    assert [i for i, _ in store.search(unit(1, 0, 0), 2)] == [1, 2]


def test_delete_removes_every_window_of_exact_sections(store):
    assert store.delete([1]) == 2
    assert store.section_ids() == {2, 3}
    assert 1 not in dict(store.search(unit(0, 1, 0), 10))
    assert store.delete([42]) == 0


def test_indexing_a_section_again_replaces_its_old_windows(store):
    store.index([1], unit(0, 0, 1)[None, :])
    assert store.count() == 3
    assert dict(store.search(unit(1, 0, 0), 10))[1] == pytest.approx(0.0, abs=1e-6)


def test_similarities_score_any_listed_section_as_the_search_does(store):
    scores = store.similarities(unit(0, 1, 0), [1, 2, 99])
    assert set(scores) == {1, 2}
    assert scores[1] == pytest.approx(1.0) and scores[2] == pytest.approx(0.0, abs=1e-6)
    query = unit(1, 2, 3)
    assert store.similarities(query, [1, 2, 3]) == pytest.approx(dict(store.search(query, 3)), abs=1e-6)


def test_rows_are_kept_in_half_precision_and_a_full_precision_file_is_converted_at_the_first_write(tmp_path):
    """An index an earlier release wrote (float32 rows) is read as it is, and converted when
    the next change is written; every vector keeps its id and, within half precision, its value."""
    import faiss

    rows = np.stack([unit(1, 2, 3), unit(3, 1, 0), unit(0, 1, 1)])
    old = faiss.IndexIDMap2(faiss.IndexFlatIP(3))
    old.add_with_ids(rows, vector_ids([1, 1, 2]))
    faiss.write_index(old, str(tmp_path / "vectors.faiss"))
    store = FaissIndex(tmp_path / "vectors.faiss")
    before = store.search(unit(1, 1, 1), 2)
    assert [i for i, _ in before] == [1, 2]
    store.index([3], unit(0, 0, 1)[None, :])
    store.save()
    again = FaissIndex(store.path)
    assert isinstance(faiss.downcast_index(again.load().index), faiss.IndexScalarQuantizer)
    assert again.search(unit(1, 1, 1), 2) == [(i, pytest.approx(s, abs=HALF)) for i, s in before]
    assert again.section_ids() == {1, 2, 3}


def test_a_saved_file_holds_two_bytes_a_value(tmp_path):
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((500, 64)).astype(np.float32)
    store = FaissIndex(tmp_path / "vectors.faiss")
    store.index(list(range(500)), rows / np.linalg.norm(rows, axis=1, keepdims=True))
    store.save()
    size = os.path.getsize(store.path)
    assert 500 * 64 * 2 < size < 500 * 64 * 3  # the rows at two bytes (four would be 128,000), ids beside


def test_save_and_load_round_trip(store, tmp_path):
    store.save()
    again = FaissIndex(store.path)
    assert again.section_ids() == {1, 2, 3} and again.dimension == 3
    assert [i for i, _ in again.search(unit(0, 0, 1), 1)] == [2]


def test_save_is_atomic_and_leaves_no_temp_file(store, tmp_path, monkeypatch):
    store.save()
    before = store.path.read_bytes()
    store.index([4], unit(1, 1, 1)[None, :])

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        store.save()
    assert store.path.read_bytes() == before  # a reader still sees the old, whole file
    assert [p.name for p in tmp_path.iterdir()] == ["vectors.faiss"]


def test_a_store_without_a_file_is_empty_and_reset_forgets_everything(store, tmp_path):
    empty = FaissIndex(tmp_path / "none.faiss")
    assert empty.search(unit(1, 0, 0), 5) == [] and empty.count() == 0 and empty.dimension is None
    store.save()
    store.reset()
    assert not store.path.exists() and store.count() == 0


def test_vectors_of_another_dimension_are_refused(store):
    with pytest.raises(ValueError, match="dimension"):
        store.index([5], np.ones((1, 4), dtype=np.float32))


def test_cache_returns_only_the_vectors_of_its_own_model(tmp_path):
    path = tmp_path / "cache.sqlite"
    mine = VectorCache(path, "model-a")
    windows = np.stack([unit(1, 0), unit(0, 1)])
    mine.put_many({"hash-1": windows})
    got = mine.get_many(["hash-1", "hash-2"])
    assert list(got) == ["hash-1"] and np.array_equal(got["hash-1"], windows)
    other = VectorCache(path, "model-b")
    assert other.get_many(["hash-1"]) == {}
    other.close()
    mine.close()


def test_cache_prune_drops_other_models_and_the_oldest_unused_beyond_as_many_as_are_live(tmp_path):
    """Texts no section has stay, up to as many as the live ones, the newest first: an undone
    edit had cost model time again, its old text's vectors dropped at once (qa149)."""
    path = tmp_path / "cache.sqlite"
    old = VectorCache(path, "model-a")
    old.put_many({"h1": unit(1, 0)[None, :]})
    old.close()
    cache = VectorCache(path, "model-b")
    for digest in ("h1", "gone-1", "gone-2", "h2", "gone-3"):  # written in this order
        cache.put_many({digest: unit(1, 0)[None, :]})
    assert cache.prune({"h1", "h2"}) == 2  # model-a's h1 and the oldest unused, gone-1
    assert sorted(cache.get_many(["h1", "h2", "gone-1", "gone-2", "gone-3"])) == ["gone-2", "gone-3", "h1", "h2"]
    assert cache.prune({"h1", "h2", "gone-2", "gone-3"}) == 0 and cache.count() == 4
    cache.close()


def test_a_reader_loads_the_file_again_once_another_writer_replaced_it(store, tmp_path):
    store.save()
    reader = FaissIndex(store.path)
    assert reader.section_ids() == {1, 2, 3}
    writer = FaissIndex(store.path)  # another process: saves by rename
    writer.index([4], np.stack([unit(0, 1, 1)]))
    writer.delete([2])
    writer.save()
    assert reader.section_ids() == {1, 3, 4}
    os.unlink(store.path)
    assert reader.section_ids() == set()


def test_changes_not_saved_yet_are_kept_when_the_file_changes_underneath(store):
    store.save()
    FaissIndex(store.path).save()  # rewritten by someone else, same vectors
    store.index([5], np.stack([unit(1, 0, 1)]))
    os.utime(store.path, ns=(1, 1))
    assert 5 in store.section_ids()  # the writer's own state wins until it saves
