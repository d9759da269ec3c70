"""Vectors without torch: the embedding model exported once to ONNX, run by ONNX Runtime.

A search or a ``deadend check`` embeds one short text. Through sentence-transformers that
costs the torch import (seconds in a cold process) and Python glue around small tensor
operations on every query. The same network exported to ONNX loads without torch and embeds
a query several times faster (the figures: bench/RESULTS.md, *Cold queries with the model*
and *Hybrid search*, "query embedding"). ``index`` embeds the
vault's sections through the same export (:meth:`OnnxQueryEncoder.embed_batched`: padded
batches of similar length), so a small edit is embedded without torch too.

The export is written once per model and window (``index`` loads torch for it the first
time), only for the usual shape of a sentence-transformers model (transformer, mean pooling,
unit length), and kept only when its vectors match the model's own on probe texts, one at a
time and together in one padded batch. The file name carries a digest of the model's
identity, window and export format, so another model never reuses it. Without a usable file,
texts go through the model itself, as before: same vectors, slower to start.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vault_engine.layout import QUERY_MODEL_PREFIX

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

FILE_PREFIX = QUERY_MODEL_PREFIX  # in the generation folder (vault_engine/layout.py)
FORMAT = "traced-batched-v3"  # in the file digest: v2 was fused offline, v1 not checked padded
DOCUMENT_BATCH = 2  # texts per run for documents: measured fastest (bench/bench_embed.py notes)
MAX_DIFFERENCE = 1e-4  # largest coordinate difference from the model's own vector that is kept
# Short, long (past the window: truncation must agree), accented, and code-like text.
PROBES = (
    "how do I stop a task from repeating",
    "x",
    "Résumé of the café meeting: naïve rôle-based ACLs were ruled out 🚫",
    "def embed(texts): return model.encode(texts, normalize_embeddings=True)  # TODO: batch",
    " ".join(f"word{i} tasks due scheduled recurrence" for i in range(120)),
)


def query_model_path(folder: Path, identity: str, max_tokens: int) -> Path:
    """Where the export of this model, at this window, lives."""
    digest = hashlib.blake2b(f"{identity}|{max_tokens}|{FORMAT}".encode(), digest_size=8).hexdigest()
    return folder / f"{FILE_PREFIX}{digest}.onnx"


def unsupported(model) -> str | None:
    """Why this sentence-transformers model cannot be exported as transformer + mean pooling
    + normalization, or None when it can."""
    names = [type(module).__name__ for module in model]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return f"modules {names} are not transformer + pooling"
    mode = getattr(model[1], "pooling_mode", None)  # older releases name it otherwise:
    if mode not in (None, "mean"):                  # the probe check in export() decides then
        return f"pooling {mode!r} is not mean"
    return None


def export(model, model_folder: Path, target: Path, reference, encoders: list | None = None) -> str | None:
    """Export ``model`` (a loaded SentenceTransformer from ``model_folder``) to ``target`` and
    check it against ``reference(texts)``, the model's own unit vectors; None when it is kept,
    else why not. ``index`` runs the torch half in a process of its own instead
    (stores/export_worker.py) and then :func:`finish_export` as here."""
    reason = unsupported(model)
    if reason:
        return reason
    traced = traced_path(target)
    try:
        expected = reference(list(PROBES))
        trace(model, traced)
    except Exception as exc:  # noqa: BLE001 - onnx missing, an op ONNX lacks: the model embeds
        traced.unlink(missing_ok=True)
        return describe(exc)
    return finish_export(traced, model_folder, target, model.max_seq_length, expected, encoders)


def traced_path(target: Path) -> Path:
    """Where the traced graph waits for its check, next to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).strip()[:160]}"


def finish_export(traced: Path, model_folder: Path, target: Path, max_tokens: int, expected,
                  encoders: list | None = None) -> str | None:
    """Check the traced graph against ``expected`` (the model's vectors of PROBES) and keep it
    at ``target``; the traced file is removed either way. The encoder that checked it is
    appended to ``encoders`` when kept: its session is open already (0.2-0.4 s to open again).
    ONNX Runtime's own graph optimizations run when a session opens; the offline transformer
    optimizer (one attention operator per layer) made embedding 8-15% slower on this machine
    and cost 3 s per export (bench/RESULTS.md), so the traced graph is kept as it is."""
    try:
        checked = OnnxQueryEncoder(traced, model_folder, max_tokens)
        difference = probe_difference(checked, expected)
        if difference > MAX_DIFFERENCE:
            return f"the export differs from the model by {difference:.1e}"
        with open(traced, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(traced, target)  # the open session keeps the graph it read
        if encoders is not None:
            encoders.append(checked)
    except Exception as exc:  # noqa: BLE001 - onnxruntime missing, a graph it cannot run
        return describe(exc)
    finally:
        traced.unlink(missing_ok=True)
    for stale in target.parent.glob(f"{FILE_PREFIX}*.onnx"):
        if stale != target:
            stale.unlink(missing_ok=True)
    return None


def trace(model, target: Path) -> None:
    """Trace transformer + mean pooling + normalization into one ONNX graph, with attention
    written out as plain operators (``eager``), which ONNX Runtime optimizes when it opens the file."""
    import torch

    class MeanPooled(torch.nn.Module):
        """The transformer, mean pooling over real tokens, unit length: one graph."""

        def __init__(self, transformer):
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids, attention_mask):
            hidden = self.transformer(input_ids=input_ids, attention_mask=attention_mask)[0]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=1)

    transformer = model[0].auto_model
    config = transformer.config
    attention = getattr(config, "_attn_implementation", None)
    sample = model.tokenizer([PROBES[0]], return_tensors="pt")
    axes = {0: "batch", 1: "tokens"}
    try:
        config._attn_implementation = "eager"
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer advisories; the probe check is the judge
            torch.onnx.export(MeanPooled(transformer).eval(),
                              (sample["input_ids"], sample["attention_mask"]), str(target),
                              input_names=["input_ids", "attention_mask"], output_names=["vector"],
                              dynamic_axes={"input_ids": axes, "attention_mask": axes},
                              opset_version=17, dynamo=False)
    finally:
        config._attn_implementation = attention


def probe_difference(encoder: OnnxQueryEncoder, expected: np.ndarray) -> float:
    """Largest coordinate difference from ``expected`` (the model's vectors of PROBES), run
    one text at a time (queries) and as one padded batch (documents): padding must change
    nothing, which holds only when the graph honours the attention mask."""
    single = encoder.embed(list(PROBES))
    padded = encoder.embed_batched(list(PROBES), batch_size=len(PROBES))
    return float(max(abs(single - expected).max(), abs(padded - expected).max()))


class OnnxQueryEncoder:
    """Texts -> unit vectors with ONNX Runtime and the model folder's own fast tokenizer.

    The session runs one thread per call: a query is a few dozen tokens, too few to share out,
    and the host keeps its other core. Documents can run on several threads at once, each
    calling the same session (:meth:`embed_batched`): a session holds no state between runs,
    so one copy of the weights serves them all.
    """

    def __init__(self, onnx_path: Path, model_folder: Path, max_tokens: int):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(model_folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_tokens)  # the model's window, as sentence-transformers cuts
        self.tokenizer.no_padding()
        self.session = one_thread_session(onnx_path)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One run per text: no padding, so every vector is exactly the single-text one."""
        import numpy as np

        rows = []
        for encoding in self.tokenizer.encode_batch(texts):
            ids = np.array([encoding.ids], dtype=np.int64)
            mask = np.array([encoding.attention_mask], dtype=np.int64)
            rows.append(self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0][0])
        return finite(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))

    def embed_batched(self, texts: list[str], batch_size: int = DOCUMENT_BATCH, threads: int = 1) -> np.ndarray:
        """Many texts (an index's windows): batches of similar token length, padded to the
        longest of each and masked, so padding costs little and changes no vector (checked
        at export). Rows come back in the order of ``texts``.

        With ``threads`` > 1 that many threads run the batches side by side on the session
        (:func:`side_by_side`): measured faster than one run of as many intra-op threads, whose
        threads wait for each other at every operator of matrices this small, and than a
        session per thread, which copies the weights (bench/RESULTS.md). Each batch is computed
        as alone: the same vectors."""
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]

        def run(rows: list[int]) -> np.ndarray:
            ids, mask = padded([encodings[i].ids for i in rows])
            return self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]

        # Longest first: the last batches taken are the shortest, so the threads end together.
        vectors = side_by_side(batches[::-1], run, threads)[::-1]
        out = np.empty((len(texts), vectors[0].shape[1] if vectors else 0), dtype=np.float32)
        for rows, batch in zip(batches, vectors):
            out[rows] = batch
        return finite(out)


class ExportDamaged(ValueError):
    """The export loads but gives no usable vectors: bytes overwritten in its weights."""


def finite(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` when every coordinate is a number: an export whose weights were overwritten
    in place loads and runs, and gave NaN vectors every search read as no meaning at all, a
    dead-end check as a miss (qa60). About a microsecond for a query's vector."""
    import numpy as np

    if not np.isfinite(vectors).all():
        raise ExportDamaged("it gives vectors that are not numbers")
    return vectors


# ONNX Runtime 1.29 and later record telemetry on Linux and macOS too: a device id and an
# event per process in ~/.cache/Microsoft/DeveloperTools/.onnxruntime/onnxruntime.db, a file
# that grew with every command (qa44), queued for upload. Off unless the user set it; read
# once, when ONNX Runtime starts, so set before its first import (the second name is the
# one later releases read).
QUIET_ONNXRUNTIME = {"ORT_DISABLE_TELEMETRY": "1", "ORT_TELEMETRY_DISABLED": "1"}


def import_onnxruntime():
    """``onnxruntime``, imported with its telemetry off. A Ctrl-C while its module initializes
    comes out as the KeyboardInterrupt it is: pybind11 turns it into ``ImportError
    ('initialization failed')``, which callers take for ONNX Runtime missing (qa46)."""
    for key, value in QUIET_ONNXRUNTIME.items():
        os.environ.setdefault(key, value)
    try:
        import onnxruntime
    except ImportError as exc:
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from exc
        raise
    return onnxruntime


def one_thread_session(onnx_path: Path):
    """An ONNX Runtime session whose every run keeps to the thread that calls it."""
    onnxruntime = import_onnxruntime()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 1, 1
    options.log_severity_level = 3  # errors only
    return onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])


def side_by_side(jobs: Sequence, run: Callable, threads: int) -> list:
    """``run(job)`` for every job on up to ``threads`` threads, the results in the order of
    ``jobs``.

    The caller's thread is one of them; each takes the next job from a shared queue when it
    is done with one, so the slow jobs spread over the threads. The first exception (Ctrl-C
    included) stops the others after their current job and is raised here once they have
    stopped: no partial result escapes."""
    threads = max(1, min(threads, len(jobs)))
    if threads == 1:
        return [run(job) for job in jobs]  # no thread to start or join
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(jobs)):
        pending.put(index)
    results: list = [None] * len(jobs)
    failures: list[BaseException] = []
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                try:
                    index = pending.get_nowait()
                except queue.Empty:
                    return
                results[index] = run(jobs[index])
        except BaseException as exc:  # noqa: BLE001 - raised in the caller below
            failures.append(exc)
            stop.set()

    others = [threading.Thread(target=work, daemon=True) for _ in range(threads - 1)]
    for thread in others:
        thread.start()
    try:
        work()
    finally:
        stop.set()  # an interrupted join must not leave the threads taking more jobs
        for thread in others:
            thread.join()
    if failures:
        raise failures[0]
    return results


def padded(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids right-padded with 0 to the longest sequence, and the mask of real tokens."""
    import numpy as np

    width = max((len(s) for s in sequences), default=0)
    ids = np.zeros((len(sequences), width), dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        ids[row, :len(sequence)] = sequence
        mask[row, :len(sequence)] = 1
    return ids, mask
