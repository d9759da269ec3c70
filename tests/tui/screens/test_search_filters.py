"""Search filters (kind, project, tap, words only or hybrid) and the query history."""

import json

import pytest
from textual.widgets import Input, Select

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tui.search_options import QueryHistory
from tui.widgets.hit_list import HitList
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


def expected(root, query, **filters):
    with Vault(root) as vault:
        return [h.ref for h in vault.search(query, k=20, lexical_only=True, now=TUI_NOW, **filters).hits]


async def choose(pilot, select_id, value):
    select = pilot.app.screen.query_one(select_id, Select)
    select.value = value
    await settle(pilot)


@SIZES
async def test_the_filters_narrow_the_hits_as_search_does(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press(*"token refresh")
        await settle(pilot)
        hits = app.screen.query_one(HitList)
        unfiltered = [h.ref for h in hits.hits]
        await choose(pilot, "#kind-filter", "spec")
        assert [h.ref for h in hits.hits] == expected(indexed_vault, "token refresh", kind="spec")
        assert all(h.kind == "spec" for h in hits.hits) and len(hits.hits) < len(unfiltered)
        await choose(pilot, "#kind-filter", Select.NULL)
        await choose(pilot, "#project-filter", "billing-service")
        assert [h.ref for h in hits.hits] == expected(indexed_vault, "token refresh", project="billing-service")
        await choose(pilot, "#tap-filter", "specs")
        assert [h.ref for h in hits.hits] == expected(indexed_vault, "token refresh",
                                                      project="billing-service", tap="specs")


async def test_the_filters_offer_this_vaults_projects_and_taps(make_app, indexed_vault):
    with Vault(indexed_vault) as vault:
        projects, taps = vault.projects(), [t.name for t in vault.config.taps]
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert [v for _, v in screen.query_one("#project-filter", Select)._options[1:]] == projects
        assert [v for _, v in screen.query_one("#tap-filter", Select)._options[1:]] == taps


async def test_words_only_is_the_start_of_a_lexical_app_and_the_arms_say_so(make_app):
    app = make_app()  # semantic=False, as --lexical
    async with app.run_test(size=WIDE) as pilot:
        assert app.screen.query_one("#arms-filter", Select).value == "lexical"
        await pilot.press(*"token refresh")
        await settle(pilot)
        assert "(lexical)" in str(app.screen.query_one("#search-summary").render())


async def test_up_recalls_the_queries_settled_on(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        box = app.screen.query_one("#query", Input)
        for query in ("token refresh", "beamforming"):
            box.value = ""
            await pilot.press(*query, "enter")
            await settle(pilot)
            await pilot.press("escape")
        box.value = ""
        await pilot.press("up")
        assert box.value == "beamforming"
        await pilot.press("up")
        assert box.value == "token refresh"
        await pilot.press("ctrl+down")
        assert box.value == "beamforming"


async def test_typing_starts_the_history_over_at_the_newest_and_down_gives_the_typed_query_back(make_app):
    """↑ after typing had gone on to an older query, and the typed one was lost (qa153)."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        box = app.screen.query_one("#query", Input)
        for query in ("alpha", "bravo", "charlie"):
            box.value = ""
            await pilot.press(*query, "enter")
            await settle(pilot)
            await pilot.press("escape")
        await pilot.press("up", "up")
        assert box.value == "bravo"
        box.value = ""
        await pilot.press(*"delta", "up")
        assert box.value == "charlie"
        await pilot.press("ctrl+down")
        assert box.value == "delta"


def test_history_keeps_each_query_once_newest_last():
    history = QueryHistory()
    for query in ("a", "b", "a", "  "):
        history.add(query)
    assert history.queries == ["b", "a"]
    assert (history.back(), history.back(), history.back()) == ("a", "b", None)
    assert (history.forward(), history.forward()) == ("a", "")


async def test_the_history_comes_back_in_the_next_session(make_app, indexed_vault):
    from tui.search_options import history_path

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"token refresh", "enter")
        await settle(pilot)
    assert json.loads(history_path(indexed_vault).read_text())["queries"] == ["token refresh"]
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("up")
        assert app.screen.query_one("#query", Input).value == "token refresh"


@pytest.mark.parametrize("damage", ["garbage", "folder"])
async def test_a_damaged_history_file_starts_an_empty_history_and_nothing_breaks(make_app, indexed_vault, damage):
    from tui.search_options import history_path

    path = history_path(indexed_vault)
    if damage == "folder":
        path.mkdir()  # cannot be read, nor written over
    else:
        path.write_bytes(b"\x00{not json")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("up")
        box = app.screen.query_one("#query", Input)
        assert box.value == ""
        await pilot.press(*"beamforming", "enter")
        await settle(pilot)
        await pilot.press("escape")
        box.value = ""
        await pilot.press("up")
        assert box.value == "beamforming"  # the session's history still works
    if damage == "garbage":
        assert json.loads(path.read_text())["queries"] == ["beamforming"]


async def test_two_tuis_on_one_vault_both_keep_their_queries(make_app, indexed_vault):
    """Two apps open at once on one vault, each settling on queries in turn: the file ends
    with every query, in the order they were settled on, and ↑ in each recalls the other's."""
    from tui.search_options import history_path

    first, second = make_app(), make_app()
    async with first.run_test(size=WIDE) as one, second.run_test(size=SMALL) as two:
        await settle(one)
        await settle(two)
        for pilot, query in ((one, "token refresh"), (two, "beamforming"), (one, "webhook")):
            await pilot.press("escape", *query, "enter")
            await settle(pilot)
        assert json.loads(history_path(indexed_vault).read_text())["queries"] == [
            "token refresh", "beamforming", "webhook"]
        await one.press("escape", "backspace", "up", "up")
        assert first.screen.query_one("#query", Input).value == "beamforming"  # the other TUI's


async def test_a_query_that_cannot_be_searched_leaves_no_hits_of_the_last_one(make_app, indexed_vault):
    """A query of stop words left the previous query's hits under it, and Enter opened one
    (qa38 F1); its error was a toast naming CLI flags, shown twice."""
    app = make_app()  # words only
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"token refresh")
        await settle(pilot)
        hits = app.screen.query_one(HitList)
        assert hits.hits
        box = app.screen.query_one("#query", Input)
        box.value = "the of and"
        await settle(pilot)
        assert not hits.hits
        said = str(app.screen.query_one("#search-summary").render())
        assert said.startswith("Nothing searched: 'the of and' holds no word"), said
        assert "the TUI's words + meaning" in said  # what to choose here, not only the CLI's flag
        assert not app._notifications  # said where the hits go, not in a toast
