"""Snippets (vault_engine/retrieval/snippets.py)."""

from vault_engine.retrieval.snippets import make_snippet
from vault_engine.stores.lexical import analyze


def test_the_line_with_most_query_terms_is_chosen():
    text = "# Heading\nA first line about nothing.\n\nThe token bucket refills each second.\nLast line."
    assert make_snippet(text, set(analyze("token bucket")), width=40).startswith("The token bucket refills")


def test_no_match_starts_after_the_heading_and_long_text_is_cut_between_words():
    text = "# H\n" + "word " * 100
    snippet = make_snippet(text, set(), width=50)
    assert snippet.startswith("word") and snippet.endswith("word…") and len(snippet) <= 50
    assert make_snippet("", {"x"}) == ""


def test_a_hard_wrapped_line_is_shown_from_the_start_of_its_sentence():
    text = ("# Decision\nWe keep sessions in Postgres. Signing keys\nrotate every 30 days, and the\n"
            "previous key stays valid for one more rotation.")
    assert make_snippet(text, set(analyze("rotate")), width=80).startswith("Signing keys rotate every 30 days")
    # the sentence starts two lines up: the snippet says it opens mid-sentence
    assert make_snippet(text, set(analyze("previous")), width=80).startswith("… previous key stays valid")


def test_a_line_after_a_sentence_end_a_blank_line_or_a_list_item_starts_afresh():
    text = "Intro ends here.\nKeys rotate monthly.\n\nkeys again\n- keys in a list item\n  keys wrapped item"
    assert make_snippet(text, set(analyze("rotate")), width=30).startswith("Keys rotate monthly.")
    assert make_snippet("Intro words\n\nkeys rotate", set(analyze("rotate")), width=30).startswith("keys rotate")
    assert make_snippet("- item one\n- keys rotate", set(analyze("rotate")), width=30).startswith("- keys rotate")


def test_quote_marks_are_left_out_and_a_quote_wraps_like_a_paragraph():
    text = "> We ruled out a JWT cookie,\n> a second key to rotate, for no benefit."
    assert make_snippet(text, set(analyze("rotate")), width=100) == (
        "We ruled out a JWT cookie, a second key to rotate, for no benefit.")
