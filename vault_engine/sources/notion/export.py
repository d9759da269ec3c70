"""Import a Notion "Markdown & CSV" export into the vault (``vault-engine notion import``).

Each ``Title <32-hex id>.md`` page becomes a note; each database CSV (``Title <id>.csv``, or
the ``_all.csv`` that carries every property) becomes one note with a Markdown table linking
its row pages. Relative links between exported files are rewritten: to a page or database,
``[[<note stem>|text]]``; to an attachment, a link to its copy next to its page. Relation
links in property lines and CSV cells (``Title (path.md)``) are rewritten the same way.

Notion's relative paths are unreliable (CSV cells are relative to the export root, some links
point at a ``.md`` where only the ``.csv`` exists), so a link is resolved by the Notion id in
its file name first, then by path. A link to a page that is not in the export (nor already in
the vault) becomes the wikilink that page's note *will* have (title + id), which stays
unresolved, and is reported, until that page is imported: never a guess at another note.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from vault_engine.config import Config
from vault_engine.errors import NotionError, not_utf8
from vault_engine.sources.notion.archive import (
    CorruptEntry,
    ExportFile,
    ExportTree,
    Limits,
    open_export,
    parent_id_of,
    split_export_name,
)
from vault_engine.sources.notion.links import (
    LinkStats,
    LinkTargets,
    owner_of,
    rewrite_markdown_links,
    rewrite_relations,
)
from vault_engine.sources.notion.pages import (
    SYNC_SOURCE,
    Attachment,
    ExistingNote,
    NotionPage,
    PageWriter,
    check_into,
    note_stem_for,
    safe_title,
    scan_existing,
    stem_of,
    tap_folders,
    wikilink,
)
from vault_engine.sources.notion.report import NotionReport, Problem
from vault_engine.text import is_utf16

# A page's property line, `Key: value`. A block of them opens the page under its title; one of
# them at least must not start as Markdown does (a list item, a quote, a link, a table), so a
# first paragraph of `- a: 1` items is no block; the others may (`[Internal] Owner: Bob` had
# turned the whole block into text: its relations unresolved, its dates lost, qa154).
_PROPERTY = re.compile(r"^(?P<key>[^\s:][^:\n]{0,79}): (?P<value>.*)$")
_PLAIN_PROPERTY = re.compile(r"^[^\s:#>|`*\[!-]")
_TIME_FIELDS = {
    "created": "created_time", "created time": "created_time", "date created": "created_time",
    "created at": "created_time", "created on": "created_time",
    "last edited": "last_edited_time", "last edited time": "last_edited_time",
    "last edited on": "last_edited_time", "last updated": "last_edited_time",
    "updated": "last_edited_time", "updated at": "last_edited_time",
}
# Unambiguous formats only: "09/10/2024" could be either day first or month first.
_DATE_FORMATS = ("%B %d, %Y %I:%M %p", "%B %d, %Y %H:%M", "%B %d, %Y", "%Y/%m/%d %I:%M %p",
                 "%Y/%m/%d %H:%M", "%Y/%m/%d")


@dataclass(slots=True)
class ExportEntry:
    """A page or database file of the export."""

    path: str
    notion_id: str
    title: str
    text: str = ""

    @property
    def parent_id(self) -> str | None:
        """The id of the page or database whose folder holds this file."""
        return parent_id_of(self.path)


@dataclass(slots=True)
class Catalog:
    """What the export holds, by Notion id, and its other files."""

    tree: ExportTree
    pages: dict[str, ExportEntry] = field(default_factory=dict)
    databases: dict[str, ExportEntry] = field(default_factory=dict)
    attachments: dict[str, ExportFile] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    _children: dict[str | None, list[ExportEntry]] | None = None

    def problem(self, path: str, reason: str) -> None:
        """Record one skipped file of the export, named as the user sees it."""
        self.problems.append(Problem(f"{self.tree.name}/{path}", reason))

    def pages_under(self, ident: str) -> list[ExportEntry]:
        """The pages whose folder is the page's or database's ``ident``: one reading of every
        page's folder for all (each database had read them all again: 22.7 s for 8,000 pages
        and 800 databases, qa154)."""
        if self._children is None:
            self._children = defaultdict(list)
            for page in self.pages.values():
                self._children[page.parent_id].append(page)
        return self._children.get(ident, [])


def build_catalog(tree: ExportTree) -> Catalog:
    """Sort the export's files into pages, databases and attachments."""
    catalog = Catalog(tree)
    csvs: dict[str, list[str]] = defaultdict(list)
    loose: list[str] = []
    for path in sorted(tree.files):
        name = path.rsplit("/", 1)[-1]
        title, ident, ext = split_export_name(name)
        if ident is None and parent_id_of(path) is not None and (ext in (".md", ".csv")
                                                               or name.lower().endswith((".html", ".htm"))):
            loose.append(path)  # a page's file named as no page is: attached, or renamed?
        elif ext == ".md":
            _add_page(catalog, path, title, ident)
        elif ext == ".csv":
            if ident is None:
                catalog.problem(path, "no Notion id in the file name (expected 'Title <32-hex id>"
                                      ".csv'): skipped")
            else:
                csvs[ident].append(path)
        elif not name.lower().endswith((".html", ".htm")):
            catalog.attachments[path] = tree.files[path]
    for path in loose:
        _add_loose(catalog, path)
    for ident, paths in csvs.items():
        # ``_all.csv`` carries every property; the plain one only the view's columns.
        best = min(paths, key=lambda p: (not p.endswith("_all.csv"), len(p), p))
        title = split_export_name(best.rsplit("/", 1)[-1])[0] or "Untitled"
        catalog.databases[ident] = ExportEntry(best, ident, title)
    return catalog


def _add_loose(catalog: Catalog, path: str) -> None:
    """A ``.md``, ``.csv`` or ``.html`` file with no Notion id in a page's folder: a file
    attached to the page when the page links to it (`README.md`, `data.csv` had been skipped as
    pages without an id, and the page's links to them reported missing, qa154), else what it
    was before: a page or database file without its id, said so."""
    name = path.rsplit("/", 1)[-1]
    owner = catalog.pages.get(parent_id_of(path) or "")
    if owner is not None and (quote(name) in owner.text or f"({name})" in owner.text):
        catalog.attachments[path] = catalog.tree.files[path]
    elif name.lower().endswith(".md"):
        _add_page(catalog, path, name[:-3], None)
    elif name.lower().endswith(".csv"):
        catalog.problem(path, "no Notion id in the file name (expected 'Title <32-hex id>.csv'): skipped")


def _add_page(catalog: Catalog, path: str, title: str, ident: str | None) -> None:
    if ident is None:
        catalog.problem(path, "no Notion id in the file name (expected 'Title <32-hex id>.md'): "
                              "skipped; was the file renamed after the export?")
        return
    if ident in catalog.pages:
        catalog.problem(path, f"same Notion id {ident} as {catalog.pages[ident].path}: skipped "
                              "(the first by path is imported); remove the copy from the export")
        return
    text = read_text(catalog, path)
    if text is None:
        return
    heading = next((line for line in text.split("\n") if line.strip()), "")
    if heading.startswith("# "):
        title = heading[2:].strip()
    catalog.pages[ident] = ExportEntry(path, ident, title or "Untitled", text)


def read_text(catalog: Catalog, path: str) -> str | None:
    """A file of the export as text, or None (and one problem line) when it is not UTF-8."""
    try:
        data = catalog.tree.files[path].read()
    except CorruptEntry as exc:
        catalog.problem(path, f"{exc}: skipped")
        return None
    if is_utf16(data[:8192]):  # said as a vault's note is, not "binary" (qa137)
        catalog.problem(path, "UTF-16 text in an export file: skipped; re-save it as UTF-8, or re-export it "
                              "from Notion")
        return None
    if b"\x00" in data:  # a binary file named .md: written to the vault, index would skip it as binary
        catalog.problem(path, "binary content (NUL bytes) in an export file: skipped; re-export it from Notion")
        return None
    try:
        return data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        catalog.problem(path, f"{not_utf8(data, exc)}: skipped; re-export from Notion or re-save the file as UTF-8")
        return None


# -- pages --------------------------------------------------------------------------------


def convert_page(entry: ExportEntry, targets: LinkTargets) -> tuple[str, dict[str, str]]:
    """The note body of an exported page, and the times its property lines carry."""
    body = rewrite_markdown_links(entry.text, entry.path, targets)
    lines = body.split("\n")
    start, end = property_block(lines)
    times: dict[str, str] = {}
    for i in range(start, end):
        match = _PROPERTY.match(lines[i])
        assert match is not None  # property_block's lines all match
        key, value = match["key"], match["value"]
        field_name = _TIME_FIELDS.get(key.strip().casefold())
        if field_name and (when := parse_notion_date(value)):
            times[field_name] = when
        lines[i] = f"{key}: {rewrite_relations(value, entry.path, targets)}"
    return "\n".join(lines), times


def property_block(lines: list[str]) -> tuple[int, int]:
    """Line range of the ``Key: value`` lines Notion writes under a page's title."""
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or not lines[i].startswith("# "):
        return 0, 0
    i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    start = i
    while i < len(lines) and _PROPERTY.match(lines[i]):
        i += 1
    if i == start or (i < len(lines) and lines[i].strip()) \
            or not any(_PLAIN_PROPERTY.match(line) for line in lines[start:i]):
        return 0, 0
    return start, i


def parse_notion_date(value: str) -> str | None:
    """ISO 8601 UTC from a Notion export date (``September 17, 2024 1:52 PM``), else None.

    Exports carry the exporting user's local time without a zone; it is read as UTC.
    """
    text = value.strip()
    for fmt in _DATE_FORMATS:
        try:
            parsed = dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


# -- databases ----------------------------------------------------------------------------


def database_table(entry: ExportEntry, catalog: Catalog, targets: LinkTargets) -> str | None:
    """A database CSV as a Markdown table whose title cells link the row pages; row pages
    no cell could name (two rows with one title, untitled rows) are listed under it."""
    text = read_text(catalog, entry.path)
    if text is None:
        return None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        catalog.problem(entry.path, f"not a readable CSV ({exc}): database note skipped; "
                                    "re-export the database")
        return None
    header, body = (rows[0], rows[1:]) if rows else (["Name"], [])
    row_pages = catalog.pages_under(entry.notion_id)
    # A linked view (a project page's "Tasks") has no pages of its own: its rows are pages of
    # the database of its name, and its title cells linked nothing (qa68)
    view = not row_pages
    if view:
        shown = {d.notion_id for d in catalog.databases.values() if d.title == entry.title} - {entry.notion_id}
        row_pages = sorted((p for database in shown for p in catalog.pages_under(database)), key=lambda p: p.path)
    by_title: dict[str, list[ExportEntry]] = defaultdict(list)
    for page in row_pages:
        by_title[page.title].append(page)
    titles = Counter(row[0].strip() for row in body if row)
    linked: set[str] = set()
    lines = [_table_row([_escape_cell(h) for h in header]), "|" + " --- |" * len(header)]
    for row in body:
        cells = []
        for i, value in enumerate((row + [""] * len(header))[:len(header)]):
            title = value.strip()
            if i == 0 and titles[title] == 1 and len(by_title.get(title, ())) == 1:
                page = by_title[title][0]
                linked.add(page.notion_id)
                cells.append(wikilink(targets.stems[page.notion_id], title, in_table=True))
            else:
                cells.append(rewrite_relations(_escape_cell(value), entry.path, targets,
                                               in_table=True))
        lines.append(_table_row(cells))
    rest = [] if view else sorted((p for p in row_pages if p.notion_id not in linked), key=lambda p: p.title)
    if rest:
        lines += ["", "## Pages", ""]
        lines += [f"- {wikilink(targets.stems[p.notion_id], p.title)}" for p in rest]
    return "\n".join(lines)


def _table_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _escape_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>")


# -- the whole import ---------------------------------------------------------------------


@dataclass(slots=True)
class Conversion:
    """The notes an export turns into, and what was learned on the way."""

    pages: list[NotionPage]
    catalog: Catalog
    stats: LinkStats
    unplaced: int
    names: dict[str, str] = field(default_factory=dict)  # notion id -> the note's vault path


@dataclass(slots=True)
class Draft:
    """A page's note before its attachments are gathered."""

    entry: ExportEntry
    body: str
    times: dict[str, str] = field(default_factory=dict)
    extra: tuple[tuple[str, str], ...] = ()


def convert_export(tree: ExportTree, known_stems: dict[str, str],
                   plan: Callable[[dict[str, str]], dict[str, str]] | None = None) -> Conversion:
    """Every page and database of the export as a :class:`NotionPage` (pure but for reads).

    ``plan`` (:meth:`PageWriter.plan`) says where each page's note will be, from its title:
    links name that file; without it, every note is taken to get its usual name."""
    catalog = build_catalog(tree)
    titles = {e.notion_id: e.title for e in [*catalog.databases.values(), *catalog.pages.values()]}
    names = plan(titles) if plan is not None else {}
    stems = dict(known_stems)
    for ident, title in titles.items():
        stems[ident] = stem_of(names[ident]) if ident in names else note_stem_for(title, ident)
    targets = LinkTargets(catalog.attachments, stems, {*catalog.pages, *catalog.databases})
    drafts: dict[str, Draft] = {}
    for ident, entry in catalog.pages.items():
        drafts[ident] = Draft(entry, *convert_page(entry, targets))
    for ident, entry in catalog.databases.items():
        table = database_table(entry, catalog, targets)
        if table is None:
            continue
        if ident in drafts:  # a page that is also a database: its table follows the page
            drafts[ident].body = f"{drafts[ident].body.rstrip()}\n\n## Database\n\n{table}"
        else:
            drafts[ident] = Draft(entry, f"# {entry.title}\n\n{table}", _newest_row(ident, catalog, drafts),
                                  extra=(("notion_object", "database"),))
    pages = _with_attachments(drafts, catalog, targets)
    unplaced = len(catalog.attachments) - len(targets.placed)
    return Conversion(pages, catalog, targets.stats, unplaced, names)


def _newest_row(database: str, catalog: Catalog, drafts: dict[str, Draft]) -> dict[str, str]:
    """A database's time: the newest of its rows' (an export gives a database none of its own).
    Dated by the file's write instead, a database imported today was new and outranked, under
    the notion tap's decay, every page of its rows dated 2024 (qa63)."""
    rows = [drafts[page.notion_id] for page in catalog.pages_under(database) if page.notion_id in drafts]
    times = [when for d in rows for when in (d.times.get("last_edited_time"), d.times.get("created_time")) if when]
    return {"last_edited_time": max(times)} if times else {}  # (one ISO form: the newest sorts last)


def _with_attachments(drafts: dict[str, Draft], catalog: Catalog,
                      targets: LinkTargets) -> list[NotionPage]:
    for path in catalog.attachments:  # files in a page's folder go with it, linked or not
        if path not in targets.placed:
            owner, rel = owner_of(path, drafts.keys())
            if owner is not None:
                targets.placed[path] = (owner, rel)
    by_owner: dict[str, list[Attachment]] = defaultdict(list)
    for path, (owner, rel) in targets.placed.items():
        by_owner[owner].append(Attachment(rel, catalog.attachments[path].read))
    return [NotionPage(ident, d.entry.title, d.body, d.entry.parent_id, d.times.get("created_time"),
                       d.times.get("last_edited_time"), d.extra, tuple(by_owner.get(ident, ())))
            for ident, d in drafts.items()]


def export_limits(config: Config) -> Limits:
    """``max_file_mb`` and ``max_export_mb`` of the notion tap: how far an export may expand."""
    options = config.tap("notion").options if any(t.name == "notion" for t in config.taps) else {}
    return Limits.from_options(options, "taps.notion.")


def import_export(config: Config, export: Path, *, into: str = "notion", prune: bool = False,
                  now: float | None = None) -> NotionReport:
    """Write the pages of ``export`` as notes under ``into`` (the index is not touched)."""
    now = time.time() if now is None else now
    root = config.root
    into = check_into(root, into)
    with open_export(export, export_limits(config)) as tree:
        existing, duplicates = scan_existing(root, [*tap_folders(config), into])
        known = {ident: note.stem for ident, note in existing.items()}
        writer = PageWriter(root, into, tree.name, now, existing)
        conversion = convert_export(tree, known, writer.plan)
        if not conversion.catalog.pages and not conversion.catalog.databases:
            raise NotionError(f"{export} holds no Notion pages (files named `Title <32-hex id>.md`) and no "
                              "databases: nothing was imported, and nothing in the vault was touched")
        candidates = [n for n in existing.values()
                      if n.folder == into and n.meta.get("source") != SYNC_SOURCE]
        _refuse_another_exports_folder(export, into, candidates, {page.notion_id for page in conversion.pages})
        result = writer.write_all(conversion.pages, conversion.names)
    gone = writer.gone(candidates, result.written_ids)
    catalog = conversion.catalog
    # a part zip or a page (a file named with an id) that could not be read: its pages look gone
    unread = sum(1 for p in [*tree.problems, *catalog.problems]
                 if p.path.endswith(".zip") or split_export_name(p.path.rsplit("/", 1)[-1])[1])
    refused = _prune_refused(into, gone, candidates, unread) if prune else ()
    pruned, kept_files = writer.prune(gone) if prune and not refused else ([], [])
    problems = [*tree.problems, *catalog.problems, *duplicates, *result.problems, *kept_files]
    return NotionReport(
        action="import", source=tree.name, into=into, pages=len(catalog.pages),
        databases=len(catalog.databases), new=tuple(result.new), updated=tuple(result.updated),
        unchanged=result.unchanged, edited=tuple(result.edited), renamed=tuple(result.renamed),
        gone=tuple(n.rel_path for n in gone), pruned=tuple(pruned), prune=prune,
        kept_edited=tuple(n.rel_path for n in gone if n.edited_locally), attachments=result.attachments,
        links_relative=conversion.stats.relative, links_resolved=conversion.stats.resolved,
        unresolved=tuple(conversion.stats.unresolved), problems=tuple(problems),
        notices=_notices(config, into, conversion.unplaced, gone, prune) + refused
        + _elsewhere_notice(into, [*result.new, *result.updated]),
    )


def _prune_refused(into: str, gone: list[ExistingNote], there: list[ExistingNote], unread: int) -> tuple[str, ...]:
    """Why nothing is pruned: the export was not read whole (``unread`` parts or pages could
    not be: an unreadable part zip deleted 11 of 28 notes, qa50), or the prune would delete
    most of the folder, so this export is no mirror of it (another export sharing five pages
    deleted the other 25 of 30 notes, qa36 N5)."""
    prunable = [n for n in gone if not n.edited_locally]
    if not prunable:
        return ()
    if unread:
        return (f"--prune would delete {len(prunable)} note(s) in {into}/, but {unread} part(s) or page(s) of the "
                "export could not be read (listed above), and their pages would be among them: nothing was pruned "
                "(download the export again and import it with --prune)",)
    if 2 * len(prunable) <= len(there):
        return ()
    return (f"--prune would delete {len(prunable)} of the {len(there)} notes in {into}/, most of it: this export "
            "is no mirror of that folder, so nothing was pruned (import it into a folder of its own, or delete "
            "those notes yourself)",)


def _refuse_another_exports_folder(export: Path, into: str, there: list[ExistingNote], pages: set[str]) -> None:
    """Nothing is written when not one note of ``into`` is a page of this export: the folder
    mirrors another export, and the next import that prunes would delete all of its notes (it
    did, one run after the first was told "kept, not pruned": qa34 N1)."""
    if there and not any(note.notion_id in pages for note in there):
        raise NotionError(f"none of the {len(there)} note(s) in {into}/ is a page of {export.name}: that folder "
                          "holds another export, so nothing was imported (a later --prune would delete its notes); "
                          f"import this one into a folder of its own, e.g. --into {into}/{_folder_name(export)}")


def _folder_name(export: Path) -> str:
    """A folder name for an export: its file name without ``.zip``, as a page's title is made safe."""
    return safe_title(export.name.removesuffix(".zip"))


def _elsewhere_notice(into: str, written: list[str]) -> tuple[str, ...]:
    """Notes written outside ``into``: pages whose notes were already elsewhere (a page keeps
    one note wherever it was first written). The summary names ``into`` alone (qa32 F2)."""
    elsewhere = [rel for rel in written if not rel.startswith(f"{into}/")]
    if not elsewhere:
        return ()
    shown = ", ".join(elsewhere[:3]) + (f" and {len(elsewhere) - 3} more" if len(elsewhere) > 3 else "")
    return (f"{len(elsewhere)} page(s) of this export already had a note outside {into}/, written there "
            f"(a page keeps one note wherever it was first written): {shown}",)


def _notices(config: Config, into: str, unplaced: int, gone: list, prune: bool) -> tuple[str, ...]:
    notices = []
    if config.tap_for(f"{into}/page.md").source != "notion":
        notices.append(f"{into}/ is not owned by a notion tap: these notes will not decay like "
                       "Notion pages (see [taps.notion] paths in vault-engine.toml)")
    if unplaced > 0:
        notices.append(f"{unplaced} file(s) outside any page folder and linked from no page were "
                       "not copied")
    if not prune and (prunable := [n for n in gone if not n.edited_locally]):
        notices.append(f"{len(prunable)} note(s) in {into}/ are no longer in the export: kept; "
                       "an import that prunes deletes them")
    return tuple(notices)
