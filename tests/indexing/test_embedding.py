"""The embedding phase of ``index`` (vault_engine/indexing/embedding.py): windows, the vector
cache, incremental and exact deletion, repair, a clean Ctrl-C, a model that will not load.
Real SQLite, Whoosh and FAISS; the deterministic FakeEmbedder stands in for the model."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vault_engine.errors import ModelUnavailable
from vault_engine.indexing import embedding
from vault_engine.indexing.embedding import section_prefix, split_windows
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

NOTES = {
    "fruit/apples.md": "# Apples\nApples are crisp and red.\n\n## Seeds\nPips sit in the core.\n",
    "fruit/bananas.md": "# Bananas\nBananas are soft and yellow.\n",
    "cherries.md": "Cherries come in pairs on one stem.\n",
}
LONG = "# Long\n" + " ".join(f"word{i}" for i in range(100)) + "\n"


class Interrupting(FakeEmbedder):
    """Ctrl-C arrives during the ``after``-th call to embed."""

    def __init__(self, after: int, **kw):
        super().__init__(**kw)
        self.after = after

    def embed(self, texts, batch_size=32):
        if len(self.calls) + 1 == self.after:
            self.calls.append(0)
            raise KeyboardInterrupt
        return super().embed(texts, batch_size)


class Broken(FakeEmbedder):
    """A model folder that holds no model: found without loading, like the real one."""

    identity = "broken#1"

    def problem(self):
        return "model folder /models/empty holds no sentence-transformers model"

    def embed(self, texts, batch_size=32):
        raise ModelUnavailable("cannot load the embedding model from /models/empty")


class BrokenWeights(FakeEmbedder):
    """Looks fine on disk, fails when loaded."""

    identity = "broken-weights#1"

    @property
    def dimension(self):
        raise ModelUnavailable("cannot load the embedding model from /models/bad (OSError: truncated)")

    def embed(self, texts, batch_size=32):
        return self.dimension


@pytest.fixture
def fake():
    return FakeEmbedder(dimension=32, max_tokens=24)


@pytest.fixture
def root(make_vault):
    return make_vault(NOTES)


def agrees(v: Vault) -> bool:
    status = v.status()["semantic"]
    return status["agrees"] and status["coverage"] == 1.0


# -- windows (pure) -------------------------------------------------------------------------

def test_prefix_is_title_and_heading_path_without_repeating_the_title():
    assert section_prefix("Apples", ("Apples", "Seeds")) == "Apples > Seeds"
    assert section_prefix("apples", ()) == "apples"
    assert section_prefix("Fruit notes", ("Apples", "Seeds")) == "Fruit notes > Apples > Seeds"


def spans(text):
    return FakeEmbedder().token_spans([text])[0]


def test_a_short_section_is_one_window_with_its_prefix():
    assert split_windows("T > H", "one two three", spans("one two three"), 10) == ["T > H\none two three"]
    assert split_windows("T > H", "", [], 10) == ["T > H"]


def test_a_long_section_is_cut_into_overlapping_windows_that_each_carry_the_prefix():
    body = " ".join(f"w{i}" for i in range(20))
    windows = split_windows("T", body, spans(body), 8)
    assert len(windows) == 3 and all(w.startswith("T\n") for w in windows)
    assert windows[0] == "T\n" + " ".join(f"w{i}" for i in range(8))
    assert windows[1].split("\n")[1].split()[0] == "w7"  # one token of overlap (an eighth of 8)
    assert windows[-1].endswith("w19")


def test_windows_stop_at_the_cap():
    body = " ".join(f"w{i}" for i in range(100))
    assert len(split_windows("T", body, spans(body), 4, max_windows=5)) == 5


# -- the phase through Vault.index ------------------------------------------------------------

def test_index_embeds_every_section_and_the_stores_agree(root, fake):
    progress = []
    with Vault(root, embedder=fake) as v:
        report = v.index(progress=lambda stage, done, total: progress.append((stage, done, total)))
        assert report.embedded == report.sections == 4
        assert v.vectors.section_ids() == {r[0] for r in v.ledger.db.execute("SELECT id FROM sections")}
        assert agrees(v)
    assert progress[-1] == ("embed:fake", 4, 4)
    stages = [stage for stage, _, _ in progress]
    assert stages.index("model") < stages.index("embed:fake")  # the export is said before it embeds
    assert ("model", 1, 1) in progress
    assert "apples > Seeds\nPips sit in the core." in fake.texts  # title: the file name


def test_no_embed_builds_words_only(root, fake):
    with Vault(root, embedder=fake) as v:
        assert v.index(embed=False).embedded == 0
        assert fake.calls == [] and v.status()["semantic"]["coverage"] == 0.0
        assert v.search("pairs stem").arms == ("lexical",)


def test_only_new_and_changed_sections_are_embedded_and_deleted_ones_leave_faiss(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
        before = len(fake.texts)
        (root / "fruit/apples.md").write_text("# Apples\nApples are crisp and green.\n\n## Seeds\nPips sit in the core.\n")
        (root / "cherries.md").unlink()
        (root / "dates.md").write_text("# Dates\nDates are sweet.\n")
        report = v.index()
        new_texts = fake.texts[before:]
        assert sorted(new_texts) == ["apples\nApples are crisp and green.", "dates\nDates are sweet."]
        assert report.embedded == 3  # the unchanged Seeds section came back from the cache
        assert agrees(v) and v.vectors.count() == 4
        assert report.notices == ()  # deleting vectors of edited sections is no repair


def test_words_only_runs_still_delete_the_vectors_of_deleted_sections(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
        (root / "cherries.md").unlink()
        v.index(embed=False)
        assert v.vectors.section_ids() == v.ledger.embedded_ids() and len(v.vectors.section_ids()) == 3
        assert v.status()["semantic"]["agrees"]
    with Vault(root, embedder=Broken()) as v:
        (root / "fruit/bananas.md").unlink()
        v.index()
        assert len(v.vectors.section_ids()) == 2 and v.status()["semantic"]["agrees"]


def test_rebuild_and_moves_take_vectors_from_the_cache(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
        calls = len(fake.calls)
        assert v.index(rebuild=True).embedded == 4
        (root / "fruit/bananas.md").rename(root / "bananas.md")
        assert v.index().moved == 1
        assert len(fake.calls) == calls and agrees(v)


def test_a_long_section_has_several_vectors_and_one_hit(make_vault, fake):
    with Vault(make_vault({"long.md": LONG}), embedder=fake) as v:
        v.index()
        assert v.vectors.count() > 1 and len(v.vectors.section_ids()) == 1
        query = fake.embed(["word90 word91 word92"])[0]
        assert [i for i, _ in v.vectors.search(query, 5)] == list(v.vectors.section_ids())


def test_a_reused_section_id_is_embedded_again(make_vault, fake):
    """SQLite may give a new section the id of a deleted one; its old vector must not stay."""
    root = make_vault({"a.md": "# A\nalpha\n", "z.md": "# Z\nzulu\n"})
    with Vault(root, embedder=fake) as v:
        v.index()
        (root / "z.md").write_text("# Z\nyankee\n")
        v.index()
        (sid,) = [r[0] for r in v.ledger.db.execute(
            "SELECT s.id FROM sections s JOIN notes n ON n.id=s.note_id WHERE n.path='z.md'")]
        expected = fake.embed(["z\nyankee"])[0]
        assert v.vectors.similarities(expected, [sid])[sid] == pytest.approx(1.0, abs=1e-3)  # half precision


def test_a_deleted_vectors_file_is_repaired_from_the_cache(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
        calls = len(fake.calls)
    (root / ".vault-engine/index/current/vectors.faiss").unlink()
    with Vault(root, embedder=fake) as v:
        assert not v.status()["semantic"]["agrees"]
        report = v.index()
        assert any("disagreed" in n for n in report.notices)
        assert len(fake.calls) == calls and agrees(v)


def test_vectors_the_ledger_does_not_know_are_deleted(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
        v.vectors.index([999], np.ones((1, 32), dtype=np.float32) / np.sqrt(32))
        v.vectors.save()
        assert not v.status()["semantic"]["agrees"]
        assert "; DISAGREES with the ledger: run `vault-engine index`;" in v.status()["semantic"]["summary"]
        # a running watcher's batch: the words are in, the vectors a moment behind, and it brings
        # them in line itself: "run `vault-engine index`" had been said meanwhile (qa192)
        said = embedding.embedding_status(v.ledger, v.vectors, True, None, embedding_by="the running watcher")
        assert not said["agrees"] and "; the vectors are a batch behind the ledger: the running watcher brings " \
            "them in line, nothing to run" in said["summary"] and "DISAGREES" not in said["summary"]
        v.index()
        assert 999 not in v.vectors.section_ids() and agrees(v)


def test_a_new_model_embeds_everything_again(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
    other = FakeEmbedder(dimension=16, max_tokens=24)
    other.identity = "fake-embedder#2"
    with Vault(root, embedder=other) as v:
        # before the index: status says what search does, that the vectors are not this model's
        # (it had said "100%" beside a search reading words only, qa99)
        semantic = v.status()["semantic"]
        assert semantic["outdated"] == "the embedding model changed" and semantic["coverage"] == 0.0
        assert semantic["summary"].startswith("0/4 sections embedded (0%)") and "OUTDATED: the embedding model " \
            "changed, so no vector serves a search (it reads words only) until `vault-engine index` embeds again" \
            in semantic["summary"]
        # ...and search names the change, as status and index do (qa101: "another model or window")
        assert "semantic arm off: the embedding model changed: run `vault-engine index`" in v.search("apples").notices[0]
        report = v.index()
        assert report.embedded == 4 and len(other.texts) == 4
        assert "the embedding model changed: every section is embedded again" in report.notices
        assert v.vectors.dimension == 16 and agrees(v) and v.status()["semantic"]["outdated"] is None


def test_what_changed_in_the_making_of_the_vectors_is_named():
    """An upgrade that prepares the text otherwise had said "the embedding model changed" of
    the same model (qa99)."""
    from vault_engine.indexing.embedding import changed_part

    assert changed_part("m#1|window=256|recipe;v4", "m#1|window=256|recipe;v5") == \
        "this release prepares notes for the model otherwise (recipe;v4 → recipe;v5)"
    assert changed_part("m#1|window=128|r", "m#1|window=256|r") == "the model's window changed"
    assert changed_part("m#1|window=256|r", "m#2|window=256|r") == "the embedding model changed"


def test_the_model_reads_no_link_target_and_the_words_index_keeps_them(make_vault, fake):
    note = "# Kafka\nRead [the broker guide](https://kafka.apache.org/documentation/#brokerconfigs) first.\n"
    with Vault(make_vault({"kafka.md": note}), embedder=fake) as v:
        v.index()
        (text,) = fake.texts
        assert "the broker guide" in text and "apache" not in text and "https" not in text
        hits = v.search("brokerconfigs documentation", lexical_only=True).hits
        assert [h.path for h in hits] == ["kafka.md"]


def test_a_new_text_recipe_embeds_everything_again(root, fake, monkeypatch):
    from vault_engine.stores import vector_state

    with Vault(root, embedder=fake) as v:
        v.index()
    monkeypatch.setattr(vector_state, "RECIPE", vector_state.RECIPE + "-next")
    with Vault(root, embedder=fake) as v:
        before = len(fake.texts)
        assert v.index().embedded == 4 and len(fake.texts) == before + 4 and agrees(v)


def test_ctrl_c_keeps_what_was_embedded_and_the_next_index_continues(root, monkeypatch):
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 1)  # one window per call: a stop mid-way
    first = Interrupting(after=3, dimension=32, max_tokens=24)
    with Vault(root, embedder=first) as v:
        report = v.index()
        assert report.embedded == 2
        assert any("embedding stopped" in n and "2 to go" in n for n in report.notices)
        status = v.status()["semantic"]
        assert status["coverage"] == 0.5 and status["agrees"]
        assert v.search("crisp apples").semantic_coverage == 0.5
    second = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(root, embedder=second) as v:
        assert v.index().embedded == 2 and len(second.texts) == 2 and agrees(v)


def test_ctrl_c_during_a_rebuild_keeps_the_index_in_use_and_the_vectors_it_made(root, monkeypatch):
    """A rebuild stopped while embedding had gone live half embedded, where the index before it
    was whole (qa97): that one stays, and the next rebuild takes the vectors made from its cache."""
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 1)  # one window per call: a stop mid-way
    with Vault(root, embedder=FakeEmbedder(dimension=32, max_tokens=24)) as v:
        v.index()
        generation = v.config.index_dir.resolve()
    (generation / "vector_cache.sqlite").unlink()  # every vector to make again
    stopped = Interrupting(after=3, dimension=32, max_tokens=24)
    with Vault(root, embedder=stopped) as v:
        with pytest.raises(KeyboardInterrupt):
            v.index(rebuild=True)
        assert v.config.index_dir.resolve() == generation and v.status()["semantic"]["coverage"] == 1.0
        assert len(list(v.config.index_root.glob("g*"))) == 1  # the stopped build is gone
    again = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(root, embedder=again) as v:
        assert v.index(rebuild=True).embedded == 4 and len(again.texts) == 2 and agrees(v)  # 2 from the cache


@pytest.mark.parametrize("threads", [1, 2])
def test_an_encode_call_holds_a_token_budget_per_thread_whatever_the_windows_length(make_vault, monkeypatch, threads):
    # 64 windows a call took 2.7 s when they were long, and the watcher's queries waited
    # for it (qa23 #2): a call is cut by tokens, so short windows still go many at a time
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 48)
    long = "# Long\n" + " ".join(f"word{i}" for i in range(400)) + "\n"
    notes = {"long.md": long, **{f"short{i}.md": f"# S{i}\nword{i}\n" for i in range(12)}}
    fake = FakeEmbedder(dimension=32, max_tokens=24)
    fake.threads = threads
    with Vault(make_vault(notes), embedder=fake) as v:
        v.index()
        assert agrees(v)
    ends = np.cumsum([0, *fake.calls])
    tokens = [sum(len(t.split()) for t in fake.texts[a:b]) for a, b in zip(ends, ends[1:])]
    assert max(tokens) <= 48 * threads
    assert max(fake.calls) >= 6 * threads  # the short windows: many a call
    assert len(fake.calls) > 5  # the long note's windows: a few a call


def test_should_stop_gives_way_between_chunks_and_keeps_the_work(root, fake, monkeypatch):
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 1)
    with Vault(root, embedder=fake) as v:
        v.index(embed=False)
        asked = []
        report = v.embed_pending(should_stop=lambda: asked.append(1) or len(asked) >= 2)
        assert report.embedded == 2 and v.status()["semantic"]["coverage"] == 0.5
        assert v.embed_pending().embedded == 2 and agrees(v)


def test_a_long_section_finishes_though_every_slice_gives_way_after_one_chunk(make_vault, fake, monkeypatch):
    # under a steady stream of queries the watcher's slices each gave way after one chunk, and
    # a section of many windows, never encoded whole within one slice, never finished (qa14)
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 2 * fake.max_tokens)  # two windows a call
    with Vault(make_vault({"long.md": LONG}), embedder=fake) as v:
        v.index(embed=False)
        slices = 0
        while v.status()["semantic"]["coverage"] < 1.0 and slices < 50:
            v.embed_pending(should_stop=lambda: True)  # a query always waiting
            slices += 1
        assert v.status()["semantic"]["coverage"] == 1.0 and agrees(v)
        assert len(fake.texts) == len(set(fake.texts))  # no window encoded twice
        assert slices > 1


def test_a_slice_that_begins_the_round_again_does_not_split_its_sections_again(make_vault, fake, monkeypatch):
    # the watcher's every slice began the round by splitting its sections into windows:
    # 0.48 s of each 0.86 s slice on a 1 MB note, which a waiting query waited for too
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 2 * fake.max_tokens)
    tokenized = []
    spans = fake.token_spans
    monkeypatch.setattr(fake, "token_spans", lambda texts: tokenized.extend(texts) or spans(texts))
    with Vault(make_vault({"long.md": LONG}), embedder=fake) as v:
        v.index(embed=False)
        slices = 0
        while v.status()["semantic"]["coverage"] < 1.0 and slices < 50:
            v.embed_pending(should_stop=lambda: True)
            slices += 1
        assert slices > 1 and agrees(v)
    assert sum("word99" in text for text in tokenized) == 1


def test_without_a_watcher_status_and_search_advise_index(root, fake, monkeypatch):
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 1)
    with Vault(root, embedder=fake) as v:
        v.index(embed=False)
        (notice,) = v.search("crisp apples").notices
        assert "no section has vectors yet: run `vault-engine index`" in notice
        asked = []
        v.embed_pending(should_stop=lambda: asked.append(1) or len(asked) >= 2)
        assert "run `vault-engine index` to embed the rest" in v.status()["semantic"]["summary"]


def test_a_running_watcher_is_embedding_so_nothing_is_to_run(root, fake, live_watcher, monkeypatch):
    monkeypatch.setattr(embedding, "ENCODE_CHUNK_TOKENS", 1)
    live_watcher(root)
    with Vault(root, embedder=fake) as v:
        v.index(embed=False)
        (notice,) = v.search("crisp apples").notices
        assert "the running watcher is embedding them (4 sections to go)" in notice
        assert "vault-engine index" not in notice
        asked = []
        v.embed_pending(should_stop=lambda: asked.append(1) or len(asked) >= 2)  # the watcher, halfway
        summary = v.status()["semantic"]["summary"]
        assert "the running watcher is embedding the rest (2 to go): nothing to run" in summary
        assert "vault-engine index" not in summary


def test_a_model_that_will_not_load_leaves_a_lexical_index_and_says_so(root):
    with Vault(root, embedder=Broken()) as v:
        report = v.index()
        assert report.sections == 4 and report.embedded == 0
        assert [n for n in report.notices if "lexical-only" in n] and len(report.notices) == 1
        status = v.status()["semantic"]
        assert "holds no" in status["error"] and "unavailable" in status["summary"]
        result = v.search("crisp apples")
        assert result.arms == ("lexical",) and result.hits
        assert len(result.notices) == 1 and "searching by words only" in result.notices[0]


class Prefetching(FakeEmbedder):
    """Counts the background loads and exports asked for; ``fails_at_query``: the model fails
    to load when a query is embedded (a damaged export whose fallback will not load either)."""

    def __init__(self, fails_at_query: bool = False, **kw):
        super().__init__(**kw)
        self.prefetched = 0
        self.exports_begun = 0
        self.fails_at_query = fails_at_query

    def prefetch_queries(self):
        self.prefetched += 1

    def begin_export(self, shared=None):
        self.exports_begun += 1

    def embed_queries(self, texts):
        if self.fails_at_query:
            raise ModelUnavailable("cannot load the embedding model from /models/bad (OSError: truncated)")
        return super().embed_queries(texts)


def test_the_model_is_loaded_ahead_only_where_it_will_be_used(root):
    embedder = Prefetching(dimension=32, max_tokens=24)
    with Vault(root, embedder=embedder) as v:
        v.index()  # a first index embeds after its words go live: the model is readied meanwhile
        asked, exports = [embedder.prefetched], [embedder.exports_begun]
        working = root / "projects/orchard/working"
        working.mkdir(parents=True)
        (working / "jam.md").write_text("# Jam\nDEADEND: cherry jam -- too sweet\n")
        v.index()  # a changed note: the model loads while its words are indexed
        asked.append(embedder.prefetched)
        exports.append(embedder.exports_begun)
        v.index()  # nothing changed: no load; the export is asked for (made if it is missing)
        exports.append(embedder.exports_begun)
        (root / "fruit/bananas.md").write_text("# Bananas\nBananas are soft.\n")
        v.index(embed=False)  # words only: neither
        asked.append(embedder.prefetched)
        exports.append(embedder.exports_begun)
        v.search("crisp apples", lexical_only=True)
        asked.append(embedder.prefetched)
        v.search("crisp apples")
        asked.append(embedder.prefetched)
        v.deadend_check("cherry jam", lexical_only=True)
        asked.append(embedder.prefetched)
        v.deadend_check("cherry jam")
        asked.append(embedder.prefetched)
        v.index(rebuild=True)  # a rebuild embeds in its new generation: readied there too
        asked.append(embedder.prefetched)
        exports.append(embedder.exports_begun)
    assert asked == [1, 2, 2, 2, 3, 3, 4, 5]
    assert exports == [1, 2, 3, 3, 4]


def test_no_dead_end_no_model_load_for_a_check(root):
    embedder = Prefetching(dimension=32, max_tokens=24)
    with Vault(root, embedder=embedder) as v:
        v.index()
        before = embedder.prefetched
        check = v.deadend_check("cherry jam")
        assert embedder.prefetched == before and check.status == "miss"


def test_a_model_that_fails_at_the_query_leaves_the_words_to_answer(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
    with Vault(root, embedder=Prefetching(fails_at_query=True, dimension=32, max_tokens=24)) as v:
        result = v.search("crisp apples")
        assert result.arms == ("lexical",) and result.hits[0].path == "fruit/apples.md"
        assert len(result.notices) == 1 and "searching by words only" in result.notices[0]
        assert "/models/bad" in result.notices[0]
        with pytest.raises(ModelUnavailable, match="/models/bad"):
            v.search("crisp apples", semantic_only=True)


def test_a_new_model_that_fails_to_load_keeps_the_old_vectors(root, fake):
    with Vault(root, embedder=fake) as v:
        v.index()
    with Vault(root, embedder=BrokenWeights()) as v:
        report = v.index()
        assert any("truncated" in n for n in report.notices)
        assert v.vectors.count() == 4  # still the fake model's, usable once it is configured back
    with Vault(root, embedder=fake) as v:
        assert v.index().notices == () and agrees(v)


class NoExport(FakeEmbedder):
    """A model whose query export fails (the real export is tested in
    tests/stores/test_query_encoder.py); counts the tries."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.exports = 0

    def save_query_model(self, shared=None):
        self.exports += 1
        return "modules ['Transformer', 'Pooling', 'Dense'] are not transformer + pooling"

    def has_query_model(self):
        return False


def test_a_failed_query_export_is_said_once_and_not_tried_at_every_index(root, monkeypatch):
    model = NoExport(dimension=32, max_tokens=24)
    with Vault(root, embedder=model) as v:
        report = v.index()
        assert report.embedded == 4 and model.exports == 1
        assert [n for n in report.notices if "ONNX export failed" in n and "Dense" in n]
        status = v.status()["semantic"]
        assert status["query_model"] is False and "ONNX export failed (modules" in status["summary"]
        (root / "cherries.md").write_text("Cherries and plums.\n")
        again = v.index()
        assert again.embedded == 1 and again.notices == () and model.exports == 1
        monkeypatch.setattr(embedding, "_export_key", lambda embedder: "onnx=99.0")  # upgraded
        v.index()
        assert model.exports == 2


def test_an_export_that_failed_for_a_full_disk_is_tried_again_at_the_next_index(root):
    # remembered as failed, it was never made again once there was room: every query loaded torch
    class FullDisk(NoExport):
        def save_query_model(self, shared=None):
            self.exports += 1
            return "the export process failed (OSError: [Errno 28] No space left on device)"

    model = FullDisk(dimension=32, max_tokens=24)
    with Vault(root, embedder=model) as v:
        assert any("No space left" in n for n in v.index().notices) and model.exports == 1
        (root / "cherries.md").write_text("Cherries and plums.\n")
        v.index()
        assert model.exports == 2


def test_a_words_only_index_makes_no_query_export(root):
    model = NoExport(dimension=32, max_tokens=24)
    with Vault(root, embedder=model) as v:
        v.index(embed=False)
        assert model.exports == 0


def test_the_cache_keeps_texts_no_section_has_up_to_as_many_as_the_live_ones(root, fake):
    """An undone edit finds its old text's vectors (qa149); what goes beyond that, oldest first."""
    from vault_engine.layout import VECTOR_CACHE_FILE
    from vault_engine.stores.vector_state import model_key
    from vault_engine.stores.vectors import VectorCache

    with Vault(root, embedder=fake) as v:
        v.index()
        for n in range(12):
            (root / f"fruit-{n}.md").write_text(f"Fruit number {n} is ripe in week {n}.\n")
        v.index()
        for n in range(12):
            (root / f"fruit-{n}.md").unlink()
        v.index()
        live = v.ledger.section_hashes()
        cache = VectorCache(v.config.index_dir / VECTOR_CACHE_FILE, model_key(fake))
        assert cache.count() == 2 * len(live) and set(cache.get_many(live)) == live
        cache.close()


RSS_PROBE = """
import os
from vault_engine.indexing.embedding import release_freed_memory

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

blocks = [bytearray(100_000) for _ in range(3000)]  # heap blocks, under glibc's mmap threshold
del blocks[::2]  # every other one freed: the heap cannot shrink from its top
before = rss_mb()
release_freed_memory()
print(before - rss_mb())
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads Linux /proc")
def test_freed_heap_pages_go_back_to_the_kernel():
    """What keeps a long embedding run's memory flat: without it the ~150 MB freed here stay
    resident (bench: a 10,000-note embedding index peaked at 1,731 MB untrimmed)."""
    done = subprocess.run([sys.executable, "-c", RSS_PROBE], capture_output=True, text=True, check=True)
    assert float(done.stdout) > 100  # MB handed back


# -- the shared vector cache (stores/shared_cache.py) -----------------------------------------

def clone(make_vault, tmp_path, name):
    """Another checkout of the same notes, as a teammate's machine has it."""
    target = tmp_path / name
    target.mkdir()
    for rel, text in NOTES.items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(text)
    return target


def test_a_second_clone_with_the_shared_cache_embeds_nothing(root, tmp_path, make_vault):
    shared = tmp_path / "team-cache"
    shared.mkdir()  # the team's share: made by the team, never by index
    first = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(root, embedder=first) as v:
        assert v.index(vector_cache=shared).embedded == 4 and len(first.texts) == 4
    second = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(clone(make_vault, tmp_path, "clone"), embedder=second) as v:
        report = v.index(vector_cache=shared)
        assert report.embedded == 4 and second.texts == [] and report.notices == ()
        assert agrees(v)
        status = v.status()["semantic"]
        assert status["last_run"] == {"computed": 0, "cache": 0, "shared_cache": 4, "runtime": None}
        assert "4 from the shared cache" in status["summary"]
        assert v.index(rebuild=True).embedded == 4 and second.texts == []  # now in the local cache too


def test_what_one_clone_computes_the_next_one_reuses_and_only_new_text_is_embedded(root, tmp_path, make_vault):
    shared = tmp_path / "team-cache"
    shared.mkdir()  # the team's share: made by the team, never by index
    with Vault(root, embedder=FakeEmbedder(dimension=32, max_tokens=24)) as v:
        v.index(vector_cache=shared)
    other = clone(make_vault, tmp_path, "clone")
    (other / "dates.md").write_text("# Dates\nDates are sweet.\n")
    model = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(other, embedder=model) as v:
        assert v.index(vector_cache=shared).embedded == 5
        assert model.texts == ["dates\nDates are sweet."]
        assert v.status()["semantic"]["last_run"]["computed"] == 1


def test_the_shared_cache_of_another_model_is_not_used(root, tmp_path, make_vault):
    shared = tmp_path / "team-cache"
    shared.mkdir()  # the team's share: made by the team, never by index
    with Vault(root, embedder=FakeEmbedder(dimension=32, max_tokens=24)) as v:
        v.index(vector_cache=shared)
    other = FakeEmbedder(dimension=32, max_tokens=24)
    other.identity = "fake-embedder#2"
    with Vault(clone(make_vault, tmp_path, "clone"), embedder=other) as v:
        assert v.index(vector_cache=shared).embedded == 4 and len(other.texts) == 4
    narrower = FakeEmbedder(dimension=32, max_tokens=16)  # another window: other vectors
    with Vault(clone(make_vault, tmp_path, "clone2"), embedder=narrower) as v:
        assert v.index(vector_cache=shared).embedded == 4 and len(narrower.texts) == 4


def test_the_config_names_the_shared_cache_relative_to_the_vault(make_vault, fake):
    root = make_vault(NOTES, config='[model]\nvector_cache = "../team-cache"\n')
    (root.parent / "team-cache").mkdir()
    with Vault(root, embedder=fake) as v:
        v.index()
        assert v.status()["semantic"]["vector_cache"] == str(root / "../team-cache")
    assert list((root.parent / "team-cache").rglob("*.npz"))


def test_an_unwritable_shared_cache_is_a_notice_and_the_index_still_embeds(root, tmp_path, fake):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with Vault(root, embedder=fake) as v:
        report = v.index(vector_cache=blocked / "cache")
        assert report.embedded == 4 and agrees(v)
        assert [n for n in report.notices if "shared vector cache" in n and "does not exist" in n]
        assert f"the shared vector cache {blocked} is a file, not a folder: this run used the local cache only" \
            in v.index(vector_cache=blocked, rebuild=True).notices


def test_the_cli_takes_the_shared_cache_folder(root, tmp_path, cli, monkeypatch):
    monkeypatch.setattr(Vault, "embedder", lambda self: self._embedder or setattr(
        self, "_embedder", FakeEmbedder(dimension=32, max_tokens=24)) or self._embedder)
    (tmp_path / "team").mkdir()
    done = cli("--vault", root, "index", "--vector-cache", tmp_path / "team", "--json")
    assert done.code == 0 and done.json["embedded"] == 4
    assert len(list((tmp_path / "team").rglob("*.npz"))) == 1
    status = cli("--vault", root, "status", "--json").json["semantic"]
    assert status["last_run"]["computed"] == 4 and status["vector_cache"] is None  # only for that run


def test_checkpoint_new_embeds_the_checkpoint_it_writes(root, fake):
    from vault_engine.memory.checkpoints import CheckpointDraft

    with Vault(root, embedder=fake) as v:
        v.index()
        written = v.checkpoint_new(CheckpointDraft("p", "agent-1", summary="Tried the cherry stem idea."),
                                   now=1_790_000_000.0)
        assert written.notices == () and agrees(v)
        assert any("cherry stem idea" in t for t in fake.texts)


def test_checkpoint_new_leaves_a_words_only_vault_to_index(root, fake):
    from vault_engine.memory.checkpoints import CheckpointDraft

    with Vault(root, embedder=fake) as v:
        v.index(embed=False)
        v.checkpoint_new(CheckpointDraft("p", "agent-1", summary="x"), now=1_790_000_000.0)
        assert fake.texts == []


def test_vectors_made_before_the_shared_cache_was_set_reach_it_at_a_rebuild(root, tmp_path, make_vault):
    shared = tmp_path / "team-cache"
    shared.mkdir()  # the team's share: made by the team, never by index
    with Vault(root, embedder=FakeEmbedder(dimension=32, max_tokens=24)) as v:
        v.index()  # no shared cache yet
        assert v.index(rebuild=True, vector_cache=shared).embedded == 4
        assert v.index(rebuild=True, vector_cache=shared).embedded == 4  # offered once, not again
    assert len(list(shared.rglob("*.npz"))) == 1
    model = FakeEmbedder(dimension=32, max_tokens=24)
    with Vault(clone(make_vault, tmp_path, "clone"), embedder=model) as v:
        assert v.index(vector_cache=shared).embedded == 4 and model.texts == []


def test_a_first_index_is_searchable_by_words_before_it_embeds(root, fake, monkeypatch):
    found_while_embedding = []
    embed = Vault._embed

    def embed_and_look(self, progress, embed_sections=True, **kw):
        if embed_sections:  # another process searching while this one embeds
            with Vault(root) as other:
                found_while_embedding.append([h.path for h in other.search("crisp", lexical_only=True).hits])
        return embed(self, progress, embed_sections, **kw)

    monkeypatch.setattr(Vault, "_embed", embed_and_look)
    with Vault(root, embedder=fake) as v:
        report = v.index()
        assert report.embedded == 4 and agrees(v)
    assert found_while_embedding == [["fruit/apples.md"]]


def test_last_index_is_when_the_run_finished_its_embedding_too(root, fake, monkeypatch):
    import time

    slow = fake.embed

    def embed_slowly(texts, batch_size=32):
        time.sleep(0.3)
        return slow(texts, batch_size)

    monkeypatch.setattr(fake, "embed", embed_slowly)
    with Vault(root, embedder=fake) as v:
        started = time.time()
        assert v.index().embedded
        assert float(v.ledger.get_meta("last_index")) >= started + 0.3


def test_a_shared_cache_folder_that_does_not_exist_is_one_notice_never_made(root, tmp_path, fake):
    """A share not mounted (or a typo) became a new local folder tree, silently never shared."""
    missing = tmp_path / "not-mounted" / "team-cache"
    with Vault(root, embedder=fake) as v:
        report = v.index(vector_cache=missing)
    assert report.embedded == 4 and not missing.parent.exists()
    assert report.notices == (f"the shared vector cache folder {missing} does not exist (a share not mounted, "
                              "or a typo?): create it to start one; this run used the local cache only",)


# A note with every construct parsing/readable.py reads, and the digest of the windows the
# model reads of it, per RECIPE. When the digest changes, what the model reads changed: bump
# RECIPE (stores/vector_state.py) and record the new digest here, or vectors of the old text
# are reused for the new. Three changes to readable.py had not: a vault indexed before them
# kept one window of obsidian-tasks-docs' 1,344 that a fresh index splits in two.
EVERY_CONSTRUCT = """---
tags: [ops]
---
# Backups

Copy the vault to a [second disk](https://example.org/disk) every hour, see [[Restore#Steps|restore]].
A ==highlighted== claim with a footnote[^1] and an id. ^block-1

> [!note] Callout title
> Quoted **bold** and _emphasis_ and `code span`.

%% a hidden comment %%
%%
drawing data AAAABBBB
%%

![[diagram.png]]
<div class="x">html words</div>
Copy <source> to data/<project>/ with <b>care</b>.
Read this <!-- not this --> sentence, [the docs][docs] and a [link that
wraps](https://example.org/wrap).

[docs]: https://example.org/docs
<!--
A template's instructions, with an example:
```
not a fence
```
-->

| col | other |
|-----|-------|
| a   | b     |

~~~python
def keep(): return "```"
~~~

- [ ] a task 📅 2026-01-01
---
[^1]: The footnote text.
"""
WINDOW_DIGESTS = {"title>path|readable text;overlap=1/8;v9": "fa690e9ae1bd1c19"}


def test_what_the_model_reads_changes_only_with_the_recipe(make_vault, fake):
    import hashlib

    from vault_engine.stores.vector_state import RECIPE

    with Vault(make_vault({"backups.md": EVERY_CONSTRUCT}), embedder=fake) as v:
        v.index()
    digest = hashlib.sha256("\n\0".join(sorted(fake.texts)).encode()).hexdigest()[:16]
    assert WINDOW_DIGESTS.get(RECIPE) == digest, (
        f"the windows the model reads changed (digest {digest}): bump RECIPE in "
        "vault_engine/stores/vector_state.py and record the digest under it here")


def test_status_and_search_during_another_processs_index_say_it_is_embedding_not_to_run_index(make_vault):
    """While a first `index` embedded, after its words went live, `status` and a hybrid
    search said "run `vault-engine index`", a second index to compete with it (qa71)."""
    import fcntl

    from vault_engine.layout import STATE_DIR, WRITE_LOCK
    from vault_engine.stores.embedder import FakeEmbedder
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "# A\nalpha words\n", "b.md": "# B\nbeta words\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index(embed=False)
        fd = os.open(root / STATE_DIR / WRITE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            os.pwrite(fd, b"4242\n", 0)
            fcntl.flock(fd, fcntl.LOCK_EX)  # what the other process's index holds while it embeds
            who = "another vault-engine process (pid 4242)"
            summary = v.status()["semantic"]["summary"]
            assert f"; {who} is embedding the rest (2 to go): nothing to run" in summary, summary
            notices = v.search("alpha").notices
            assert f"semantic arm off: no section has vectors yet: {who} is embedding them (2 sections to go); " \
                   "nothing to run, ask again in a moment; searching by words only" in notices, notices
        finally:
            os.close(fd)
        assert "run `vault-engine index` to embed the rest" in v.status()["semantic"]["summary"]  # nobody at work


def test_index_by_hand_leaves_the_embedding_to_a_running_watcher(make_vault, monkeypatch):
    """A hand `index` beside a running watcher embedded what the watcher was embedding, and
    held the writer lock for minutes: the watcher's saves and every search waited (qa49)."""
    from vault_engine.stores.embedder import FakeEmbedder
    from vault_engine.vault import Vault

    root = make_vault({"a.md": "# A\nalpha words\n", "b.md": "# B\nbeta words\n"})
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        monkeypatch.setattr(Vault, "_watcher_embeds", lambda self: True)
        report = v.index()
        assert report.embedded == 0 and v.ledger.embedded_counts()[0] == 0
        assert report.notices[-1] == (
            "the running watcher embeds the 2 section(s) left in the background, giving way to searches and "
            "saves (`vault-engine status` shows how far it is): this run indexed the words")
        assert v.index(vector_cache=str(root / "shared")).embedded == 2  # a shared cache asked for: this run
        monkeypatch.setattr(Vault, "_watcher_embeds", lambda self: False)
        assert v.index().notices == ()
