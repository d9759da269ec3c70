"""What changed on disk since the ledger's record: the stat compared first (no read), then,
where a user asks what changed, the bytes.

Small and free of the notes' reader on purpose: ``callers`` and ``callees`` ask it on every
answer (a call saved since the index is not in the answer), and load little else.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from vault_engine.paths import is_note
from vault_engine.stores.ledger.notes import KnownFile


@dataclass(frozen=True, slots=True)
class FileStat:
    """What the change planner compares with the ledger instead of reading the file.

    The mtime alone is not enough: ``cp -p``, ``rsync -a``, ``touch -r`` and any tool that
    restores times can put the old one back on new words of the same size. The inode's change
    time (Linux, macOS) moves on every write and chmod, and no user tool can set it back, so
    a file whose size, mtime and ctime are all unchanged has not been written since. On
    Windows ``st_ctime`` is the creation time, which a rewrite keeps: there the check is size
    and mtime, as it was before this field (a file created anew is read once more, harmless).
    """

    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result, size: int | None = None) -> FileStat:
        """The stat of ``info``; ``size``: the bytes actually read, when the file was read."""
        return cls(info.st_size if size is None else size, info.st_mtime_ns, info.st_ctime_ns)

    def matches(self, known: KnownFile) -> bool:
        """Whether the ledger's stat of the file is this one (:meth:`KnownFile.has_stat`)."""
        return known.has_stat(self.size, self.mtime_ns, self.ctime_ns)


@dataclass(frozen=True, slots=True)
class Suspects:
    """Files whose stat differs from the ledger (or that are new), and vanished ones;
    ``unchanged`` counts the indexed notes whose stat is the ledger's (a file the ledger
    keeps as skipped is not a note: it is counted with the skipped ones; nor is a source file).
    ``new`` are the changed files the ledger has never indexed."""

    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unchanged: int = 0
    new: tuple[str, ...] = ()

    def said(self) -> str:
        """"2 new, 1 changed, 1 missing", as a stale notice says it (``changed`` holds the new
        files too): a file written since the last index is not one that changed (a notice
        called a teammate's pulled notes "changed")."""
        return stale_counts(len(self.changed), len(self.new), len(self.missing))


def stale_counts(changed: int, new: int, missing: int) -> str:
    """The words for files stale since the last index, ``changed`` counting the ``new``."""
    return (f"{new} new, " if new else "") + f"{changed - new} changed, {missing} missing"


def find_suspects(disk: Mapping[str, FileStat], known: Mapping[str, KnownFile]) -> Suspects:
    """Paths to read (new or stat changed) and paths gone from disk. A ctime the ledger does
    not know (None: recorded by a version that kept none) counts as changed: the file is
    hashed once, and its stat remembered then."""
    changed = []
    unchanged = 0
    for path, stat in disk.items():
        was = known.get(path)
        if was is None or not stat.matches(was):
            changed.append(path)
        elif was.hash is not None and is_note(path):
            unchanged += 1
    missing = [path for path in known if path not in disk]
    return Suspects(tuple(sorted(changed)), tuple(sorted(missing)), unchanged,
                    tuple(sorted(path for path in changed if path not in known)))


def content_changed(suspects: Suspects, known: Mapping[str, KnownFile],
                    located: Callable[[str], Path], max_bytes: int) -> Suspects:
    """``suspects`` less the files whose stat moved but whose bytes are what was indexed (a
    ``cp -r`` of the vault, a touch, a checkout that wrote the same content): what a user
    means by changed. Each such file is read once (``KnownFile.change_at``), as ``index``
    would; ``located(key)`` is where a key's file is on disk. A file the index skipped as
    unreadable holds no answer: it is changed once it can be read (not while it is still not
    UTF-8, whatever its stat), and gone it took no answer with it."""
    changed = tuple(p for p in suspects.changed if p not in known or _changed(known[p], located(p), max_bytes))
    same = [p for p in suspects.changed if p not in changed and known[p].hash is not None and is_note(p)]
    missing = tuple(p for p in suspects.missing if known[p].hash is not None)
    return replace(suspects, changed=changed, missing=missing, unchanged=suspects.unchanged + len(same))


def _changed(was: KnownFile, path: Path, max_bytes: int) -> bool:
    if was.hash is not None:
        return was.change_at(path) is not None
    from vault_engine.sources.vault.files import Unreadable, read_note  # a skipped file: rare

    try:
        read_note(path.parent, path.name, max_bytes)
    except Unreadable:
        return False
    return True
