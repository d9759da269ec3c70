"""The embedding phase of ``index``: give every section without vectors its vectors.

It runs after the lexical phase, so every change is searchable by its words first. What a
section says to the model is its note title, its heading path and its body; a section longer
than the model's window is cut into overlapping windows, each with the title and heading path
in front, and every window's vector belongs to the section.

Work is saved as it goes: vectors go to a cache keyed by (model key, text hash) at once, and
to FAISS plus the ledger's ``embedded`` table every ``FLUSH_SECONDS``. With a shared cache
(``index --vector-cache DIR``, stores/shared_cache.py) what the local cache lacks is looked up
there before anything is computed, and what is computed is written there at every save.
The model runs through its ONNX export when there is one (made before the first encode if it
is missing), else through sentence-transformers; progress names which. Ctrl-C stops cleanly
and keeps every section whose windows were all embedded; the next ``index`` continues.
The ledger, FAISS and the model are reconciled first, so a crash, a model change or a
deleted vectors file is repaired here.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple
from weakref import WeakKeyDictionary

from vault_engine.errors import ModelUnavailable
from vault_engine.indexing.offtopic import measure_offtopic
from vault_engine.parsing.readable import readable_text
from vault_engine.parsing.sections import normalize_heading, section_body
from vault_engine.stores.embedder import Embedder, usable_embedder
from vault_engine.stores.ledger import Ledger, PendingSection
from vault_engine.stores.shared_cache import SharedVectorCache
from vault_engine.stores.vector_state import MODEL_META, changed_part, coverage_said, model_key, vector_damage
from vault_engine.stores.vectors import FaissIndex, VectorCache

log = logging.getLogger(__name__)

LAST_RUN_META = "embed_last_run"  # JSON: where the vectors of the last run that embedded came from
FLUSH_SECONDS = 30.0
ROUND_SECTIONS = 256  # tokenized and length-sorted together
# Tokens per encode call and thread: the granularity of progress, Ctrl-C and giving way to the
# watcher's waiting queries and saves. 8 full windows take ~0.35 s a thread (64 took 2.7 s on
# one, and a query waited that long: qa23 #2); the model's throughput is the same down to 8.
ENCODE_CHUNK_TOKENS = 8 * 256
BATCH_SIZE = 16  # measured: same speed as 32 on CPU, 160 MB less peak memory
WINDOW_MEMO_SIZE = 4 * ROUND_SECTIONS  # window vectors kept across slices (1,024 x 1.5 KB)
# embedder -> (model key, window text) -> vector, oldest first: the watcher's Vault keeps its embedder
_WINDOW_MEMO: WeakKeyDictionary[Embedder, OrderedDict] = WeakKeyDictionary()
# embedder -> (model key, section hash) -> its windows as (text, tokens), oldest first
_SPLIT_MEMO: WeakKeyDictionary[Embedder, OrderedDict] = WeakKeyDictionary()
MAX_WINDOWS = 64  # per section: text beyond ~64 windows stays lexical-only
SPECIAL_TOKENS = 2  # [CLS] and [SEP]

Progress = Callable[[str, int, int], None]


def section_prefix(title: str, heading_path: Sequence[str]) -> str:
    """``Title > Heading > Subheading``, without repeating a first heading equal to the title."""
    path = list(heading_path)
    if path and normalize_heading(path[0]) == normalize_heading(title):
        path = path[1:]
    return " > ".join([title, *path])


def split_windows(prefix: str, body: str, spans: Sequence[tuple[int, int]], budget: int,
                  max_windows: int = MAX_WINDOWS) -> list[str]:
    """Texts to embed for one section: the prefix, then a window of at most ``budget`` body
    tokens; consecutive windows overlap by an eighth so no sentence is only ever cut."""
    if not spans:
        return [f"{prefix}\n{body}".strip()]
    budget = max(1, budget)
    stride = max(1, budget - budget // 8)
    windows = []
    for start in range(0, len(spans), stride):
        end = min(start + budget, len(spans))
        windows.append(f"{prefix}\n{body[spans[start][0]:spans[end - 1][1]]}")
        if end == len(spans) or len(windows) == max_windows:
            break
    return windows


@dataclass(slots=True)
class EmbedResult:
    """What one embedding phase did."""

    embedded: int = 0  # sections that got vectors (model or cache)
    computed: int = 0  # of which the model encoded
    from_cache: int = 0  # of which the local cache had
    from_shared: int = 0  # of which the shared cache had
    runtime: str | None = None  # what encoded them (None: nothing was encoded)
    removed: int = 0  # sections gone from the ledger whose vectors were deleted
    pending: int = 0  # sections still without vectors
    model_changed: str | None = None  # what of the vectors' making changed, when something did
    repaired: bool = False  # FAISS disagreed with the ledger and was fixed
    interrupted: bool = False


@dataclass(slots=True)
class _Batch:
    """Sections whose vectors are computed and not yet saved."""

    ids: list[int] = field(default_factory=list)
    vectors: list = field(default_factory=list)
    windows: list[tuple[int, int]] = field(default_factory=list)
    for_shared: dict = field(default_factory=dict)  # text hash -> vectors the shared cache lacks


class Window(NamedTuple):
    """One window of a section to encode: which row of the round, its text, about how many
    tokens it holds."""

    row: int
    text: str
    tokens: int


def encode_chunks(windows: list[Window], budget: int) -> Iterator[list[Window]]:
    """Consecutive runs of windows of at most ``budget`` tokens (one window at least), so
    each encode call takes about the same time whether its windows are short or long."""
    chunk: list[Window] = []
    tokens = 0
    for window in windows:
        if chunk and tokens + window.tokens > budget:
            yield chunk
            chunk, tokens = [], 0
        chunk.append(window)
        tokens += window.tokens
    if chunk:
        yield chunk


class _StopRequested(Exception):
    """``should_stop`` said yes: stop between chunks, keeping every finished section."""


class EmbeddingPhase:
    """Brings FAISS up to date with the ledger's sections, for one model."""

    def __init__(self, ledger: Ledger, vectors: FaissIndex, cache: VectorCache, embedder: Embedder,
                 *, flush_seconds: float = FLUSH_SECONDS, shared: SharedVectorCache | None = None,
                 prepare: Callable[[], None] | None = None):
        self.ledger = ledger
        self.vectors = vectors
        self.cache = cache
        self.shared = shared
        self.embedder = embedder
        self.key = cache.model_key
        self.flush_seconds = flush_seconds
        self._prepare = prepare  # makes the fast runtime ready (the ONNX export); run once, first
        self.shared_error: str | None = None
        self._unsaved = _Batch()
        self._last_save = time.monotonic()
        self._partial = 0  # sections finished in the current round
        self._should_stop: Callable[[], bool] | None = None

    def run(self, progress: Progress | None = None,
            should_stop: Callable[[], bool] | None = None) -> EmbedResult:
        """Reconcile, take what the cache has, embed the rest; loads the model only when
        some section is neither embedded nor cached. ``should_stop`` is asked between encode
        chunks (the watcher's way to give way to a save); True stops like Ctrl-C does."""
        result = EmbedResult()
        self._should_stop = should_stop
        self._reconcile(result)
        todo = self.ledger.sections_to_embed()
        rest = self._take_cached(todo, result)
        try:
            if rest:
                self._encode(rest, result, progress)
        finally:
            self._save()
        result.pending = len(self.ledger.sections_to_embed())
        changed = result.embedded or result.removed or result.repaired or result.model_changed
        if changed and not result.interrupted and not result.pending:
            self.cache.prune(self.ledger.section_hashes())  # texts no section has any more
        if result.embedded:
            self._record_origins(result)
        return result

    def _take_cached(self, todo: list[tuple[int, str]], result: EmbedResult) -> list[int]:
        """Keep what the local cache, then the shared one, has; the ids left to compute.
        What the shared cache gave is copied into the local one (the next rebuild is local),
        and what only the local one had is offered to the shared one (vectors made before it
        was configured reach the team at the next rebuild or new clone)."""
        cached = self.cache.get_many(row[1] for row in todo)
        result.from_cache = sum(row[1] in cached for row in todo)
        missing = {row[1] for row in todo if row[1] not in cached}
        if todo and self.shared is not None:
            try:
                shared = self.shared.get_many(missing) if missing else {}
                known = self.shared.known() if cached else set()
            except OSError as exc:  # an unreachable share: compute here, say so once
                shared, known = self._shared_failed(exc), set(cached)
            self._unsaved.for_shared.update({h: v for h, v in cached.items() if h not in known})
            self.cache.put_many(shared)
            cached.update(shared)
            result.from_shared = len(shared)
        for row in todo:
            if row[1] in cached:
                self._keep(row[0], cached[row[1]])
                result.embedded += 1
        return [row[0] for row in todo if row[1] not in cached]

    def _shared_failed(self, exc: OSError) -> dict:
        """Stop using the shared cache for this run (only called while one is in use); the
        notice says why."""
        assert self.shared is not None
        self.shared_error = f"the shared vector cache {self.shared.root} failed ({exc}); used the local one only"
        self.shared = None
        return {}

    def _ready(self) -> None:
        """The fast runtime, once, before the model is first asked anything."""
        prepare, self._prepare = self._prepare, None
        if prepare is not None:
            prepare()

    def _record_origins(self, result: EmbedResult) -> None:
        """Where this run's vectors came from, for ``status``."""
        origins = {"computed": result.computed, "cache": result.from_cache,
                   "shared_cache": result.from_shared, "runtime": result.runtime}
        with self.ledger.transaction():
            self.ledger.set_meta(LAST_RUN_META, json.dumps(origins))

    # -- reconcile ------------------------------------------------------------------------

    def _reconcile(self, result: EmbedResult) -> None:
        """Model change -> start over; FAISS ids the ledger does not know -> delete them;
        ledger rows FAISS lacks, or a vector count that differs -> forget and re-add."""
        if self.ledger.get_meta(MODEL_META) != self.key:
            self._ready()
            _ = self.embedder.dimension  # load the new model first: a broken one must not wipe the old vectors
            before = self.ledger.get_meta(MODEL_META)
            result.model_changed = changed_part(before, self.key) if before is not None else None
            self.vectors.reset()
            self.ledger.unmark_embedded()
            with self.ledger.transaction():
                self.ledger.set_meta(MODEL_META, self.key)
            return
        if vector_damage(self.ledger, self.vectors):
            result.repaired = True  # a lost or unreadable file: re-add every section (from the cache)
            self.vectors.reset()
            self.ledger.unmark_embedded()
            return
        result.removed = drop_stale_vectors(self.ledger, self.vectors)
        lost = self.ledger.embedded_ids() - self.vectors.section_ids()
        if lost:
            result.repaired = True
            self.ledger.unmark_embedded(lost)
        if self.vectors.count() != self.ledger.embedded_counts()[1]:
            result.repaired = True  # a window count disagrees: rebuild FAISS (from the cache)
            self.vectors.reset()
            self.ledger.unmark_embedded()

    # -- encode ---------------------------------------------------------------------------

    def _encode(self, section_ids: list[int], result: EmbedResult, progress: Progress | None) -> None:
        total = len(section_ids)
        self._ready()
        result.runtime = self.embedder.runtime
        stage = f"embed:{result.runtime}"
        if progress:
            progress(stage, 0, total)
        done = 0
        for start in range(0, total, ROUND_SECTIONS):
            round_rows = self.ledger.texts_to_embed(section_ids[start:start + ROUND_SECTIONS])
            try:
                finished = self._encode_round(round_rows, progress, stage, done, total)
            except (KeyboardInterrupt, _StopRequested):
                result.interrupted = True
                finished = self._partial
            result.embedded += finished
            result.computed += finished
            done += len(round_rows)
            if result.interrupted:
                log.info("embedding stopped after %d of %d sections", result.computed, total)
                return
            if time.monotonic() - self._last_save > self.flush_seconds:
                self._save()
        if progress:
            progress(stage, total, total)

    def _encode_round(self, rows: list[PendingSection], progress: Progress | None, stage: str,
                      done: int, total: int) -> int:
        """Embed one round of sections; returns how many were finished and kept."""
        import numpy as np

        windows = self.window_texts(rows)  # sorted by length
        remaining = [0] * len(rows)
        for window in windows:
            remaining[window.row] += 1
        parts: list[list] = [[] for _ in rows]
        self._partial = 0
        start = 0
        for chunk in encode_chunks(windows, ENCODE_CHUNK_TOKENS * self.embedder.threads):
            start += len(chunk)
            vectors, encoded = self._window_vectors([window.text for window in chunk])
            finished = {}
            for (index, _, _), vector in zip(chunk, vectors):
                parts[index].append(vector)
                remaining[index] -= 1
                if remaining[index] == 0:
                    finished[index] = np.stack(parts[index])
                    parts[index] = []
            computed = {rows[i].hash: v for i, v in finished.items()}
            self.cache.put_many(computed)
            self._unsaved.for_shared.update(computed)
            for index, section_vectors in finished.items():
                self._keep(rows[index].id, section_vectors)
            self._partial += len(finished)
            release_freed_memory()
            if progress:
                progress(stage, done + round(len(rows) * start / len(windows)), total)
            if encoded and self._should_stop is not None and self._should_stop():  # remembered: no work
                raise _StopRequested
        return self._partial

    def _window_vectors(self, texts: list[str]) -> tuple[list, int]:
        """The model's vectors of these windows. A section is kept only once all its windows
        are encoded, so a slice that gives way (the watcher, to a waiting query) loses the
        windows of its unfinished sections: under a steady stream of queries the longest
        sections were encoded again and again and never finished (qa14: 897 of 996 for
        minutes). The windows encoded last are remembered for the next slice, which goes
        through them without giving way. Also returns how many were encoded now."""
        memo = _WINDOW_MEMO.setdefault(self.embedder, OrderedDict())
        keys = [(self.key, t) for t in texts]  # the model key holds the text recipe
        missing = [k for k in dict.fromkeys(keys) if k not in memo]
        if missing:
            for key, vector in zip(missing, self.embedder.embed([t for _, t in missing], batch_size=BATCH_SIZE)):
                memo[key] = vector
                if len(memo) > WINDOW_MEMO_SIZE:
                    memo.popitem(last=False)
        return [memo[k] if k in memo else self.embedder.embed([k[1]], batch_size=1)[0] for k in keys], len(missing)

    def window_texts(self, rows: list[PendingSection]) -> list[Window]:
        """Every window of these sections, shortest first, so each encode call pads little.
        A section's windows may so come back in any order, which is fine: a section scores
        by its best window. Splits are remembered across the watcher's slices, which each
        begin the round again (splitting a 1 MB note took 0.48 s of every slice)."""
        memo = _SPLIT_MEMO.setdefault(self.embedder, OrderedDict())
        splits = {}
        for row in rows:
            if (self.key, row.hash) in memo:
                splits[row.hash] = memo[(self.key, row.hash)]
                memo.move_to_end((self.key, row.hash))
        missing = list({row.hash: row for row in rows if row.hash not in splits}.values())
        for row, split in zip(missing, self._split(missing)):
            splits[row.hash] = memo[(self.key, row.hash)] = split
            if len(memo) > ROUND_SECTIONS:
                memo.popitem(last=False)
        windows = [Window(index, text, tokens) for index, row in enumerate(rows) for text, tokens in splits[row.hash]]
        windows.sort(key=lambda w: w.tokens)
        return windows

    def _split(self, rows: list[PendingSection]) -> list[list[tuple[str, int]]]:
        """Each section's windows as (text, about how many tokens)."""
        if not rows:
            return []
        prefixes = [section_prefix(r.title, r.heading_path) for r in rows]
        budget = self.embedder.max_tokens - SPECIAL_TOKENS
        limit = budget * MAX_WINDOWS * 12  # characters: tokenize no more than can be used
        # The heading is left out of the body (the prefix names it), and so is what a reader
        # does not read: markup that only points elsewhere or draws the page.
        bodies = [readable_text(section_body(r.text, r.heading_path[-1] if r.heading_path else None)).strip()[:limit]
                  for r in rows]
        spans = self.embedder.token_spans(bodies)
        prefix_spans = self.embedder.token_spans(prefixes)
        splits = []
        for index, (prefix, body) in enumerate(zip(prefixes, bodies)):
            if len(prefix_spans[index]) > budget // 2:  # a very long title or heading path
                prefix = prefix[:prefix_spans[index][budget // 2 - 1][1]]
            head = min(len(prefix_spans[index]), budget // 2) + 1
            split = []
            left = len(spans[index])
            for text in split_windows(prefix, body, spans[index], budget - head):
                split.append((text, head + min(left, budget - head)))  # the sort key: its batch pads to it
                left -= budget - head - (budget - head) // 8
            splits.append(split)
        return splits

    # -- keep and save --------------------------------------------------------------------

    def _keep(self, section_id: int, vectors) -> None:
        batch = self._unsaved
        batch.ids += [section_id] * len(vectors)
        batch.vectors.append(vectors)
        batch.windows.append((section_id, len(vectors)))

    def _save(self) -> None:
        """FAISS first, then the ledger: a crash between them leaves vectors the ledger does
        not know, which the next run's reconcile deletes (and re-adds from the cache)."""
        import numpy as np

        batch, self._unsaved = self._unsaved, _Batch()
        if batch.ids:
            self.vectors.index(batch.ids, np.concatenate(batch.vectors))
            self.vectors.save()
            self.ledger.mark_embedded(batch.windows)
        if batch.for_shared and self.shared is not None:
            try:
                self.shared.put_many(batch.for_shared)  # one new file: other writers never collide
            except OSError as exc:
                self._shared_failed(exc)
        self._last_save = time.monotonic()


def release_freed_memory() -> None:
    """Hand the heap pages freed since the last call back to the kernel (glibc only).

    Torch allocates its activations with malloc at sizes that change with every batch, and
    glibc keeps what is freed in its heap: a full embedding index of bench/bench_embed.py's
    10,000 notes crept up to a 1,731 MB peak. Trimming after every encode call (about 40 ms
    each 3 s) held a 10-minute run of that index at 910 MB peak, against 1,295 MB without
    (and still growing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once: finding the C library runs ``ldconfig -p`` in
    a child process, once per encode call before. None where the C library is not glibc."""
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def drop_stale_vectors(ledger: Ledger, vectors: FaissIndex) -> int:
    """Delete the vectors of sections that are gone (edited, moved or deleted notes: their
    ledger rows went with them); returns how many sections. Needs faiss, never the model, so
    ``index --no-embed`` and a missing model leave FAISS agreeing with the ledger too. A
    damaged file is dropped with the ledger's record of it: the next embedding run re-adds
    everything from the vector cache."""
    if vector_damage(ledger, vectors):
        vectors.reset()
        ledger.unmark_embedded()
        return 0
    if not vectors.exists():
        return 0
    stale = vectors.section_ids() - ledger.embedded_ids()
    if stale:
        vectors.delete(stale)
        vectors.save()
    return len(stale)


# -- the phase as ``index`` and ``status`` see it -------------------------------------------

ERROR_META = "semantic_error"
QUERY_MODEL_META = "query_model_failed"  # "model and package versions<TAB>why" of a failed export


def embed_pending(ledger: Ledger, vectors: FaissIndex, cache_path, get_embedder: Callable[[], Embedder],
                  progress: Progress | None = None, should_stop: Callable[[], bool] | None = None,
                  shared_root: Path | None = None) -> tuple[EmbedResult | None, tuple[str, ...]]:
    """Run the phase and say what a user should know, in one line each. A model that cannot
    load is a notice, never a failure: the index stays lexical-only and status says why.
    ``shared_root`` is the team's shared vector cache folder, if any."""
    notices: list[str] = []
    if shared_root is not None and not shared_root.is_dir():  # a share not mounted, a typo: never made here
        notices.append(f"the shared vector cache {shared_root} is a file, not a folder: this run used the local "
                       "cache only" if shared_root.exists() else
                       f"the shared vector cache folder {shared_root} does not exist (a share not mounted, or a "
                       "typo?): create it to start one; this run used the local cache only")
        shared_root = None
    try:
        embedder = usable_embedder(get_embedder)  # found without loading anything
        key = model_key(embedder)
        cache = VectorCache(cache_path, key)
        shared = SharedVectorCache(shared_root, key) if shared_root else None

        def prepare() -> None:
            """The export, before anything is embedded: a stage of its own, as the first index on
            a machine spends seconds on it before the first section."""
            if progress:
                progress("model", 0, 1)
            notices.extend(_save_query_model(ledger, embedder, shared_root))
            if progress:
                progress("model", 1, 1)

        try:
            phase = EmbeddingPhase(ledger, vectors, cache, embedder, shared=shared, prepare=prepare)
            result = phase.run(progress, should_stop)
        finally:
            cache.close()
        notices += [phase.shared_error] if phase.shared_error else []
    except ModelUnavailable as exc:
        _set_error(ledger, str(exc))
        drop_stale_vectors(ledger, vectors)
        return None, (f"{exc}; until then the index is lexical-only (searching by words works)",)
    _set_error(ledger, None)
    if result.interrupted or not ledger.embedded_ids_exist():
        return result, _notices(result) + tuple(notices)
    if not notices:  # not made before encoding (nothing was encoded): made now, for queries
        notices += _save_query_model(ledger, embedder, shared_root)
    measure_offtopic(ledger, vectors, embedder, model_key(embedder))  # after the export: no torch for it
    return result, _notices(result) + tuple(notices)


def _save_query_model(ledger: Ledger, embedder: Embedder, shared_root: Path | None = None) -> tuple[str, ...]:
    """The ONNX export that lets documents and queries be embedded without torch
    (stores.query_encoder), made once per model (or taken from the shared cache). A failed
    export is not tried again at every index run (each try loads torch), only for another
    model or once the packages it needs are installed or upgraded."""
    if _export_failed_before(ledger, embedder):
        return ()
    reason = embedder.save_query_model(shared_root)
    if reason is None:
        return ()
    if not any(sign in reason for sign in _PASSING_FAILURES):  # a full disk passes: tried again next time
        with ledger.transaction():
            ledger.set_meta(QUERY_MODEL_META, f"{_export_key(embedder)}\t{reason}")
    return (f"sections and queries are embedded by the model itself (torch: about 5 s to load in "
            f"a new process): its ONNX export failed ({reason})",)


def prepare_model_meanwhile(ledger: Ledger, get_embedder: Callable[[], Embedder],
                            shared_root: Path | None = None, *, open_session: bool) -> None:
    """While ``index`` writes the words: the model's export is made in a child process when
    it has to be (a machine's first index: seconds of torch), and with ``open_session`` (notes
    to embed) an export already there opens on a thread. A model that cannot load is said by
    the embedding phase, not here."""
    try:
        embedder = usable_embedder(get_embedder)
    except ModelUnavailable:
        return
    if not _export_failed_before(ledger, embedder):
        embedder.begin_export(shared_root)
    if open_session:
        embedder.prefetch_queries()


# How a failure that passes reads (the export's errors arrive as text from its child process):
# remembered, a full disk kept every later index from trying again once there was room.
_PASSING_FAILURES = ("[Errno 28]", "No space left on device", "[Errno 122]", "Disk quota exceeded")


def _export_failed_before(ledger: Ledger, embedder: Embedder) -> bool:
    """This model's export failed with the packages installed now: not tried again."""
    failed = ledger.get_meta(QUERY_MODEL_META)  # read first: the versions cost a few ms
    return failed is not None and failed.split("\t")[0] == _export_key(embedder)


def _export_key(embedder: Embedder) -> str:
    """What a failed export is remembered by: the model, and the packages the export needs."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("onnx", "onnxruntime"):
        try:
            found.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            found.append(f"{package}=none")
    return f"{model_key(embedder)}|{','.join(found)}"


def _notices(result: EmbedResult) -> tuple[str, ...]:
    notices = []
    if result.model_changed:
        notices.append(f"{result.model_changed}: every section is embedded again")
    if result.repaired:
        notices.append("the vector index disagreed with the ledger and was repaired")
    if result.interrupted:
        notices.append(f"embedding stopped: {result.embedded} sections embedded and kept, "
                       f"{result.pending} to go; run `vault-engine index` to continue")
    return tuple(notices)


def _set_error(ledger: Ledger, error: str | None) -> None:
    if ledger.get_meta(ERROR_META) != (error or ""):
        with ledger.transaction():
            ledger.set_meta(ERROR_META, error or "")


def embedding_status(ledger: Ledger, vectors: FaissIndex, enabled: bool, problem: str | None,
                     query_model: bool = False, shared: Path | None = None,
                     embedding_by: str | None = None, key: str | None = None) -> dict:
    """Semantic health without loading the model: coverage, model, vectors, agreement,
    whether queries and documents have their ONNX export (``query_model``: its file is
    there; ``runtime``: what the next embedding runs on), the shared cache folder, and where
    the vectors of the last run that embedded came from (``last_run``). ``problem`` is why
    the model would not load now (checked cheaply), else the last index's error is reported.
    ``key``: what vectors this release makes (:func:`model_key`); vectors made otherwise are
    ``outdated`` (search leaves them aside: status had said "100%" meanwhile, qa99).
    ``embedding_by``: who embeds what is missing by itself (a running watcher, another
    process's ``index``), so the summary says so instead of advising ``index``."""
    sections = ledger.section_count()
    embedded, windows = ledger.embedded_counts()
    damage = vector_damage(ledger, vectors)
    count = 0 if damage else vectors.count()
    agrees = not damage and vectors.section_ids() == ledger.embedded_ids() and count == windows
    outdated = _outdated(ledger.get_meta(MODEL_META), key) if embedded else None
    if outdated:  # none of them serves a search: "111/111 (100%)" beside an arm that is off (qa101)
        embedded = 0
    model = (ledger.get_meta(MODEL_META) or "").split("|")[0] or None
    error = problem or ledger.get_meta(ERROR_META) or None
    status = {"enabled": enabled, "model": model, "error": error, "sections": embedded,
              # from the same count as "sections": read apart, an index embedding meanwhile made
              # "0/995 sections embedded (26%)" (qa71)
              "coverage": round(embedded / sections, 4) if sections else 1.0, "vectors": count, "agrees": agrees,
              "query_model": query_model, "damage": damage, "outdated": outdated,
              "runtime": "onnxruntime" if query_model else "sentence-transformers",
              "vector_cache": str(shared) if shared else None,
              "last_run": json.loads(ledger.get_meta(LAST_RUN_META) or "null")}
    failed = ledger.get_meta(QUERY_MODEL_META)
    status["summary"] = _summary(status, sections, failed.partition("\t")[2] if failed else None,
                                 None if error else embedding_by)
    return status


def _outdated(made: str | None, key: str | None) -> str | None:
    """What changed since the vectors were made (:func:`changed_part`), else None."""
    return changed_part(made, key) if made and key and made != key else None


def _summary(s: dict, sections: int, export_failed: str | None, embedding_by: str | None = None) -> str:
    if not s["enabled"]:
        return "disabled ([model] enabled = false): lexical search only"
    if s["error"] and not s["sections"]:
        return f"unavailable: {s['error']}; lexical search only"
    line = (f"{s['sections']}/{sections} sections embedded ({coverage_said(s['coverage'])}), "
            f"{s['vectors']} vectors, model {s['model'] or 'none yet'}")
    if s["error"]:
        line += f"; model unavailable now: {s['error']}"
    if s["damage"]:
        line += f"; DAMAGED: {s['damage']}: run `vault-engine index` to repair it from the cache"
    if s["outdated"]:
        line += (f"; OUTDATED: {s['outdated']}, so no vector serves a search (it reads words only) until "
                 "`vault-engine index` embeds again")
    elif not s["agrees"] and embedding_by:  # a batch's words are in, its vectors a moment behind (qa192)
        line += f"; the vectors are a batch behind the ledger: {embedding_by} brings them in line, nothing to run"
    elif not s["agrees"]:
        line += "; DISAGREES with the ledger: run `vault-engine index`"
    elif s["sections"] < sections:
        line += (f"; {embedding_by} is embedding the rest ({sections - s['sections']} to go): "
                 "nothing to run" if embedding_by else "; run `vault-engine index` to embed the rest")
    if s["sections"] and not s["query_model"]:
        line += ("; queries load the model itself (about 5 s a process): "
                 + (f"its ONNX export failed ({export_failed})" if export_failed
                    else f"{embedding_by} writes the query model" if embedding_by
                    else "`vault-engine index` writes the query model"))
    last = s["last_run"]
    if last:
        line += (f"; last embedding run: {last['computed']} computed"
                 + (f" by {last['runtime']}" if last.get("runtime") else "")
                 + f", {last['cache']} from the local cache, {last['shared_cache']} from the shared cache")
    return line
