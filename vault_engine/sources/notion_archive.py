"""Read a Notion "Markdown & CSV" export: a ``.zip``, the zips Notion nests in it for large
workspaces, or an unzipped folder, as one tree of files.

Nothing is extracted to disk: entries are read from the archive when needed, and their names
are only used to find pages, never as paths to write to. An entry whose name is absolute or
climbs out with ``..`` is refused with a line saying so; a nested zip that cannot be read is
reported and the rest of the export is still read.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from vault_engine.errors import NotionError
from vault_engine.sources.notion_report import Problem

MAX_ZIP_DEPTH = 3  # Notion nests one level; anything deeper is not an export we know
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One file of the export. ``path`` is POSIX, relative to the export root, never ``..``."""

    path: str
    read: Callable[[], bytes]


@dataclass(slots=True)
class ExportTree:
    """Every file of one export, by path, and what could not be read."""

    name: str
    files: dict[str, ExportFile] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def safe_entry_name(name: str) -> str | None:
    """The normalized path of an archive entry, or None when it is absolute or uses ``..``."""
    name = name.replace("\\", "/")
    if name.startswith("/") or _DRIVE.match(name):
        return None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


@contextmanager
def open_export(path: Path) -> Iterator[ExportTree]:
    """The export at ``path`` (zip or folder), open for reading until the block ends."""
    if not path.exists():
        raise NotionError(f"{path} does not exist: pass a Notion export (.zip or unzipped folder)")
    tree = ExportTree(path.name)
    archives: list[zipfile.ZipFile] = []
    try:
        if path.is_dir():
            _read_folder(path, tree, archives)
        else:
            try:
                archive = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise NotionError(f"{path}: not a readable zip ({exc}); download the export "
                                  "again, or unzip it and pass the folder") from exc
            archives.append(archive)
            _read_zip(archive, "", path.name, tree, archives, depth=1)
        yield tree
    finally:
        for archive in archives:
            archive.close()


def _read_folder(root: Path, tree: ExportTree, archives: list[zipfile.ZipFile]) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if name.lower().endswith(".zip"):
                _open_nested(full.read_bytes, rel, tree, archives, depth=1)
            else:
                tree.files[rel] = ExportFile(rel, full.read_bytes)


def _read_zip(archive: zipfile.ZipFile, prefix: str, label: str, tree: ExportTree,
              archives: list[zipfile.ZipFile], depth: int) -> None:
    """Add the entries of ``archive`` under ``prefix`` (the folder holding a nested zip)."""
    for info in archive.infolist():
        if info.is_dir():
            continue
        name = safe_entry_name(info.filename)
        if name is None:
            tree.problems.append(Problem(
                f"{label}!{info.filename}", "refused: the zip entry points outside the export "
                "(absolute path or '..'); nothing was written for it"))
            continue
        rel = f"{prefix}/{name}" if prefix else name
        reader = _entry_reader(archive, info, f"{label}!{info.filename}")
        if name.lower().endswith(".zip"):
            _open_nested(reader, rel, tree, archives, depth + 1)
        else:
            tree.files[rel] = ExportFile(rel, reader)


def _entry_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> Callable[[], bytes]:
    def read() -> bytes:
        """The entry's bytes, or CorruptEntry naming it."""
        try:
            return archive.read(info)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
            raise CorruptEntry(f"{label}: corrupt zip entry ({exc})") from exc

    return read


class CorruptEntry(Exception):
    """An archive entry that cannot be read; ``str(exc)`` names it."""


def _open_nested(read: Callable[[], bytes], rel: str, tree: ExportTree,
                 archives: list[zipfile.ZipFile], depth: int) -> None:
    """Merge a nested zip into the tree at the folder that holds it (Notion's part zips)."""
    label = f"{tree.name}!{rel}"
    if depth > MAX_ZIP_DEPTH:
        tree.problems.append(Problem(label, f"zip nested more than {MAX_ZIP_DEPTH} deep: not "
                                            "opened; unzip it and import the folder"))
        return
    try:
        inner = zipfile.ZipFile(io.BytesIO(read()))
    except (zipfile.BadZipFile, CorruptEntry, OSError) as exc:
        tree.problems.append(Problem(label, f"nested zip cannot be read ({exc}); the rest of the "
                                            "export is imported: re-download the export"))
        return
    archives.append(inner)
    prefix = rel.rsplit("/", 1)[0] if "/" in rel else ""
    _read_zip(inner, prefix, label, tree, archives, depth)
