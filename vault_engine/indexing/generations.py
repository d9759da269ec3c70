"""Index generations: a rebuild is made beside the live index and swapped in at once.

``.vault-engine/index/current`` is a symlink to the generation readers use (``g<n>``, a
sibling folder). A rebuild (``index --rebuild``, a first index, the repair of a damaged ledger)
writes a new generation in full, then points ``current`` at it with one ``rename``: a search
running meanwhile reads the old index or the new one, never a half-built one and never a
missing one. Caches that depend only on texts (vectors by text hash, the query model) are
copied into the new generation first, so a rebuild computes no vector twice. Deleting
``.vault-engine/index/`` altogether stays a valid way to start over.

An index made by an older release has its files directly in ``index/``: they are the source
of the caches of the first generation, and are removed once it is in use.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from vault_engine.config import Config

PREFIX = "g"
CACHES = ("vector_cache.sqlite", "deadend_vectors.sqlite")  # SQLite: copied through the backup API
SHARED = ("query-model-",)  # read-only files: hard-linked (or copied)


def new_generation(config: Config) -> Path:
    """An empty generation folder beside the live one, with the caches carried over."""
    root = config.index_root
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = root / f"{PREFIX}{time.time_ns()}-{os.getpid()}"
    target.mkdir(mode=0o700)
    live = config.index_dir if config.index_dir.is_dir() else root  # an older release's layout
    for name in CACHES:
        if (live / name).is_file():
            _copy_sqlite(live / name, target / name)
    for path in live.iterdir():
        if path.name.startswith(SHARED) and path.is_file():
            _link_or_copy(path, target / path.name)
    return target


def switch_to(config: Config, generation: Path) -> None:
    """Point ``current`` at ``generation`` atomically, then remove everything else."""
    temp = config.index_root / f".current-{os.getpid()}"
    temp.unlink(missing_ok=True)
    os.symlink(generation.name, temp)
    os.replace(temp, config.index_root / "current")
    remove_stale(config)


def remove_stale(config: Config) -> None:
    """Delete what ``current`` does not point at: older generations, an interrupted
    rebuild's, and an older release's files directly in ``index/``."""
    link = config.index_root / "current"
    live = os.readlink(link) if link.is_symlink() else None
    for path in config.index_root.iterdir():
        if path.name in (live, "current") or path.name.startswith(".current-"):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite file even while another process writes it."""
    try:
        with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
            src.backup(dst)
    except sqlite3.DatabaseError:
        target.unlink(missing_ok=True)  # a damaged cache is not carried over: it is only a cache


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
