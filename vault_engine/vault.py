"""The Vault facade: the one place where the stores are wired together.

The CLI, the TUI, the daemon, the MCP server and the hooks call these methods and render what
they return; none of them touches a store directly.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from vault_engine.config import CONFIG_NAME, Config, find_vault, load_config, naming_the_file
from vault_engine.constants import MAX_FOLLOW
from vault_engine.drift import Drift
from vault_engine.errors import (
    AttachmentRef,
    BadArgument,
    IndexBusy,
    IndexDamaged,
    IndexMissing,
    ModelUnavailable,
    NoSuchSection,
    UnknownKind,
    UnknownProject,
    UnknownRef,
    VaultError,
    VaultNotFound,
    did_you_mean,
    not_writable,
)
from vault_engine.indexing.generations import generations_left, live_generation
from vault_engine.layout import (
    CODE_FILE,
    CURRENT,
    LEDGER_FILE,
    REINFORCEMENTS_FILE,
    RULING_CACHE_FILE,
    VECTOR_CACHE_FILE,
    VECTORS_FILE,
    WHOOSH_DIR,
    WRITE_LOCK,
)
from vault_engine.locks import flock_within, held_elsewhere, hold_in_parent_only, release
from vault_engine.paths import is_note
from vault_engine.retrieval.confidence import HIGH, LOW
from vault_engine.retrieval.notices import (
    UNREAD_SYMBOLS,
    filters_notice,
    folder_disagrees,
    kind_notice,
    misread,
    operators_notice,
    symbols_notice,
)
from vault_engine.stores.ledger import Ledger, NoteRow, SectionRow, damaged
from vault_engine.stores.reinforcements import LogMark, ReinforcementLog, has_undo, replay, standing
from vault_engine.stores.sql import is_corruption
from vault_engine.text import as_named

# what an index error says of the user's files, untrue once a checkpoint is written
_NOTHING_CHANGED = re.compile(r"\s*\((?:[^()]*; )?nothing of yours was changed\)")

# Imported where used: a search must not pay for indexing code, and find, callers or show of
# code (cold CLI, 200 ms) not for search, its model settings, Whoosh, or the values of notes
# (vault_engine.model: a dozen dataclasses, each compiled at import).
if TYPE_CHECKING:
    from vault_engine.code_model import CallAnswer, CodeView, FindResult, Outline
    from vault_engine.indexing.indexer import AppliedChanges, Progress
    from vault_engine.indexing.planner import ChangePlan
    from vault_engine.memory.checkpoints import CheckpointDraft
    from vault_engine.memory.results import CheckpointWritten, DeadendCheck, DeadEndList, ResumeBrief
    from vault_engine.model import DecayRow, Freshness, IndexReport, NoteView, ResolvedLink, SearchResult
    from vault_engine.retrieval.code.service import CodeQueries
    from vault_engine.retrieval.search import Searcher, SearchRequest
    from vault_engine.sources.notion.report import NotionReport
    from vault_engine.stores.embedder import Embedder
    from vault_engine.stores.lexical import WhooshIndex
    from vault_engine.stores.vectors import FaissIndex

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCK_WAIT_SECONDS = 600
CHECKPOINT_EMBED_LIMIT = 64  # pending sections `checkpoint new` embeds at most (more: `index` does)
AHEAD_RETRIES, AHEAD_WAIT_SECONDS = 50, 0.02  # up to a second for another writer's commit
WATCHING = ("watching", "catching-up")  # watcher states in which it applies every edit itself


def _operation(method: Callable[..., T]) -> Callable[..., T]:
    """One public operation of the Vault. It reads the live generation: stores a long-lived
    Vault opened before another process swapped in a rebuild are reopened first. And a
    damaged ledger page met halfway becomes the one error that says what to run
    (:class:`IndexDamaged`), not an SQLite traceback (the open is checked cheaply by
    Ledger.damage; a page garbled mid-file is only found when read)."""
    @functools.wraps(method)
    def guarded(self: Vault, *args: Any, **kwargs: Any) -> T:
        self._follow_generation()
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            if not is_corruption(exc):
                raise
            self.close()
            raise damaged(self.config.index_dir / LEDGER_FILE, exc) from exc
    return guarded


class Vault:
    """A vault folder and its derived index.

    A Vault belongs to the thread that opened it (its SQLite connections do): open one per
    thread, or hand calls to one thread, as the TUI and the watcher do
    (:mod:`vault_engine.vault_thread`). Eight threads sharing one Vault had 203 of 240
    searches refused by SQLite (qa41); one Vault each answered all 240 alike."""

    def __init__(self, root: Path, config: Config | None = None, embedder: Embedder | None = None):
        if not root.is_dir():
            raise VaultNotFound(f"vault folder {root} does not exist: open an existing folder", argument="vault")
        self.root = root
        self.config = config or load_config(root)
        with naming_the_file(root / CONFIG_NAME):
            validate_settings(self.config)
        self._ledger: Ledger | None = None
        self._had_index = False  # this Vault opened an index: its state folder is not made again
        self._lexical: WhooshIndex | None = None
        self._vectors: FaissIndex | None = None
        self._code: CodeQueries | None = None
        self._embedder = embedder  # tests pass a FakeEmbedder; else built on first use
        self._embedding_stopped = False  # the last embedding of this Vault was stopped (a Ctrl-C)
        # Stores open on one generation, named (never through the ``current`` link, which a
        # rebuild in another process may swap between opening the ledger and Whoosh).
        self._follows = self.config.index_name == CURRENT  # a generation being built: never
        self._generation: str | None = None
        self._follow_generation()
        self.reinforcement_log = ReinforcementLog(self.config.ledger_dir / REINFORCEMENTS_FILE)
        self._drift = Drift(self.config, self._live_watcher, self._model_enabled)

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> Vault:
        """The vault at ``path``, or found as the README says (env var, then upward search)."""
        return cls(find_vault(path))

    def close(self) -> None:
        if self._lexical is not None:
            self._lexical.close()
        if self._ledger is not None:
            self._ledger.close()
        if self._code is not None:
            self._code.close()
        self._ledger = self._lexical = self._vectors = self._code = None

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- stores ---------------------------------------------------------------------------

    def _follow_generation(self) -> None:
        """Pin the stores to the generation ``current`` names now; close those of one that
        is no longer current (they reopen on the new one when next used)."""
        if not self._follows:
            return
        live = live_generation(self.config)
        self._had_index = self._had_index or live is not None
        if live != self._generation:
            self.close()
            self._generation = live
            self.config = replace(self.config, index_name=live or CURRENT)
            self._embedder_follows()

    def _embedder_follows(self) -> None:
        """The model built for this Vault writes its query export into the live generation:
        a watcher's, built once, wrote it into a generation a rebuild had replaced and
        deleted, making that folder again, which nothing ever removed."""
        model = self._embedder
        if model is None:  # not built yet: it is built for the live generation (and a CLI never imports it)
            return
        from vault_engine.stores.embedder import SentenceTransformerEmbedder

        if isinstance(model, SentenceTransformerEmbedder) and model.query_dir is not None \
                and model.query_dir.parent == self.config.index_root:
            model.query_dir = self.config.index_dir

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            path = self.config.index_dir / LEDGER_FILE
            self._ledger = Ledger(path, readonly=path.exists() and not os.access(path.parent, os.W_OK))
        return self._ledger

    @property
    def lexical(self) -> WhooshIndex:
        if self._lexical is None:
            from vault_engine.stores.lexical import WhooshIndex

            self._lexical = WhooshIndex(self.config.index_dir / WHOOSH_DIR)
        return self._lexical

    @property
    def vectors(self) -> FaissIndex:
        """The FAISS store of section vectors (faiss is imported on first real use)."""
        if self._vectors is None:
            from vault_engine.stores.vectors import FaissIndex

            self._vectors = FaissIndex(self.config.index_dir / VECTORS_FILE)
        return self._vectors

    def embedder(self) -> Embedder:
        """The embedding model of ``[model]`` (cheap to build: torch loads on first embed).
        Raises :class:`ModelUnavailable` when disabled or missing."""
        if self._embedder is None:
            from vault_engine.stores.embedder import ModelSpec, SentenceTransformerEmbedder

            spec = ModelSpec.from_config(self.config.section("model"), self.root)
            self._embedder = SentenceTransformerEmbedder(spec, query_dir=self.config.index_dir)
        return self._embedder

    def shared_vector_cache(self, override: str | os.PathLike[str] | None = None) -> Path | None:
        """The team's shared vector cache folder: ``override`` (``index --vector-cache``),
        else ``[model] vector_cache`` (relative to the vault), else None."""
        from vault_engine.stores.embedder import ModelSpec

        if override is not None:
            return Path(override).expanduser().resolve()
        configured = ModelSpec.from_config(self.config.section("model"), self.root).vector_cache
        return Path(configured) if configured else None

    def _model_enabled(self) -> bool:
        from vault_engine.stores.embedder import ModelSpec

        return self._embedder is not None or ModelSpec.from_config(self.config.section("model")).enabled

    def query_model_ready(self) -> bool:
        """Whether a question can be embedded without torch: the model is enabled and its ONNX
        export is in this index (the first ``index`` that embedded made it). Loads nothing."""
        from vault_engine.stores.embedder import usable_embedder

        try:
            return usable_embedder(self.embedder).has_query_model()
        except ModelUnavailable:
            return False

    def _watcher_embeds(self) -> bool:
        """A live watcher of this vault embeds every section without vectors by itself
        (between its batches): advice to run ``index`` would only compete with it."""
        return self._model_enabled() and self._watcher_live()

    def _embedding_by(self, watching: bool | None = None) -> str | None:
        """Who embeds the sections without vectors by itself now, for advice that would only
        compete with it: a live watcher (``watching``, when the caller read its state), or
        another process's ``index`` (its first index embeds after its words went live:
        "run `vault-engine index`" was said meanwhile, qa71); None when nobody does."""
        if not self._model_enabled():
            return None
        if self._watcher_live() if watching is None else watching:
            return "the running watcher"
        return _holder(self.config.state_dir / WRITE_LOCK) if self._writer_at_work() else None

    def _watcher_live(self) -> bool:
        """A watcher of this vault runs, is not stalled, and its last attempt to apply an edit
        did not fail: it applies every edit itself. (One that cannot write its index, a
        read-only folder, kept a miss from saying the index was stale.)"""
        return self._live_watcher() is not None

    def _live_watcher(self) -> dict[str, Any] | None:
        """The live watcher's status (see :meth:`_watcher_live`), else None."""
        from vault_engine.indexing.watch_state import watcher_status

        status = watcher_status(self.config)
        failed_at = max((e.get("at") or 0.0 for e in status.get("errors") or ()), default=0.0)
        return status if status["state"] in WATCHING and failed_at <= (status.get("last_applied") or 0.0) else None

    def has_index(self) -> bool:
        return (self.config.index_dir / LEDGER_FILE).exists()

    def _require_index(self) -> Ledger:
        if not self.has_index():
            from vault_engine.config import enclosing_vault

            # Deleted under a running watcher: it is building one (qa39 F3), a new generation
            # beside none live, which read as damage to repair by hand (qa49)
            if self._watcher_live():
                raise IndexMissing(f"no index in {self.root} yet: the running watcher is building it; "
                                   "ask again in a moment")
            if self._writer_at_work():  # a first `index` at work read as damage to repair (qa70)
                raise IndexMissing(f"no index in {self.root} yet: {_holder(self.config.state_dir / WRITE_LOCK)} "
                                   "is building it; ask again when it is done")
            # damage, which `status` lists (its --json printed no JSON for them, qa101)
            if generations_left(self.config.index_root):  # a lost `current` link, a deleted ledger
                raise IndexDamaged(f"the index in {self.root} is damaged: its `current` link or its ledger is "
                                   "missing; run `vault-engine index` to repair it")
            state = self.config.state_dir
            if state.exists() and not state.is_dir():  # "run index" had been said, which refuses (qa137)
                raise IndexDamaged(f"{state} is a file where vault-engine keeps a folder: move it aside (it stays "
                                   "yours) and run `vault-engine index`")
            if self.config.index_root.exists() and not self.config.index_root.is_dir():
                raise IndexDamaged(f"the index in {self.root} is damaged: {self.config.index_root} is a file where "
                                   "vault-engine keeps its index folder; run `vault-engine index`, which replaces it")
            outer = enclosing_vault(self.root)
            raise IndexMissing(f"no index in {self.root} yet: " + (
                f"it lies inside the vault {outer}: pass --vault {outer}, or run `vault-engine index` to make "
                "it a vault of its own" if outer else "run `vault-engine index` first"))
        if self.ledger.last_index() is None:
            # A ledger from another release is rebuilt empty when opened (it is derived state).
            raise IndexMissing(f"the index in {self.root} is empty or from another version of "
                               "vault-engine: run `vault-engine index` to rebuild it")
        self._sync_reinforcements()
        return self.ledger

    @contextmanager
    def write_lock(self, wait: float = LOCK_WAIT_SECONDS,
                   waiting: Callable[[str], None] | None = None) -> Iterator[None]:
        """One writer at a time across processes; a second writer waits for the first, and
        says so after a second (a warning, and ``waiting(the line)`` when given: the TUI
        showed only "indexing…" for the 40 s it waited, qa38 F4). The holder's pid is
        written in the lock file; processes the holder forks never hold it (vault_engine.locks).
        ``.vault-engine/`` removed while this process had the index open is not made again: a
        watcher's batch in flight had left a ``write.lock`` there, in a folder of no index (qa173)."""
        if self._had_index and not self.config.state_dir.is_dir():
            raise VaultError(f"the state folder {self.config.state_dir} was removed while the index was open: "
                             "nothing was written; run `vault-engine index` to build the index again")
        state = ensure_state_dir(self.config)
        path = state / WRITE_LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

        def say_waiting() -> None:
            line = f"waiting for {_holder(path)}, which is writing the index of this vault"
            log.warning("%s", line)
            if waiting is not None:
                waiting(line)

        try:
            if not flock_within(fd, wait, waiting=say_waiting):
                raise IndexBusy(f"{_holder(path)} has been writing the index for over {wait:.0f} s; "
                                "try again when it is done")
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            hold_in_parent_only(fd)
        except BaseException:
            os.close(fd)
            raise
        try:
            self._follow_generation()  # another writer may have swapped one in while we waited
            if self.config.index_dir.exists() and not os.access(self.config.index_dir, os.W_OK):
                raise not_writable(self.config.index_dir)  # its ledger was opened read-only: say so now
            yield
        finally:
            release(fd)  # closing releases the lock

    # -- index ----------------------------------------------------------------------------

    @_operation
    def index(self, *, rebuild: bool = False, progress: Progress | None = None,
              now: float | None = None, embed: bool = True,
              vector_cache: str | os.PathLike[str] | None = None,
              waiting: Callable[[str], None] | None = None) -> IndexReport:
        """Bring the index up to date with the vault (incremental unless ``rebuild``): words
        first, then vectors for every section without them (unless ``embed`` is False).
        ``vector_cache`` is a shared cache folder, instead of ``[model] vector_cache``.
        ``waiting(line)`` is told when this run waits for another process writing the index.

        A rebuild, a first index and the repair of a damaged ledger build a whole new
        generation beside the live index and swap it in at once (indexing/generations.py):
        searches meanwhile read the old index, never a half-built one."""
        started = time.perf_counter()
        self._refuse_beside_another_release()
        # A running watcher embeds between bursts, in slices that give way to searches and
        # saves; this run embedding the same sections held the writer lock for minutes, and
        # the watcher's saves and every search waited on it (qa49). The words are its own.
        watcher = embed and not rebuild and vector_cache is None and self._watcher_embeds()
        try:
            with self.write_lock(waiting=waiting):
                report = self._index_locked(rebuild, progress, now, embed and not watcher, vector_cache, started)
        except BaseException as exc:
            self._cancel_export()
            # `rm -rf .vault-engine` meanwhile: a raw FileNotFoundError traceback had said so (qa198)
            if isinstance(exc, OSError) and self.root.is_dir() and not self.config.state_dir.exists():
                raise VaultError(f"the state folder {self.config.state_dir} was removed while this run wrote the "
                                 "index: nothing of yours was changed; run `vault-engine index` to build it again") \
                    from None
            raise
        if not watcher:
            return report
        left = self.ledger.section_count() - self.ledger.embedded_counts()[0]
        return replace(report, notices=report.notices + (
            (f"the running watcher embeds the {left} section(s) left in the background, giving way to searches "
             "and saves (`vault-engine status` shows how far it is): this run indexed the words",) if left else ()))

    def _refuse_beside_another_release(self) -> None:
        """A watcher of another release writes the index in its own formats: an old one left
        running across an upgrade emptied each new index this release wrote, and this run had
        left the embedding to it (qa99)."""
        from vault_engine.indexing.watch_state import watcher_status

        watcher = watcher_status(self.config)
        if watcher["state"] == "another-release":
            raise VaultError(f"a watcher of another vault-engine release runs for this vault (pid {watcher['pid']}): "
                             "the two would undo each other's index; stop it with `vault-engine watch --stop`, then "
                             "run this again (and `vault-engine watch` starts this release's watcher)")

    def _index_locked(self, rebuild: bool, progress: Progress | None, now: float | None, embed: bool,
                      vector_cache: str | os.PathLike[str] | None, started: float) -> IndexReport:
        """:meth:`index` under the write lock."""
        damage = None if rebuild else self._ledger_damage()
        live = not damage and (self.config.index_dir / LEDGER_FILE).exists()
        if rebuild or not live:  # none, or lost
            from vault_engine.config import inside_notice

            inside = None if live or damage or self.config.index_root.exists() else inside_notice(self.root)
            report = self._index_generation(progress, now, embed, vector_cache, words_first=not live)
            repaired: tuple[str, ...] = (f"the index ledger was damaged ({damage}): rebuilt from the notes",) \
                if damage else ()
            repaired += (inside,) if inside else ()
            return replace(report, seconds=time.perf_counter() - started, notices=repaired + report.notices)
        from vault_engine.indexing.generations import remove_stale

        remove_stale(self.config)  # an interrupted rebuild's folder, a replaced generation
        try:
            return self._index_in_place(progress, now, embed, started, vector_cache)
        except Exception as exc:  # a page garbled mid-file: found only when read
            if not is_corruption(exc):
                raise
            self.close()
            notice = f"the index ledger was damaged ({exc}): rebuilt from the notes"
        report = self._index_generation(progress, now, embed, vector_cache, words_first=True)
        return replace(report, seconds=time.perf_counter() - started, notices=(notice, *report.notices))

    def _index_in_place(self, progress: Progress | None, now: float | None, embed: bool,
                        started: float, vector_cache: str | os.PathLike[str] | None = None,
                        embed_after: bool = False) -> IndexReport:
        """``embed_after``: the caller embeds once this run's words are live (a first index)."""
        from vault_engine.indexing.indexer import Indexer

        def load_model_meanwhile(plan: ChangePlan) -> None:
            """The model is made ready while the words are indexed: its export (when this run
            will need it: sections to embed, or to search) and, for notes to embed, its session."""
            changed = bool(plan.new or plan.modified)
            if (embed or embed_after) and (changed or self.ledger.section_count()) and self._model_enabled():
                from vault_engine.indexing.embedding import prepare_model_meanwhile

                prepare_model_meanwhile(self.ledger, self.embedder, self.shared_vector_cache(vector_cache),
                                        open_session=changed)

        def on_plan(plan: ChangePlan) -> None:
            self._record_moves(plan.moved, now)
            load_model_meanwhile(plan)

        changes = Indexer(self.config, self.ledger, self.lexical, on_plan).run(progress=progress, now=now)
        self._sync_reinforcements()
        embedded, notices = self._embed(progress, embed, shared=vector_cache)
        self._finished_at(now, embedded)
        report = self._report(changes, started)
        return replace(report, embedded=embedded, notices=report.notices + notices)

    def _index_generation(self, progress: Progress | None, now: float | None, embed: bool,
                          vector_cache: str | os.PathLike[str] | None = None, *,
                          words_first: bool = False) -> IndexReport:
        """Index everything into a new generation (caches carried over), then swap it in.
        ``words_first``: nothing usable is live (a first index, a lost ledger), so the
        generation goes live once its words are indexed and embeds there: a first index of a
        large vault is searchable by words in seconds, not after its embedding. Otherwise
        (``--rebuild``) the old generation serves until the new one is complete."""
        from vault_engine.indexing.generations import new_generation, switch_to

        generation = new_generation(self.config)
        builder = Vault(self.root, replace(self.config, index_name=generation.name), embedder=self._embedder)
        try:
            report = builder._index_in_place(progress, now, embed and not words_first, time.perf_counter(),
                                             vector_cache, embed_after=embed and words_first)
            self._embedder = builder._embedder  # a model loaded for the build stays loaded
        except BaseException:
            builder._cancel_export()
            builder.close()
            shutil.rmtree(generation, ignore_errors=True)
            raise
        builder.close()
        if builder._embedding_stopped and not words_first:
            self._keep_the_live_generation(generation, report.embedded)
        self.close()  # the stores reopen on the new generation when next used
        switch_to(self.config, generation)
        self._follow_generation()  # this Vault was pinned to the generation just replaced
        if words_first and embed:
            embedded, notices = self._embed(progress, embed, shared=vector_cache)
            self._finished_at(now, embedded)
            report = replace(report, embedded=embedded, notices=report.notices + notices)
        return report

    def _keep_the_live_generation(self, generation: Path, embedded: int) -> NoReturn:
        """A rebuild stopped while it embedded (a Ctrl-C): the generation in use stays, whole,
        and the vectors the rebuild computed go into its cache, so the next rebuild takes them
        from there. The half-embedded one had gone live (28% of its sections with meaning, qa97)."""
        from vault_engine.stores.sql import copy_database

        self.close()  # its connection to the live cache must not outlive the file it replaces
        built, live = generation / VECTOR_CACHE_FILE, self.config.index_dir / VECTOR_CACHE_FILE
        if built.is_file() and live.parent.is_dir():
            staged = live.with_name(f".{live.name}.{os.getpid()}")
            if copy_database(built, staged):  # it holds the live cache's vectors too: carried over at its start
                os.replace(staged, live)
        shutil.rmtree(generation, ignore_errors=True)
        log.warning("index --rebuild stopped: the index in use is the one before it, unchanged; the %d sections "
                    "embedded meanwhile are kept in its vector cache, so the next `vault-engine index --rebuild` "
                    "takes them from there", embedded)
        raise KeyboardInterrupt

    def _cancel_export(self) -> None:
        """A run failed: an export it began will not be used, and a long-lived process (the
        TUI, the daemon) would keep its child until it exits."""
        if self._embedder is not None:
            self._embedder.cancel_export()

    def _finished_at(self, now: float | None, embedded: int) -> None:
        """``status``'s "last index" is when a run finished: after its embedding, which can
        take minutes after the words (the ledger's own stamp, ``now`` in tests, stays)."""
        if embedded and now is None:
            with self.ledger.transaction():
                self.ledger.mark_indexed(time.time())

    def _ledger_damage(self) -> str | None:
        """Why the live ledger cannot be trusted, or None (no ledger yet is not damage)."""
        if not (self.config.index_dir / LEDGER_FILE).exists():
            return None
        try:
            _ = self.ledger  # opening it is the check
        except IndexDamaged as exc:
            self._ledger = None
            return str(exc.__cause__ or exc)
        return None

    @_operation
    def embed_pending(self, progress: Progress | None = None,
                      should_stop: Callable[[], bool] | None = None) -> IndexReport:
        """Only the embedding phase: vectors for sections that lack them (the watcher's
        background catch-up). Ctrl-C, or ``should_stop()`` answering True between encode
        chunks, stops it cleanly: what was embedded is kept."""
        from vault_engine.model import IndexReport

        started = time.perf_counter()
        with self.write_lock():
            if not self.has_index():  # removed meanwhile: opening the ledger would make an empty one
                return IndexReport(seconds=time.perf_counter() - started)
            embedded, notices = self._embed(progress, should_stop=should_stop)
        return IndexReport(embedded=embedded, notices=notices, sections=self.ledger.section_count(),
                           seconds=time.perf_counter() - started)

    def _embed(self, progress: Progress | None, embed: bool = True,
               should_stop: Callable[[], bool] | None = None,
               shared: str | os.PathLike[str] | None = None) -> tuple[int, tuple[str, ...]]:
        from vault_engine.indexing.embedding import drop_stale_vectors, embed_pending

        if not (embed and self._model_enabled()):  # words only, by request or by config
            drop_stale_vectors(self.ledger, self.vectors)
            return 0, ()
        result, notices = embed_pending(self.ledger, self.vectors, self.config.index_dir / VECTOR_CACHE_FILE,
                                        self.embedder, progress, should_stop,
                                        shared_root=self.shared_vector_cache(shared))
        self._embedding_stopped = result is not None and result.interrupted
        if result is not None and not result.interrupted:
            self._warm_rulings()
        return (result.embedded if result else 0), notices

    def _warm_rulings(self) -> None:
        """Vectors for ``deadend check`` (rulings, their descriptions, what their notes chose),
        computed while the model is loaded anyway."""
        from vault_engine.memory.plans import live_plans
        from vault_engine.memory.ruling_vectors import warm_ruling_vectors

        texts = [t for r in self.ledger.dead_end_words() for t in (r.text, r.detail) if t]
        steps = [step.text for plan in live_plans(self.ledger).values() for step in plan]
        warm_ruling_vectors(texts + self.ledger.accepted_texts() + steps, self.embedder(),
                            self.config.index_dir / RULING_CACHE_FILE)

    @_operation
    def index_paths(self, paths: Iterable[str], *, now: float | None = None) -> IndexReport:
        """Apply what changed at these vault-relative paths only (files or folders): the
        watcher's incremental plan, under the same writer lock and rules as :meth:`index`.
        A partial plan assumes a complete index: without one (never built, deleted, damaged)
        this is a full :meth:`index`, words only."""
        from vault_engine.indexing.indexer import Indexer

        if not self.root.is_dir():
            raise VaultError(f"the vault folder {self.root} is gone (moved or deleted): nothing was indexed")
        if not self.has_index() or self._ledger_damage() or self.ledger.last_index() is None:
            return self.index(embed=False, now=now)
        started = time.perf_counter()
        with self.write_lock():
            changes = Indexer(self.config, self.ledger, self.lexical,
                              lambda plan: self._record_moves(plan.moved, now)).apply_paths(paths, now=now)
            self._sync_reinforcements()
            from vault_engine.indexing.generations import remove_stale

            remove_stale(self.config)  # a generation replaced over a minute ago, as index removes it
        return self._report(changes, started)

    def _report(self, changes: AppliedChanges, started: float) -> IndexReport:
        from vault_engine.model import IndexReport

        plan = changes.plan
        notices: tuple[str, ...] = \
            (f"the lexical index could not be trusted ({changes.lexical_repaired}): rebuilt from the ledger",) \
            if changes.lexical_repaired else ()
        notices += tuple(changes.notices)

        changed = (plan.new, plan.modified, plan.deleted, tuple(new for _, new in plan.moved))
        new, modified, deleted, moved = (sum(map(is_note, paths)) for paths in changed)  # notes, as status counts
        # a note read again unchanged (another parser, a [kinds] rule) is no edit: "109 modified"
        # after a line of vault-engine.toml read as 109 edits in a log (qa102)
        read_again = sum(map(is_note, changes.read_again))
        return IndexReport(
            new=new, modified=modified - read_again, read_again=read_again, deleted=deleted, moved=moved,
            unchanged=plan.unchanged + sum(map(is_note, plan.touched)),
            skipped=tuple(changes.skipped), sections=self.ledger.section_count(),
            seconds=time.perf_counter() - started, notices=notices, left_out=len(plan.left_out),
            source_files=sum(map(len, changed)) - new - modified - deleted - moved,  # a code tap's files
        )

    # -- notion tap -----------------------------------------------------------------------

    @_operation
    def notion_import(self, export: str | os.PathLike[str], *, into: str = "notion",
                      prune: bool = False, embed: bool = True,
                      now: float | None = None) -> NotionReport:
        """Write the pages of a Notion export (zip or folder) as notes under ``into``, then
        index them."""
        from vault_engine.sources.notion.export import import_export

        report = import_export(self.config, Path(export), into=into, prune=prune, now=now)
        return self._indexed_after(report, now, embed)

    @_operation
    def notion_sync(self, *, prune: bool = False, embed: bool = True,
                    now: float | None = None) -> NotionReport:
        """Pull the pages the notion tap names through the Notion API, write the changed
        ones as notes, then index them. The token comes from the environment only."""
        from vault_engine.sources.notion.api import sync_tap

        report = sync_tap(self.config, prune=prune, now=now)
        return self._indexed_after(report, now, embed)

    def _indexed_after(self, report: NotionReport, now: float | None, embed: bool) -> NotionReport:
        """The report of an import or sync with the index brought up to date, and the links
        of other notes its renames left pointing at an old name."""
        from vault_engine.sources.notion.report import broken_by_renames

        indexed = self.index(now=now, embed=embed)
        broken = broken_by_renames(report.renamed, self.ledger.unresolved_links()) if report.renamed else ()
        return replace(report, index=indexed, notices=report.notices + broken)

    # -- search, show, links --------------------------------------------------------------

    @_operation
    def search(self, query: str, *, k: int = 10, kind: str | None = None,
               project: str | None = None, tap: str | None = None, lexical_only: bool = False,
               decay: bool = True, follow: int = 0, now: float | None = None,
               semantic_only: bool = False, exclude_tests: bool = False) -> SearchResult:
        """Hybrid search over sections: words (BM25) and meaning (embeddings), fused. Without
        a usable model it searches by words and says so in ``notices``."""
        from vault_engine.indexing.integrity import check_before_reading
        from vault_engine.indexing.offtopic import offtopic_levels
        from vault_engine.retrieval.confidence import MissRule
        from vault_engine.retrieval.search import Searcher, SearchRequest

        kind = kind.casefold() if kind else kind  # `--kind Note`, as a ref is read in any case (qa52)
        project = as_named(project)
        ledger = self._ledger_for_search(k, follow, kind, project, tap)
        from vault_engine.stores.lexical import only_symbols, only_tags, query_terms

        tags_only = not lexical_only and not semantic_only and only_tags(query) and bool(query_terms(query)[0])
        lexical_only = lexical_only or tags_only
        if only_symbols(query):
            # "🔁" and "🦄" alike: the model reads every pictograph as one unknown sign, so
            # meaning gave the same three hits for each (qa53); the words index holds none
            raise BadArgument(f"{query[:200]!r} holds no word to search by: {UNREAD_SYMBOLS}")
        if lexical_only and not query_terms(query)[0]:  # nothing was searched: not a miss an agent takes for an answer
            raise BadArgument(f"{query[:200]!r} holds no word the words index searches (only stop words or "
                              "punctuation): ask with content words, or with meaning too (without --lexical; "
                              "the MCP tools' lexical=false; the TUI's words + meaning)")
        arms = ("lexical",) if lexical_only else ("semantic",) if semantic_only else ("lexical", "semantic")
        if not lexical_only and ledger.embedded_ids_exist():
            from vault_engine.stores.embedder import prefetch_embedder

            prefetch_embedder(self.embedder)  # the model loads while Whoosh and FAISS open
        # Raises on damage; a notice when a killed index run left Whoosh a step ahead
        interrupted = check_before_reading(ledger, self.lexical, writing=self._writer_at_work) \
            if "lexical" in arms else None
        request = SearchRequest(query, k, kind, project, tap, arms, decay, follow, now, exclude_tests)
        levels = offtopic_levels(ledger)  # how close off-topic questions come: see MissRule and judged
        best, typical, ceiling = levels if levels else (None, None, None)
        miss_rule = MissRule.from_config(self.config.section("search"), typical=typical, ceiling=ceiling)
        searcher = Searcher(self.config, ledger, self.lexical, semantic_coverage=ledger.semantic_coverage(),
                            miss_rule=miss_rule, offtopic=best or 0.0)
        searcher.notices += [interrupted] if interrupted else []
        if not lexical_only:  # the semantic side is imported only when it may run
            from vault_engine.retrieval.semantic import open_arm, partial_notice

            searcher.semantic, notice = open_arm(ledger, self.vectors, self.embedder, required=semantic_only,
                                                 embedding_by=self._embedding_by)
            if searcher.semantic is not None:
                notice = partial_notice(ledger, self.vectors, self._embedding_by)
            searcher.notices += [notice] if notice else []
        searcher.notices += operators_notice(query) + symbols_notice(query)
        if tags_only:  # "#incubating" found 1 tagged note of 5 with meaning, 5 of 5 with words (qa28 F6)
            searcher.notices.append("a query of tags only is searched by words: a tag means nothing to the model")
        result = self._search_beside_writers(searcher, request)
        if not result.hits:
            code_taps = tuple(t.name for t in self.config.taps if t.source == "code")
            why = kind_notice(ledger, kind, code_taps) or filters_notice(ledger, kind, project, tap)
            result = replace(result, notices=result.notices + self._drift.stale_notice(ledger, "search")
                             + _skipped_notice(ledger) + (why or self._found_without_filters(searcher, request)))
        else:
            weak = self._found_without_filters(searcher, request, weak=True) if result.confidence == LOW else ()
            stale = self._drift.hits_stale(ledger, (h.path for h in result.hits if h.kind != "code"), "search")
            settings = self._drift.settings_notice(ledger, "search")
            result = replace(result, notices=result.notices + weak + stale + settings)
        if any(h.kind == "code" for h in result.hits):  # code hits carry the notes that say why
            result = replace(result, hits=self._code_queries().with_why(result.hits, query))
            if follow:
                result = self._follow_why(searcher, result, request)
        return result

    def _found_without_filters(self, searcher: Searcher, request: SearchRequest,
                               weak: bool = False) -> tuple[str, ...]:
        """For a miss of a filtered search: what the same search finds without its filters,
        so that the miss is not taken for the vault's (an agent passing its own `--project`
        was told "a miss, not a guess" of a drop test another project's notes record). For
        ``weak`` hits (confidence low), only when the wider search is sure of a first hit the
        filters left out: the project's unrelated sections had stood as the answer."""
        given = [f"--{name} {value}" for name, value in
                 (("kind", request.kind), ("project", request.project), ("tap", request.tap)) if value]
        given += ["--exclude-tests"] if request.exclude_tests else []
        if not given:
            return ()
        from vault_engine.retrieval.search import passes_filters

        said = list(searcher.notices)  # the filtered answer's, already given
        wider = self._search_beside_writers(searcher, replace(
            request, kind=None, project=None, tap=None, exclude_tests=False, k=3, follow=0))
        searcher.notices[:] = said
        # Only what the filters left out: a section they pass, found by the wider search, says
        # the miss was the miss rule's, not theirs ("best pizza place" named billing-service, qa46)
        outside = [h for h in wider.hits if not passes_filters(h, request)]
        if weak:
            if wider.confidence != HIGH or not wider.hits or passes_filters(wider.hits[0], request):
                return ()
        elif not outside or len(outside) < len(wider.hits):
            return ()
        where = "; ".join(f"{h.ref} ({'project ' + h.project if h.project else h.kind})" for h in outside)
        found = f"without {' '.join(given)} the same search finds (confidence {wider.confidence}): {where}"
        return (f"these hits are weak (confidence low); {found}" if weak else found,)

    def _ledger_for_search(self, k: int, follow: int, kind: str | None, project: str | None,
                           tap: str | None) -> Ledger:
        """The index's ledger, once a search's arguments are checked: a number out of range is
        an error, and so is an unknown filter value, listing the valid ones, never an empty
        result an agent would take for "nothing exists"."""
        from vault_engine.constants import SEARCH_KINDS

        if k < 1:
            raise BadArgument(f"k must be at least 1 (got k={k})")
        _check_follow(follow)
        ledger = self._require_index()
        if tap is not None:
            self.config.tap(tap)
        if kind is not None and kind not in SEARCH_KINDS:
            raise UnknownKind(f"no kind {kind!r}; kinds are: {', '.join(SEARCH_KINDS)}")
        if project is not None:
            self._require_project(ledger, project)
        return ledger

    def _follow_why(self, searcher: Searcher, result: SearchResult, request: SearchRequest) -> SearchResult:
        """``search --follow`` of code hits: their why notes' sections (where each mention or
        link sits), then the links written there, as ``show --follow`` of the symbol gives
        them; each a hit ``via`` the one it was reached from, as links followed from notes."""
        from vault_engine.model import ResolvedLink

        code = self._code_queries()
        now = request.now if request.now is not None else time.time()
        made = {h.ref: h for h in result.hits}
        extra = []
        for hit in [h for h in result.hits if h.kind == "code" and h.via is None]:
            for step in code.follow([(hit.ref, code.why_of_ref(hit.ref))], request.follow):
                parent = made.get(step.via, hit)
                if step.ref in made:
                    continue
                link = ResolvedLink(step.ref, step.ref, step.path, step.heading, True, False, False,
                                    step.line_start, parent.path)
                followed = searcher.linked_hit(link, parent, now, request.decay)
                if followed is not None and followed.ref not in made:
                    made[followed.ref] = followed
                    extra.append(followed)
        return replace(result, hits=result.hits + tuple(extra))

    def _search_beside_writers(self, searcher: Searcher, request: SearchRequest) -> SearchResult:
        """Run the search; while another process's index run is at work, ask again for what
        its commits leave for a moment: Whoosh's files replaced between reading the table of
        contents and a segment, or Whoosh committed a moment before the ledger (hits the
        ledger does not hold yet)."""
        for attempt in range(AHEAD_RETRIES + 1):
            last = attempt == AHEAD_RETRIES
            try:
                result = searcher.search(request)
            except IndexDamaged:
                if last or not self._writer_at_work():
                    raise
                self.lexical.close()  # reopened on the files the writer left
            else:
                if last or not (searcher.lexical_ahead and self._writer_at_work()):
                    return result
            time.sleep(AHEAD_WAIT_SECONDS)
        raise AssertionError("unreachable")

    def _writer_at_work(self) -> bool:
        return held_elsewhere(self.config.state_dir / WRITE_LOCK)

    @_operation
    def show(self, ref: str, *, follow: int = 0) -> NoteView | CodeView:
        """A note (whole text, read from the file) or one section of it; for a code ref
        (``path#Qualified.name``), the symbol's lines, numbered. ``follow`` (0..5): also the
        sections a note links to, or a code ref's why notes, that many hops deep."""
        _check_follow(follow)
        ledger = self._require_index()
        if (self.config.index_dir / CODE_FILE).exists() and self._code_queries().is_code_ref(ref):
            return self._code_queries().show(ref, follow)
        from vault_engine.model import NoteView
        from vault_engine.refs import make_ref, parse_ref
        from vault_engine.retrieval.follow import hit_links, resolved_link
        from vault_engine.retrieval.lookup import (
            block_lines,
            section_ref,
            with_missing_sections,
            with_subsections,
        )

        try:
            note, section = self._lookup(ledger, ref)
        except UnknownRef:
            if not (self.config.index_dir / CODE_FILE).exists() or ref.partition("#")[0].lower().endswith(".md"):
                raise
            code = self._code_queries()
            # a symbol's name alone, as callers takes it: `show Context.exit` had said "no note" (qa135)
            named = code.definition_refs(ref) if "/" not in ref and "#" not in ref else ()
            if len(named) == 1:
                return code.show(named[0], follow)
            if named:
                raise UnknownRef(f"no note {ref!r}, and it names {len(named)} definitions: {', '.join(named[:8])}"
                                 f"{' ...' if len(named) > 8 else ''}: show one of them by its ref") from None
            meant = code.meant(ref)  # a slip in a symbol's name or file: callers said it, show spoke of notes (qa139)
            if meant:
                raise UnknownRef(f"no note or symbol {ref!r}: did you mean {meant[0]}? Confirm it before acting "
                                 "on it") from None
            raise
        note_sections = ledger.sections_of(note.id)
        sections = tuple(s.heading for s in note_sections if s.heading)
        change = self._drift.change_since_index(ledger, note.path)
        if section is not None:  # its links as its hit lists them: the section's own, then the note's properties'
            from vault_engine.parsing.sections import heading_line

            block_id = ref.rpartition("#^")[2] if "#^" in ref else ""
            lines = block_lines(section.text, block_id) if block_id else None
            body, start, end, opens = with_subsections(note_sections, section, parse_ref(ref).heading) \
                if lines is None else (section.text, section.line_start, section.line_end, section.heading)
            shown = section_ref(note, section) if opens == section.heading else make_ref(note.path, opens)
            if lines is not None:  # the block alone, as Obsidian embeds it, not its whole section (qa27 F8)
                shown, start, end = f"{note.path}#^{block_id}", start + lines[0], start + lines[1]
                body = "\n".join(body.split("\n")[lines[0]:lines[1] + 1])
            links = hit_links(ledger, note.id, start, end)
            view = NoteView(shown, note.path, note.title, note.kind, note.tap,
                            note.project, opens, start, end,
                            body, note.meta, links, sections,
                            notices=self._drift.changed_notice(note.path, change, whole=False), body_line=start,
                            heading_line=heading_line(section) if lines is None and opens == section.heading
                            else start)
        else:
            links = tuple(with_missing_sections(ledger, (resolved_link(r) for r in ledger.links_of(note.id))))
            text = self._read_text(note.path)
            first, last, body_line = 1, None, 1
            if text is None or change in ("gone", "unreadable"):  # its indexed text, as a section's
                change = "unreadable" if change == "unreadable" else "gone"
                indexed = ledger.sections_of(note.id)
                text = "".join(s.text.rstrip("\n") + "\n" for s in indexed)
                first, last = (indexed[0].line_start, indexed[-1].line_end) if indexed else (1, 1)
                body_line = first
            else:  # the parser's own reading of the frontmatter ("..." closes it too: qa33 R6)
                from vault_engine.parsing.frontmatter import frontmatter_end

                body_line = frontmatter_end(text)
            view = NoteView(section_ref(note, None), note.path, note.title, note.kind, note.tap,
                            note.project, None, first, last or max(1, len(text.splitlines())), text, note.meta, links,
                            sections, notices=self._drift.changed_notice(note.path, change, whole=True),
                            body_line=body_line)
        if follow:
            view = self._followed_view(ledger, view, note.id, section is None, follow)
        return view

    def _followed_view(self, ledger: Ledger, view: NoteView, note_id: int, whole: bool, follow: int) -> NoteView:
        """``show --follow``: what the shown section or note links to, saying when links were left."""
        from vault_engine.retrieval.code.followed import follow_shown
        from vault_engine.retrieval.follow import LINKS_PER_HIT

        followed, left = follow_shown(ledger, view.ref, view.path, note_id, view.links, whole, follow)
        notices = view.notices + ((f"--follow takes at most {LINKS_PER_HIT} links of a section: {left} more not "
                                   "followed (`show REF#Heading --follow N` follows a section's)",)
                                  if left else ())
        return replace(view, followed=followed, notices=notices)

    def _lookup(self, ledger: Ledger, ref: str) -> tuple[NoteRow, SectionRow | None]:
        """The note and section ``ref`` names (:func:`~retrieval.lookup.lookup_ref`). A heading
        or block the indexed note lacks, in a note changed since the last index, may be new
        there: "has no heading" alone had told an agent with MCP alone that a section a
        teammate had just written did not exist (qa193)."""
        from vault_engine.retrieval.lookup import lookup_ref

        try:
            return lookup_ref(ledger, ref, self._unindexed_now)
        except NoSuchSection as exc:
            if self._drift.change_since_index(ledger, exc.path) != "changed":
                raise
            raise NoSuchSection(f"{exc}; {exc.path} changed since the last index and may hold it now: run "
                                "`vault-engine index`, then ask again", exc.path) from None

    def _unindexed_now(self, rel_path: str) -> str | None:
        """Why the note at ``rel_path`` is not in the index (sources.vault.files.why_unindexed),
        for a ref that names no note: the reason, not a guess."""
        from vault_engine.sources.vault.files import NEW_SINCE_INDEX, why_unindexed

        try:
            reason = why_unindexed(self.config, rel_path)
        except OSError:  # a name the file system cannot even look up (a part of 255+ bytes):
            return None  # no file is there for the scan to take; the ref is simply unknown
        if reason == NEW_SINCE_INDEX:  # unless a code tap claims it: `index` would leave it out again (qa111)
            from vault_engine.sources.code.files import code_taps

            tap = next((t for t in code_taps(self.config) if t.claims(rel_path)), None)
            if tap is not None:
                return (f"the code tap {tap.name!r} claims it ([taps.{tap.name}] paths), and Markdown there is "
                        "neither a note nor code: narrow the tap's paths to its source files to read it as a note")
        return reason

    def _read_text(self, rel_path: str) -> str | None:
        """The note's file as it is now; None when it is gone (deleted, or its folder moved)."""
        path = self.root / rel_path
        if not self.config.inside(path):  # swapped for a symlink out of the vault (or a loop) since indexed
            from vault_engine.sources.vault.skip_reasons import LOOP, is_symlink_loop

            if is_symlink_loop(path):
                raise VaultError(f"{rel_path} is now a {LOOP}")
            raise VaultError(f"{rel_path} is now a symlink to a file outside the vault: not shown "
                             "(set outside_symlinks = true in vault-engine.toml to allow it)")
        try:
            return path.read_text(encoding="utf-8-sig")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except PermissionError:
            raise VaultError(f"{rel_path}: permission denied: make the file readable to show it") from None
        except UnicodeDecodeError:
            raise VaultError(f"{rel_path} is not UTF-8 since the last index: re-save the note as UTF-8") from None
        except OSError as exc:
            raise VaultError(f"{rel_path}: cannot read the note ({exc.strerror or exc})") from exc

    @_operation
    def links(self, ref: str, *, backlinks: bool = False) -> list[ResolvedLink]:
        """Outgoing links of a note or section, or the links pointing at it."""
        from vault_engine.retrieval.follow import links_in_lines, resolved_link
        from vault_engine.retrieval.lookup import find_section, with_missing_sections

        ledger = self._require_index()
        if backlinks and ref.strip() in set(ledger.attachment_paths()):  # an image, a PDF, a .base
            return with_missing_sections(ledger, (resolved_link(r) for r in ledger.backlinks_to(ref.strip())))
        note, section = self._lookup(ledger, ref)
        if backlinks:
            found = [resolved_link(r) for r in ledger.backlinks_to(note.path)]
            if section is not None and section.heading:
                found = [link for link in found if link.subpath and
                         find_section([section], link.subpath) is not None]
            return with_missing_sections(ledger, found)
        found = [resolved_link(r) for r in ledger.links_of(note.id)]
        if section is not None:
            found = list(links_in_lines(found, section.line_start, section.line_end))
        return with_missing_sections(ledger, found)

    @_operation
    def all_links(self) -> list[ResolvedLink]:
        from vault_engine.retrieval.follow import resolved_link
        from vault_engine.retrieval.lookup import with_missing_sections

        ledger = self._require_index()
        return with_missing_sections(ledger, (resolved_link(r) for r in ledger.all_links()))

    # -- code: outline, callers/callees, find (retrieval/code, retrieval/find) -------------

    def _code_queries(self) -> CodeQueries:
        if self._code is None:
            from vault_engine.retrieval.code.service import open_code_queries

            self._code = open_code_queries(self.config, self._require_index())
        self._code.refresh()
        return self._code

    @_operation
    def outline(self, path: str, *, follow: int = 0) -> Outline:
        """A source file's symbols with spans, parameters, decorators and why links;
        ``follow`` (0..5): what those why notes say, and that many hops of their links."""
        _check_follow(follow)
        return self._code_queries().outline(path, follow)

    @_operation
    def calls(self, symbol: str, *, direction: str = "callers", depth: int = 1,
              exclude_tests: bool = False, follow: int = 0) -> CallAnswer:
        """Who calls ``symbol`` (``direction`` callers) or what it calls (callees), up to
        ``depth`` (1..5) calls away; a not-found says which kind it is. ``follow``: the
        symbol's why notes, as for :meth:`show`."""
        if direction not in ("callers", "callees"):
            raise BadArgument(f"direction is {direction!r}: use callers or callees")
        if not 1 <= depth <= 5:
            raise BadArgument(f"depth {depth} is out of range: use 1..5")
        _check_follow(follow)
        return self._code_queries().calls(symbol, direction, depth, exclude_tests, follow)

    @_operation
    def find(self, query: str, *, k: int = 10, tier: str | None = None, facet: str | None = None,
             follow: int = 0) -> FindResult:
        """Where is it? Exact symbol, literal path, then a fuzzy suggestion or the memory notes.
        ``follow``: the why notes of the code hits, as for :meth:`show` (a suggestion is
        not followed: it is to be confirmed first)."""
        from vault_engine.retrieval.find.router import find

        _check_follow(follow)
        ledger = self._require_index()
        code = self._code_queries() if (self.config.index_dir / CODE_FILE).exists() else None
        result = find(query, code=code, ledger=ledger, lexical=lambda: self.lexical, k=k, tier=tier, facet=facet)
        if code is not None and result.tier in ("symbol", "path"):  # as callers/outline/show say it
            result = replace(result, notices=result.notices + code.changed_notices([h.path for h in result.hits]))
        if follow and code is not None and result.tier in ("symbol", "path"):
            starts = [(h.ref, h.why) for h in result.hits]
            result = replace(result, followed=code.follow(starts, follow))
        return result

    # -- status ---------------------------------------------------------------------------

    @_operation
    def status(self) -> dict[str, Any]:
        """Index health: counts, stale files, skipped files, broken YAML, unresolved links,
        the semantic arm, and the watcher (running, stale or off: from watch.json)."""
        from vault_engine.indexing.watch_state import watcher_status

        try:
            ledger = self._require_index()
            from vault_engine.status import vault_status

            scan, suspects = self._drift.changes_since_index(ledger)
            watcher = watcher_status(self.config)
            semantic = self._semantic_status(ledger, embedding_by=self._embedding_by(watcher["state"] in WATCHING))
            status = vault_status(self.config, ledger, self.lexical, scan, suspects, semantic, watcher,
                                  writing=self._writer_at_work, settings_changed=self._drift.settings_changed(ledger))
            if problem := self.reinforcement_log.unusable():  # a FIFO, a file for its folder (qa139)
                status["damage"].append(f"{problem}: no reinforcement is read; move it aside (it stays yours)")
            return status
        except IndexDamaged as exc:  # nothing else can be counted: say what is wrong and what to do
            return {"vault": str(self.root), "damage": [str(exc)], "watcher": watcher_status(self.config)}
        except Exception as exc:
            if not is_corruption(exc):
                raise
            self.close()
            return {"vault": str(self.root), "watcher": watcher_status(self.config),
                    "damage": [str(damaged(self.config.index_dir / LEDGER_FILE, exc))]}

    @_operation
    def freshness(self) -> Freshness:
        """What a long-lived client (the TUI) polls instead of ``status``: one stat per note,
        nothing read or hashed, no model. While a watcher is at work the vault is not even
        scanned: the watcher applies an edit within a second, and its last batch is in here.
        The watcher's heartbeat is left out (it moves every second), and so is its lag."""
        from vault_engine.indexing.watch_state import watcher_status
        from vault_engine.model import Freshness
        from vault_engine.sources.vault.files import scan_vault

        watcher = watcher_status(self.config)
        notes = None if watcher["state"] in WATCHING else scan_vault(self.config).notes
        last = self.ledger.last_index() if self.has_index() else None
        return Freshness(None if notes is None else len(notes),
                         None if notes is None else hash(frozenset(notes.items())), last,
                         tuple(watcher.get(k) for k in ("state", "last_applied", "pending", "errors")))

    def _semantic_status(self, ledger: Ledger, embedding_by: str | None = None) -> dict[str, Any]:
        """Coverage, model, vectors and agreement, read from files: never loads the model.
        ``embedding_by``: who embeds what is missing by itself (its summary says so)."""
        from vault_engine.indexing.embedding import embedding_status
        from vault_engine.stores.vector_state import model_key

        enabled = self._model_enabled()
        problem, query_model, key = None, False, None
        try:
            if enabled:
                embedder = self.embedder()
                problem, query_model, key = embedder.problem(), embedder.has_query_model(), model_key(embedder)
        except ModelUnavailable as exc:
            problem = str(exc)
        try:
            shared = self.shared_vector_cache()
        except VaultError:
            shared = None
        return embedding_status(ledger, self.vectors, enabled, problem, query_model, shared,
                                embedding_by=embedding_by if enabled else None, key=key)

    # -- agent memory: dead ends, checkpoints, resume --------------------------------------

    @_operation
    def deadend_list(self, project: str | None = None) -> DeadEndList:
        """Every recorded dead end (of one project), newest first, and a notice when the
        vault (the project's folder) changed since the last index."""
        from vault_engine.memory.deadends import list_dead_ends, none_recorded
        from vault_engine.memory.matching import DeadendSettings
        from vault_engine.memory.results import DeadEndList

        ledger = self._require_index()
        project = as_named(project)
        if project is not None:
            self._require_project(ledger, project)
        rulings = list_dead_ends(ledger, project, DeadendSettings.from_config(self.config.section("deadend")))
        disagree = folder_disagrees(ledger, self.config, project) if project is not None else ()
        stale = self._drift.answer_stale(ledger, (r.path for r in rulings), "list", self._project_folder(project))
        # why there are none, as `deadend check` says it: a vault of Nygard records had read
        # "no dead ends recorded" alone (qa123)
        none = (f"no dead end is recorded in this vault: {none_recorded(ledger)}",) \
            if not rulings and not ledger.has_dead_ends() else ()
        return DeadEndList(tuple(rulings), stale + disagree + none)

    @_operation
    def deadend_check(self, proposal: str, *, project: str | None = None, k: int = 3,
                      lexical_only: bool = False, say_if_stale: bool = True) -> DeadendCheck:
        """Has this been tried? Every dead end of the vault is checked; with ``project``,
        rulings of other projects are flagged ``elsewhere``. A miss says whether the index is
        stale unless ``say_if_stale`` is off (a hook, which shows nothing on a miss)."""
        project = as_named(project)
        ledger = self._require_index()
        if not lexical_only and ledger.has_dead_ends():
            from vault_engine.stores.embedder import prefetch_embedder

            prefetch_embedder(self.embedder)  # the model loads while the rulings are read
        from vault_engine.memory.deadends import check_in_ledger
        from vault_engine.memory.matching import DeadendSettings, content_terms
        from vault_engine.stores.lexical import only_symbols

        if only_symbols(proposal):  # "🚀" had been "a miss, not a guess" (qa84)
            raise BadArgument(f"{proposal[:200]!r} holds no word to check: the words arm compares words, and the "
                              "model reads pictographs as one unknown sign; say what is proposed in words")
        notices = []
        if lexical_only and not content_terms(proposal):  # a miss by words that were never compared
            notices.append(f"{proposal.strip()[:80]!r} holds no word the words arm compares (only stop or framing "
                           "words): say what is proposed, or check with meaning too (without --lexical)")
        if project is not None and project not in (known := ledger.projects()):  # "biling" (qa74)
            notices.append(f"project {project!r} has no notes in the index yet: every ruling is flagged elsewhere"
                           + did_you_mean(project, known))
        if project is not None:  # its own folder's rulings flagged elsewhere, without a word (qa132)
            notices += folder_disagrees(ledger, self.config, project)
        semantic = None
        if not lexical_only:
            from vault_engine.memory.ruling_vectors import open_ruling_arm

            semantic, problem = open_ruling_arm(self.embedder, self.config.index_dir / RULING_CACHE_FILE)
            notices += [problem] if problem else []
        settings = DeadendSettings.from_config(self.config.section("deadend"))
        check = check_in_ledger(proposal, ledger, project=project, k=k, settings=settings, semantic=semantic,
                                notices=notices)
        read = {r.path for r in check.rulings}
        if project is not None and ledger.yaml_errors():  # its checkpoints were read for rulings too: one
            # under `## Faild` holds some unread (qa140)
            read |= {n.path for n in ledger.notes(project=project, kinds=("checkpoint",))}
        check = replace(check, notices=check.notices + misread(ledger, read, "the ruling raised from it"))
        if say_if_stale and not check.rulings:  # a checkpoint written since may hold the ruling
            check = replace(check, notices=check.notices + self._drift.stale_notice(ledger, "check"))
        elif say_if_stale:  # a ruling struck or a note deleted since (qa51); else, a checkpoint of the
            # project written since may hold a closer one: a hit raised the opposite approach without
            # a word (qa74). Its folder alone is scanned: the whole vault cost 120 ms at 10,000 notes.
            raised, folder = (r.path for r in check.rulings), self._project_folder(project)
            stale = self._drift.answer_stale(ledger, raised, "check", folder) if folder \
                else self._drift.hits_stale(ledger, raised, "check")
            changed = tuple(line for line in self._drift.settings_notice(ledger, "check") if line not in stale)
            check = replace(check, notices=check.notices + stale + changed)
        return check

    @_operation
    def checkpoint_new(self, draft: CheckpointDraft, *, now: float | None = None) -> CheckpointWritten:
        """Write a checkpoint from the template (never overwriting one) and index it at once,
        so ``resume`` sees it. ``--link`` refs are written as wikilinks to the notes they name."""
        from vault_engine.memory.checkpoints import load_template, prepare_draft, write_checkpoint
        from vault_engine.memory.results import CheckpointWritten

        now = now if now is not None else time.time()
        draft, notices = prepare_draft(draft, self._require_index() if self.has_index() else None)
        template = load_template(self.root, self.config.section("checkpoint"))
        rel = write_checkpoint(self.root, self.config.projects_dir, draft, template, now)
        try:
            if self.has_index():
                self.index_paths([rel], now=now)
                notices += self._embed_checkpoint()
            else:
                self.index(embed=False, now=now)
        except (VaultError, OSError) as exc:
            # the note is the record, and it is written: an exit 1 saying "nothing of yours was
            # changed" (a full disk, a read-only `.vault-engine/` or its lock) had an agent write
            # it again at each retry (qa173, qa188)
            why = _NOTHING_CHANGED.sub("", str(exc))
            notices.append(f"{rel} is written but not indexed yet ({why}); do not write it again: "
                           "`vault-engine index` takes it in once the index can be written")
        return CheckpointWritten(rel, draft.project, draft.agent, tuple(notices))

    def _embed_checkpoint(self) -> tuple[str, ...]:
        """Vectors for the checkpoint just written, so semantic coverage does not drop until
        the next ``index``: only when that needs no torch (the model's ONNX export is there)
        and little else is waiting (a words-only vault is left to ``index``)."""
        if not self._model_enabled() or not self.ledger.embedded_ids_exist():
            return ()
        try:
            if not self.embedder().has_query_model():
                return ()
        except ModelUnavailable:
            return ()
        if len(self.ledger.sections_to_embed()) > CHECKPOINT_EMBED_LIMIT:
            return ()
        with self.write_lock():
            return self._embed(None)[1]

    @_operation
    def projects(self) -> list[str]:
        """Every project with notes in the index, sorted (what ``resume`` accepts)."""
        return self._require_index().projects()

    @_operation
    def resume(self, project: str, *, max_tokens: int = 2000, now: float | None = None) -> ResumeBrief:
        """The brief for an agent arriving on ``project``, within ``max_tokens``."""
        from vault_engine.memory.matching import DeadendSettings
        from vault_engine.memory.render import fit_brief
        from vault_engine.memory.resume import gather_brief

        project = as_named(project)
        ledger = self._require_index()
        self._require_project(ledger, project)
        settings = DeadendSettings.from_config(self.config.section("deadend"))
        brief = gather_brief(ledger, self.config, project, now if now is not None else time.time(), settings)
        # After a `git pull` the brief handed on the checkpoint before the pulled one without a
        # word (qa25 #2): as a search miss does, it says when the project's folder (where its
        # checkpoints and working notes are written) changed since the index. The folder
        # alone: a stat of every file of a 10,000-note vault made each `resume` 60 ms slower.
        folder = self.config.project_folder(project)
        handed_on = _handed_on(brief)
        return fit_brief(replace(brief, notices=self._drift.answer_stale(ledger, sorted(handed_on), "resume", folder)
                                 + misread(ledger, handed_on, "what the brief shows of it")
                                 + folder_disagrees(ledger, self.config, project) + brief.notices), max_tokens)

    def _project_folder(self, project: str | None) -> str:
        """``projects/<project>`` when that folder is there, inside ``projects/``, else "" (the
        whole vault): `deadend check --project ../..` had scanned the disk from / for 16 s (qa132)."""
        if project is None:
            return ""
        folder = self.config.project_folder(project)
        projects, path = (self.root / self.config.projects_dir).resolve(), (self.root / folder).resolve()
        return folder if path.parent == projects and path.name == project and path.is_dir() else ""

    def _require_project(self, ledger: Ledger, project: str) -> None:
        """Refuse a project the index does not know, naming the known ones."""
        known = ledger.projects()
        if project not in known:
            listed = ", ".join(known) if known else "none yet"
            # its folder's notes all naming another project: a renamed folder, said as a brief says it (qa133)
            renamed = "".join(f"; {line}" for line in folder_disagrees(ledger, self.config, project))
            raise UnknownProject(f"no project {project!r} in the index{did_you_mean(project, known)}; known "
                                 f"projects: {listed} (run `vault-engine index` if its notes are new){renamed}")

    # -- decay and reinforcement ----------------------------------------------------------

    @_operation
    def reinforce(self, ref: str, *, by: str | None = None, why: str | None = None,
                  now: float | None = None) -> dict[str, Any]:
        """Reset the age of the note ``ref`` names, durably."""
        self.reinforcement_log.refuse_unusable()  # before reading it warns of the same
        ledger = self._require_index()
        try:
            note, _ = self._lookup(ledger, ref)
        except AttachmentRef as exc:  # show's "open it in its own app" says nothing here
            raise UnknownRef(f"{exc.path} is an attachment: only notes decay and are reinforced; reinforce a note "
                             f"that links to it (`vault-engine links {exc.path} --backlinks` lists them)") from None
        at = now if now is not None else time.time()
        record = {"event": "reinforce", "ref": ref, "path": note.path, "note_id": note.id,
                  "notion_id": note.notion_id, "at": at, "by": by, "why": why}
        self.reinforcement_log.append(record)
        self._sync_reinforcements()
        return {**self._reinforced_note(note), "at": at, "by": by, "why": why}

    def _reinforced_note(self, note: NoteRow) -> dict[str, Any]:
        """A reinforced note as `reinforce` and its undo name it: its ref (a Notion page's is
        ``notion://``), path, title, tap, and whether that tap decays."""
        from vault_engine.retrieval.lookup import section_ref

        tap = self.config.indexed_tap(note.tap, note.path)
        return {"ref": section_ref(note, None), "path": note.path, "title": note.title, "tap": tap.name,
                "decays": tap.half_life_days is not None}

    @_operation
    def undo_reinforce(self, path: str, at: float, *, by: str | None = None,
                       now: float | None = None) -> dict[str, Any]:
        """Take back the reinforcement of note ``path`` made at ``at`` (what :meth:`reinforce`
        returned): one ``undo`` line in the durable log, never an erased one. Nothing matching
        is an error, so a second undo cannot cancel an older reinforcement."""
        self.reinforcement_log.refuse_unusable()
        self._require_index()
        records, _ = self.reinforcement_log.read(0)
        if not any(held.at == at and held.count == 1 for held in standing(records).get(path, ())):
            raise BadArgument(f"no reinforcement of {path} at {at} to undo (already undone, or never made)")
        return self._undo(path, at, by, now)

    def _undo(self, path: str, at: float, by: str | None, now: float | None) -> dict[str, Any]:
        """One ``undo`` line for the standing reinforcement of ``path`` made at ``at``."""
        ledger = self._require_index()
        record = {"event": "undo", "path": path, "undoes": at, "by": by,
                  "at": now if now is not None else time.time()}
        self.reinforcement_log.append(record)
        self._sync_reinforcements()
        left = ledger.reinforcements().get(path)
        note = ledger.note_by_path(path)  # named as reinforce names it: the undo's answer lacked its ref (qa98)
        named = {"path": path} if note is None else self._reinforced_note(note)
        return {**named, "undone": at, "reinforcements": left.count if left else 0,
                "last_reinforced": left.last_at if left else None}

    @_operation
    def undo_last_reinforce(self, ref: str, *, by: str | None = None, now: float | None = None) -> dict[str, Any]:
        """Take back the newest reinforcement of the note ``ref`` names that is not undone yet
        (`reinforce --undo`: the TUI's `u` alone could, qa88)."""
        self.reinforcement_log.refuse_unusable()  # "no reinforcement to undo" had been said of a log unread (qa141)
        note, _ = self._lookup(self._require_index(), ref)
        records, _ = self.reinforcement_log.read(0)
        held = standing(records).get(note.path, [])  # made under an earlier name too (qa149)
        if not held:  # the vault's state, not a misused command: no usage text (qa91)
            raise VaultError(f"{note.path} has no reinforcement to undo")
        return self._undo(note.path, max(h.at for h in held), by, now)

    @_operation
    def decay_report(self, *, tap: str | None = None, now: float | None = None) -> list[DecayRow]:
        """Every document of a decaying tap (or of ``tap``), most faded first."""
        from vault_engine.retrieval.decay import decay_rows

        ledger = self._require_index()
        taps = [self.config.tap(tap)] if tap is not None else list(self.config.taps)
        return decay_rows(ledger.notes(), ledger.reinforcements(), taps,
                          now if now is not None else time.time())

    @_operation
    def decay_silence(self, tap: str | None = None) -> str:
        """Why ``decay_report`` (of ``tap``) listed nothing: "configure a tap with
        half_life_days" was said of a tap configured so whose paths held no note yet, or none
        at all (a typo, or a tap added since the last index; qa87)."""
        taps = [self.config.tap(tap)] if tap is not None else list(self.config.taps)
        decaying = [t for t in taps if t.half_life_days is not None]
        if not decaying:
            return (f"tap {tap!r} does not decay: give it half_life_days in vault-engine.toml" if tap else
                    "no decaying documents: configure a tap with half_life_days in vault-engine.toml")
        named = ", ".join(f"taps.{t.name} ({', '.join(t.paths) or 'no paths'})" for t in decaying)
        since = self._drift.settings_notice(self._require_index(), "list decay")
        return (f"no decaying documents: the index holds no note in {named}"
                + (f"; {since[0]}" if since else ": check the paths against the vault's folders"))

    def _record_moves(self, moved: tuple[tuple[str, str], ...], now: float | None) -> None:
        """Make reinforcements follow renamed notes, durably (the index alone would forget),
        before the ledger forgets the old path: a run killed between the two had lost them for
        good (qa149); killed after this, the next run finds the move again, already followed."""
        if not moved:
            return
        self._sync_reinforcements()
        reinforced = self.ledger.reinforcements()
        for old, new in moved:
            if old in reinforced:
                self.reinforcement_log.append(
                    {"event": "move", "from": old, "to": new, "at": now or time.time()})

    def _sync_reinforcements(self) -> None:
        """Replay what the durable log gained since the ledger last read it: from where it
        stopped when the log only grew by appends, else all of it. A log merged by git holds
        a teammate's lines before the end of what was read: read on from the old offset, one
        line was lost and a valid one called "not JSON" (qa25 #1)."""
        ledger, log = self.ledger, self.reinforcement_log
        if ledger.readonly:  # a read-only index answers as its last index left it
            return
        was, stamp = ledger.reinforcements_read(), log.stamp()
        if stamp == was.stamp:
            return
        appended = was.offset > 0 and was.digest and log.digest(was.offset) == was.digest
        offset, state = (was.offset, ledger.reinforcements()) if appended else (0, {})
        records, read_to = log.read(offset)
        if offset and has_undo(records):  # an undo may cancel a line read before: replay it all
            state = {}
            records, read_to = log.read(0)
        ledger.save_reinforcements(replay(records, state), LogMark(read_to, log.digest(read_to), stamp))


def _handed_on(brief: ResumeBrief) -> set[str]:
    """The notes a brief hands on the text of: its checkpoints and working notes."""
    return {c.path for c in (brief.checkpoint, *brief.alongside) if c} | {w.path for w in brief.working_notes}


def _check_follow(follow: int) -> None:
    if isinstance(follow, bool) or not isinstance(follow, int) or not 0 <= follow <= MAX_FOLLOW:
        raise BadArgument(f"follow {follow!r} is out of range: use 0..{MAX_FOLLOW}")


def validate_settings(config: Config) -> None:
    """Check every table of vault-engine.toml now, whatever the command: a bad ``[model]``
    must not wait for the first embedding to say so, and a typo (``half_life`` for
    ``half_life_days``) must not silently switch a setting off. Each owner validates its own
    table; this only calls them all (cheap: nothing heavy is imported)."""
    from vault_engine.config import TAP_KEYS, check_keys

    # An absent table holds only defaults, which are valid: its owner is not even imported
    # (the notion module alone is a fifth of a cold `find`).
    if config.section("model"):
        from vault_engine.stores.embedder import ModelSpec

        ModelSpec.from_config(config.section("model"))
    if config.section("search"):
        from vault_engine.retrieval.confidence import MissRule

        MissRule.from_config(config.section("search"))
    if config.section("deadend"):
        from vault_engine.memory.matching import DeadendSettings

        DeadendSettings.from_config(config.section("deadend"))
    if config.section("watch"):
        from vault_engine.indexing.watcher import WatchSettings

        WatchSettings.from_config(config)
    check_keys(config.section("checkpoint"), "checkpoint.", ("template",))
    for tap in config.taps:
        if tap.source == "notion" and tap.options:
            from vault_engine.sources.notion.api import SyncSettings

            SyncSettings.from_tap(tap)
        elif tap.source == "code":
            from vault_engine.sources.code.files import CodeTap

            CodeTap.from_tap(tap, config.root)
        elif tap.source == "vault":  # a vault tap has no options: any is a typo of a tap key
            check_keys(tap.options, f"taps.{tap.name}.", TAP_KEYS)


def _skipped_notice(ledger: Ledger) -> tuple[str, ...]:
    """For a miss: the files the last index could not read, which may hold the answer (every
    note over `max_file_mb`, or in a folder that cannot be read, missed without a word, qa70)."""
    skipped = ledger.skipped()
    if not skipped:
        return ()
    path, reason = skipped[0]
    return (f"{len(skipped)} file(s) were not indexed at the last index (e.g. {path}: {reason}); the answer may "
            "be in them: `vault-engine status` lists them and why",)


def _holder(lock: Path) -> str:
    """Who holds the writer lock, as the lock file says ("pid 4242"), for one line of text."""
    try:
        pid = lock.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        pid = ""
    return f"another vault-engine process (pid {pid})" if pid.isdigit() else "another vault-engine process"


def ensure_state_dir(config: Config) -> Path:
    """``.vault-engine/``, created private (0700): the index holds the text of every note,
    and a note readable only by its owner must not become readable through it."""
    state = config.state_dir
    if not state.is_dir():
        try:  # never the vault folder itself: one moved away must not come back as an empty shell
            state.mkdir(mode=0o700, exist_ok=True)
        except FileNotFoundError:
            raise VaultError(f"the vault folder {config.root} is gone (moved or deleted): "
                             "point --vault at where it is now") from None
        os.chmod(state, 0o700)  # mkdir's mode is masked by the umask
    return state


def init_vault(folder: Path) -> Path:
    """Write a commented ``vault-engine.toml`` (never overwrites one)."""
    from vault_engine.config import DEFAULT_CONFIG_TEXT

    if not folder.is_dir():
        raise VaultError(f"{folder} is not a folder: create it first, or point init at an existing vault")
    target = folder / CONFIG_NAME
    if target.is_dir():  # "already exists: edit it" had been said of a folder (qa137)
        raise VaultError(f"{target} is a folder where vault-engine keeps its settings file: move it aside, "
                         "then run init again")
    if target.exists():
        raise VaultError(f"{target} already exists: edit it, or delete it to start over")
    target.write_text(DEFAULT_CONFIG_TEXT, encoding="utf-8")
    return target
