"""Typo distance and search (vault_engine/retrieval/typos.py)."""

import random

import pytest

from vault_engine.retrieval.typos import (
    TypoHit,
    build_typo_index,
    default_max_distance,
    osa_distance,
    typo_search,
)


def plain_osa(a: str, b: str) -> int:
    """The textbook OSA recurrence over the full matrix: no affix stripping, band or cutoff."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@pytest.mark.parametrize("a,b,distance", [
    ("OrdreBook.plcae", "OrderBook.place", 2),  # two transpositions
    ("resolve_color_defualt", "resolve_color_default", 1),
    ("make_pass_decorater", "make_pass_decorator", 1),
    ("Contxt.exit", "Context.exit", 1),
    ("kitten", "sitting", 3),
    ("ca", "abc", 3),  # OSA, not Damerau-Levenshtein's 2: the swapped pair is not edited again
    ("ab", "ba", 1),
    ("", "abc", 3),
    ("abc", "", 3),
    ("", "", 0),
    ("same", "same", 0),
    ("Case", "case", 1),  # case-sensitive
])
def test_known_distances(a, b, distance):
    assert osa_distance(a, b) == distance
    assert osa_distance(b, a) == distance


def test_cutoff_reports_one_past_the_limit():
    assert osa_distance("OrdreBook.plcae", "OrderBook.place", 1) == 2
    assert osa_distance("OrdreBook.plcae", "OrderBook.place", 2) == 2
    assert osa_distance("completely", "different", 2) == 3
    assert osa_distance("short", "a much longer text", 3) == 4  # the lengths alone decide
    assert osa_distance("abc", "abd", 0) == 1 and osa_distance("abc", "abc", 0) == 0
    with pytest.raises(ValueError, match="0 or more"):
        osa_distance("a", "b", -1)
    with pytest.raises(ValueError, match="0 or more"):
        typo_search(build_typo_index(["a"]), "b", max_distance=-1)


@pytest.mark.parametrize("seed", range(4))
def test_equals_the_plain_recurrence_with_and_without_cutoff(seed):
    rng = random.Random(seed)
    for _ in range(500):
        a = "".join(rng.choice("abcab") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("abcab") for _ in range(rng.randint(0, 9)))
        expected = plain_osa(a, b)
        assert osa_distance(a, b) == expected, (a, b)
        for limit in range(4):
            assert osa_distance(a, b, limit) == min(expected, limit + 1), (a, b, limit)


def test_default_max_distance():
    assert [default_max_distance(n) for n in (0, 2, 3, 5, 6, 30)] == [0, 0, 1, 1, 2, 2]


NAMES = [
    "make_pass_decorator",
    "make_pass_decorators",
    "resolve_color_default",
    "OrderBook.place",
    "OrderBook.plate",
    "shell_completion.py",
    "test_shell_completion.py",
    "createJSONStorage",
    "exceptions.py",
    "Context.exit",
]


def test_finds_the_names_a_typo_misses_nearest_first():
    index = build_typo_index(NAMES)
    assert typo_search(index, "make_pass_decorater") == [
        TypoHit(0, "make_pass_decorator", 1), TypoHit(1, "make_pass_decorators", 2)]
    assert [h.name for h in typo_search(index, "OrdreBook.plcae")] == ["OrderBook.place"]
    assert [h.name for h in typo_search(index, "resolve_color_defualt")] == ["resolve_color_default"]
    assert [h.name for h in typo_search(index, "shell_complition.py")] == ["shell_completion.py"]
    assert [h.name for h in typo_search(index, "excpetions.py")] == ["exceptions.py"]
    assert [h.name for h in typo_search(index, "createjsonstorag")] == ["createJSONStorage"]


def test_case_sensitivity_limit_and_exact_queries():
    sensitive = build_typo_index(NAMES, case_sensitive=True)
    assert typo_search(sensitive, "createjsonstorag") == []
    assert typo_search(sensitive, "createJSONStorag")[0].distance == 1
    index = build_typo_index(NAMES)
    assert len(typo_search(index, "OrderBook.plase", max_distance=1)) == 2
    assert typo_search(index, "OrderBook.plase", max_distance=1, limit=1) == [TypoHit(3, "OrderBook.place", 1)]
    assert typo_search(index, "OrderBook.place", max_distance=0) == [TypoHit(3, "OrderBook.place", 0)]
    assert typo_search(index, "nothing like it") == []
    assert typo_search(build_typo_index([]), "abc") == []


@pytest.mark.parametrize("seed", range(3))
def test_the_bigram_bound_never_drops_a_name(seed):
    """typo_search equals the distance computed against every name, at every limit."""
    rng = random.Random(seed)
    names = ["".join(rng.choice("abcd_\x02\x03") for _ in range(rng.randint(0, 10))) for _ in range(250)]
    index = build_typo_index(names)
    for _ in range(60):
        query = "".join(rng.choice("abcd_") for _ in range(rng.randint(0, 10)))
        for limit in (None, 0, 1, 2, 3):
            k = default_max_distance(len(query)) if limit is None else limit
            expected = sorted(((osa_distance(query, name, k), len(name), i) for i, name in enumerate(names)
                               if osa_distance(query, name, k) <= k))
            found = typo_search(index, query, max_distance=limit)
            assert [(h.distance, len(h.name), h.index) for h in found] == expected, (query, limit)
