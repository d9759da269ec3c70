"""The editor command line and the Obsidian URL (tui/handoff.py)."""

from pathlib import Path

import pytest

from tui.handoff import NoEditor, editor_command, obsidian_url, url_opener

NOTE = Path("/v/specs/auth.md")


@pytest.mark.parametrize(("editor", "expected"), [
    ("vim", ["vim", "+12", "/v/specs/auth.md"]),
    ("/usr/bin/nvim -u NONE", ["/usr/bin/nvim", "-u", "NONE", "+12", "/v/specs/auth.md"]),
    ("nano", ["nano", "+12", "/v/specs/auth.md"]),
    ("code --wait", ["code", "--wait", "--goto", "/v/specs/auth.md:12"]),
    ("subl", ["subl", "/v/specs/auth.md:12"]),
    ("my-editor", ["my-editor", "/v/specs/auth.md"]),  # an unknown flag could open a file "+12"
])
def test_each_editor_is_told_the_line_its_own_way(editor, expected):
    assert editor_command(NOTE, 12, {"EDITOR": editor}) == expected


def test_visual_wins_over_editor_and_no_line_opens_the_file():
    assert editor_command(NOTE, None, {"VISUAL": "vim", "EDITOR": "nano"}) == ["vim", "/v/specs/auth.md"]


def test_no_editor_is_one_message_that_says_what_to_set():
    with pytest.raises(NoEditor, match=r"set \$EDITOR"):
        editor_command(NOTE, 3, {"EDITOR": "  "})


def test_the_obsidian_url_names_the_vault_folder_and_the_file_encoded():
    url = obsidian_url(Path("/home/ann/My Notes"), "meetings/2026-11-18 design review.md")
    assert url == "obsidian://open?vault=My%20Notes&file=meetings%2F2026-11-18%20design%20review.md"


def test_urls_of_another_app_go_to_the_systems_opener():
    assert url_opener("obsidian://x", "linux")[0] == "xdg-open"
    assert url_opener("obsidian://x", "darwin") == ["open", "obsidian://x"]
