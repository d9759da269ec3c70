"""``--follow`` for the code answers (retrieval/code/followed.py): the sections of the why
notes, then the links written in them, hop by hop; and ``show --follow`` of a note."""

import pytest

from tests.code_vault import build
from vault_engine.errors import BadArgument
from vault_engine.vault import Vault

EXTRA = {
    # a second why note: its mention sits in its second section, which links on to a spec
    "specs/pricing.md": '''---
type: spec
---
# Pricing

Prices come from one table.

## Why once

`price_of` is called once per order by `OrderBook.place`; see [[rounding#Half even]].
''',
    "specs/rounding.md": "# Rounding\n\nIntro.\n\n## Half even\n\nTotals round half to even.\n",
}


@pytest.fixture
def vault(make_vault):
    with Vault(build(make_vault, EXTRA)) as v:
        yield v


def test_show_follow_gives_the_section_that_says_why_then_what_it_links_to(vault):
    plain = vault.show("src/shop/pricing.py#price_of")
    assert plain.followed == ()  # nothing followed unless asked
    one = vault.show("src/shop/pricing.py#price_of", follow=1)
    refs = [(f.ref, f.hops, f.how, f.via) for f in one.followed]
    assert ("specs/pricing.md#Why once", 1, "mention", "src/shop/pricing.py#price_of") in refs
    assert all(hops == 1 for _, hops, _, _ in refs)
    why_once = next(f for f in one.followed if f.ref == "specs/pricing.md#Why once")
    assert why_once.line == 10 and "called once per order" in why_once.text
    two = vault.show("src/shop/pricing.py#price_of", follow=2)
    assert ("specs/rounding.md#Half even", 2, "link", "specs/pricing.md#Why once") in \
        [(f.ref, f.hops, f.how, f.via) for f in two.followed]
    assert "half to even" in two.to_json()["followed"][-1]["text"]


def test_callers_outline_and_find_follow_the_same_why_notes(vault):
    callers = vault.calls("OrderBook.place", follow=1)
    assert {f.ref for f in callers.followed} >= {"memory/orders.md#Orders are priced once",
                                                 "specs/pricing.md#Why once"}
    assert callers.to_json()["followed"][0]["via"] == "src/shop/orders.py#OrderBook.place"
    outline = vault.outline("src/shop/orders.py", follow=1)
    link = next(f for f in outline.followed if f.via == "src/shop/orders.py")  # the note linking to the file
    assert (link.ref, link.how) == ("memory/orders.md#Orders are priced once", "link")
    found = vault.find("price_of", follow=1)
    assert found.status == "hit"
    assert [f.ref for f in found.followed] == ["memory/orders.md#Orders are priced once", "specs/pricing.md#Why once"]
    assert all(f.path in {w.ref for w in found.hits[0].why} for f in found.followed)
    # what each names there, the symbol or only its file: a note naming the file had read as
    # one naming the symbol (qa198)
    assert [(f.how, f.token) for f in found.followed] == [(w.via, w.token) for w in found.hits[0].why][:2]
    assert found.followed[0].to_json()["token"] == found.followed[0].token
    assert vault.find("prise_of", follow=1).followed == ()  # a suggestion is confirmed first, never followed


def test_each_section_comes_once_and_no_why_means_nothing_followed(vault):
    followed = vault.show("src/shop/orders.py#OrderBook.place", follow=3).followed
    assert len({f.ref for f in followed}) == len(followed)
    assert vault.show("web/app.ts#helper", follow=2).followed == ()  # no note says why


def test_show_follow_of_a_note_gives_the_sections_it_links_to(vault):
    view = vault.show("specs/pricing.md#Why once", follow=1)
    assert [(f.ref, f.hops, f.via) for f in view.followed] == [("specs/rounding.md#Half even", 1, "specs/pricing.md#Why once")]
    assert vault.show("specs/rounding.md", follow=2).followed == ()  # it links nowhere


@pytest.mark.parametrize("follow", [-1, 6, True, "2"])
def test_a_bad_follow_is_one_clear_error(vault, follow):
    with pytest.raises(BadArgument, match="follow .* is out of range: use 0..5"):
        vault.calls("price_of", follow=follow)


def test_search_follow_gives_a_code_hits_why_notes_as_followed_hits(vault):
    plain = vault.search("price_of", lexical_only=True, kind="code")
    code_hit = next(h for h in plain.hits if h.ref == "src/shop/pricing.py#price_of")
    assert "specs/pricing.md" in code_hit.why and all(h.via is None for h in plain.hits)
    followed = vault.search("price_of", lexical_only=True, kind="code", follow=2)
    via = {h.ref: h.via for h in followed.hits if h.via}
    assert via["specs/pricing.md#Why once"] == "src/shop/pricing.py#price_of"  # the section holding the mention
    assert via["specs/rounding.md#Half even"] == "specs/pricing.md#Why once"  # a link written there, one hop on
    assert [h.ref for h in followed.hits[:len(plain.hits)]] == [h.ref for h in plain.hits]  # the answer stays
    first = next(h for h in followed.hits if h.ref == "specs/pricing.md#Why once")
    assert first.scores.fused < code_hit.scores.fused  # ranked below what it was reached from
