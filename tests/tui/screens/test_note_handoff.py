"""Leaving the note viewer with what you found: $EDITOR at the line, Obsidian, the ref copied.
The editor and the system's URL opener are real programs: scripts on $PATH that write down
how they were called."""

import os
import stat

import pytest

from tests.tui.conftest import SMALL, WIDE, settle
from tui.screens.note import NoteScreen

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


def recorder(folder, name):
    """A program ``name`` in ``folder`` that appends its arguments to ``name``.log."""
    log = folder / f"{name}.log"
    script = folder / name
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> "{log}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return log


async def open_note(app, pilot, ref):
    app.open_note(ref)
    await settle(pilot)
    assert isinstance(app.screen, NoteScreen)
    return app.screen


@SIZES
async def test_e_opens_the_editor_at_the_sections_line(make_app, indexed_vault, tmp_path, monkeypatch, size):
    log = recorder(tmp_path, "vim")
    monkeypatch.setenv("EDITOR", str(tmp_path / "vim"))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, "specs/auth-sessions.md#Token refresh")
        await pilot.press("e")
        await settle(pilot)
    line = screen.page.line
    assert line and line > 1
    assert log.read_text().splitlines() == [f"+{line}", str(indexed_vault / "specs/auth-sessions.md")]
    text = (indexed_vault / "specs/auth-sessions.md").read_text().splitlines()
    assert text[line - 1].lstrip("# ").startswith("Token refresh")


async def test_without_an_editor_e_says_what_to_set(make_app, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_note(app, pilot, "glossary.md")
        await pilot.press("e")
        await settle(pilot)
        assert any("$EDITOR" in n.message for n in app._notifications)
        assert isinstance(app.screen, NoteScreen)


async def test_o_opens_the_note_in_obsidian(make_app, indexed_vault, tmp_path, monkeypatch):
    log = recorder(tmp_path, "xdg-open")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_note(app, pilot, "meetings/2026-11-18 design review.md")
        await pilot.press("o")
        await settle(pilot)
        for _ in range(50):  # the opener runs detached: wait for its log, not for a time
            if log.exists():
                break
            await pilot.pause(0.05)
    assert log.read_text().strip() == ("obsidian://open?vault=sample&file=meetings%2F2026-11-18%20"
                                       "design%20review.md")


@SIZES
async def test_c_copies_the_ref_of_the_section_shown(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await open_note(app, pilot, "specs/auth-sessions.md#Token refresh")
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == "specs/auth-sessions.md#Token refresh"
        assert any(n.title == "Ref copied" for n in app._notifications)


async def test_o_without_an_opener_is_one_titled_error_naming_what_is_missing(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no xdg-open (nor open, nor cmd) on it
    monkeypatch.setattr("tui.screens.note.sys.platform", "linux")
    app = make_app()
    shown = []
    notify = app.notify
    app.notify = lambda message, **kwargs: shown.append((kwargs.get("severity"), kwargs.get("title"), message)) \
        or notify(message, **kwargs)  # every notification, expired or not
    async with app.run_test(size=WIDE) as pilot:
        await open_note(app, pilot, "glossary.md")
        await pilot.press("o")
        await settle(pilot)
    assert len(shown) == 1, shown
    severity, title, message = shown[0]
    assert severity == "error" and title == "Obsidian"
    assert message.startswith("xdg-open is not installed") and "xdg-utils" in message
    assert "obsidian://open?vault=sample&file=glossary.md" in message


async def test_e_on_code_of_a_tap_outside_the_vault_opens_its_file(tmp_path, monkeypatch):
    """It had opened `<vault>/repo:pkg/a.py`, no file at all: what was typed there was lost (qa153)."""
    from tests.tui.conftest import TUI_NOW
    from tui import create_app
    from vault_engine.vault import Vault

    repo, vault = tmp_path / "repo", tmp_path / "vault"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("import os\n\n\ndef helper():\n    return os.sep\n")
    vault.mkdir()
    (vault / "note.md").write_text("# Note\n")
    (vault / "vault-engine.toml").write_text('[taps.repo]\nsource = "code"\nroot = "../repo"\npaths = ["pkg/**"]\n')
    with Vault(vault) as opened:
        opened.index(embed=False, now=TUI_NOW)
    log = recorder(tmp_path, "vim")
    monkeypatch.setenv("EDITOR", str(tmp_path / "vim"))
    app = create_app(vault, now=TUI_NOW, semantic=False)
    async with app.run_test(size=WIDE) as pilot:
        await open_note(app, pilot, "repo:pkg/a.py#helper")
        await pilot.press("e")
        await settle(pilot)
    assert log.read_text().splitlines() == ["+4", str(repo / "pkg" / "a.py")]


async def test_after_an_edit_the_note_opens_again_at_its_section_as_indexed_now(make_app, indexed_vault, tmp_path,
                                                                               monkeypatch):
    """Lines added above the section in the editor: the ▶ and the scroll had landed on another
    section, the index's lines being the old text's (qa153). The edit is indexed, then shown."""
    editor = tmp_path / "vim"
    editor.write_text('#!/bin/sh\npython3 - "$2" <<\'PY\'\nimport sys\np = sys.argv[1]\nt = open(p).read()\n'
                      'open(p, "w").write(t.replace("\\n## ", "\\nAdded above.\\nAnd more.\\n\\n## ", 1))\nPY\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, "specs/auth-sessions.md#Token refresh")
        await pilot.press("e")
        await settle(pilot, rounds=10)
        assert "Added above." in (indexed_vault / "specs/auth-sessions.md").read_text()
        body = screen.query_one("#note-body").source
        assert [line for line in body.split("\n") if "▶" in line] == ["## ▶ Token refresh"]
        text = (indexed_vault / "specs/auth-sessions.md").read_text().splitlines()
        assert text[screen.page.line - 1].lstrip("# ") == "Token refresh"
