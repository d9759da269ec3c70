"""Snippets (vault_engine/retrieval/snippets.py)."""

from vault_engine.retrieval.snippets import make_snippet
from vault_engine.stores.lexical import analyze


def test_the_line_with_most_query_terms_is_chosen():
    text = "# Heading\nfirst line about nothing\nthe token bucket refills each second\nlast line"
    assert make_snippet(text, set(analyze("token bucket")), width=40).startswith("the token bucket refills")


def test_no_match_starts_after_the_heading_and_long_text_is_cut():
    text = "# H\n" + "word " * 100
    snippet = make_snippet(text, set(), width=50)
    assert snippet.startswith("word") and snippet.endswith("…") and len(snippet) <= 50
    assert make_snippet("", {"x"}) == ""
