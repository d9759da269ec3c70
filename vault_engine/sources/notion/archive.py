"""Read a Notion "Markdown & CSV" export: a ``.zip``, the zips Notion nests in it for large
workspaces, or an unzipped folder, as one tree of files.

Nothing is extracted to disk: entries are read from the archive when needed, and their names
are only used to find pages, never as paths to write to. An entry whose name is absolute or
climbs out with ``..`` is refused with a line saying so; a nested zip that cannot be read is
reported and the rest of the export is still read. Expanded sizes are bounded, per entry and
for the whole export (:class:`Limits`), while reading: a small zip that inflates to gigabytes
is refused entry by entry, never held in memory. In an unzipped folder, symlinks are not
followed: an export is files, and a link out of it would import whatever it points at.
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

from vault_engine.errors import ConfigError, NotionError
from vault_engine.paths import special_file
from vault_engine.sources.notion.report import Problem

MAX_ZIP_DEPTH = 3  # Notion nests one level; anything deeper is not an export we know
CHUNK = 1 << 20


@dataclass(slots=True)
class Limits:
    """Expanded bytes allowed per file and for the whole export (``[taps.notion]``
    ``max_file_mb`` and ``max_export_mb``); ``used`` counts what was read so far."""

    per_file: int = 50 << 20
    total: int = 2048 << 20
    used: int = 0

    @classmethod
    def from_options(cls, options: dict, where: str) -> Limits:
        """The limits a ``[taps.notion]`` table sets (ConfigError names a bad key)."""
        limits = cls()
        for key, attr in (("max_file_mb", "per_file"), ("max_export_mb", "total")):
            value = options.get(key)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1 << 20:
                    raise ConfigError(f"{where}{key} must be a positive number of megabytes")
                setattr(limits, attr, int(value * (1 << 20)))
        return limits

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
    limits: Limits = field(default_factory=Limits)


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
def open_export(path: Path, limits: Limits | None = None) -> Iterator[ExportTree]:
    """The export at ``path`` (zip or folder), open for reading until the block ends."""
    if not path.exists():
        raise NotionError(f"{path} does not exist: pass a Notion export (.zip or unzipped folder)")
    if not path.is_dir() and not path.is_file():  # a named pipe is waited on forever (qa137)
        raise NotionError(f"{path} is {special_file(path.stat().st_mode)}, not a file: pass a Notion export "
                          "(.zip or unzipped folder)")
    tree = ExportTree(path.name, limits=limits or Limits())
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
    for dirpath, dirnames, filenames in os.walk(root):  # folder symlinks are not descended
        for name in sorted(dirnames):
            if Path(dirpath, name).is_symlink():
                tree.problems.append(Problem(Path(dirpath, name).relative_to(root).as_posix(),
                                             "a symlink: not followed, nothing under it was imported"))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not Path(dirpath, d).is_symlink())
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                tree.problems.append(Problem(rel, "a symlink: not followed, not imported"))
                continue
            if not full.is_file():  # `import` waited on a named pipe forever (qa137)
                tree.problems.append(Problem(rel, f"{special_file(full.stat().st_mode)}, not a file: not imported"))
                continue
            reader = _bounded(lambda full=full: full.open("rb"), rel, tree.limits)
            if _is_part(rel):
                _open_nested(reader, rel, tree, archives, depth=1)
            else:
                tree.files[rel] = ExportFile(rel, reader)


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
        reader = _bounded(lambda info=info: archive.open(info), f"{label}!{info.filename}", tree.limits)
        if _is_part(name):
            _open_nested(reader, rel, tree, archives, depth + 1)
        else:
            tree.files[rel] = ExportFile(rel, reader)


# An export's file or folder name: ``Title <32-hex id>``, ``_all`` for a database's full CSV.
_EXPORT_NAME = re.compile(r"^(?P<title>.*?) ?(?P<id>[0-9a-fA-F]{32})(?P<all>_all)?"
                          r"(?P<ext>\.md|\.csv)?$", re.IGNORECASE)


def split_export_name(name: str) -> tuple[str, str | None, str]:
    """``"Title <id>_all.csv"`` -> (title, id, ext); id is None when the name carries none."""
    match = _EXPORT_NAME.match(name)
    if match is None:
        stem, dot, ext = name.rpartition(".")
        return (stem if dot else name), None, (f".{ext.lower()}" if dot else "")
    return match["title"].strip(), match["id"].lower(), (match["ext"] or "").lower()


def parent_id_of(path: str) -> str | None:
    """The id of the nearest enclosing ``Title <id>`` folder: the page or database above."""
    parts = path.split("/")[:-1]
    for part in reversed(parts):
        _, ident, ext = split_export_name(part)
        if ident and not ext:
            return ident
    return None


def _is_part(name: str) -> bool:
    """Whether a file of the export (or of a zip in it) is a part of the export, as Notion nests
    them: a zip, not in a page's folder (``Title <id>/``). One there is a file attached to the
    page (its pages had been imported as the workspace's, and the file reported missing, qa154)."""
    return name.lower().endswith(".zip") and parent_id_of(name) is None


def _bounded(open_stream: Callable, label: str, limits: Limits) -> Callable[[], bytes]:
    """A reader of one file that streams it and stops at the limits: CorruptEntry naming the
    file when it is unreadable or expands past them (whatever its header claims)."""
    def read() -> bytes:
        chunks, size = [], 0
        try:
            with open_stream() as stream:
                while chunk := stream.read(CHUNK):
                    size += len(chunk)
                    if size > limits.per_file or limits.used + size > limits.total:
                        which = (f"{limits.per_file >> 20} MB a file (max_file_mb)" if size > limits.per_file
                                 else f"{limits.total >> 20} MB for the export (max_export_mb)")
                        raise CorruptEntry(f"{label}: refused, it expands past {which} of [taps.notion]; "
                                           "raise the limit if the export is genuine")
                    chunks.append(chunk)
        except NotImplementedError as exc:  # deflate64, as Windows' "Compressed folder" writes big
            # files (a RuntimeError too: asked first, it had been called encrypted, qa155)
            raise CorruptEntry(f"{label}: compressed in a way Python's zip reader does not read ({exc}); "
                               "unzip it with another tool and import the folder") from exc
        except RuntimeError as exc:  # zipfile's word for an encrypted entry (qa154: a traceback,
            # and the import stopped half-written)
            raise CorruptEntry(f"{label}: encrypted; unzip it with its password and import the folder") from exc
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
            raise CorruptEntry(f"{label}: corrupt zip entry ({exc})") from exc
        limits.used += size
        return b"".join(chunks)

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
