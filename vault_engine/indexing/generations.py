"""Index generations: a rebuild is made beside the live index and swapped in at once.

``.vault-engine/index/current`` is a symlink to the generation readers use (``g<n>``, a
sibling folder). A rebuild (``index --rebuild``, a first index, the repair of a damaged ledger)
writes a new generation in full, then points ``current`` at it with one ``rename``: a search
running meanwhile reads the old index or the new one, never a half-built one and never a
missing one. The replaced generation is deleted a minute later, so a search that resolved
``current`` just before the swap can still open its files. Caches that depend only on texts
(vectors by text hash, the query model) are copied into the new generation first, so a
rebuild computes no vector twice. Deleting
``.vault-engine/index/`` altogether stays a valid way to start over.

An index made by an older release has its files directly in ``index/``: they are the source
of the caches of the first generation, and are removed once it is in use.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from vault_engine.config import Config
from vault_engine.layout import CACHES, CURRENT, GENERATION_PREFIX, QUERY_MODEL_PREFIX
from vault_engine.paths import make_state_folder
from vault_engine.stores.sql import copy_database

REPLACED_MARK = ".replaced"  # in a generation no longer current: when it stopped being
REPLACED_GRACE = 60.0  # seconds a replaced generation is kept for readers under way
SHARED = (QUERY_MODEL_PREFIX,)  # read-only files: hard-linked (or copied); CACHES are SQLite: copied


def new_generation(config: Config) -> Path:
    """An empty generation folder beside the live one, with the caches carried over."""
    root = config.index_root
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        # a file where the index folder goes: all of it is derived, so the repair takes its
        # place; it had refused ("move it aside"), while every read command said to run it (qa97)
        root.unlink()
    make_state_folder(root.parent)  # never the vault itself, moved away meanwhile (qa137)
    root.mkdir(mode=0o700, exist_ok=True)
    target = root / f"{GENERATION_PREFIX}{time.time_ns()}-{os.getpid()}"
    target.mkdir(mode=0o700)
    # the live generation; with its `current` link lost, the newest one left; else the root
    # (an older release's layout)
    live = config.index_dir if config.index_dir.is_dir() else _last_built(root, target) or root
    for name in CACHES:
        if (live / name).is_file():
            copy_database(live / name, target / name)  # a damaged cache is not carried over: only a cache
    for path in live.iterdir():
        if path.name.startswith(SHARED) and path.is_file():
            _link_or_copy(path, target / path.name)
    return target


def generations_left(root: Path) -> list[Path]:
    """The generation folders under ``root`` that hold something, oldest first."""
    def started(path: Path) -> int:
        digits = path.name[len(GENERATION_PREFIX):].split("-", 1)[0]
        return int(digits) if digits.isdigit() else -1

    try:
        found = [p for p in root.iterdir() if p.is_dir() and p.name.startswith(GENERATION_PREFIX)
                 and started(p) >= 0 and any(p.iterdir())]
    except OSError:
        return []
    return sorted(found, key=started)


def _last_built(root: Path, besides: Path) -> Path | None:
    """With no live generation (its `current` link lost), the newest one left with caches:
    they spare the model every section's vectors (they were all computed again)."""
    built = [p for p in generations_left(root) if p != besides and any((p / name).is_file() for name in CACHES)]
    return built[-1] if built else None


def switch_to(config: Config, generation: Path) -> None:
    """Point ``current`` at ``generation`` atomically; the generation it replaces is marked
    with the time and stays :data:`REPLACED_GRACE` seconds for readers under way."""
    root = config.index_root
    replaced = live_generation(config)
    temp = root / f".{CURRENT}-{os.getpid()}"
    temp.unlink(missing_ok=True)
    os.symlink(generation.name, temp)
    current = root / CURRENT
    if current.is_dir() and not current.is_symlink():
        # A real folder where the link belongs (a query model exported into an older
        # release's layout before its first generation): a rename cannot replace a folder,
        # so it moves aside and remove_stale deletes it; new_generation took its caches.
        current.rename(root / f".{CURRENT}-folder-{os.getpid()}")
    os.replace(temp, current)
    if replaced and replaced != generation.name and (root / replaced).is_dir():
        try:
            (root / replaced / REPLACED_MARK).write_text(f"{time.time()}\n")
        except OSError:
            # a full disk after the switch: the new index is live all the same, and a failure
            # said now read as "nothing changed" (qa137); the replaced one, unmarked, stays
            # for readers under way until the next run deletes it
            return
    remove_stale(config)


def live_generation(config: Config) -> str | None:
    """The name of the generation ``current`` points at (None: no index yet)."""
    link = config.index_root / CURRENT
    try:
        return os.readlink(link)
    except OSError:
        return None


def remove_stale(config: Config, now: float | None = None) -> None:
    """Delete what no reader can need: an interrupted rebuild's folder, an older release's
    files directly in ``index/``, and a replaced generation once :data:`REPLACED_GRACE` has
    passed (a command that resolved ``current`` just before the switch may still be opening
    its files). Call it holding the writer lock: no other process is building then."""
    root = config.index_root
    if not root.is_dir():
        return
    live = live_generation(config)
    now = now or time.time()
    for path in root.iterdir():
        if path.name in (CURRENT, live):
            continue
        if path.is_dir() and not path.is_symlink():
            if now - _replaced_at(path) < REPLACED_GRACE:
                continue
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _replaced_at(generation: Path) -> float:
    """When ``current`` moved away from it; 0 for a build that never went live."""
    try:
        return float((generation / REPLACED_MARK).read_text())
    except (OSError, ValueError):
        return 0.0


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
