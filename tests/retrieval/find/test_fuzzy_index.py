"""Fuzzy search over many names (vault_engine/retrieval/find/fuzzy_index.py)."""

import random

import pytest

from vault_engine.retrieval.find.fuzzy import PATH_SCHEME, fold_pattern, fuzzy_match
from vault_engine.retrieval.find.fuzzy_index import FuzzyHit, build_fuzzy_index, candidates, fuzzy_search

NAMES = [
    "src/shop/orders.py",
    "OrderBook.place",
    "OrderBook.cancel",
    "order_book_place",
    "tests/test_orders.py",
    "Context.exit",
    "ContextManager.__exit__",
    "make_pass_decorator",
    "Café.crème",
    "src/zustand/src/middleware/persist.ts",
]


def brute(names, pattern, case="ignore"):
    """Every name scored alone by fuzzy_match, ranked as fuzzy_search ranks."""
    found = [(k, fuzzy_match(pattern, name, case=case)) for k, name in enumerate(names)]
    ranked = sorted(((-m.score, len(names[k]), k, m) for k, m in found if m), key=lambda t: t[:3])
    return [FuzzyHit(k, names[k], m.score, m.positions) for _, _, k, m in ranked]


def test_search_equals_scoring_every_name_alone():
    index = build_fuzzy_index(NAMES)
    for pattern in ["obp", "orders", "ctxexit", "place", "é", "cafe", "persist.ts", "Z", "zz", ".", "/"]:
        assert fuzzy_search(index, pattern) == brute(NAMES, pattern), pattern


def test_best_first_then_shorter_then_index_order():
    index = build_fuzzy_index(["xab", "ab", "zab", "ab"])
    hits = fuzzy_search(index, "ab")
    assert [h.index for h in hits] == [1, 3, 0, 2]  # word starts first; the duplicate keeps its order
    assert hits[0].score == hits[1].score > hits[2].score == hits[3].score


def test_limit_keeps_the_first_hits_with_their_positions():
    index = build_fuzzy_index(NAMES)
    everything = fuzzy_search(index, "op")
    assert fuzzy_search(index, "op", limit=2) == everything[:2]
    assert fuzzy_search(index, "op", limit=0) == []
    assert all(h.positions for h in everything)


def test_case_modes_and_normalization():
    index = build_fuzzy_index(NAMES)
    assert {h.name for h in fuzzy_search(index, "OBp", case="smart")} == {"OrderBook.place"}
    assert fuzzy_search(index, "OBP", case="smart") == []
    assert {h.name for h in fuzzy_search(index, "obp", case="smart")} >= {"OrderBook.place", "order_book_place"}
    assert [h.name for h in fuzzy_search(index, "cafe.creme")] == ["Café.crème"]
    assert [h.name for h in fuzzy_search(index, "Café", case="respect")] == ["Café.crème"]
    assert fuzzy_search(build_fuzzy_index(NAMES, normalize=False), "cafe.") == []  # é is not e


def test_no_match_and_empty_pattern():
    index = build_fuzzy_index(NAMES)
    assert fuzzy_search(index, "qqq") == [] and candidates(index, "qqq") == []
    everything = fuzzy_search(index, "")
    assert len(everything) == len(NAMES) and {h.score for h in everything} == {0}
    assert fuzzy_search(build_fuzzy_index([]), "a") == []


def test_names_with_newlines_and_regex_characters():
    names = ["a\nb", "a[b]", "x^y-z", "back\\slash", "a.b"]
    index = build_fuzzy_index(names)
    for pattern in ["ab", "[]", "^-", "\\", "a\nb", ".", "a.", "]"]:
        assert fuzzy_search(index, pattern) == brute(names, pattern), pattern


def test_path_scheme_scores_like_fzf_path_scheme():
    index = build_fuzzy_index(NAMES, scheme=PATH_SCHEME)
    hit = fuzzy_search(index, "persist")[0]
    assert hit.name.endswith("persist.ts")
    assert hit.score == fuzzy_match("persist", hit.name, scheme=PATH_SCHEME).score


@pytest.mark.parametrize("seed", range(3))
def test_prefilter_is_exact_on_random_names(seed):
    """The prefilter keeps exactly the names the alignment matches: no name is lost."""
    rng = random.Random(seed)
    alphabet = "abcAB_./ é1"
    names = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(300)]
    index = build_fuzzy_index(names)
    for _ in range(60):
        pattern = "".join(rng.choice("abcAB_./é1") for _ in range(rng.randint(1, 4)))
        for case in ("ignore", "respect"):
            sensitive = case == "respect"
            folded = fold_pattern(pattern, sensitive)
            expected = [k for k, name in enumerate(names) if fuzzy_match(pattern, name, case=case)]
            assert candidates(index, folded, sensitive) == expected, (pattern, case)
        assert fuzzy_search(index, pattern) == brute(names, pattern)


def test_caches_do_not_change_answers():
    index = build_fuzzy_index(NAMES)
    first = fuzzy_search(index, "order")
    assert fuzzy_search(index, "order") == first
    assert build_fuzzy_index(NAMES) == index  # caches take no part in equality
