"""The semantic store: section vectors in FAISS, and a cache of vectors by text hash.

:class:`FaissIndex` keeps the same small contract as the lexical store (index / delete /
search / save / load, answers as ``(section id, score)``), so an HNSW or a server-backed index
can replace it. It is an ``IndexIDMap2`` over an exhaustive inner-product index of
L2-normalized vectors, so a score is a cosine similarity and deleting a section removes exact
ids. The vectors are kept in half precision (FAISS's fp16 scalar quantizer): a query scans every
row, and the scan is bound by memory, so half the bytes halve it (47,703 sections: 7.9 -> 4.9
ms a query, bench/RESULTS.md); a cosine moves by about 1e-4, far below the model's own noise.

A section longer than the model's window has several vectors (windows). Each vector's FAISS
id is ``section_id << 16 | window``, so one id space holds them all, deleting a section
removes all its windows, and a search answers with the best window of each section.

:class:`VectorCache` maps (model key, section text hash) to a section's window vectors in a
SQLite file next to the index, so ``index --rebuild``, a moved note or an undone edit never
pay for the model again.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable, Container, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from vault_engine.errors import VectorsDamaged
from vault_engine.paths import make_state_folder
from vault_engine.stores.sql import is_corruption, rows_in

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)
T = TypeVar("T")

WINDOW_BITS = 16
# How far a stored row's squared length may be from 1: half precision leaves ~2e-4 (float32
# ~1e-7); overwritten bytes land anywhere.
UNIT_TOLERANCE = 1e-3
MAX_WINDOWS = 1 << WINDOW_BITS
_HALF = "float16"  # how rows are stored (numpy's name)


def vector_ids(section_ids: Sequence[int]):
    """FAISS ids for rows of vectors: a section's rows get windows 0, 1, 2 ... in order."""
    import numpy as np

    seen: dict[int, int] = {}
    out = np.empty(len(section_ids), dtype=np.int64)
    for row, section_id in enumerate(section_ids):
        window = seen.get(section_id, 0)
        if window >= MAX_WINDOWS:
            raise ValueError(f"section {section_id} has more than {MAX_WINDOWS} windows")
        seen[section_id] = window + 1
        out[row] = (int(section_id) << WINDOW_BITS) | window
    return out


class FaissIndex:
    """index / delete / search / save / load over section ids, like every index backend."""

    def __init__(self, path: Path):
        self.path = path
        self._index = None  # faiss.IndexIDMap2, or None before the first load / vector
        # Which file the vectors in memory came from (or were last saved to), and whether
        # they hold changes not saved yet: see load().
        self._loaded_from: tuple[int, int, int] | None = None
        self._unsaved = False

    # -- lifecycle ------------------------------------------------------------------------

    def exists(self) -> bool:
        """A vectors file was saved (nothing is imported to find out)."""
        return self.path.is_file()

    def load(self):
        """The FAISS index from disk, or None when nothing was ever saved. A file FAISS
        cannot read (truncated, garbage), or whose vectors are not unit length (bytes
        overwritten in place), is :class:`VectorsDamaged`: it is derived, and ``index``
        rebuilds it from the vector cache.

        Read once, and again when another process replaced the file since (an incremental
        ``index`` saves by rename): a long-lived reader (the TUI, the daemon) must not keep
        searching the vectors it loaded first. Vectors changed here and not saved yet are
        kept: the writer's own state wins until it saves."""
        identity = self._file_identity()
        if self._index is not None and not self._unsaved and identity != self._loaded_from:
            self._index = None  # replaced (or deleted) by another process
        if self._index is None and identity is not None:
            try:
                index = _faiss().read_index(str(self.path))
            except RuntimeError as exc:  # FAISS's own message is C++ internals: --debug shows it
                raise VectorsDamaged(self.path, "FAISS cannot read it: truncated, or not a vector index") from exc
            reason = unusable_vectors(index)
            if reason:
                raise VectorsDamaged(self.path, reason)
            self._index, self._loaded_from = index, identity
        return self._index

    def _file_identity(self) -> tuple[int, int, int] | None:
        """(inode, size, mtime) of the vectors file; one stat, None when there is none."""
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_ino, info.st_size, info.st_mtime_ns

    def reset(self) -> None:
        """Forget every vector, in memory and on disk (a new model, or a repair)."""
        self._index = None
        self._unsaved = False
        self.path.unlink(missing_ok=True)

    def save(self) -> None:
        """Write atomically: temp file, fsync, rename; a reader sees the old or the new file."""
        index = self.load()
        if index is None:
            return
        import faiss

        data = faiss.serialize_index(index)
        make_state_folder(self.path.parent)  # never the vault itself, moved away meanwhile (qa137)
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(temp, "wb") as out:
                out.write(data.tobytes())
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
        finally:
            temp.unlink(missing_ok=True)
        _fsync_dir(self.path.parent)
        self._loaded_from, self._unsaved = self._file_identity(), False

    # -- reads ----------------------------------------------------------------------------

    @property
    def dimension(self) -> int | None:
        """Length of the stored vectors; None before the first one."""
        index = self.load()
        return None if index is None else int(index.d)

    def count(self) -> int:
        """Number of vectors (windows), not sections."""
        index = self.load()
        return 0 if index is None else int(index.ntotal)

    def section_ids(self) -> set[int]:
        """Every section that has at least one vector."""
        import faiss
        import numpy as np

        index = self.load()
        if index is None or index.ntotal == 0:
            return set()
        ids = faiss.vector_to_array(index.id_map) >> WINDOW_BITS
        return set(np.unique(ids).tolist())

    def search(self, vector, limit: int = 50,
               allowed: Container[int] | None = None) -> list[tuple[int, float]]:
        """(section id, cosine) best first: each section once, scored by its best window.
        With ``allowed``, only those sections count (a search filtered by kind, project or
        tap): the search widens until it has ``limit`` of them or has seen every vector."""
        import numpy as np

        index = self.load()
        if index is None or index.ntotal == 0 or limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        k = min(index.ntotal, limit * 2)
        while True:
            scores, ids = index.search(query, k)
            found: dict[int, float] = {}
            for vid, score in zip(ids[0].tolist(), scores[0].tolist()):
                section = vid >> WINDOW_BITS
                if vid >= 0 and (allowed is None or section in allowed):
                    found.setdefault(section, score)  # best window comes first
            if len(found) >= limit or k >= index.ntotal:
                return list(found.items())[:limit]
            k = min(index.ntotal, k * 4)  # windows of long sections, or filtered-out sections

    def similarities(self, vector, section_ids: Iterable[int]) -> dict[int, float]:
        """The cosine of each listed section that has vectors (its best window), as the
        search scores it."""
        import faiss
        import numpy as np

        index = self.load()
        wanted = np.fromiter((int(i) for i in section_ids), dtype=np.int64)
        if index is None or index.ntotal == 0 or wanted.size == 0:
            return {}
        stored = faiss.vector_to_array(index.id_map)
        positions = np.nonzero(np.isin(stored >> WINDOW_BITS, wanted))[0]
        if positions.size == 0:
            return {}
        scores = _stored_rows(index)[positions].astype(np.float32) @ np.asarray(vector, dtype=np.float32)
        found: dict[int, float] = {}
        for section_id, score in zip((stored[positions] >> WINDOW_BITS).tolist(), scores.tolist()):
            found[section_id] = max(score, found.get(section_id, -1.0))
        return found

    # -- writes ---------------------------------------------------------------------------

    def index(self, section_ids: Sequence[int], vectors) -> None:
        """Add vectors, row i belonging to ``section_ids[i]`` (a section's windows in order).

        The sections' previous vectors are removed first, so re-indexing a section (or a
        section id SQLite reused) never leaves an old window behind.
        """
        import numpy as np

        if len(section_ids) == 0:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape[0] != len(section_ids):
            raise ValueError(f"{len(section_ids)} ids for {vectors.shape[0]} vectors")
        index = self._ensure(vectors.shape[1])
        self.delete(set(section_ids))
        index.add_with_ids(vectors, vector_ids(section_ids))
        self._unsaved = True

    def delete(self, section_ids: Iterable[int]) -> int:
        """Remove every window of these sections; returns the number of vectors removed."""
        import faiss
        import numpy as np

        index = self.load()
        wanted = np.fromiter((int(i) for i in section_ids), dtype=np.int64)
        if index is None or index.ntotal == 0 or wanted.size == 0:
            return 0
        stored = faiss.vector_to_array(index.id_map)
        doomed = stored[np.isin(stored >> WINDOW_BITS, wanted)]
        if doomed.size == 0:
            return 0
        self._unsaved = True
        return int(index.remove_ids(faiss.IDSelectorBatch(doomed)))

    def _ensure(self, dimension: int):
        """The index to add to: made when there is none; one in full precision (written by
        an earlier release) is converted once, at the first write (0.1 s per 64,000 rows)."""
        index = self.load()
        if index is not None and index.d != dimension:
            raise ValueError(f"vectors of dimension {dimension} in an index of dimension {index.d}")
        rows = None if index is None else _stored_rows(index)
        if rows is None or rows.dtype != _HALF:
            faiss = _faiss()
            half = faiss.IndexIDMap2(faiss.IndexScalarQuantizer(
                dimension, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT))
            if rows is not None and index.ntotal:
                half.add_with_ids(rows, faiss.vector_to_array(index.id_map))
            index = self._index = half
            self._unsaved = True
        return index


class VectorCache:
    """(model key, text hash) -> the section's window vectors, in a SQLite file.

    The model key names the model and the recipe that made the text, so vectors of another
    model or recipe are never returned. The file is only a cache: found damaged (a garbled
    page, a truncated file), it is replaced by an empty one with a warning, and what it held
    is computed again; it never stops an index run.
    """

    def __init__(self, path: Path, model_key: str):
        self.path = path
        self.model_key = model_key
        try:
            make_state_folder(path.parent)
            self.db = self._recover(self._open)
        except (sqlite3.OperationalError, OSError) as exc:
            # a read-only index folder (a read-only mount): a check still answers, and what it
            # embeds is kept for this process only; `deadend check` had raised a traceback (qa97)
            log.debug("the vector cache %s cannot be written (%s): keeping vectors in memory", path, exc)
            self.path = Path(":memory:")
            self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL,"
            " windows INTEGER NOT NULL, dim INTEGER NOT NULL, data BLOB NOT NULL,"
            " PRIMARY KEY (model, hash))")
        return db

    def _recover(self, action: Callable[[], T], empty: T | None = None) -> T:
        """Run ``action``; on a damaged file start an empty cache and run it once more."""
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            log.warning("the vector cache %s is damaged (%s): starting an empty one (it is only a cache)",
                        self.path, exc)
            if getattr(self, "db", None) is not None:
                self.db.close()
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self.db = self._open()
            return action() if empty is None else empty

    def close(self) -> None:
        """Close the SQLite connection."""
        self.db.close()

    def get_many(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The cached window vectors of these texts (absent ones are left out)."""
        return self._recover(lambda: self._get_many(list(set(hashes))), empty={})

    def _get_many(self, wanted: list[str]) -> dict[str, np.ndarray]:
        import numpy as np

        rows = rows_in(self.db, "SELECT hash, windows, dim, data FROM vectors WHERE model=? AND hash IN ({marks})",
                       wanted, (self.model_key,))
        return {digest: np.frombuffer(data, dtype=np.float32).reshape(windows, dim)
                for digest, windows, dim, data in rows}

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        """Store each text hash's window vectors (rows in window order), in one commit."""
        rows = [(self.model_key, digest, v.shape[0], v.shape[1], v.astype("float32").tobytes())
                for digest, v in items.items()]

        def put() -> None:
            with self.db:
                self.db.executemany(
                    "INSERT OR REPLACE INTO vectors(model, hash, windows, dim, data) VALUES (?,?,?,?,?)", rows)
        self._recover(put)

    def prune(self, keep: set[str]) -> int:
        """Drop every vector not of this model, and of the texts no section has (not in
        ``keep``) the oldest beyond as many as ``keep`` holds: an edit undone, a branch checked
        out and back, finds its texts' vectors still here (dropped at once, an undone edit had
        cost model time again, qa149), and the cache stays within twice what the vault needs.
        Returns how many went."""
        def prune() -> int:
            stored = self.db.execute("SELECT model, hash FROM vectors ORDER BY rowid").fetchall()
            doomed = [(m, h) for m, h in stored if m != self.model_key]
            unused = [(m, h) for m, h in stored if m == self.model_key and h not in keep]  # oldest written first
            doomed += unused[:max(0, len(unused) - len(keep))]
            with self.db:
                self.db.executemany("DELETE FROM vectors WHERE model=? AND hash=?", doomed)
            return len(doomed)
        return self._recover(prune, empty=0)

    def count(self) -> int:
        """Texts cached for this model."""
        return self._recover(lambda: self.db.execute(
            "SELECT COUNT(*) FROM vectors WHERE model=?", (self.model_key,)).fetchone()[0], empty=0)


def unusable_vectors(index) -> str | None:
    """Why the vectors FAISS read cannot be ours, or None. We only ever store L2-normalized
    rows (the inner product is then a cosine), so a row that is not finite and of length 1
    is bytes overwritten in place: a file of the right size that FAISS reads without a
    word, and would score by. One pass over the rows, without a copy of them."""
    import numpy as np

    if index.ntotal == 0:
        return None
    rows = _stored_rows(index)
    if rows is None:
        return "not an index of section vectors"
    with np.errstate(all="ignore"):  # an overwritten row may overflow: it is counted, not warned about
        lengths = np.einsum("ij,ij->i", rows, rows, dtype=np.float32)
    bad = int(np.count_nonzero(~(np.abs(lengths - 1.0) <= UNIT_TOLERANCE)))  # NaN counts as bad
    return f"{bad} of {index.ntotal} vectors are not unit length: bytes overwritten" if bad else None


def _stored_rows(index):
    """The rows as FAISS keeps them (no copy): half floats, or float32 in an index an earlier
    release wrote; None for any other index."""
    import numpy as np

    faiss = _faiss()
    inner = faiss.downcast_index(index.index)
    count = index.ntotal * index.d
    if inner.metric_type != faiss.METRIC_INNER_PRODUCT:
        return None
    if isinstance(inner, faiss.IndexFlat):
        rows = faiss.rev_swig_ptr(inner.get_xb(), count) if count else np.empty(0, np.float32)
    elif isinstance(inner, faiss.IndexScalarQuantizer) and inner.sq.qtype == faiss.ScalarQuantizer.QT_fp16:
        rows = faiss.rev_swig_ptr(inner.codes.data(), count * 2).view(_HALF) if count else np.empty(0, _HALF)
    else:
        return None
    return rows.reshape(index.ntotal, index.d)


def _faiss():
    """faiss, told to search on one thread: one query over a flat index is memory-bound, and
    OpenMP threads fighting a busy 2-core host made it 10x slower (3 ms -> 32 ms measured)."""
    import faiss

    faiss.omp_set_num_threads(1)
    return faiss


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX: the directory entry lives in the folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename is still atomic
    finally:
        os.close(fd)
