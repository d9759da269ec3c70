"""The header follows the vault within a poll (Vault.freshness each second), not 30 s later,
and a screen reloads when another process finished an index run."""

import pytest

from tests.conftest import run_cli_subprocess
from tests.tui.conftest import WIDE, settle
from tui.widgets.hit_list import HitList
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio


async def poll(pilot):
    pilot.app.poll_freshness()
    await settle(pilot)


def header_text(app) -> str:
    return " ".join(str(label.render()) for label in app.screen.query("VaultHeader Label"))


async def test_an_edit_shows_in_the_header_at_the_next_poll(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await poll(pilot)
        assert "up to date" in header_text(app)
        (indexed_vault / "glossary.md").write_text("# Glossary\n\nedited in another editor\n", encoding="utf-8")
        await poll(pilot)
        assert "1 stale" in header_text(app) and app.health.warning


async def test_the_poll_runs_by_itself(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        (indexed_vault / "glossary.md").write_text("# Glossary\n\nedited\n", encoding="utf-8")
        for _ in range(100):  # wait for the interval timer, whatever the machine's speed
            if "1 stale" in header_text(app):
                break
            await pilot.pause(0.1)
        assert "1 stale" in header_text(app)


async def test_an_index_run_in_a_terminal_reloads_the_search_screen(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"quokkaflux")
        await settle(pilot)
        assert app.screen.query_one(HitList).hits == ()
        (indexed_vault / "specs" / "radio.md").write_text("# Radio\n\nquokkaflux telemetry\n", encoding="utf-8")
        done = run_cli_subprocess("--vault", indexed_vault, "index", "--no-embed")
        assert done.returncode == 0, done.stderr
        await poll(pilot)
        await settle(pilot)
        assert [h.path for h in app.screen.query_one(HitList).hits][:1] == ["specs/radio.md"]
        assert "up to date" in header_text(app)


def test_freshness_changes_with_an_edit_and_an_index_run_only(indexed_vault):
    with Vault(indexed_vault) as vault:
        first, again = vault.freshness(), vault.freshness()
        indexed_notes = vault.status()["notes"]
        (indexed_vault / "glossary.md").write_text("# Glossary\n\nedited\n", encoding="utf-8")
        edited = vault.freshness()
        vault.index(embed=False)
        indexed = vault.freshness()
    assert first == again and first.notes == indexed_notes  # no watcher: the vault was scanned
    assert edited.files != first.files and edited.last_index == first.last_index
    assert indexed.last_index != edited.last_index and indexed.files == edited.files
