"""The semantic arm (vault_engine/retrieval/semantic.py), term coverage
(retrieval/coverage.py) and hybrid search with confidence and the miss rule. Real stores; the
FakeEmbedder stands in for the model (meaning is tested in tests/test_semantic_e2e.py with
the real one)."""

import numpy as np
import pytest

from vault_engine.errors import ModelUnavailable
from vault_engine.retrieval.coverage import term_coverage, term_weights, terms_in
from vault_engine.retrieval.semantic import SemanticSearcher, open_arm
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.stores.lexical import analyze
from vault_engine.vault import Vault

NOTES = {
    "gardening.md": "# Gardening\nWater the tomato plants every morning in summer.\n",
    "cooking.md": "# Cooking\nRoast the tomato with garlic and olive oil.\n",
    "bikes.md": "# Bikes\nOil the chain of the bicycle after rain.\n",
}


@pytest.fixture
def vault(make_vault):
    with Vault(make_vault(NOTES), embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        yield v


# -- term coverage ---------------------------------------------------------------------------

def test_coverage_is_the_share_of_the_query_weight_a_section_holds():
    weights = {"tomato": 1.0, "garlic": 3.0}
    assert term_coverage(weights, {"garlic", "oil"}) == pytest.approx(0.75)
    assert term_coverage(weights, set()) == 0.0
    assert term_coverage({}, {"x"}) == 0.0


def test_rare_terms_weigh_more_and_absent_terms_most(vault):
    weights = term_weights(vault.lexical, analyze("tomato garlic zeppelin"))
    assert weights["zeppelin"] > weights["garlic"] > weights["tomato"]


@pytest.mark.parametrize("text", [
    "Queries, querying and the query.due.date field",
    "Happy happiness; it's the e.g. case — tasks.md and TASKS",
    "Recurring recurrence: recur every week",
    "Vashti’s room and Quimby's week: the client's happy tasks",  # possessives: a false miss (qa28 F2)
    "Filter by task.isRecurring in node.js, not v2.3.1 or example.com",  # a dotted name's parts (qa52)
    "the recurring.week.isRecurring and 3.1.node",
])
def test_terms_in_finds_exactly_what_analyze_would(text):
    terms = set(analyze("query happy recurring tasks e.g the recur week vashti quimby client isRecurring node "
                        "js example com 2.3.1 3.1 task.isRecurring"))
    assert terms_in(text, terms) == terms & set(analyze(text))


# -- the arm ------------------------------------------------------------------------------------

def test_the_arm_scores_nearest_sections_and_the_lexical_candidates_exactly(vault):
    arm = SemanticSearcher(vault.embedder(), vault.vectors, vault.ledger)
    nearest, extra = arm.search("bicycle chain oil", 1)
    assert len(nearest) == 1 and extra == {}
    nearest, extra = arm.search("bicycle chain oil", 1, include=vault.ledger.embedded_ids())
    assert len(nearest) == 1 and len(extra) == 2 and max(extra.values()) <= nearest[0][1]


def test_the_query_embedded_ahead_is_the_one_searched_and_a_changed_query_is_embedded_again(vault):
    """Search embeds the query on another thread while the lexical arm runs; the answer is the
    one a query embedded in place gives, and a vector started for another query is not used."""
    import threading

    embedder = vault.embedder()
    threads = []
    real = embedder.embed_queries

    def recorded(texts):
        threads.append(threading.current_thread().name)
        return real(texts)

    embedder.embed_queries = recorded
    arm = SemanticSearcher(embedder, vault.vectors, vault.ledger)
    in_place = arm.search("bicycle chain oil", 3)
    arm.embed_ahead("bicycle chain oil")
    assert arm.search("bicycle chain oil", 3) == in_place
    arm.embed_ahead("tomato garlic")
    assert arm.search("bicycle chain oil", 3) == in_place  # not the other query's vector
    assert threads == ["MainThread", "vault-engine-query", "vault-engine-query", "MainThread"]


def test_a_hybrid_search_embeds_its_query_beside_the_words_and_a_meaning_only_one_in_place(vault):
    import threading

    embedder = vault.embedder()
    threads = []
    real = embedder.embed_queries
    embedder.embed_queries = lambda texts: threads.append(threading.current_thread().name) or real(texts)
    hybrid = vault.search("bicycle chain oil", k=2)
    meaning_only = vault.search("bicycle chain oil", k=2, semantic_only=True)
    assert threads == ["vault-engine-query", "MainThread"]
    assert hybrid.hits[0].path == meaning_only.hits[0].path == "bikes.md"


def test_the_arm_never_answers_a_section_the_ledger_does_not_call_embedded(vault):
    arm = SemanticSearcher(vault.embedder(), vault.vectors, vault.ledger)
    vault.vectors.index([12345], vault.embedder().embed(["tomato garlic"]))  # a stray vector
    nearest, extra = arm.search("tomato garlic", 10, include=[12345])
    assert 12345 not in dict(nearest) and 12345 not in extra


def test_open_arm_explains_why_it_cannot_run(make_vault):
    with Vault(make_vault(NOTES), embedder=FakeEmbedder()) as v:
        v.index(embed=False)
        arm, notice = open_arm(v.ledger, v.vectors, v.embedder)
        assert arm is None and "no section has vectors yet" in notice
        with pytest.raises(ModelUnavailable):
            open_arm(v.ledger, v.vectors, v.embedder, required=True)
        v.index()
        other = FakeEmbedder()
        other.identity = "another-model#1"
        arm, notice = open_arm(v.ledger, v.vectors, lambda: other)
        assert arm is None and "the embedding model changed: run `vault-engine index`" in notice


# -- search with the arm ------------------------------------------------------------------------

def test_hybrid_hits_report_every_score(vault):
    result = vault.search("tomato garlic")
    assert result.arms == ("lexical", "semantic") and result.semantic_coverage == 1.0
    assert result.confidence == "high" and result.to_json()["confidence"] == "high"
    top = result.hits[0]
    assert top.path == "cooking.md"
    assert top.scores.lexical > 0 and top.scores.semantic is not None and top.scores.fused > 0


def test_semantic_only_search(vault):
    result = vault.search("tomato garlic", semantic_only=True)
    assert result.arms == ("semantic",) and result.hits[0].scores.lexical is None


def test_an_unrelated_question_is_a_miss_once_the_off_topic_level_is_known(vault):
    from vault_engine.indexing.offtopic import offtopic_levels

    assert offtopic_levels(vault.ledger) is not None  # measured by index
    result = vault.search("quantum zeppelin licensing")
    assert result.status == "miss" and result.hits == () and result.arms == ("lexical", "semantic")
    assert result.confidence == "low"


def test_a_miss_needs_no_closer_than_the_typical_off_topic_question_and_high_closer_than_the_best(vault):
    """In a personal vault of recipes and books the best off-topic probe reached 0.44, and
    right answers at 0.39 were misses (qa42): the miss reads the typical probe's level, `high`
    the best one's."""
    from vault_engine.indexing.offtopic import META, RULE
    from vault_engine.retrieval.confidence import MissRule
    from vault_engine.retrieval.search import Searcher, SearchRequest

    bikes = next(s.id for s in vault.ledger.sections_of(vault.ledger.note_by_path("bikes.md").id))

    class MeaningFinds:  # bikes.md at 0.39, where the words find cooking.md by "garlic"
        def embed_ahead(self, query):
            pass

        def search(self, query, limit, include=(), allowed=None):
            return [(bikes, 0.39)], {}

    def answer(best, typical, query="garlic evergren", arms=("lexical", "semantic")):
        searcher = Searcher(vault.config, vault.ledger, vault.lexical, semantic=MeaningFinds(),
                            miss_rule=MissRule(cosine_floor=typical, wordless_floor=best), offtopic=best)
        return searcher.search(SearchRequest(query, decay=False, arms=arms))

    assert answer(best=0.44, typical=0.22).status == "hit"  # closer than the typical probe: a low hit
    assert answer(best=0.44, typical=0.22).confidence == "low"
    assert answer(best=0.44, typical=0.40).status == "miss"
    # most of its words in no note: meaning must beat the best probe (qa104: "how do I replace
    # the brake pads on a road bike?" was a hit on a vault of decision records by "replace")
    missed = answer(best=0.44, typical=0.22, query="garlic evergren zeppelin")
    assert missed.status == "miss"
    assert missed.confidence_reason == ("no note holds most of the query's words ('evergren', 'zeppelin'), and none "
                                        "comes closer in meaning than off-topic questions do")
    assert answer(best=0.38, typical=0.22, query="garlic evergren zeppelin").status == "hit"
    # meaning only reads the same words: it had answered what hybrid search called a miss (qa104)
    meaning_only = answer(best=0.44, typical=0.22, query="garlic evergren zeppelin", arms=("semantic",))
    assert (meaning_only.status, meaning_only.confidence_reason) == (
        "miss", "no note holds most of the query's words ('evergren', 'zeppelin'), and none comes closer in "
                "meaning than off-topic questions do")
    assert answer(best=0.44, typical=0.22, arms=("semantic",)).status == "hit"

    def levels(best, typical):  # as index stores them
        with vault.ledger.transaction():
            vault.ledger.set_meta(META, f"{best}\t{typical}\t{best}\t{vault.ledger.embedded_counts()[0]}\t"
                                        f"{vault.ledger.get_meta('embed_model')}{RULE}")

    levels(best=0.0, typical=0.0)
    assert vault.search("bicycle chain oil").confidence == "high"  # words and meaning agree on bikes.md
    levels(best=1.0, typical=0.0)
    assert vault.search("bicycle chain oil").confidence == "low"  # no closer than the best probe


def test_the_thresholds_decide_the_miss(make_vault):
    root = make_vault(NOTES, config="[search]\nmiss_cosine_floor = 0.0\nmiss_term_coverage = 0.0\n")
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        assert v.search("quantum zeppelin licensing").status == "hit"


def test_a_weak_answer_the_arms_agree_on_is_a_hit_not_a_miss(vault):
    """Both arms find the one note that says "oil": something is there, to glance at. With
    most of the query's words in no note, agreement on the rest vouches for nothing (qa104)."""
    result = vault.search("bicycle oil pipeline sanctions")
    assert result.status == "hit" and result.hits[0].path == "bikes.md"
    assert result.confidence == "low"
    absent = vault.search("bicycle oil pipeline sanctions tariffs")
    assert absent.status == "miss"
    assert absent.confidence_reason.startswith("no note holds most of the query's words ('pipeline', 'sanctions', ")


def test_filters_apply_to_the_semantic_arm_too(make_vault):
    notes = {**NOTES, "specs/tomatoes.md": "# Tomato spec\nTomato garlic roast.\n"}
    with Vault(make_vault(notes), embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        assert {h.kind for h in v.search("tomato garlic roast", kind="spec").hits} == {"spec"}


def test_a_narrow_filter_still_gets_semantic_candidates(make_vault, monkeypatch):
    from vault_engine.retrieval import search

    monkeypatch.setattr(search, "ARM_DEPTH", 5)  # 5 candidates, all taken by the n*.md notes
    notes = {**{f"n{i}.md": f"# Tomato {i}\nTomato garlic roast {i}\n" for i in range(12)},
             "specs/sauce.md": "# Sauce spec\nTomato sauce slowly\n"}
    no_miss = "[search]\nmiss_cosine_floor = 0.0\n"  # this test is about candidates, not misses
    with Vault(make_vault(notes, config=no_miss), embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        assert "specs/sauce.md" not in [h.path for h in v.search("tomato garlic roast", k=5, semantic_only=True).hits]
        (hit,) = v.search("tomato garlic roast", kind="spec", k=1, semantic_only=True).hits
        assert hit.path == "specs/sauce.md" and hit.scores.semantic is not None


def test_a_miss_says_nothing_of_hits_beyond_the_arms_depth(make_vault, monkeypatch):
    """A miss had come with "each arm gives at most 100 candidates: 125 hits of the 200 asked
    for" (qa127): that notice is of hits, and a miss has none."""
    from vault_engine.retrieval import search

    monkeypatch.setattr(search, "ARM_DEPTH", 5)
    notes = {f"n{i}.md": f"# Tomato {i}\nTomato garlic roast {i}\n" for i in range(12)}
    with Vault(make_vault(notes), embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        missed = v.search("zzqx blorpt", k=10)
        found = v.search("tomato garlic roast", k=20)
    assert (missed.status, missed.notices) == ("miss", ())
    assert found.status == "hit" and any("each arm gives at most 5 candidates" in n for n in found.notices)


def test_vectors_are_unit_length(vault):
    stored = vault.vectors.load()
    rows = np.vstack([stored.index.reconstruct(i) for i in range(stored.ntotal)])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=5e-4)  # kept in half precision


def test_a_search_while_some_sections_lack_vectors_says_the_meaning_arm_is_partial(make_vault):
    """A watcher still embedding, an index stopped midway: the meaning arm reads some sections,
    the answer can change once it reads them all, and a search said nothing of it."""
    root = make_vault(NOTES)
    with Vault(root, embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        assert v.search("cookies").notices == ()
        (root / "late.md").write_text("# Late\nA note written after the vectors.\n")
        v.index(embed=False)
        total = v.ledger.section_count()
        notices = v.search("cookies").notices
        assert notices == (f"the meaning arm reads {100 * (total - 1) // total}% of the sections (words read all): "
                           "run `vault-engine index` to embed the other 1",)
        assert v.search("cookies", lexical_only=True).notices == ()


def test_a_partial_meaning_arm_is_never_said_to_read_all_or_none():
    """0.9975 read "100%" (qa81): the share is rounded down, and a sliver is "under 1%"."""
    from vault_engine.retrieval.semantic import partial_notice

    class Ledger:
        def __init__(self, covered: float):
            self.covered = covered

        def semantic_coverage(self) -> float:
            return self.covered

        def section_count(self) -> int:
            return 2000

        def embedded_windows(self) -> int:
            return 2000

    class Vectors:
        def count(self) -> int:
            return 2000

    assert partial_notice(Ledger(0.9975), Vectors(), lambda: None).startswith("the meaning arm reads 99% of the sections")
    assert partial_notice(Ledger(0.004), Vectors(), lambda: None).startswith("the meaning arm reads under 1% of the")
    assert partial_notice(Ledger(1.0), Vectors(), lambda: None) is None
    from vault_engine.stores.vector_state import coverage_said  # status says it so too (qa84)

    assert [coverage_said(x) for x in (0.9975, 0.995, 1.0, 0.004, 0.0)] == ["99%", "99%", "100%", "under 1%", "0%"]


def test_a_vault_of_no_notes_misses_without_telling_to_index_again(make_vault):
    """An indexed vault with no notes said "semantic arm off: no section has vectors yet: run
    `vault-engine index`", which would not help (qa127)."""
    with Vault(make_vault({}), embedder=FakeEmbedder(dimension=64)) as v:
        v.index()
        answers = [v.search("anything"), v.search("anything", semantic_only=True)]
    assert [(a.status, a.notices) for a in answers] == [("miss", ()), ("miss", ())]
