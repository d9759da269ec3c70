"""The app shell: header health, switching screens, indexing from the UI, errors as notices."""

import pytest

from tests.tui.conftest import SMALL, WIDE, settle
from tui.formatting import health_of
from tui.screens.dead_ends import DeadEndsScreen
from tui.screens.decay import DecayScreen
from tui.screens.resume import ResumeScreen
from tui.screens.search import SearchScreen
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio
SCREENS = {"f1": SearchScreen, "f2": DeadEndsScreen, "f3": ResumeScreen, "f4": DecayScreen}


def header_text(app) -> str:
    return " ".join(str(label.render()) for label in app.screen.query("VaultHeader Label"))


async def test_the_header_shows_the_vault_and_its_health(make_app, indexed_vault):
    with Vault(indexed_vault) as vault:
        expected = health_of(vault.status())
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert app.health == expected and "up to date" in expected.text
        assert "~/sample" in header_text(app) and expected.text in header_text(app)

        (indexed_vault / "glossary.md").write_text("# Glossary\n\nchanged\n", encoding="utf-8")
        app.refresh_health()
        await settle(pilot)
        assert app.health.warning and "1 stale" in header_text(app)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_function_keys_switch_screens(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        for key, screen in [*SCREENS.items(), ("f1", SearchScreen)]:
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, screen)


async def test_a_screens_key_on_a_note_opened_from_it_goes_back_to_it(make_app):
    """F1 on a note opened from Search left the note on top (qa93)."""
    from tui.screens.note import NoteScreen

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        for key, screen in (("f1", SearchScreen), ("f2", DeadEndsScreen)):
            await pilot.press(key)
            await settle(pilot)
            app.open_note("specs/audio-pipeline.md")
            await settle(pilot)
            assert isinstance(app.screen, NoteScreen)
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, screen), key
        app.open_note("specs/audio-pipeline.md")  # on Dead ends
        await settle(pilot)
        await pilot.press("f1")  # another screen's key: that screen, as before
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)


async def test_the_command_palette_switches_screens(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"go to decay")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DecayScreen)


async def test_what_runs_now_gives_way_to_the_index_s_health_at_80_columns(make_app, indexed_vault):
    """A long activity had pushed "1 stale: press F5" off the screen and was cut itself (qa153):
    it takes the vault path's place, cut with an ellipsis, and the health stays whole."""
    (indexed_vault / "specs" / "new.md").write_text("# New\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.activity = "waiting for another vault-engine process (pid 12345), which writes the index…"
        await pilot.pause(0.1)
        health, vault = app.screen.query_one("#header-health"), app.screen.query_one("#header-vault")
        assert "1 stale" in app.health.text and str(health.render()) == app.health.text
        assert health.region.right <= SMALL[0] and health.region.width >= len(app.health.text)
        assert not vault.display
        app.activity = ""
        await pilot.pause(0.1)
        assert vault.display and not app.screen.query_one("#header-activity").display


async def test_f5_indexes_a_new_note_without_leaving_the_screen(make_app, indexed_vault):
    (indexed_vault / "specs" / "radio-link.md").write_text(
        "---\ntype: spec\ncreated: 2026-11-28\n---\n# Radio link\n\nTelemetry over LoRa at 868 MHz.\n",
        encoding="utf-8")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "1 stale" in app.health.text
        await pilot.press("f5")
        await settle(pilot, rounds=6)
        assert app.activity == "" and "up to date" in app.health.text
        assert any(n.title == "Indexed" for n in app._notifications)
    with Vault(indexed_vault) as vault:
        assert vault.search("LoRa telemetry", lexical_only=True).hits[0].path == "specs/radio-link.md"


async def test_f5_says_skipped_files_in_one_notice_however_many(make_app, indexed_vault):
    """index lists every file still skipped on every run: a notice each would bury the screen."""
    for n in range(3):
        (indexed_vault / f"binary-{n}.md").write_bytes(b"\x00\x01 not text")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        for _ in range(2):
            await pilot.press("f5")
            await settle(pilot, rounds=6)
        skips = [n.message for n in app._notifications if n.message.startswith("skipped ")]
        assert len(skips) == 2 and all("(and 2 more: `vault-engine status` lists them)" in m for m in skips)


async def test_a_vault_without_an_index_says_press_f5_and_f5_builds_it(sample_vault, monkeypatch):
    from tui import create_app

    monkeypatch.setenv("HOME", str(sample_vault.parent))
    app = create_app(sample_vault, semantic=False)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert app.health.text.startswith("no index") and app.health.warning
        assert any("vault-engine index" in n.message for n in app._notifications)
        await pilot.press("f5")
        await settle(pilot, rounds=6)
        assert "up to date" in app.health.text
    assert (sample_vault / ".vault-engine" / "index").is_dir()


async def test_a_damaged_index_is_said_in_the_header_and_on_every_screen_until_f5_repairs_it(make_app, indexed_vault):
    """The header read "0 notes · up to date" and Dead ends, Resume and Decay stayed blank once
    the notification was gone (qa106)."""
    from textual.widgets import Static

    from tui.formatting import DAMAGED_TEXT

    ledger = indexed_vault / ".vault-engine" / "index" / "current" / "ledger.sqlite"
    ledger.write_bytes(b"not a database, " * 256)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "index DAMAGED: press F5 to repair it" in header_text(app) and app.health.warning
        await pilot.press("f2")
        await settle(pilot)
        assert str(app.screen.query_one("#deadend-detail", Static).render()) == DAMAGED_TEXT
        await pilot.press("f4")
        await settle(pilot)
        assert str(app.screen.query_one("#decay-summary", Static).render()) == DAMAGED_TEXT
        await pilot.press("f5")
        await settle(pilot, rounds=6)
        assert "up to date" in app.health.text


async def test_an_error_is_a_notification_and_the_app_keeps_running(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        app.open_note("no/such/note.md")
        await settle(pilot)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "no/such/note.md" in errors[0].message
        await pilot.press("escape", "f4")
        await settle(pilot)
        assert isinstance(app.screen, DecayScreen) and app.is_running


async def test_a_module_gone_since_the_tui_started_says_to_start_it_again(make_app):
    """vault-engine installed again under a running TUI: F5's import failed, shown as a raw
    `ImportError` under "unexpected error" (qa171)."""
    app = make_app()

    def replaced(vault):
        raise ImportError("cannot import name 'read_side_file' from 'vault_engine.paths'")

    async with app.run_test(size=WIDE) as pilot:
        await app.browse(replaced)
        await settle(pilot)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and errors[0].message.startswith("vault-engine was installed again while the TUI ran")
        assert errors[0].title == "vault-engine" and app.is_running


async def test_a_screen_behind_reloads_when_it_comes_back_after_f5_elsewhere(sample_vault, monkeypatch):
    """Type on Search with no index yet, build it from the dead-ends screen, come back: the
    query typed before now has its hits, and the missing index was said once, not per screen."""
    from tui import create_app
    from tui.widgets.hit_list import HitList

    monkeypatch.setenv("HOME", str(sample_vault.parent))
    app = create_app(sample_vault, semantic=False)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press(*"token refresh")
        await settle(pilot)
        assert not app.screen.query_one(HitList).hits
        for key in ("f2", "f3", "f2"):
            await pilot.press(key)
            await settle(pilot)
        assert sum(n.title == "No index yet" for n in app._notifications) == 1
        assert str(app.screen.query_one("#deadend-detail").render()).startswith("No index yet: press F5")
        await pilot.press("f5")
        await settle(pilot, rounds=6)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert any(h.path == "specs/auth-sessions.md" for h in app.screen.query_one(HitList).hits)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_a_broken_config_is_said_under_the_header_and_its_fix_fills_the_screens(make_app, indexed_vault,
                                                                                       size):
    from tests.tui.conftest import wait_until
    from tui.widgets.hit_list import HitList

    config = indexed_vault / "vault-engine.toml"
    good = config.read_text()
    config.write_text(good.replace("half_life_days", "half_lif_days", 1))
    app = make_app()
    said = notices_of(app)
    async with app.run_test(size=size) as pilot:
        await pilot.press(*"token refresh")
        await settle(pilot)
        problem = app.screen.query_one("#header-problem")
        assert problem.display and problem.region.height >= 2  # on screen, whole
        shown = str(problem.render())
        assert shown.startswith("vault-engine.toml: taps.") and "did you mean half_life_days?" in shown
        assert "Fix vault-engine.toml" in shown
        assert "vault-engine.toml" in header_text(app) and app.health.warning
        assert [severity for severity, _ in said] == ["error"]  # said once, not by every call
        # in place of the hits, where to look: the corner's toast had faded (qa55)
        assert "as said under the header" in str(app.screen.query_one("#search-summary").render())
        await pilot.press("f4", "f1")
        await settle(pilot)
        assert app.screen.query_one("#header-problem").display
        config.write_text(good)
        app.poll_freshness()  # what the poll timer does each second
        await wait_until(pilot, lambda: bool(app.screen.query_one(HitList).hits), "the hits once fixed")
        assert not app.screen.query_one("#header-problem").display and "up to date" in header_text(app)


async def test_a_config_broken_while_the_tui_is_open_is_said_at_the_next_poll(make_app, indexed_vault):
    """qa22 F10: the open vault kept its first config; only F5 showed the broken file."""
    from tests.tui.conftest import wait_until

    config = indexed_vault / "vault-engine.toml"
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"token refresh")
        await settle(pilot)
        app.poll_freshness()
        await wait_until(pilot, lambda: app.freshness is not None, "a first poll, on the vault as opened")
        assert not app.screen.query_one("#header-problem").display
        config.write_text(config.read_text().replace("half_life_days", "half_lif_days", 1))
        app.poll_freshness()  # what the poll timer does each second
        await wait_until(pilot, lambda: app.screen.query_one("#header-problem").display, "the broken file said")
        assert "did you mean half_life_days?" in str(app.screen.query_one("#header-problem").render())


async def test_a_config_broken_while_the_tui_is_open_is_said_once_however_many_polls(make_app, indexed_vault):
    """The poll after the break took the earlier poll's answer for a fix, cleared the
    problem, and the next poll said it again: 17 toasts in 14 s (qa38 F2)."""
    from tests.tui.conftest import wait_until

    config = indexed_vault / "vault-engine.toml"
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.poll_freshness()
        await wait_until(pilot, lambda: app.freshness is not None, "a first poll, on the vault as opened")
        said = notices_of(app)
        config.write_text(config.read_text().replace("half_life_days", "half_lif_days", 1))
        for _ in range(4):  # what the poll timer does each second
            app.poll_freshness()
            await settle(pilot)
        await wait_until(pilot, lambda: app.screen.query_one("#header-problem").display, "the broken file said")
        assert [m for severity, m in said if severity == "error"] == [said[0][1]] and "half_lif_days" in said[0][1]


def notices_of(app) -> list[tuple[str, str]]:
    """Every notification ``app`` shows from now on, as (severity, message): shown ones expire
    (after 5 s: a loaded machine gets there)."""
    said: list[tuple[str, str]] = []
    notify = app.notify

    def recording(message, *args, **kwargs):
        said.append((kwargs.get("severity", "information"), message))
        return notify(message, *args, **kwargs)

    app.notify = recording
    return said
