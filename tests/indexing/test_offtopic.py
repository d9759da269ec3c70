"""The vault's off-topic level (vault_engine/indexing/offtopic.py), on real stores with the
fake embedder (the real model's levels are measured in bench/search_lab.py)."""

from vault_engine.indexing.offtopic import META, PROBES, measure_offtopic, offtopic_level
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

NOTES = {f"n{i}.md": f"# Note {i}\nthe weather tomorrow and pizza {i}\n" for i in range(20)}


def test_index_measures_the_best_cosine_an_off_topic_probe_reaches(make_vault):
    fake = FakeEmbedder(dimension=64)
    with Vault(make_vault(NOTES), embedder=fake) as v:
        v.index()
        level = offtopic_level(v.ledger)
        probe = fake.embed_queries([PROBES[0]])[0]
        assert level is not None and level >= max(s for _, s in v.vectors.search(probe, 1)) - 1e-4


def test_it_is_measured_again_only_when_the_vectors_moved(make_vault):
    fake = FakeEmbedder(dimension=64)
    with Vault(make_vault(NOTES), embedder=fake) as v:
        v.index()
        key = v.ledger.get_meta("embed_model")
        with v.ledger.transaction():
            v.ledger.set_meta(META, f"0.9\t{v.ledger.embedded_counts()[0]}\t{key}")
        measure_offtopic(v.ledger, v.vectors, fake, key)
        assert offtopic_level(v.ledger) == 0.9  # the same vectors: kept
        measure_offtopic(v.ledger, v.vectors, fake, "another model")
        assert offtopic_level(v.ledger) != 0.9


def test_no_vectors_no_level(make_vault):
    with Vault(make_vault(NOTES), embedder=FakeEmbedder()) as v:
        v.index(embed=False)
        assert offtopic_level(v.ledger) is None
