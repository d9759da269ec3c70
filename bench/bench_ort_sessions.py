"""ONNX Runtime layouts for document embedding: ``bench_ort_sessions.py [--notes N] [--repeats R]``.

The windows ``index`` embeds for the corpus (obsidian-tasks-docs), embedded in one process
through the model's export, as ``index`` calls it (chunks of ENCODE_CHUNK_TOKENS tokens a thread,
batches of DOCUMENT_BATCH), in these layouts, alternated ``repeats`` times (the fastest of each counts):

- one session, one thread (``[model] threads = 1``);
- one session, two intra-op threads (what ``threads = 2`` ran before 2026-12-02);
- two one-thread sessions side by side (what ``threads = 2`` ran on 2026-12-02);
- one one-thread session run by two threads at once (no second copy of the weights: what
  ``threads = 2`` runs now).

Every layout must give the vectors of the first (max abs difference printed). Each run also
prints the CPU seconds other processes used meanwhile: on a shared machine the load average
counts this bench's own threads, that figure does not. The export is taken from
``VAULT_ENGINE_CACHE`` or the user's cache when there, else made (loads torch).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)
from bench_embed import corpus_subset  # noqa: E402


def window_texts(root: Path, embedder) -> tuple[int, list]:
    """(sections, the windows ``index`` embeds for them, in its order), with the export ready."""
    from vault_engine.indexing.embedding import EmbeddingPhase
    from vault_engine.layout import VECTOR_CACHE_FILE
    from vault_engine.stores.vector_state import model_key
    from vault_engine.stores.vectors import VectorCache
    from vault_engine.vault import Vault

    with Vault(root, embedder=embedder) as vault:
        vault.index(embed=False)
        embedder.query_dir = vault.config.index_dir
        if embedder.save_query_model() is not None:
            raise RuntimeError("the ONNX export failed")
        rows = vault.ledger.texts_to_embed([sid for sid, _ in vault.ledger.sections_to_embed()])
        cache = VectorCache(vault.config.index_dir / VECTOR_CACHE_FILE, model_key(embedder))
        windows = EmbeddingPhase(vault.ledger, vault.vectors, cache, embedder).window_texts(rows)
        cache.close()
    return len(rows), windows


class SessionPerThread:
    """Two sessions behind one: the calling (main) thread runs the first, the worker thread
    ``embed_batched`` starts runs the second, each with its own copy of the weights."""

    def __init__(self, caller, worker):
        self.caller, self.worker = caller, worker

    def run(self, *args):
        main = threading.current_thread() is threading.main_thread()
        return (self.caller if main else self.worker).run(*args)


def layouts(embedder) -> dict:
    """name -> (encoder, threads); the encoders share nothing but the tokenizer file."""
    from vault_engine.stores.query_encoder import OnnxQueryEncoder, import_onnxruntime, one_thread_session

    onnxruntime = import_onnxruntime()

    def encoder(intra_threads: int = 1, sessions: int = 1, shared: bool = False) -> OnnxQueryEncoder:
        made = OnnxQueryEncoder(embedder.query_model_path, Path(embedder.path), embedder.max_tokens)
        if intra_threads > 1:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads, options.inter_op_num_threads = intra_threads, 1
            options.log_severity_level = 3
            made.session = onnxruntime.InferenceSession(str(embedder.query_model_path), options,
                                                        providers=["CPUExecutionProvider"])
        if sessions == 2 and not shared:
            made.session = SessionPerThread(made.session, one_thread_session(embedder.query_model_path))
        return made

    return {"one session, 1 thread": (encoder(), 1),
            "one session, 2 intra-op threads": (encoder(intra_threads=2), 1),
            "two sessions, 1 thread each": (encoder(sessions=2), 2),
            "one session run by 2 threads at once": (encoder(sessions=2, shared=True), 2)}


def embed_all(encoder, threads: int, windows: list):
    """The windows in ``index``'s chunks, as ``SentenceTransformerEmbedder.embed`` runs them."""
    import numpy as np

    from vault_engine.indexing.embedding import ENCODE_CHUNK_TOKENS, encode_chunks

    return np.concatenate([encoder.embed_batched([w.text for w in chunk], threads=threads)
                           for chunk in encode_chunks(windows, ENCODE_CHUNK_TOKENS * threads)])


def others_cpu_seconds() -> float:
    """CPU seconds used since boot by every process but this one (Linux /proc/stat)."""
    with open("/proc/stat") as stat:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    own = resource.getrusage(resource.RUSAGE_SELF)
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK") - own.ru_utime - own.ru_stime


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from vault_engine.stores.embedder import SentenceTransformerEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=None, help="the first N notes only")
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs per layout")
    args = parser.parse_args(argv)
    print(common.machine_line(), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ort-sessions-") as scratch:
        embedder = SentenceTransformerEmbedder()
        sections, windows = window_texts(corpus_subset(Path(scratch) / "vault", args.notes), embedder)
        runs = layouts(embedder)
        reference = embed_all(*runs["one session, 1 thread"], windows)
        best = {name: float("inf") for name in runs}
        for repeat in range(args.repeats):
            for name, (encoder, threads) in runs.items():
                load, others = os.getloadavg()[0], others_cpu_seconds()
                seconds, vectors = common.timed(lambda: embed_all(encoder, threads, windows))
                best[name] = min(best[name], seconds)
                print(f"repeat {repeat} {name}: {seconds:.1f} s, load {load:.2f} at start, "
                      f"{others_cpu_seconds() - others:.1f} CPU s used by other processes, "
                      f"max abs difference {float(np.abs(vectors - reference).max()):.1e}", file=sys.stderr)
    one = best["one session, 1 thread"]
    rows = [[name, f"{seconds:.1f}", f"{len(windows) / seconds:.1f}", f"{sections / seconds:.1f}",
             f"{one / seconds:.2f}x"] for name, seconds in best.items()]
    print(f"{sections} sections, {len(windows)} windows, best of {args.repeats}; "
          f"load average {os.getloadavg()[0]:.2f} at the end\n")
    print(common.markdown_table(["ONNX Runtime layout", "seconds", "windows/s", "sections/s",
                                 "vs one session, 1 thread"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
