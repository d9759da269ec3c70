"""Links inside a Notion export: resolve them by Notion id or path, and rewrite them.

A link to a page or database becomes ``[[<note stem>|text]]``; a link to an attachment points
at its copy, which goes into the folder named like the page whose export folder holds it.
Notion's relative paths are unreliable (CSV cells are relative to the export root, some links
name a ``.md`` where only the ``.csv`` exists), so a link is resolved by the id in its file
name first, then by path, then by a file name that only one attachment has.

A link to a page neither in the export nor in the vault becomes the wikilink that page's note
*will* have (title + id): it stays unresolved, and is reported, until that page is imported.
It is never pointed at another note.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from vault_engine.sources.notion.archive import ExportFile, parent_id_of, split_export_name
from vault_engine.sources.notion.pages import note_stem_for, safe_title, wikilink
from vault_engine.sources.notion.report import UnresolvedLink

_MD_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^>\n]+>|(?:[^()\s]|\([^()\s]*\))+)(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_RELATION = re.compile(r"(?<= )\((?P<href>(?:[^()\s]|\([^()\s]*\))+?\.(?:md|csv))\)")


@dataclass(slots=True)
class LinkStats:
    """Relative links seen, how many resolved, and the ones that did not."""

    relative: int = 0
    resolved: int = 0
    unresolved: list[UnresolvedLink] = field(default_factory=list)


class LinkTargets:
    """Resolves the relative links of an export to notes and attachment copies."""

    def __init__(self, attachments: dict[str, ExportFile], stems: dict[str, str],
                 owners: set[str]):
        self.attachments = attachments  # export path -> file, for every non-page file
        self.stems = stems  # notion id -> note stem, for the export and the vault
        self.owners = owners  # ids of the export's pages and databases: who can hold files
        self.placed: dict[str, tuple[str, str]] = {}  # attachment -> (owner id, path under it)
        self._by_name: dict[str, list[str]] = defaultdict(list)
        for path in attachments:
            self._by_name[path.rsplit("/", 1)[-1].casefold()].append(path)
        self.stats = LinkStats()

    def render(self, href: str, text: str, from_path: str, *, embed: bool = False,
               in_table: bool = False, original: str = "") -> str:
        """The rewritten link for ``href`` written in ``from_path`` (counted in ``stats``)."""
        self.stats.relative += 1
        target = unquote(href.split("#", 1)[0])
        _, ident, ext = split_export_name(target.rsplit("/", 1)[-1])
        if ident and ext in (".md", ".csv"):
            if ident in self.stems:
                self.stats.resolved += 1
                return wikilink(self.stems[ident], text, in_table=in_table)
            title = split_export_name(target.rsplit("/", 1)[-1])[0] or "Untitled"
            self._unresolved(from_path, target, "page neither in the export nor in the vault: "
                                                "the link resolves once that page is imported")
            return wikilink(note_stem_for(title, ident), text, in_table=in_table)
        attachment = self.find_attachment(target, from_path)
        if attachment is None:
            self._unresolved(from_path, target, "file missing from the export: link kept as written")
            return original or f"[{text}]({href})"
        self.stats.resolved += 1
        owner, rel = self.place(attachment, from_path)
        return f"{'!' if embed else ''}[{text}]({quote(f'{self.stems[owner]}/{rel}')})"

    def _unresolved(self, from_path: str, target: str, reason: str) -> None:
        self.stats.unresolved.append(UnresolvedLink(from_path, target, reason))

    def find_attachment(self, target: str, from_path: str) -> str | None:
        """Relative to the linking file, else to the export root, else by unique file name,
        unless the link names the folder of another page: three pages' ``Untitled.png``,
        missing from the export, had become a fourth page's own (qa50)."""
        base = posixpath.dirname(from_path)
        for candidate in (posixpath.join(base, target), target):
            norm = posixpath.normpath(candidate)
            if norm in self.attachments:
                return norm
        same_name = self._by_name.get(target.rsplit("/", 1)[-1].casefold(), [])
        if len(same_name) != 1:
            return None
        folder = parent_id_of(target)
        return same_name[0] if folder is None or folder == parent_id_of(same_name[0]) else None

    def place(self, attachment: str, from_path: str) -> tuple[str, str]:
        """Where an attachment is copied: into the folder of the page whose export folder
        holds it, else next to the first page linking to it."""
        if attachment not in self.placed:
            owner, rel = owner_of(attachment, self.owners)
            if owner is None:
                owner = self._page_id_of(from_path)
                rel = safe_segment(attachment.rsplit("/", 1)[-1])
            self.placed[attachment] = (owner, rel)
        return self.placed[attachment]

    def _page_id_of(self, path: str) -> str:
        return split_export_name(path.rsplit("/", 1)[-1])[1] or ""


def owner_of(attachment: str, known: Collection[str]) -> tuple[str | None, str]:
    """The page (or database) whose ``Title <id>/`` folder holds the attachment, and the
    attachment's path under that folder (each part made safe for a file name)."""
    parts = attachment.split("/")
    for i in range(len(parts) - 2, -1, -1):
        _, ident, ext = split_export_name(parts[i])
        if ident and not ext and ident in known:
            return ident, "/".join(safe_segment(p) for p in parts[i + 1:])
    return None, ""


def safe_segment(name: str) -> str:
    """A file name made safe like a title, its extension kept."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return safe_title(name)
    return f"{safe_title(stem)}.{safe_title(ext)}"


def rewrite_markdown_links(body: str, from_path: str, targets: LinkTargets) -> str:
    """Rewrite ``[text](relative)`` links outside code; URLs are left alone."""
    masked = _mask_code_keeping_offsets(body)
    out: list[str] = []
    pos = 0
    for m in _MD_LINK.finditer(masked):
        href = m.group(3).strip("<>")
        if _SCHEME.match(href) or href.startswith(("#", "//")):
            continue
        line_start = body.rfind("\n", 0, m.start()) + 1
        in_table = body[line_start:m.start()].lstrip().startswith("|")
        text = body[m.start(2):m.end(2)]
        out.append(body[pos:m.start()])
        out.append(targets.render(href, text, from_path, embed=bool(m.group(1)),
                                  in_table=in_table, original=body[m.start():m.end()]))
        pos = m.end()
    out.append(body[pos:])
    return "".join(out)


def _mask_code_keeping_offsets(body: str) -> str:
    """The body with code blocks, code spans and comments blanked to spaces, so a link found
    in the result sits at the same offsets in the body (mask_code empties code lines)."""
    from vault_engine.parsing.links import mask_code
    from vault_engine.parsing.sections import parse_blocks

    lines = body.split("\n")
    for start, end in parse_blocks(body).code_ranges:
        for i in range(start, min(end, len(lines))):
            lines[i] = " " * len(lines[i])
    return mask_code("\n".join(lines), ())


def rewrite_relations(value: str, from_path: str, targets: LinkTargets, *,
                      in_table: bool = False) -> str:
    """``Title (path.md), Other (path2.md)`` -> wikilinks; a bare path to an exported file
    (``Files & media: ../photo.jpeg``) -> a link to its copy."""
    out: list[str] = []
    pos = 0
    for m in _RELATION.finditer(value):
        chunk = value[pos:m.start()]
        title = chunk.lstrip(", ")
        out.append(chunk[:len(chunk) - len(title)])  # the ", " between two relations
        out.append(targets.render(m["href"], title.rstrip(), from_path, in_table=in_table,
                                  original=title + m.group(0)))
        pos = m.end()
    if pos == 0 and _bare_paths(value, from_path, targets):
        return ", ".join(targets.render(part, unquote(part).rsplit("/", 1)[-1], from_path,
                                        in_table=in_table) for part in value.strip().split(", "))
    out.append(value[pos:])
    return "".join(out)


def _bare_paths(value: str, from_path: str, targets: LinkTargets) -> bool:
    """True when a property value is a list of paths of files in the export."""
    parts = value.strip().split(", ") if value.strip() else []
    return bool(parts) and all(
        " " not in part and "." in part.rsplit("/", 1)[-1]
        and targets.find_attachment(unquote(part), from_path) is not None for part in parts)
