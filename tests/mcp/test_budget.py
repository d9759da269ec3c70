"""The answer cap (vault_engine/mcp/budget.py): fits, keeps the shape, says what it cut."""

from __future__ import annotations

from vault_engine.mcp.budget import CHARS_PER_TOKEN, MARKER, cap, size


def hits(n: int, words: int = 100) -> dict:
    return {"query": "q", "status": "hit", "hits": [{"ref": f"n{i}.md", "snippet": "word " * words} for i in range(n)]}


def test_an_answer_that_fits_is_returned_unchanged():
    data = hits(3)
    assert cap(data, 10_000) is data


def test_the_tail_of_the_largest_list_goes_first_and_the_cut_is_named():
    data = hits(40)
    capped = cap(data, 1000)
    assert size(capped) <= 1000 * CHARS_PER_TOKEN
    kept = capped["hits"]
    assert kept == data["hits"][:len(kept)] and 0 < len(kept) < 40  # best-ranked first, untouched
    assert capped["truncated"] == {"max_tokens": 1000, "cut": [f"hits: kept {len(kept)} of 40"]}
    assert len(data["hits"]) == 40  # the caller's data is not modified


def test_a_long_string_is_shortened_with_a_marker_and_its_length_reported():
    capped = cap({"ref": "big.md", "text": "x" * 50_000}, 500)
    assert size(capped) <= 500 * CHARS_PER_TOKEN
    assert capped["ref"] == "big.md" and capped["text"].endswith(MARKER)
    (note,) = capped["truncated"]["cut"]
    assert note.startswith("text: kept ") and note.endswith(" of 50000 characters")


def test_one_huge_item_is_cut_inside_rather_than_dropped():
    capped = cap(hits(1, words=5000), 300)
    assert len(capped["hits"]) == 1 and capped["hits"][0]["snippet"].endswith(MARKER)
    assert capped["truncated"]["cut"][0].startswith("hits[0].snippet: kept ")


def test_short_strings_are_never_cut_even_when_nothing_else_can_go():
    data = {"ref": "a" * 150, "title": "b" * 150}
    capped = cap(data, 10)
    assert capped["ref"] == data["ref"] and capped["title"] == data["title"]
    assert capped["truncated"]["cut"] == []
    assert "never cut take about " in capped["truncated"]["note"]  # over budget, and says so


def test_which_arms_ran_is_never_cut():
    data = {"query": "q", "arms": ["lexical", "semantic"], "status": "hit",
            "hits": [{"ref": f"n{i}.md", "arms": ["lexical", "semantic"], "snippet": "s"} for i in range(30)]}
    capped = cap(data, 60)
    assert capped["arms"] == ["lexical", "semantic"]
    assert all(h["arms"] == ["lexical", "semantic"] for h in capped["hits"])
    assert not any(c.startswith("arms") or ".arms" in c for c in capped["truncated"]["cut"])


def test_a_ref_or_a_path_is_never_cut_however_long():
    """A note 268 characters deep had come back `projects/.../deeply-nested-fol [...cut]`, a ref
    no agent can open (qa150)."""
    deep = "projects/" + "deeply-nested-folder/" * 12 + "note.md"
    data = {"query": "q", "hits": [{"ref": deep + "#Heading", "path": deep, "source_ref": deep,
                                    "snippet": "word " * 400}]}
    capped = cap(data, 100)
    (hit,) = capped["hits"]
    assert (hit["ref"], hit["path"], hit["source_ref"]) == (deep + "#Heading", deep, deep)
    assert hit["snippet"].endswith(MARKER)
