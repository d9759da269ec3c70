"""Dead-end markers in working notes: explicit markers only, never sentiment.

A working note is an agent's scratch pad, so only what its author marked counts:

- an Obsidian callout ``> [!deadend] Title`` or ``> [!failed] Title`` (``+``/``-`` fold
  signs allowed); the title is the approach, the callout's body the reason;
- a line or list item starting with ``DEADEND:`` or ``FAILED:`` (upper case, optionally bold);
- a list item carrying the tag ``#deadend``.

One struck through from its start (``~~...~~``) was reversed, and is no ruling, as in a
checkpoint's Failed list.

"this failed to compile, fixed it" is prose, not a marker: it is never a dead end. Reasons of
list items follow the checkpoint rules (`` -- `` / `` — `` or a nested ``Reason:`` item).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from vault_engine.model import DeadEnd
from vault_engine.parsing.checkpoints import (
    QUOTE,
    ListItem,
    SectionLike,
    body_lines,
    callouts,
    item_reason,
    read_list,
    slugify,
    split_reason,
    struck_out,
    without_callouts,
)

SOURCE = "working note"

_MARKER = re.compile(r"^[*_]{0,2}(?:DEADEND|FAILED)[*_]{0,2}[ \t]*:[ \t]*[*_]{0,2}[ \t]*(?P<rest>.*)$")
_LIST_START = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
_TAG = re.compile(r"(?:^|(?<=\s))#deadend(?![\w/-])", re.IGNORECASE)
_TAG_COLON = re.compile(r"[ \t]*(?:^|(?<=\s))#deadend[ \t]*:", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`[^`]*`")


def marked_dead_ends(sections: Sequence[SectionLike], agent: str | None = None,
                     when: float | None = None) -> tuple[DeadEnd, ...]:
    """Every explicitly marked dead end of a working note, in reading order."""
    found: list[tuple[int, str, str | None, str | None]] = []
    for section in sections:
        lines = body_lines(section)
        for offset, text, reason in callouts(lines) + _marker_lines(lines) + _list_markers(lines):
            found.append((section.line_start + offset, text, reason, section.heading))
    found.sort(key=lambda f: f[0])
    slugs: set[str] = set()
    return tuple(DeadEnd(text, reason, SOURCE, line, heading, slugify(text, slugs), agent, when)
                 for line, text, reason, heading in found if text)


def _marker_lines(lines: list[str]) -> list[tuple[int, str, str | None]]:
    """``DEADEND: approach -- reason`` as a plain line (list items are read as a tree)."""
    found = []
    for offset, line in enumerate(lines):
        if _LIST_START.match(line) or QUOTE.match(line):
            continue
        m = _MARKER.match(line.strip())
        if m and not m.group("rest").startswith("~~"):  # "DEADEND: ~~X -- why~~ works now" (qa133)
            text, reason = split_reason(m.group("rest"))
            found.append((offset, text, reason))
    return found


def _list_markers(lines: list[str]) -> list[tuple[int, str, str | None]]:
    """List items (at any depth) starting with a marker or tagged ``#deadend``. A marker line
    or a callout is no continuation of the item above it (a lazy continuation to Markdown):
    "FAILED: tenacity without max -- waits grew to 9 hours" became the end of the previous
    item's reason, and a ruling of its own too (qa51)."""
    found = []
    # a callout, indented into an item or not, is a ruling of its own too (qa141)
    apart = ["" if not _LIST_START.match(line) and _MARKER.match(line.strip()) else line
             for line in without_callouts(lines)]
    for item in _all_items(read_list(apart)):
        if struck_out(item):  # "- ~~Poll every second -- rate limited~~ works now #deadend" (qa132)
            continue
        m = _MARKER.match(item.text)
        if m and m.group("rest").startswith("~~"):  # struck out after its marker
            continue
        if m:
            marked = ListItem(m.group("rest"), item.offset, item.indent, item.children)
        elif _TAG.search(_CODE_SPAN.sub("", item.text)):
            # "#deadend: why" gives its reason as " -- why" does (the ":" was left in the approach, qa53)
            untagged = " ".join(_TAG.sub("", _TAG_COLON.sub(" -- ", item.text, count=1)).split())
            marked = ListItem(untagged, item.offset, item.indent, item.children)
        else:
            continue
        text, reason = item_reason(marked)
        found.append((item.offset, text, reason))
    return found


def _all_items(items: Iterable[ListItem]) -> Iterable[ListItem]:
    for item in items:
        yield item
        yield from item.descendants()
