"""Leaving the TUI with what you found: the editor command line and the Obsidian URL.

Pure functions (no Textual): the note screen runs what they return.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

# How each editor is told the line. Most terminal editors take ``+N FILE``; these do not.
GOTO_FLAG = {"code": "--goto", "codium": "--goto", "code-insiders": "--goto", "cursor": "--goto",
             "subl": None, "sublime_text": None, "zed": None, "hx": None, "helix": None}
PLUS_LINE = {"vi", "vim", "nvim", "view", "gvim", "nano", "pico", "emacs", "emacsclient", "micro",
             "kak", "joe", "mg", "ne", "jed", "mcedit", "ed"}


class NoEditor(Exception):
    """Neither $VISUAL nor $EDITOR is set."""


def editor_command(path: Path, line: int | None, env: Mapping[str, str] | None = None) -> list[str]:
    """The command that opens ``path`` at ``line`` in ``$VISUAL``, else ``$EDITOR``.

    ``+N file`` for vi, nano, emacs and their kin; ``--goto file:N`` for VS Code and its
    forks; ``file:N`` for Sublime, Zed and Helix; an editor not known here gets the file alone
    (a wrong flag would open a file named ``+12``)."""
    env = os.environ if env is None else env
    value = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    if not value:
        raise NoEditor("set $EDITOR (or $VISUAL) to open notes in your editor, e.g. export EDITOR=vim")
    command = shlex.split(value)
    name = Path(command[0]).name
    if not line or line < 1:
        return [*command, str(path)]
    if name in PLUS_LINE:
        return [*command, f"+{line}", str(path)]
    if name in GOTO_FLAG:
        flag = GOTO_FLAG[name]
        return [*command, *([flag] if flag else []), f"{path}:{line}"]
    return [*command, str(path)]


def obsidian_url(vault_root: Path, rel_path: str) -> str:
    """``obsidian://open?vault=NAME&file=PATH``: Obsidian knows a vault by its folder name,
    and a file by its vault-relative path (the ``.md`` may stay)."""
    return f"obsidian://open?vault={quote(vault_root.name, safe='')}&file={quote(rel_path, safe='')}"



def url_opener(url: str, platform: str) -> list[str]:
    """The system's command for opening a URL of another app's scheme (``obsidian://``):
    Python's webbrowser module would hand it to a browser instead."""
    if platform == "darwin":
        return ["open", url]
    if platform.startswith("win"):
        return ["cmd", "/c", "start", "", url]
    return ["xdg-open", url]
