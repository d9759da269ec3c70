"""The vault's off-topic level (vault_engine/indexing/offtopic.py), on real stores with the
fake embedder (the real model's levels are measured in bench/search_lab.py)."""

import statistics

from vault_engine.indexing.offtopic import (
    META,
    PROBES,
    RULE,
    OffTopic,
    measure_offtopic,
    offtopic_levels,
    unanswered_best,
    upper_fence,
)
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

NOTES = {f"n{i}.md": f"# Note {i}\nthe weather tomorrow and pizza {i}\n" for i in range(20)}


def test_index_measures_the_best_and_the_typical_cosine_the_off_topic_probes_reach(make_vault):
    fake = FakeEmbedder(dimension=64)
    with Vault(make_vault(NOTES), embedder=fake) as v:
        v.index()
        best = [v.vectors.search(probe, 1)[0][1] for probe in fake.embed_queries(list(PROBES))]
        assert offtopic_levels(v.ledger) == OffTopic(round(max(0, unanswered_best(best)), 4),
                                                     round(max(0, statistics.median(best)), 4),
                                                     round(max(0, upper_fence(best)), 4))
        levels = offtopic_levels(v.ledger)
        assert levels.typical < levels.best <= levels.ceiling


def test_a_probe_the_vault_answers_does_not_lift_the_level():
    """One recipe in a vault of specs: the cookie probe's 0.62 is beyond the quartiles' fence,
    so the level is the best of the others (qa29 N6: every answer came back low)."""
    others = [0.12, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2, 0.21, 0.22, 0.23, 0.25, 0.3]
    assert unanswered_best([*others, 0.62]) == 0.3
    assert unanswered_best(others) == 0.3  # no outlier: the best of all
    assert unanswered_best([0.3, 0.2]) == 0.3  # too few to tell an outlier
    assert unanswered_best([]) == 0.0


def test_the_ceiling_is_the_probes_upper_fence_above_the_best_of_twenty():
    """Twenty probes are a sample: "what is the capital city of Australia?" came 0.182 from a
    record of nygard-adrs, over the best probe's 0.178, and was a hit (qa105)."""
    others = [0.12, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2, 0.21, 0.22, 0.23, 0.25, 0.3]
    q1, _, q3 = statistics.quantiles(others, n=4)
    assert upper_fence(others) == q3 + 1.5 * (q3 - q1) > unanswered_best(others)
    assert upper_fence([0.3, 0.2]) == 0.3


def test_it_is_measured_again_only_when_the_vectors_moved(make_vault):
    fake = FakeEmbedder(dimension=64)
    with Vault(make_vault(NOTES), embedder=fake) as v:
        v.index()
        key = v.ledger.get_meta("embed_model")
        with v.ledger.transaction():
            v.ledger.set_meta(META, f"0.9\t0.5\t0.95\t{v.ledger.embedded_counts()[0]}\t{key}{RULE}")
        measure_offtopic(v.ledger, v.vectors, fake, key)
        assert offtopic_levels(v.ledger) == (0.9, 0.5, 0.95)  # the same vectors: kept
        measure_offtopic(v.ledger, v.vectors, fake, "another model")
        assert offtopic_levels(v.ledger) != (0.9, 0.5, 0.95)
        with v.ledger.transaction():  # a level read from the probes by an older rule: none until read again
            v.ledger.set_meta(META, f"0.9\t{v.ledger.embedded_counts()[0]}\t{key}/fence")
        assert offtopic_levels(v.ledger) is None
        measure_offtopic(v.ledger, v.vectors, fake, key)
        assert offtopic_levels(v.ledger) not in (None, (0.9, 0.5, 0.95))


def test_no_vectors_no_level(make_vault):
    with Vault(make_vault(NOTES), embedder=FakeEmbedder()) as v:
        v.index(embed=False)
        assert offtopic_levels(v.ledger) is None
