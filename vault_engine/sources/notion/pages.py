"""Notion pages as vault notes: stable file names, frontmatter, and writes that leave
unchanged files untouched.

Both the export import and the API sync turn what they read into :class:`NotionPage` values
and hand them to :class:`PageWriter`. The writer owns the rules every Notion note follows:

- one note per Notion id; a note already carrying that ``notion_id`` anywhere under the
  scanned folders is updated where it is (renamed when the title changed, unless its user
  had renamed it: a name that is not the import's for the title it records);
- the file name is ``<safe title> <last 8 hex of the id>.md`` (the end of a Notion id is its
  random part: ids created the same day share their first 12 digits);
- a note whose rendered text did not change is not written, so its mtime stays;
- nothing is ever written outside the vault, and a file that is not a Notion note of the same
  id is never overwritten;
- a note edited in the vault since it was written (its body no longer matches the
  ``body_hash`` recorded in its frontmatter, or its frontmatter gained a property the writer
  never writes, such as ``tags:``) is never overwritten or pruned: the edit is the user's, and
  losing it silently would break the vault's first promise.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_engine.config import Config
from vault_engine.dates import utc_time
from vault_engine.errors import NotionError
from vault_engine.parsing.frontmatter import body_digest, parse_time, split_frontmatter
from vault_engine.paths import IGNORED_DIRS
from vault_engine.sources.notion.report import Problem

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_UNSAFE_NAME = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]')
MAX_TITLE_CHARS = 80
SYNC_SOURCE = "notion-api"
EDITED_LOCALLY = ("edited in the vault since the last Notion import or sync ({what}): kept as is; "
                  "copy the edit into Notion, then delete this note to take Notion's version")
# Every frontmatter key the writer itself writes (render_note, and the ``extra`` of the export
# and the API). Any other key was added in the vault, by a person or a plugin: an edit.
WRITTEN_KEYS = frozenset({"type", "notion_id", "title", "parent_id", "source", "imported",
                          "created_time", "last_edited_time", "notion_object", "url", "body_hash",
                          "attachment_hashes"})
NO_BODY_HASH = "no body_hash recorded"
UNRECORDED = ("carries a notion_id but no body_hash (not written by this import: placed by hand, or by an "
              "older release), so an edit in the vault cannot be ruled out: kept as is; delete it to take "
              "Notion's version")
KEPT_ATTACHMENT = ("changed since the import wrote it, or not written by it: kept, and the export's copy not "
                   "written; move yours aside and import again to take the export's")
KEPT_FILE = ("not written by the Notion import, or changed since: kept, though the note of its "
             "vanished page was pruned; delete it yourself if you no longer need it")


def normalize_id(text: str | None) -> str | None:
    """A Notion id as 32 lower-case hex digits (dashes removed), or None when it is not one."""
    if not text:
        return None
    ident = text.strip().replace("-", "").lower()
    return ident if _HEX_ID.match(ident) else None


def safe_title(title: str) -> str:
    """A title usable in a file name and a wikilink: no path, link or shell syntax."""
    text = re.sub(r"\s+", " ", _UNSAFE_NAME.sub(" ", title)).strip(" .")
    return text[:MAX_TITLE_CHARS].rstrip(" .") or "Untitled"


def note_stem_for(title: str, notion_id: str) -> str:
    """The stable file name (without ``.md``) of a Notion page: title plus short id."""
    return f"{safe_title(title)} {notion_id[-8:]}"


def stem_of(rel_path: str) -> str:
    """A note's file name without ``.md``: what a wikilink to it says."""
    return rel_path.rsplit("/", 1)[-1][:-3]


def wikilink(stem: str, text: str | None = None, *, in_table: bool = False) -> str:
    """``[[stem|text]]``; inside a Markdown table the pipe is escaped as Obsidian expects."""
    shown = re.sub(r"[\[\]|]", " ", text).strip() if text else ""
    if not shown or shown == stem:
        return f"[[{stem}]]"
    pipe = "\\|" if in_table else "|"
    return f"[[{stem}{pipe}{shown}]]"


def file_digest(data: bytes) -> str:
    """The fingerprint of an attachment as written, so a prune deletes only unchanged copies."""
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def iso_utc(ts: float) -> str:
    """Unix seconds as ``2026-11-29T10:00:00Z``."""
    return utc_time(ts, "")


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file copied next to its page, into the folder named like the page."""

    rel_path: str  # under the page's attachment folder, POSIX, already made safe
    read: Callable[[], bytes]  # read lazily: an export's images need not all fit in memory


@dataclass(frozen=True, slots=True)
class NotionPage:
    """One page (or database) ready to be written as a note."""

    notion_id: str
    title: str
    body: str
    parent_id: str | None = None
    created_time: str | None = None
    last_edited_time: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()  # more frontmatter: notion_object, url
    attachments: tuple[Attachment, ...] = ()

    @property
    def stem(self) -> str:
        """The file name its note gets, without ``.md``."""
        return note_stem_for(self.title, self.notion_id)


# -- where notes go -----------------------------------------------------------------------


def check_into(root: Path, into: str) -> str:
    """The ``into`` folder as a clean vault-relative path, or NotionError when it would
    leave the vault or land in a folder vault-engine never indexes."""
    rel = into.strip().replace("\\", "/").strip("/")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if into.strip().startswith("/") or not parts or ".." in parts or parts[0] in IGNORED_DIRS:
        raise NotionError(f"the folder for notes {into!r} must name a folder inside the vault, e.g. notion "
                          "(no absolute path, no '..', not .vault-engine/.obsidian/.git/.trash)", argument="into")
    rel = "/".join(parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(root / rel)
    if real != real_root and not real.startswith(real_root + os.sep):
        raise NotionError(f"the folder for notes {into!r} leads outside the vault (a symlink?): pick a real "
                          "folder inside the vault", argument="into")
    for i in range(1, len(parts) + 1):
        path = root.joinpath(*parts[:i])
        if path.exists() and not path.is_dir():
            raise NotionError(f"the folder for notes {into!r} must name a folder inside the vault, but "
                              f"{'/'.join(parts[:i])} is a file: pick another folder, e.g. notion",
                              argument="into")
    return rel


def glob_folder(pattern: str) -> str:
    """The folder a path glob starts with: ``notion/**`` -> ``notion`` ("" for the root)."""
    literal = re.split(r"[*?]", pattern, maxsplit=1)[0]
    return literal.rsplit("/", 1)[0] if "/" in literal else ""


def tap_folders(config: Config) -> list[str]:
    """The folders the notion taps own: where notes of Notion pages are looked for, so one
    page keeps one note wherever it was first written."""
    return [glob_folder(p) for tap in config.taps if tap.source == "notion" for p in tap.paths]


# -- reading what is already in the vault -------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExistingNote:
    """A note in the vault that already carries a ``notion_id``."""

    rel_path: str  # vault-relative POSIX path
    notion_id: str
    meta: dict[str, Any]
    text: str

    @property
    def stem(self) -> str:
        """The note's file name without ``.md``: what wikilinks to it say."""
        return stem_of(self.rel_path)

    @property
    def folder(self) -> str:
        """The vault-relative folder holding the note ("" for the vault root)."""
        return self.rel_path.rsplit("/", 1)[0] if "/" in self.rel_path else ""

    @property
    def edited_locally(self) -> bool:
        """True when someone changed the note in the vault since it was last written."""
        return self.local_edit is not None

    @property
    def local_edit(self) -> str | None:
        """What was changed in the vault since the note was written (its body, properties
        the writer never writes), or None. A changed value of a written key (``title``,
        ``imported``) is no edit: the writer owns those keys and rewrites them."""
        added = [str(key) for key in self.meta if key not in WRITTEN_KEYS]
        recorded = self.meta.get("body_hash")
        if not recorded:  # placed by hand, or by a release before body_hash: an edit cannot be ruled out
            return NO_BODY_HASH
        body = split_frontmatter(self.text.replace("\r\n", "\n")).body
        edits = ["body changed"] if recorded != body_digest(body) else []
        if added:
            edits.append(f"{'properties' if len(added) > 1 else 'property'} {', '.join(added)} added")
        return "; ".join(edits) or None

    @property
    def edited_reason(self) -> str:
        """The problem line's reason for a note kept because it was edited in the vault."""
        if self.local_edit == NO_BODY_HASH:
            return UNRECORDED
        return EDITED_LOCALLY.format(what=self.local_edit)


def scan_existing(root: Path, folders: list[str]) -> tuple[dict[str, ExistingNote], list[Problem]]:
    """Every note under ``folders`` (vault-relative) whose frontmatter has a ``notion_id``.

    Two notes with the same id: the page's note is the one the import wrote as it wrote it
    (:func:`page_note_rank`); the other is reported and left alone.
    """
    carrying: dict[str, list[ExistingNote]] = {}
    for rel in sorted(_markdown_files(root, folders)):
        try:
            text = (root / rel).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue  # the indexer reports unreadable notes; nothing to update here
        meta = split_frontmatter(text.replace("\r\n", "\n")).meta
        ident = normalize_id(str(meta.get("notion_id") or ""))
        if ident is not None:
            carrying.setdefault(ident, []).append(ExistingNote(rel, ident, meta, text))
    found: dict[str, ExistingNote] = {}
    problems: list[Problem] = []
    for ident, notes in carrying.items():
        page_note, *copies = sorted(notes, key=lambda n: page_note_rank(n.rel_path, n.meta, n.notion_id,
                                                                        n.edited_locally))
        found[ident] = page_note
        problems += [Problem(c.rel_path, f"carries notion_id {ident} like {page_note.rel_path}, the page's note: "
                                         "left as it is (a copy? remove its notion_id to make it a note of your own)")
                     for c in copies]
    return found, problems


def page_note_rank(rel_path: str, meta: dict[str, Any], notion_id: str, edited: bool = False) -> tuple[bool, bool, str]:
    """Of the notes carrying one page id, the page's sorts first: the one at a name the import
    gives that page (its title, from ``meta``, and its short or full id), then one not
    ``edited`` since it was written, then the first by path. Obsidian's "Make a copy"
    ("Research study 906df97e 1.md") sorted first and took the page's links over (qa32 F1).
    The import and the index (which cannot tell an edit: ``edited`` False) rank alike."""
    return not at_page_name(rel_path, meta, notion_id), edited, rel_path


def at_page_name(rel_path: str, meta: dict[str, Any], notion_id: str) -> bool:
    """Whether the note is at a name the import gives its page (the title it records, with
    the page's short or full id): not one its user chose."""
    title = str(meta.get("title") or "")
    return stem_of(rel_path) in (note_stem_for(title, notion_id), f"{safe_title(title)} {notion_id}")


def _markdown_files(root: Path, folders: list[str]) -> set[str]:
    paths: set[str] = set()
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.lower().endswith(".md"):
                    paths.add(Path(dirpath, name).relative_to(root).as_posix())
    return paths


def same_edit_time(a: Any, b: Any) -> bool:
    """True when two ``last_edited_time`` values name the same instant (format may differ)."""
    ta, tb = parse_time(a), parse_time(b)
    return ta is not None and ta == tb


# -- rendering and writing ----------------------------------------------------------------


def render_note(page: NotionPage, source: str, imported: str,
                attachment_hashes: dict[str, str] | None = None) -> str:
    """The full text of a page's note: YAML frontmatter, then the Markdown body.

    ``attachment_hashes`` (path under the page's folder -> :func:`file_digest`) records the
    files the import wrote next to the note: a prune deletes those, unchanged, and no other."""
    import yaml

    meta: dict[str, Any] = {"type": "notion", "notion_id": page.notion_id, "title": page.title,
                            "parent_id": page.parent_id, "source": source, "imported": imported}
    if page.created_time:
        meta["created_time"] = page.created_time
    if page.last_edited_time:
        meta["last_edited_time"] = page.last_edited_time
    meta.update(page.extra)
    if attachment_hashes:
        meta["attachment_hashes"] = dict(sorted(attachment_hashes.items()))
    meta["body_hash"] = body_digest(page.body)
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{head}---\n{page.body.strip()}\n"


@dataclass(slots=True)
class WriteResult:
    """What a :class:`PageWriter` wrote, left alone, renamed and could not write."""

    new: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    edited: list[str] = field(default_factory=list)  # notes kept as they are: edited in the vault
    renamed: list[tuple[str, str]] = field(default_factory=list)
    attachments: int = 0
    written_ids: set[str] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)


class PageWriter:
    """Writes pages under ``into`` (vault-relative), updating existing notes in place."""

    def __init__(self, root: Path, into: str, source: str, now: float,
                 existing: dict[str, ExistingNote]):
        self.root = root
        self.into = into.strip("/")
        self.source = source
        self.imported = iso_utc(now)
        self.existing = existing
        self._real_root = os.path.realpath(root)

    def write_all(self, pages: list[NotionPage], names: dict[str, str] | None = None) -> WriteResult:
        """Write every page where ``names`` (from :meth:`plan`, planned here when None) puts it."""
        if names is None:
            names = self.plan({page.notion_id: page.title for page in pages})
        result = WriteResult()
        for page in sorted(pages, key=lambda p: p.notion_id):
            self._write_page(page, names.get(page.notion_id), result)
        return result

    def plan(self, titles: dict[str, str]) -> dict[str, str]:
        """The vault path of each page's note (notion id -> path; a page no name is free for
        is left out), decided before any body is rendered so that links name the file that
        will exist: two pages whose short ids clash, a note kept under its old name because
        it was edited. Sorted by id, so clashes resolve the same way each run."""
        taken: set[str] = set()
        names: dict[str, str] = {}
        for ident, title in sorted(titles.items()):
            old = self.existing.get(ident)
            # an edited note keeps its name, and so does one its user renamed: renamed back,
            # the links Obsidian had updated to the new name broke (qa50)
            kept = old is not None and (old.edited_locally or not at_page_name(old.rel_path, old.meta, ident))
            rel = old.rel_path if old is not None and kept else self.target_for(ident, title, taken)
            if rel is not None:
                taken.add(rel.casefold())
                names[ident] = rel
        return names

    def target_for(self, notion_id: str, title: str, taken: set[str]) -> str | None:
        """The vault-relative path a page is written to, or None when every name is taken."""
        old = self.existing.get(notion_id)
        folder = old.folder if old else self.into
        for stem in (note_stem_for(title, notion_id), f"{safe_title(title)} {notion_id}"):
            rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
            if rel.casefold() in taken:
                continue
            if old is not None and old.rel_path == rel:
                return rel
            if self._held_by_other(rel, notion_id):
                continue
            return rel
        return None

    def _held_by_other(self, rel: str, notion_id: str) -> bool:
        """A file at ``rel`` that is not this page's note (a user's note, another page)."""
        path = self.root / rel
        if not path.exists():
            return False
        try:
            meta = split_frontmatter(path.read_text(encoding="utf-8-sig")).meta
        except (OSError, UnicodeDecodeError):
            return True
        return normalize_id(str(meta.get("notion_id") or "")) != notion_id

    def _write_page(self, page: NotionPage, rel: str | None, result: WriteResult) -> None:
        if rel is None or not self._inside_vault(rel):
            result.problems.append(Problem(
                f"{self.into}/{page.stem}.md", f"cannot write Notion page {page.notion_id}: the name is "
                "taken by another file or leads outside the vault; rename that file and retry"))
            return
        result.written_ids.add(page.notion_id)
        old = self.existing.get(page.notion_id)
        if old is not None and old.edited_locally:
            # changed on both sides: the user must know Notion's change is not in the note (qa50)
            both = old.meta.get("body_hash") not in (None, body_digest(page.body))
            result.problems.append(Problem(old.rel_path, old.edited_reason + (
                "; the page changed in Notion too since, and that change is not in the note: merge them by "
                "hand" if both else "")))
            result.edited.append(old.rel_path)
            return
        if old is not None and old.rel_path != rel:
            self._rename(old, rel, result)
        # The import time is kept when nothing else changed, so an unchanged page renders
        # byte for byte as before and its file is not touched; so is the export it came from,
        # since Notion names every download anew (`Export-<uuid>`): a re-import of the same
        # pages rewrote every note for its new `source` (qa56).
        recorded = old.meta.get("attachment_hashes") if old is not None else None
        hashes = self._write_attachments(rel, page.attachments, result, recorded if isinstance(recorded, dict) else {})
        kept = old.meta.get("imported") if old is not None else None
        came_from = self.source
        if old is not None and SYNC_SOURCE not in (self.source, old.meta.get("source")):
            came_from = str(old.meta.get("source") or self.source)
        if old is not None and kept and render_note(page, came_from, str(kept), hashes) == old.text:
            if old.rel_path == rel:
                result.unchanged += 1
        else:
            write_if_changed(self.root / rel, render_note(page, self.source, self.imported, hashes).encode())
            (result.updated if old is not None else result.new).append(rel)

    def _rename(self, old: ExistingNote, rel: str, result: WriteResult) -> None:
        """Move the note (and its attachment folder) to the new title's name."""
        os.replace(self.root / old.rel_path, self.root / rel)
        old_dir = self.root / old.rel_path[:-3]
        new_dir = self.root / rel[:-3]
        if old_dir.is_dir() and not new_dir.exists():
            os.replace(old_dir, new_dir)
        result.renamed.append((old.rel_path, rel))

    def _write_attachments(self, rel: str, attachments: tuple[Attachment, ...], result: WriteResult,
                           recorded: dict[str, str]) -> dict[str, str]:
        """Copy the page's attachments; their digests, by path under the page's folder. A file
        there that is not as the import last wrote it (``recorded``), edited or someone's own,
        is kept and named: an annotated image had been replaced by the export's on every
        re-import, without a word (qa154)."""
        from vault_engine.sources.notion.archive import CorruptEntry

        hashes: dict[str, str] = {}
        folder = rel[:-3]
        for item in attachments:
            target = f"{folder}/{item.rel_path}"
            if not self._inside_vault(target):
                continue
            try:
                data = item.read()
            except CorruptEntry as exc:
                result.problems.append(Problem(target, f"{exc}: attachment not copied"))
                continue
            digest, there = file_digest(data), _digest_of(self.root / target)
            if there not in (None, digest, recorded.get(item.rel_path)):
                result.problems.append(Problem(target, KEPT_ATTACHMENT))
                if item.rel_path in recorded:
                    hashes[item.rel_path] = recorded[item.rel_path]  # still the import's, for --prune
                continue
            if write_if_changed(self.root / target, data):
                result.attachments += 1
            hashes[item.rel_path] = digest
        return hashes

    def _inside_vault(self, rel: str) -> bool:
        """Refuse any path that resolves outside the vault (``..``, a symlink leading out)."""
        real = os.path.realpath(self.root / rel)
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def gone(self, candidates: list[ExistingNote], written: set[str]) -> list[ExistingNote]:
        """Notes of pages that are no longer in the source, in path order."""
        return sorted((n for n in candidates if n.notion_id not in written),
                      key=lambda n: n.rel_path)

    def prune(self, notes: list[ExistingNote]) -> tuple[list[str], list[Problem]]:
        """Delete the notes of vanished pages and the attachments the import wrote for them,
        unchanged; every other file in their folders is kept and named (one problem each)."""
        removed: list[str] = []
        kept: list[Problem] = []
        for note in notes:
            if note.edited_locally:
                continue  # listed as gone, but a person's edit is never deleted
            path = self.root / note.rel_path
            if path.exists():
                path.unlink()
                removed.append(note.rel_path)
            kept += [Problem(rel, KEPT_FILE) for rel in self._prune_attachments(note)]
        return removed, kept

    def _prune_attachments(self, note: ExistingNote) -> list[str]:
        """Delete the files ``attachment_hashes`` records (when unchanged) from the note's
        folder, then its emptied folders; the vault paths of the files left."""
        folder = note.rel_path[:-3]
        base = self.root / folder
        recorded = note.meta.get("attachment_hashes")
        recorded = recorded if isinstance(recorded, dict) else {}
        left: list[str] = []
        for dirpath, dirnames, filenames in os.walk(base, topdown=False):  # symlinks not followed
            for name in sorted(filenames):
                path = Path(dirpath, name)
                rel = path.relative_to(base).as_posix()
                if not path.is_symlink() and recorded.get(rel) == _digest_of(path):
                    path.unlink()
                else:
                    left.append(f"{folder}/{rel}")
            left += [f"{folder}/{Path(dirpath, d).relative_to(base).as_posix()}"
                     for d in dirnames if Path(dirpath, d).is_symlink()]  # a link the user made
            if not os.listdir(dirpath):
                os.rmdir(dirpath)
        return sorted(left)


def _digest_of(path: Path) -> str | None:
    try:
        return file_digest(path.read_bytes())
    except OSError:
        return None


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` atomically unless the file already holds exactly it (mtime stays).

    The file keeps its mode, or gets the one a plain new file gets (0644 under the usual
    umask): mkstemp's 0600 would hide imported notes from the other users of a shared vault."""
    mode: int | None
    try:
        if path.read_bytes() == data:
            return False
        mode = path.stat().st_mode & 0o7777
    except OSError:
        mode = None  # a new file: created 0666 less the umask, as any file the person makes
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = str(path.parent / f".notion-{secrets.token_hex(8)}.tmp")
    # os.open with 0666 lets the kernel apply the umask (reading it means setting it, which
    # races with other threads); mkstemp's 0600 would hide notes from a shared vault's users.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True
