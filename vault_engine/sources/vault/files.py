"""The vault tap's file side: find the Markdown notes and attachments, read them safely.

Never indexed: ``.obsidian/``, ``.git/``, ``.vault-engine/``, ``.trash/`` and the config's
``exclude`` globs. Symlinked folders are followed once (a loop is reported, not followed); links
that lead back to themselves are reported as loops, not as links out of the vault. Reading
refuses binary files, non-UTF-8 text and files over ``max_file_mb`` with a reason the user can
act on; nothing here ever writes to the vault.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from vault_engine.config import CONFIG_NAME, DEFAULT_TAP, Config
from vault_engine.errors import not_utf8
from vault_engine.layout import STATE_DIR
from vault_engine.model import SkippedFile
from vault_engine.paths import glob_match, is_hidden, is_left_out_file, leaves_folder, special_file
from vault_engine.sources.vault.changes import FileStat
from vault_engine.sources.vault.skip_reasons import LOOP, folder_reason, is_symlink_loop, misnamed
from vault_engine.stores.ledger.notes import NoteQueries, content_digest
from vault_engine.text import is_utf16


@dataclass(slots=True)
class Scan:
    """What is on disk now: the keys to index with their stat, and for each the tap whose scan
    found it (``origin``: ``vault`` for the vault's notes, a tap that reads in place for its
    files), which names the reader of the key (indexing/reading.py)."""

    notes: dict[str, FileStat] = field(default_factory=dict)
    attachments: list[str] = field(default_factory=list)
    problems: list[SkippedFile] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)
    # Notes that are symlinks (broken ones too) or hard links: their content changes when
    # another path is written, which is the only path a file event names (the watcher
    # compares them again on every batch).
    linked: set[str] = field(default_factory=set)
    # Folders that could not be opened or listed ("." for the root), with why: the notes the
    # index holds under one are unreadable, not deleted (qa60: a `chmod 000` folder's notes
    # were counted deleted, and `show` of one asked whether it had been renamed)
    unlisted: dict[str, str] = field(default_factory=dict)
    # Folders holding a vault-engine.toml or a .vault-engine/ of their own: vaults inside this
    # one, whose notes it indexes too (an `init` there warned; `index` here said nothing, qa99)
    nested: list[str] = field(default_factory=list)
    # Markdown a code tap's paths claim, then neither a note nor code: `paths = ["**"]` over
    # the vault's root took every note, and `status` said only "notes 0" (qa113)
    claimed: list[str] = field(default_factory=list)

    def add(self, key: str, stat: FileStat, origin: str) -> None:
        self.notes[key] = stat
        self.origin[key] = origin

    def drop(self, key: str) -> None:
        del self.notes[key], self.origin[key]

    def update(self, other: Scan) -> None:
        """Add what the scan of one folder found (scan_paths)."""
        self.notes.update(other.notes)
        self.origin.update(other.origin)
        self.attachments += other.attachments
        self.problems += other.problems
        self.linked |= other.linked
        self.unlisted.update(other.unlisted)


def still_skipped(ledger: NoteQueries, scan: Scan) -> list[SkippedFile]:
    """Every file the index leaves out, by path: those a read refused (kept in the ledger, not
    read again until they change) and those the scan of the whole vault refuses without a
    read (a symlink out of the vault, a loop, a broken link). What ``index`` reports and
    ``status`` lists."""
    reasons = {path: reason for path, reason in ledger.skipped() if path in scan.notes}  # not one deleted since
    reasons |= {problem.path: problem.reason for problem in scan.problems}
    return [SkippedFile(path, reason) for path, reason in sorted(reasons.items())]


class Unreadable(Exception):
    """A file that cannot be indexed; ``str(exc)`` is the reason shown to the user.

    ``vanished`` marks a file deleted since the scan: not a problem to remember, the next
    scan simply will not see it.
    """

    def __init__(self, reason: str, vanished: bool = False):
        super().__init__(reason)
        self.vanished = vanished


def scan_vault(config: Config, under: str = "") -> Scan:
    """Walk the vault (or only its folder ``under``, vault-relative); notes are ``*.md``
    files, every other file is an attachment."""
    scan = Scan()
    root = config.root
    seen_dirs: set[tuple[int, int]] = set()
    stack = [(root / under, under)]
    while stack:
        folder, rel = stack.pop()
        try:
            info = folder.stat()
        except OSError as exc:
            scan.problems.append(SkippedFile(rel or ".", folder_reason("open", exc)))
            _unlisted(scan, rel, exc)
            continue
        if (info.st_dev, info.st_ino) in seen_dirs:
            scan.problems.append(SkippedFile(rel, ALREADY_INDEXED))
            continue
        seen_dirs.add((info.st_dev, info.st_ino))
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            scan.problems.append(SkippedFile(rel or ".", folder_reason("list", exc)))
            _unlisted(scan, rel, exc)
            continue
        for entry in entries:
            _visit(entry, rel, config, scan, stack)
    if not under:
        scan.problems += _taps_of_nothing(config, scan.notes)
    return scan


def _taps_of_nothing(config: Config, notes: Collection[str]) -> list[SkippedFile]:
    """A line for each notes tap of vault-engine.toml whose paths match no note, as a code
    tap's: a typo (`archvie/**`) decayed nothing, and no command said so (qa87)."""
    return [SkippedFile(f"taps.{tap.name}", f"paths {', '.join(repr(p) for p in tap.paths)} match no note of the "
                        "vault: fix paths (globs relative to the vault) in vault-engine.toml")
            for tap in config.taps if tap.source == DEFAULT_TAP and tap.paths
            and not any(glob_match(p, rel) for rel in notes for p in tap.paths)]


def _unlisted(scan: Scan, rel: str, exc: OSError) -> None:
    """Record a folder there but not listed (permission denied, an I/O error); one that is
    gone, or is a file now, took its notes with it: they are deleted."""
    if not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        scan.unlisted[rel or "."] = scan.problems[-1].reason


def _not_a_file(mode: int) -> str:
    """Why a .md that is no regular file (a FIFO, a device, a socket) is skipped unread."""
    return f"{special_file(mode)}, not a file: nothing to index; rename it or remove it"


OUTSIDE = ("a symlink to {what} outside the vault: not indexed, so that nothing outside the vault "
           "reaches the index (set outside_symlinks = true in vault-engine.toml to index it)")
ALREADY_INDEXED = "symlink loop: this folder is already indexed through another path; not followed again"


def indexed_by_its_own_path(config: Config, path: Path) -> bool:
    """Whether ``path`` is a symlink to a folder of the vault that the scan walks by its own
    path: followed, every note under it would be indexed a second time. Decided by where it
    leads, not by which path a walk meets first, so that a full scan and the watcher's scan
    of one path agree (and the real folder is never the one reported)."""
    if not path.is_symlink():
        return False
    try:
        real = path.resolve(strict=True)
        rel = real.relative_to(config.root.resolve()).as_posix()
    except (OSError, RuntimeError, ValueError):  # broken, a loop, or out of the vault
        return False
    return real.is_dir() and (rel == "." or (is_indexable(config, rel) and not config.is_excluded(rel + "/")))


def _linked_folder_above(config: Config, rel: str) -> str | None:
    """The first folder of ``rel`` (itself included) that :func:`indexed_by_its_own_path`:
    what is under it is indexed by its real path only."""
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        if indexed_by_its_own_path(config, config.root.joinpath(*parts[:depth])):
            return "/".join(parts[:depth])
    return None


def _link_reason(path: Path, is_dir: bool) -> str:
    """Why a symlink that does not resolve inside the vault is skipped."""
    return LOOP if is_symlink_loop(path) else OUTSIDE.format(what="a folder" if is_dir else "a file")


def _stat_reason(exc: OSError, path: str | os.PathLike[str], is_symlink: bool) -> str:
    """Why a note whose stat failed is skipped."""
    if exc.errno == errno.ELOOP:
        return LOOP
    if not is_symlink:
        return f"cannot stat: {exc.strerror}"
    try:
        target = f" to {os.readlink(path)}"
    except OSError:
        target = ""
    return f"broken symlink{target}: nothing is there; point it at an existing note or remove it"


def why_unindexed(config: Config, rel: str) -> str | None:
    """Why the note at ``rel`` is not in the index as it is on disk now, by the scan's own
    rules: skipped without a read (a symlink out of the vault, a loop, a broken link), or new
    since the last index; None when the scan finds no note there (no file, an excluded one, or
    a path out of the vault: ``../x.md``, ``/x.md``). Files skipped after a read are in the ledger."""
    if leaves_folder(rel):
        return None  # never stat anything outside the vault for a ref
    scan = scan_paths(config, [rel])
    if scan.problems:
        return scan.problems[0].reason
    if rel in scan.notes and scan.origin.get(rel) == "vault":
        return NEW_SINCE_INDEX
    if (config.root / rel).is_dir():  # "no such file in the vault" of a folder named x.md (qa70)
        return "it is a folder, not a note: name a note in it"
    return _left_out(config, rel) if (config.root / rel).is_file() else None


def _left_out(config: Config, rel: str) -> str | None:
    """Why the scan leaves out a file that is there (`show .hidden.md` said "no such file"),
    by the rule that does: a name, an exclude glob; None when another rule does."""
    parts = rel.strip("/").split("/")
    if any(is_hidden(part) for part in parts):
        return "a name that starts with a dot is never indexed, as Obsidian leaves it out"
    if is_left_out_file(parts[-1]):
        return "an editor's backup or autosave (name~, #name#) is never indexed"
    if any(config.is_excluded("/".join(parts[:depth])) or config.is_excluded("/".join(parts[:depth]) + "/")
           for depth in range(1, len(parts) + 1)):
        return "vault-engine.toml's exclude leaves it out"
    return None


NEW_SINCE_INDEX = "it is new since the last index: run `vault-engine index`"


def _visit(entry: os.DirEntry, rel: str, config: Config, scan: Scan, stack: list) -> None:
    path = f"{rel}/{entry.name}" if rel else entry.name
    try:
        is_dir = entry.is_dir()  # follows symlinks
    except OSError:
        is_dir = False
    if entry.is_symlink() and not config.inside(Path(entry.path)) and not _ignored(entry.name, path, config):
        if is_dir or entry.name.lower().endswith(".md"):
            scan.problems.append(SkippedFile(path, _link_reason(Path(entry.path), is_dir)))
        return
    if is_dir and entry.is_symlink() and not _ignored(entry.name, path, config) \
            and indexed_by_its_own_path(config, Path(entry.path)):
        scan.problems.append(SkippedFile(path, ALREADY_INDEXED))
        return
    if is_dir:
        if rel and entry.name == STATE_DIR and not entry.is_symlink():  # a vault indexed on its own (qa101)
            scan.nested.append(rel)
        if not is_hidden(entry.name) and not config.is_excluded(path + "/") \
                and not config.is_excluded(path):
            problem = misnamed(path, "folder")
            if problem is None:
                stack.append((Path(entry.path), path))
            else:
                scan.problems.append(problem)
        return
    if rel and entry.name == CONFIG_NAME:  # a vault of its own inside this one (qa99: taken in without a word)
        scan.nested.append(rel)
    if is_left_out_file(entry.name) or config.is_excluded(path):
        return
    problem = misnamed(path, "file")
    if problem is not None:
        scan.problems.append(problem)
        return
    try:
        info = entry.stat()
    except OSError as exc:
        if entry.name.lower().endswith(".md"):
            scan.problems.append(SkippedFile(path, _stat_reason(exc, entry.path, entry.is_symlink())))
            if entry.is_symlink():
                scan.linked.add(path)  # a broken link: a note once its target is made
        return
    if not stat_module.S_ISREG(info.st_mode):
        if entry.name.lower().endswith(".md"):
            scan.problems.append(SkippedFile(path, _not_a_file(info.st_mode)))
        return
    if entry.name.lower().endswith(".md"):
        scan.add(path, FileStat.of(info), DEFAULT_TAP)
        if entry.is_symlink() or info.st_nlink > 1:
            scan.linked.add(path)
    elif path != CONFIG_NAME:  # the vault's own config is not something notes link to
        scan.attachments.append(path)


def _ignored(name: str, path: str, config: Config) -> bool:
    return is_hidden(name) or config.is_excluded(path) or config.is_excluded(path + "/")


def is_indexable(config: Config, rel: str) -> bool:
    """False for a path inside an ignored or excluded folder, or excluded itself: the same
    rules as :func:`scan_vault`, for one path (the watcher's filter and partial scans)."""
    parts = rel.strip("/").split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if is_hidden(parts[depth - 1]) or config.is_excluded(folder + "/") \
                or config.is_excluded(folder):
            return False
    name = "/".join(parts)
    return not is_left_out_file(parts[-1]) and not config.is_excluded(name)


def scan_paths(config: Config, paths: Iterable[str]) -> Scan:
    """What is on disk now at ``paths`` (vault-relative), by the rules of :func:`scan_vault`.

    A folder stands for everything under it. A path that is gone (or never indexable) is
    simply absent from the result: the caller compares with what the ledger knew.
    """
    scan = Scan()
    for rel in sorted({p.strip("/") for p in paths} - {""}):
        if not is_indexable(config, rel):
            continue
        path = config.root / rel
        problem = misnamed(rel, "folder" if path.is_dir() else "file")
        if problem is not None:
            if os.path.lexists(path):  # gone: it was never indexed, nothing to say
                scan.problems.append(problem)
            continue
        linked = _linked_folder_above(config, rel)
        if linked is not None:  # what is under a link to a folder of the vault is indexed by its own path
            if linked == rel:
                scan.problems.append(SkippedFile(rel, ALREADY_INDEXED))
            continue
        if not config.inside(path):  # the path itself or a folder above it links out of the vault
            if path.is_dir() or rel.lower().endswith(".md"):
                scan.problems.append(SkippedFile(rel, _link_reason(path, path.is_dir())))
            continue
        if path.is_dir():
            if config.is_excluded(rel + "/"):
                continue
            scan.update(scan_vault(config, under=rel))
            continue
        try:
            info = path.stat()
        except OSError as exc:
            if rel.lower().endswith(".md") and path.is_symlink():
                scan.problems.append(SkippedFile(rel, _stat_reason(exc, path, True)))
                scan.linked.add(rel)
            continue  # gone: the ledger entry, if any, becomes a delete
        if not stat_module.S_ISREG(info.st_mode):
            if rel.lower().endswith(".md"):
                scan.problems.append(SkippedFile(rel, _not_a_file(info.st_mode)))
            continue
        if rel.lower().endswith(".md"):
            scan.add(rel, FileStat.of(info), DEFAULT_TAP)
            if path.is_symlink() or info.st_nlink > 1:
                scan.linked.add(rel)
        else:
            scan.attachments.append(rel)
    return scan


def read_note(root: Path, rel: str, max_bytes: int, what: str = "note",
              declared: Callable[[bytes], str | None] | None = None) -> tuple[str, str, FileStat]:
    """Text, content hash and stat of one note (or of another text file, ``what`` it is, as
    the reasons name it: a code tap's "source file"), or :class:`Unreadable` with the reason.
    Text is UTF-8, or the encoding ``declared`` reads in the file's bytes (a Python source's
    ``# -*- coding: latin-1 -*-``)."""
    path = root / rel
    try:
        info = path.stat()
        if info.st_size > max_bytes:
            raise Unreadable(
                f"{_size(info.st_size)} is over the {_size(max_bytes, as_set=True)} limit: split the {what} "
                "or raise max_file_mb in vault-engine.toml")
        data = path.read_bytes()
    except FileNotFoundError:
        raise Unreadable("vanished while indexing; it will be picked up again if it comes back",
                         vanished=True) from None
    except PermissionError:
        raise Unreadable("permission denied: make the file readable to index it") from None
    except OSError as exc:
        raise Unreadable(f"cannot read: {exc.strerror or exc}") from exc
    if is_utf16(data[:8192]):  # Obsidian does not read it either: say what it is, not "binary"
        raise Unreadable(f"UTF-16 text: re-save the {what} as UTF-8")
    if b"\x00" in data[:8192]:
        raise Unreadable(f"binary content in a {Path(rel).suffix or 'text'} file: rename it if it is not a {what}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        as_declared = _decoded_as_declared(data, declared)
        if as_declared is None:
            raise Unreadable(f"{not_utf8(data, exc)}: re-save the {what} as UTF-8") from exc
        text = as_declared
    # The times from before the read: a write during it moves them, so it is read again next time
    return text, content_digest(data), FileStat.of(info, size=len(data))


def _decoded_as_declared(data: bytes, declared: Callable[[bytes], str | None] | None) -> str | None:
    """``data`` in the encoding the file declares, or None (none declared, or not in it)."""
    encoding = declared(data) if declared is not None else None
    if encoding is None:
        return None
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _size(n: float, as_set: bool = False) -> str:
    """A size in MB, as the limit is set (``as_set``: ``1 MB``, ``2.5 MB``), in bytes below a
    tenth of one: a limit of 0.000001 MB read "0.0 MB is over the 0 MB limit" (qa70)."""
    if n < 100_000:
        return f"{int(n):,} byte" + ("" if int(n) == 1 else "s")
    return f"{n / 1e6:g} MB" if as_set else f"{n / 1e6:.1f} MB"
