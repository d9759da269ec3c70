"""Pure text helpers for the TUI: paths, dates, bars, health lines, Markdown for display.

No Textual import here, so every rule can be tested without running an app.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_engine.dates import utc_date
from vault_engine.model import ResolvedLink

BAR_FULL, BAR_EMPTY = "█", "░"
LINK_SCHEME = "vault-link:"


def display_path(path: Path, home: Path | None = None) -> str:
    """The vault path as a human types it: ``~/notes`` rather than ``/home/ann/notes``."""
    home = home if home is not None else Path.home()
    try:
        return "~/" + path.relative_to(home).as_posix() if path != home else "~"
    except ValueError:
        return str(path)


def iso_date(ts: float | None) -> str:
    """``2026-03-14`` for a Unix time, ``undated`` when there is none."""
    return utc_date(ts, "undated")


def age_text(days: float) -> str:
    """A short age: ``today``, ``3 d``, ``5 w``, ``14 mo``."""
    if days < 1:
        return "today"
    if days < 14:
        return f"{days:.0f} d"
    if days < 120:
        return f"{days / 7:.0f} w"
    return f"{days / 30.4:.0f} mo"


def bar(fraction: float, width: int = 10) -> str:
    """A text bar for a value in [0, 1]: ``█████░░░░░`` for 0.5."""
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return BAR_FULL * filled + BAR_EMPTY * (width - filled)


@dataclass(frozen=True, slots=True)
class Health:
    """The header's index-health summary; ``warning`` when something needs doing."""

    text: str
    warning: bool = False


NO_INDEX = Health("no index: press F5", warning=True)
# damaged, the screens answered nothing under "0 notes · up to date" once its toast was gone (qa106)
DAMAGED = Health("index DAMAGED: press F5 to repair it", warning=True)
BROKEN_CONFIG = Health("vault-engine.toml is broken", warning=True)  # what is wrong: under the header
NO_INDEX_TEXT = "No index yet: press F5 to build it (or run `vault-engine index` in a terminal)."
DAMAGED_TEXT = ("The index is damaged: press F5 to repair it from the notes (or run `vault-engine index` in a "
                "terminal); nothing of yours is lost.")


def health_of(status: Mapping[str, Any]) -> Health:
    """``35 notes · up to date · watcher off`` from ``Vault.status()``. A words index an
    interrupted run left a step behind still answers (``status`` says BEHIND, not DAMAGED):
    the screens stay usable, the header says to press F5 (qa109)."""
    damage = status.get("damage") or []
    behind = bool((status.get("lexical") or {}).get("interrupted"))  # then damage[0] says so
    if damage and not (behind and len(damage) == 1):
        return DAMAGED
    stale = status.get("stale", {})
    stale_count = int(stale.get("changed", 0)) + int(stale.get("missing", 0))
    watcher = watcher_text(status.get("watcher"))
    notes = status.get("notes", 0)
    parts = ["1 note" if notes == 1 else f"{notes} notes",
             "index BEHIND: press F5" if behind else f"{stale_count} stale: press F5" if stale_count else "up to date",
             watcher]
    return Health(" · ".join(parts), warning=behind or bool(stale_count) or watcher == "watcher died")


def watcher_text(watcher: Any) -> str:
    """``watcher on`` / ``watcher off`` / ``watcher died`` from ``status()["watcher"]``
    (``{"state": "off" | "stale" | "running" | "watching" ..., "summary": ...}``)."""
    state = watcher.get("state") if isinstance(watcher, Mapping) else None
    if state in (None, "off"):
        return "watcher off"
    if state == "stale":
        return "watcher died"  # watch.json left over by a process that is gone
    return "watcher on"


def linkify(body: str, links: Iterable[ResolvedLink], first_line: int) -> str:
    """Turn the links the index found into Markdown links the viewer can click.

    Only links the parser recognised are rewritten (it already skipped code spans, fences
    and comments), each on its own line; ``first_line`` is the file line of ``body``'s first
    line. The href is ``vault-link:N``, N the index of the link in ``links``.
    """
    lines = body.split("\n")
    for number, link in enumerate(links):
        row = link.line - first_line
        if not 0 <= row < len(lines) or not link.raw.startswith(("[[", "![[")):
            continue  # Markdown-style links already render as links
        label = link_label(link.raw)
        lines[row] = lines[row].replace(link.raw, f"[{_escape(label)}]({LINK_SCHEME}{number})", 1)
    return "\n".join(lines)


def link_label(raw: str) -> str:
    """What Obsidian shows for a wiki link: the ``|alias``, else the target as written. An
    embed's ``|100`` or ``|100x80`` is the image's size, no alias (it was drawn as "100", qa106)."""
    inner = raw.lstrip("!").removeprefix("[[").removesuffix("]]")
    target, _, alias = inner.partition("|")
    if raw.startswith("!") and _SIZE.fullmatch(alias.strip()):
        return target
    return alias or target


_SIZE = re.compile(r"\d+(?:x\d+)?")


def link_text(raw: str) -> str:
    """A link as the link list shows it: wiki links as written, Markdown links by their text
    (their target is usually a long URL-encoded path)."""
    if raw.startswith(("[[", "![[")):
        return raw
    match = re.match(r"!?\[([^\]]*)\]\(", raw)
    return f"[{match.group(1)}]" if match else raw


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (Textual lists wrap otherwise)."""
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


RULED_OUT = "ruled out here: "
MIN_RULING = 16  # characters of a ruling worth showing; fewer, and the second one goes


def ruled_out_within(rulings: tuple[str, ...], width: int) -> str:
    """A hit's ``ruled out here: A; B (+N more)`` in ``width`` characters: the rulings are
    shortened and the count of the others kept (cut at the width, the count went, and with
    it the sign that there were more, qa38)."""
    for shown in (2, 1):
        kept = rulings[:shown]
        more = f" (+{len(rulings) - len(kept)} more)" if len(rulings) > len(kept) else ""
        room = width - len(RULED_OUT) - len(more) - 2 * (len(kept) - 1)
        # an even share each, and what a shorter one leaves to the other
        rooms = [max(room // len(kept), room - sum(len(other) for j, other in enumerate(kept) if j != i))
                 for i in range(len(kept))]
        if min(rooms) >= MIN_RULING or shown == 1:
            return clip(RULED_OUT + "; ".join(clip(text, max(1, r)) for text, r in zip(kept, rooms)) + more, width)
    raise AssertionError("unreachable")  # the last round always returns


MIN_NAME = 12  # characters of a path's last segment kept when the head has to stay
HEAD_FOLDERS = 2  # "projects/billing-service": a top folder alone rarely says whose it is
MIN_HEAD = 8  # characters of the head kept when it is the head that is cut


def clip_path(path: str, width: int) -> str:
    """A path cut in the middle, so that its head (the project folder) stays and so does
    most of its file name: ``projects/billing-service/…/2026-x.md:12``. Folders go first,
    from the middle; then the name loses its start (to the same ``…`` when folders went
    too) or its middle, or, when too little of it would be left, the head is cut."""
    if len(path) <= width:
        return path
    *folders, name = path.split("/")
    head_size = min(HEAD_FOLDERS, len(folders))
    for kept in range(len(folders) - 1, head_size - 1, -1):  # drop folders from the middle
        candidate = "/".join(folders[:kept]) + "/…/" + name
        if kept and len(candidate) <= width:
            return candidate
    for kept in range(head_size, 0, -1):
        head = "/".join(folders[:kept])
        room = width - len(head) - 1
        if room >= MIN_NAME and kept < len(folders):  # the head, then "…" for folders and the name's start
            return f"{head}/…{name[len(name) - room + 1:]}"
        if room >= MIN_NAME:  # the head whole, the name cut in its middle
            return f"{head}/{clip_middle(name, room)}"
        if width - len(name) - 2 >= MIN_HEAD:  # a short name whole, the head cut
            return head[:width - len(name) - 2] + "…/" + name
    return clip_middle(path, width)


def clip_middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` with a ``…`` in its middle, a third before it and two
    thirds after: the end of a name says most (who wrote it, which section, which line)."""
    if len(text) <= width:
        return text
    if width < 2:
        return "…"[:width]
    before = max(1, (width - 1) // 3)
    return text[:before] + "…" + text[len(text) - (width - 1 - before):]


def _escape(label: str) -> str:
    return label.replace("[", "\\[").replace("]", "\\]")


FENCE = re.compile(r"^\s*(```+|~~~+)")  # a code fence's opening or closing line, and its marker


def without_html(line: str, line_break: str = " ") -> str:
    """A Markdown line with its HTML tags and comments dropped outside code spans, as
    Obsidian's reading view shows it (``<br>`` is ``line_break``): Textual's Markdown drops an
    HTML block, and the paragraph of a line that opened with a tag or a comment was gone
    (qa55, qa58)."""
    if "<" not in line:
        return line
    parts, end = [], 0
    for span in _CODE_SPAN.finditer(line):
        parts += [_without_tags(line[end:span.start()], line_break), span.group()]
        end = span.end()
    parts.append(_without_tags(line[end:], line_break))
    return "".join(parts)


def _without_tags(text: str, line_break: str) -> str:
    return _HTML_TAG.sub("", _BREAK.sub(line_break, _HTML_COMMENT.sub("", text)))


_CODE_SPAN = re.compile(r"(`+)[^`]*?\1")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_HTML_COMMENT = re.compile(r"<!--.*?-->")
_BREAK = re.compile(r"<br\s*/?>", re.I)
_CALLOUT = re.compile(r"^(\s*(?:>\s*)+)\[!([A-Za-z0-9_-]+)\]([+-]?)\s*(.*)$")
_TASK = re.compile(r"^(\s*[-*+]\s+)\[([ xX/-])\]\s")
TASK_MARKS = {" ": "☐", "x": "☑", "X": "☑", "/": "◐", "-": "☒"}
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
OPENED_MARK = "▶ "


def obsidian_markdown(body: str, opened_row: int | None = None) -> str:
    """Obsidian's extensions as Textual's Markdown can show them, code fences left alone:
    a callout's ``> [!faq]- Title`` becomes a bold ``FAQ · Title`` line inside the quote (``-``
    and ``+``, folding, mean nothing here), a task's ``- [ ]`` / ``- [x]`` a ☐ / ☑ before the
    text (else the list shows ``• [ ]``), HTML tags their text (``<br>`` in a table cell `` / ``).
    ``opened_row`` (0-based) is the line asked for (a
    section's heading, a dead end's item): it gets a ▶ so that a short note, which cannot
    scroll, still shows it."""
    lines, fenced, commented = body.split("\n"), False, False
    for row, line in enumerate(lines):
        if FENCE.match(line) and not commented:
            fenced = not fenced
            continue
        if fenced:
            continue
        if commented or "%%" in line:  # hidden in reading view (data-engineering-wiki's footer on every note: qa106)
            line, commented = _outside_comments(line, commented)
        line = lines[row] = without_html(line, " / " if line.lstrip().startswith("|") else " ")
        if callout := _CALLOUT.match(line):
            quote, kind, _, title = callout.groups()
            label = kind.replace("-", " ").upper() if len(kind) <= 3 else kind.replace("-", " ").capitalize()
            # on a line of its own, as Obsidian shows it: the quote's next line had run on after
            # the title in one paragraph (qa145); a hard break only before more of the quote
            follows = row + 1 < len(lines) and _goes_on(lines[row + 1])
            lines[row] = f"{quote}**{label}{' · ' + title if title else ''}**" + ("\\" if follows else "")
        elif task := _TASK.match(line):
            lines[row] = f"{task.group(1)}{TASK_MARKS[task.group(2)]} {line[task.end():]}"
        if row == opened_row and lines[row].strip():
            lines[row] = _marked(lines[row])
    return "\n".join(lines)


# what opens a block of its own after a line of a quote: a list item, a heading, a fence, a
# table row, another quote level or callout; a hard break before it was shown as a backslash (qa148)
_OWN_BLOCK = re.compile(r"(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|```|~~~|\||>|\[!)")


def _goes_on(line: str) -> bool:
    """Whether a line goes on with a quote's paragraph: more of the quote, its text not a
    block of its own."""
    quoted = line.lstrip()
    if not quoted.startswith(">"):
        return False
    text = quoted[1:].lstrip()
    return bool(text) and not _OWN_BLOCK.match(text)


def _outside_comments(line: str, inside: bool) -> tuple[str, bool]:
    """What a line shows outside ``%% comments %%``, and whether one is still open after it
    (a comment may run over lines, as Obsidian reads it)."""
    parts = line.split("%%")
    shown = "".join(part for n, part in enumerate(parts) if (n % 2 == 0) != inside)
    return shown if shown.strip() or not line.strip() else "", inside != (len(parts) % 2 == 0)


def _marked(line: str) -> str:
    """``line`` with the ▶ after its heading hashes, its list marker or its indent: a dead end
    opened at its Failed item's line was in view, unmarked, in a note too short to scroll
    (qa38 F6)."""
    if heading := _HEADING.match(line):
        return f"{heading.group(1)} {OPENED_MARK}{heading.group(2)}"
    cut = max(_ITEM.match(line).end(), _QUOTES.match(line).end())  # both match at least ""
    return f"{line[:cut]}{OPENED_MARK}{line[cut:]}"


_QUOTES = re.compile(r"\s*(?:>\s*)*")


_ITEM = re.compile(r"^(\s*)((?:\d+[.)]|[-*•])\s+)?")


@dataclass(frozen=True, slots=True)
class HangingLine:
    """One line of plain text laid out with a hanging indent: ``lead`` (its indent, then a
    list marker such as ``1. ``) on the first row, as many blanks before each wrapped row."""

    lead: str
    text: str


def hanging_lines(text: str) -> list[HangingLine]:
    """``text`` cut into lines whose wrapped rows keep their indent: ``   Why it failed:
    ...`` wraps under ``Why``, ``1. Drop ...`` under ``Drop`` (a terminal wraps to column 0)."""
    lines = []
    for line in text.split("\n"):
        lead = _ITEM.match(line).group(0)
        lines.append(HangingLine(lead, line[len(lead):]))
    return lines


_WIKILINK = re.compile(r"!?\[\[[^\]\n]+\]\]")


def link_wikilinks(markdown: str, resolved: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """Each ``[[wikilink]]`` of ``markdown`` found in ``resolved`` (raw -> ref) becomes
    ``[label](vault-link:N)``; returns the text and the refs by N. Others stay as written."""
    targets: list[str] = []

    def replace(match: re.Match) -> str:
        raw = match.group(0)
        if raw not in resolved:
            return raw
        targets.append(resolved[raw])
        return f"[{_escape(link_label(raw))}]({LINK_SCHEME}{len(targets) - 1})"

    return _WIKILINK.sub(replace, markdown), tuple(targets)


def link_note_lines(markdown: str, paths: Iterable[str], first_number: int) -> tuple[str, tuple[str, ...]]:
    """A line of ``markdown`` that starts with one of ``paths`` (how a resume brief names a
    note it quotes: ``path, by agent, date``) starts instead with the note's file name as a
    link ``[name](vault-link:N)``, N counted from ``first_number``, then ``in folder/``: a
    long path wraps at that space instead of in the middle of a word. Returns the text and
    the paths by N."""
    paths = tuple(paths)
    targets: list[str] = []
    lines = markdown.split("\n")
    for row, line in enumerate(lines):
        path = next((p for p in paths if line == p or line.startswith(p + ",")), None)
        if path is None:
            continue
        folder, _, name = path.rpartition("/")
        link = f"[{_escape(name)}]({LINK_SCHEME}{first_number + len(targets)})"
        lines[row] = link + (f" in {folder}/" if folder else "") + line[len(path):]
        targets.append(path)
    return "\n".join(lines), tuple(targets)


def unusable_text(health: Health) -> str | None:
    """What a screen shows in place of its answer when there is no index to ask, or a damaged
    one (said in the header too); None when the index answers."""
    return {NO_INDEX: NO_INDEX_TEXT, DAMAGED: DAMAGED_TEXT}.get(health)


def not_answered(health: Health, said: list[str], what: str) -> str:
    """What a screen shows in place of an answer that did not come: why, when a user error
    said so; no index (said in the header too); else that the message says why."""
    if said:
        return f"Nothing {what}: {said[0]}"
    if text := unusable_text(health):
        return text
    if health == BROKEN_CONFIG:  # said under the header, where it stays (the corner's fades: qa55)
        return f"Nothing {what}: vault-engine.toml is broken, as said under the header; fix it and the answer comes"
    return f"Nothing {what}: the message in the corner says why."


def properties_markdown(meta: Mapping[str, Any]) -> str:
    """A note that is all properties as a list of them, as Obsidian's reading view shows its
    properties above an empty page; "" for none."""
    def shown(value: Any) -> str:
        values = value if isinstance(value, list) else [value]
        return ", ".join(str(v) for v in values if v not in (None, ""))

    lines = [f"- **{key}**: {_escape(shown(value))}" for key, value in meta.items() if shown(value)]
    return "*Properties only:*\n\n" + "\n".join(lines) if lines else ""
