"""The keys every screen shares, and the key list the help screen shows.

The function keys are bound once on the app (so they work everywhere, a pushed note viewer
included) but hidden there; each of the five main screens shows them in its footer through
``MODE_KEYS``. The note viewer leaves them out: its own keys need the 80 columns. In 80
columns the footer of every screen must fit on its line (Textual scrolls a longer footer and
leaves stray letters at its edge), hence the narrow variants.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

# (key, mode, label); the app binds these, the main screens show them.
FUNCTION_KEYS = (("f1", "search", "Search"), ("f2", "dead-ends", "Dead ends"),
         ("f3", "resume", "Resume"), ("f4", "decay", "Decay"), ("f6", "find", "Find"))

WIDE_FOOTER = 100  # columns; below, the function keys share one footer entry ("Screens")
SCREENS_GROUP = Binding.Group("Screens")

# Two copies of the function keys for the footer of a main screen; KeyedScreen shows one set,
# by width (a hidden binding falls through to the app's own, so the keys always work).
# In key order: F5 (index) sits between Decay and Find (F6, added after the index key).
MODE_KEYS = [
    *sorted([*(Binding(key, f"goto('{mode}')", label) for key, mode, label in FUNCTION_KEYS),
             Binding("f5", "reindex", "Index")], key=lambda b: b.key),
    *sorted([*(Binding(key, f"goto_short('{mode}')", label, group=SCREENS_GROUP)
               for key, mode, label in FUNCTION_KEYS),
             Binding("f5", "reindex_short", "Index", group=SCREENS_GROUP)], key=lambda b: b.key),
]
WIDE_ONLY = frozenset({"goto", "reindex", "focus_next", "obsidian"})
NARROW_ONLY = frozenset({"goto_short", "reindex_short", "focus_next_quietly", "obsidian_quietly"})
HELP_KEY = Binding("question_mark", "app.help", "Keys", key_display="?")
# Tab, shown in a wide footer; the hidden twin does the work in a narrow one (a screen's own
# tab binding replaces Textual's, so a lone disabled one left Tab doing nothing there).
NEXT_PANE = (Binding("tab", "focus_next", "Pane"), Binding("tab", "focus_next_quietly", "Pane", show=False))

# What works everywhere, for the help screen (the footer only has room for some of it).
EVERYWHERE = (
    ("F1 F2 F3 F4 F6", "Search, Dead ends, Resume, Decay, Find"),
    ("F5", "bring the index up to date (progress in the header)"),
    ("Tab / Shift+Tab", "next / previous pane (the focused pane has a bright edge; in a note's text, its links)"),
    ("?", "this list (in a text box ? is typed: Tab out first)"),
    ("Ctrl+P", "every command, searchable"),
    ("Ctrl+Q", "quit"),
)


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One line of the help screen."""

    keys: str
    does: str


def screen_keys(bindings: list[Binding], display: dict[str, str]) -> list[KeyLine]:
    """The help lines for a screen's active bindings: every binding with a description, once
    per action (``b``/``f`` are two lines, ``enter`` on two widgets is one), in the order
    given; ``display`` is how the app writes each key (``esc``, ``↓``)."""
    lines: dict[str, KeyLine] = {}
    for binding in bindings:
        if not binding.description or binding.system or binding.action in lines:
            continue
        lines[binding.action] = KeyLine(display.get(binding.key, binding.key), binding.description)
    return list(lines.values())
