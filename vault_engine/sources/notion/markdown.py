"""Notion API objects as Markdown: blocks, rich text, mentions and page properties.

Pure functions over the JSON the API returns (no network). Block children must already be
fetched into each block's ``"children"`` list. Mentions of pages and child pages become
wikilinks to the page's note (``[[<title> <short id>|title]]``), the same name the page gets
when it is synced; a block type this module does not know is kept as a visible placeholder
line, never dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vault_engine.sources.notion.pages import normalize_id, note_stem_for, wikilink

LIST_TYPES = frozenset({"bulleted_list_item", "numbered_list_item", "to_do", "toggle"})
SILENT_TYPES = frozenset({"table_of_contents", "breadcrumb"})  # nothing to show in Markdown
CHILD_INDENT = "    "
_NOTION_LINK = re.compile(r"^(?:https?://(?:www\.)?notion\.so/|/)(?:[^?#]*?)([0-9a-f]{32})"
                          r"|^/([0-9a-f-]{36})", re.IGNORECASE)


@dataclass(slots=True)
class KnownPages:
    """Note stems by Notion id: the pages of this sync and the notes already in the vault."""

    stems: dict[str, str] = field(default_factory=dict)

    def stem(self, notion_id: str, title: str | None = None) -> str | None:
        """The note stem of a page; for a page not known yet, the stem its note will get
        (from its title), or None when there is no title to name it by."""
        ident = normalize_id(notion_id)
        if ident is None:
            return None
        if ident in self.stems:
            return self.stems[ident]
        return note_stem_for(title, ident) if title else None


# -- rich text ----------------------------------------------------------------------------


def plain_text(rich: list[dict[str, Any]] | None) -> str:
    """Rich text without any formatting."""
    return "".join(item.get("plain_text", "") for item in rich or ())


def rich_text(rich: list[dict[str, Any]] | None, known: KnownPages, *, in_table: bool = False) -> str:
    """Rich text as inline Markdown: annotations, links, mentions as wikilinks, equations."""
    out = []
    for item in rich or ():
        kind = item.get("type")
        if kind == "mention":
            out.append(_mention(item, known, in_table))
        elif kind == "equation":
            out.append(f"${item.get('equation', {}).get('expression', '')}$")
        else:
            text = item.get("text", {}).get("content", item.get("plain_text", ""))
            annotations = item.get("annotations") or {}
            if not annotations.get("code"):  # code is shown as typed
                text = as_literal(text, at_line_start=not out or out[-1].endswith("\n"))
            out.append(_link(_annotate(_escape(text, in_table), annotations),
                             (item.get("text", {}).get("link") or {}).get("url") or item.get("href"),
                             known, in_table))
    return "".join(out)


# What Markdown or Obsidian would read as markup in text a Notion user typed as plain: emphasis,
# code, links and embeds, HTML, math, highlights, strike-through, comments, tags (qa170: a
# paragraph "# Not a heading" had become a heading, "[[x]]" a link, "*a*" italics)
_ACTIVE = re.compile(r"[\\`*\[\]<$]|~~|==|%%|_|(?<!\S)#|&(?=#?\w+;)|(?<=\s)\^(?=[\w-]+$)", re.MULTILINE)
# a list or quote marker, or a line of dashes or equals signs (a rule, or a heading's underline)
_LINE_START = re.compile(r"^(\s*(?:\d{1,9})?)([>+-]|(?<=\d)[.)])(?=\s|$)|^(\s*)([-=])(?=[-=\s]*$)")
_INDENT = re.compile(r"^(?: {4,}|[ ]*\t[ \t]*)")  # four spaces or a tab open a code block: no-break spaces


def as_literal(text: str, at_line_start: bool = True) -> str:
    """``text`` escaped so that Markdown shows it as typed. An ``_`` inside a word stays as it
    is (``snake_case``: CommonMark never reads it as emphasis); a list or quote marker, a rule
    (``---``) and an indent of four spaces where a line starts, an entity (``&amp;``) and an
    Obsidian block id at a line's end (`` ^abc``) are kept as text (qa176)."""
    def escape(m: re.Match[str]) -> str:
        found, at = m.group(), m.start()
        if found == "_" and 0 < at < len(text) - 1 and text[at - 1].isalnum() and text[at + 1].isalnum():
            return found
        return "".join("\\" + ch for ch in found)

    def at_start(line: str) -> str:
        line = _INDENT.sub(lambda m: "\u00a0" * len(m.group().expandtabs(4)), line)
        return _LINE_START.sub(lambda m: f"{m.group(1) or m.group(3) or ''}\\{m.group(2) or m.group(4)}", line)

    lines = _ACTIVE.sub(escape, text).split("\n")
    return "\n".join(at_start(line) if n or at_line_start else line for n, line in enumerate(lines))


def _escape(text: str, in_table: bool) -> str:
    """A pipe ends a table cell; inside a table it is written ``\\|``."""
    return text.replace("|", "\\|") if in_table else text


def _mention(item: dict[str, Any], known: KnownPages, in_table: bool) -> str:
    mention = item.get("mention") or {}
    kind = mention.get("type")
    shown = item.get("plain_text", "")
    if kind in ("page", "database"):
        stem = known.stem((mention.get(kind) or {}).get("id", ""), shown)
        return wikilink(stem, shown, in_table=in_table) if stem else shown
    if kind == "link_preview":
        url = (mention.get("link_preview") or {}).get("url") or item.get("href")
        return f"[{shown}]({url})" if url else shown
    return shown  # user, date, template mention: their text is what the reader sees


def _link(text: str, url: str | None, known: KnownPages, in_table: bool) -> str:
    if not url or not text.strip():
        return text
    match = _NOTION_LINK.match(url)
    if match:  # a link to another Notion page: a wikilink when that page has a note
        stem = known.stems.get(normalize_id(match.group(1) or match.group(2)) or "")
        if stem:
            return wikilink(stem, text, in_table=in_table)
        if url.startswith("/"):
            url = f"https://www.notion.so{url}"
    return f"[{text}]({url})"


def _annotate(text: str, annotations: dict[str, Any]) -> str:
    if not text.strip():
        return text
    if annotations.get("code"):  # a fence longer than any run of backticks inside (CommonMark)
        fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
        text = _wrap(text, fence, padded="`" in text)
    for key, marker in (("bold", "**"), ("italic", "*"), ("strikethrough", "~~")):
        if annotations.get(key):
            text = _wrap(text, marker)
    return text


def _wrap(text: str, marker: str, padded: bool = False) -> str:
    """``**bold**`` with the surrounding spaces kept outside (``** bold**`` is not bold); a
    code span ``padded`` inside its fence, so a backtick at its edge is no part of the fence."""
    core = text.strip()
    lead = text[:len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    pad = " " if padded else ""
    return f"{lead}{marker}{pad}{core}{pad}{marker}{trail}"


# -- blocks -------------------------------------------------------------------------------


def blocks_to_markdown(blocks: list[dict[str, Any]], known: KnownPages) -> str:
    """A list of blocks (children fetched) as a Markdown document body."""
    return "\n".join(render_blocks(blocks, known)).strip("\n")


def render_blocks(blocks: list[dict[str, Any]], known: KnownPages) -> list[str]:
    """Lines for a run of sibling blocks: a blank line between blocks, none inside a list."""
    out: list[str] = []
    previous = None
    for block in blocks:
        kind = block.get("type", "unsupported")
        lines = render_block(block, known)
        if not lines:
            continue
        if out and not (kind in LIST_TYPES and previous in LIST_TYPES):
            out.append("")
        out.extend(lines)
        previous = kind
    return out


def render_block(block: dict[str, Any], known: KnownPages) -> list[str]:
    """The Markdown lines of one block and its children."""
    kind = block.get("type", "unsupported")
    data = block.get(kind) or {}
    children = render_blocks(block.get("children") or [], known)
    if kind in SILENT_TYPES:
        return []
    renderer = _RENDERERS.get(kind)
    if renderer is None:
        return [f"*[Notion block '{kind}' not converted: open the page in Notion to see it]*"] \
            + children
    return renderer(block, data, children, known)


def _indent(lines: list[str], prefix: str = CHILD_INDENT) -> list[str]:
    return [f"{prefix}{line}" if line else "" for line in lines]


def _quoted(lines: list[str]) -> list[str]:
    return [f"> {line}" if line else ">" for line in lines]


def _item(marker: str | Callable[[dict[str, Any]], str]):
    def render(block, data, children, known):
        prefix = marker(data) if callable(marker) else marker
        first, *rest = (rich_text(data.get("rich_text"), known) or "").split("\n")
        return [f"{prefix}{first}", *_indent(rest), *_indent(children)]
    return render


def _paragraph(block, data, children, known):
    text = rich_text(data.get("rich_text"), known)
    if not text.strip() and not children:
        return []
    return [*text.split("\n"), *_indent(children)]


def _heading(level: int):
    def render(block, data, children, known):
        text = rich_text(data.get("rich_text"), known).replace("\n", " ")
        return [f"{'#' * level} {text}", *([""] + children if children else [])]
    return render


def _quote(block, data, children, known):
    text = rich_text(data.get("rich_text"), known).split("\n")
    return _quoted([*text, *([""] + children if children else [])])


def _callout(block, data, children, known):
    icon = (data.get("icon") or {}).get("emoji", "")
    text = rich_text(data.get("rich_text"), known)
    body = (f"{icon} {text}".strip() if icon else text).split("\n")
    return ["> [!note]", *_quoted([*body, *([""] + children if children else [])])]


def _code(block, data, children, known):
    language = data.get("language", "")
    language = "" if language in ("plain text", "plaintext") else language
    text = plain_text(data.get("rich_text"))
    fence = "````" if "```" in text else "```"
    return [f"{fence}{language}", *text.split("\n"), fence]


def _table(block, data, children, known):
    rows = [r.get("table_row", {}).get("cells", []) for r in block.get("children") or []
            if r.get("type") == "table_row"]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    lines = []
    for n, cells in enumerate(rows):
        texts = [rich_text(c, known, in_table=True).replace("\n", "<br>") for c in cells]
        lines.append("| " + " | ".join(texts + [""] * (width - len(texts))) + " |")
        if n == 0:  # Markdown needs a header row; Notion's first row serves as one
            lines.append("|" + " --- |" * width)
    return lines


def _child(kind: str):
    def render(block, data, children, known):
        title = data.get("title") or "Untitled"
        stem = known.stem(block.get("id", ""), title)
        return [wikilink(stem, title)] if stem else [title]
    return render


def _link_to_page(block, data, children, known):
    ident = data.get(data.get("type", ""), "") if isinstance(data, dict) else ""
    stem = known.stems.get(normalize_id(ident) or "")
    if stem:
        return [wikilink(stem)]
    return [f"[linked Notion page](https://www.notion.so/{normalize_id(ident) or ident})"]


def _media(image: bool):
    def render(block, data, children, known):
        source = data.get(data.get("type", "")) or {}
        url = source.get("url", "")
        caption = plain_text(data.get("caption")) or data.get("name") or block.get("type", "file")
        return [f"{'!' if image else ''}[{caption}]({url})"] if url else [caption]
    return render


def _bookmark(block, data, children, known):
    url = data.get("url", "")
    caption = plain_text(data.get("caption")) or url
    return [f"[{caption}]({url})"] if url else []


def _equation(block, data, children, known):
    return ["$$", data.get("expression", ""), "$$"]


def _transparent(block, data, children, known):
    return children  # synced blocks and columns: their content, in order


_RENDERERS: dict[str, Callable] = {
    "paragraph": _paragraph,
    "heading_1": _heading(1), "heading_2": _heading(2), "heading_3": _heading(3),
    "bulleted_list_item": _item("- "), "numbered_list_item": _item("1. "),
    "to_do": _item(lambda d: "- [x] " if d.get("checked") else "- [ ] "),
    "toggle": _item("- "),
    "quote": _quote, "callout": _callout, "code": _code, "table": _table,
    "divider": lambda *a: ["---"], "equation": _equation,
    "child_page": _child("page"), "child_database": _child("database"),
    "link_to_page": _link_to_page,
    "image": _media(True), "video": _media(False), "file": _media(False), "pdf": _media(False),
    "audio": _media(False),
    "bookmark": _bookmark, "embed": _bookmark, "link_preview": _bookmark,
    "synced_block": _transparent, "column_list": _transparent, "column": _transparent,
}


# -- pages, properties, databases ---------------------------------------------------------


def object_title(obj: dict[str, Any]) -> str:
    """The title of a page (its ``title`` property), a database or a data source."""
    if isinstance(obj.get("title"), list):
        return plain_text(obj["title"]).strip() or "Untitled"
    for prop in (obj.get("properties") or {}).values():
        if isinstance(prop, dict) and prop.get("type") == "title":
            return plain_text(prop.get("title")).strip() or "Untitled"
    return "Untitled"


def page_markdown(page: dict[str, Any], blocks: list[dict[str, Any]], known: KnownPages) -> str:
    """A page as the export writes it: ``# Title``, its ``Key: value`` property lines, body."""
    parts = [f"# {object_title(page)}"]
    lines = property_lines(page, known)
    if lines:
        parts.append("\n".join(lines))
    body = blocks_to_markdown(blocks, known)
    if body:
        parts.append(body)
    return "\n\n".join(parts) + "\n"


def property_lines(page: dict[str, Any], known: KnownPages) -> list[str]:
    """``Name: value`` for every non-empty property except the title."""
    lines = []
    for name, prop in (page.get("properties") or {}).items():
        if not isinstance(prop, dict) or prop.get("type") == "title":
            continue
        value = property_value(prop, known).replace("\n", " ")
        if value.strip():
            lines.append(f"{name}: {value}")
    return lines


def property_value(prop: dict[str, Any], known: KnownPages, *, in_table: bool = False) -> str:
    """One property value as short Markdown text ("" when empty)."""
    kind = prop.get("type", "")
    value = prop.get(kind)
    if value is None or value == [] or value == "":
        return ""
    if kind in ("title", "rich_text"):
        return rich_text(value, known, in_table=in_table)
    if kind == "relation":
        return ", ".join(_relation(item.get("id", ""), known, in_table) for item in value)
    if kind in ("formula", "rollup"):
        return _nested_value(value, known, in_table)
    return _escape(_simple_value(kind, value), in_table)


def _simple_value(kind: str, value: Any) -> str:
    """Properties whose value is plain text once read: names, dates, numbers, flags."""
    if kind in ("select", "status"):
        return value.get("name", "")
    if kind == "multi_select":
        return ", ".join(option.get("name", "") for option in value)
    if kind == "date":
        return " → ".join(v for v in (value.get("start"), value.get("end")) if v)
    if kind in ("people", "created_by", "last_edited_by"):
        people = value if isinstance(value, list) else [value]
        return ", ".join(p.get("name") or p.get("id", "") for p in people)
    if kind == "files":
        return ", ".join(f.get("name", "") for f in value)
    if kind == "checkbox":
        return "Yes" if value else "No"
    if kind == "number":
        return str(int(value)) if float(value).is_integer() else str(value)
    if kind == "unique_id":
        return f"{value.get('prefix') + '-' if value.get('prefix') else ''}{value.get('number', '')}"
    if isinstance(value, (str, int, float)):
        return str(value)  # url, email, phone_number, created_time, last_edited_time
    return f"[{kind}]"


def _relation(ident: str, known: KnownPages, in_table: bool) -> str:
    stem = known.stems.get(normalize_id(ident) or "")
    return wikilink(stem, in_table=in_table) if stem else f"notion://{normalize_id(ident) or ident}"


def _nested_value(value: dict[str, Any], known: KnownPages, in_table: bool) -> str:
    """A formula or rollup result: typed like a property, or an array of them."""
    kind = value.get("type", "")
    if kind == "array":
        return ", ".join(filter(None, (property_value(v, known, in_table=in_table)
                                       for v in value.get("array") or ())))
    return property_value({"type": kind, kind: value.get(kind)}, known, in_table=in_table)


def database_markdown(title: str, rows: list[dict[str, Any]], known: KnownPages) -> str:
    """A database as one note: a table of its rows, each title linking the row's note."""
    columns: list[str] = []
    for row in rows:
        for name, prop in (row.get("properties") or {}).items():
            if prop.get("type") != "title" and name not in columns:
                columns.append(name)
    lines = [f"# {title}", "", "| " + " | ".join(["Name", *columns]) + " |",
             "|" + " --- |" * (len(columns) + 1)]
    for row in rows:
        name = object_title(row)
        stem = known.stem(row.get("id", ""), name)
        cells = [wikilink(stem, name, in_table=True) if stem else name]
        props = row.get("properties") or {}
        cells += [property_value(props[c], known, in_table=True).replace("\n", "<br>")
                  if c in props else "" for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
