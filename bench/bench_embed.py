"""Semantic-arm speed (issue 3): ``bench_embed.py [--notes N] [--full] [--write]``.

Measures, with the real model on this machine:

0. sections per second inside a cold ``vault-engine index`` (a new process: imports, model
   load, the ONNX export when it is missing, windows, encode, cache, FAISS, ledger) against a
   bare ``SentenceTransformer.encode`` of the same sections (heading-split, truncated at 256
   tokens, batch 32, the same thread count), alternated in one run; then one edit indexed
   cold with its embedding, and a second clone of the vault indexed with the shared vector
   cache against a words-only index;
1. embedding throughput inside ``index`` (the embedding phase: windows, encode, cache, FAISS,
   ledger) against a bare ``model.encode`` of exactly the same window texts, for the model's
   256-token window and for a 128-token window;
2. a full cold ``vault-engine index`` (lexical + embeddings, empty vector cache) of
   ../shared/corpora/obsidian-tasks-docs (``--full``): wall time and peak RSS;
   ``--synthetic-index`` does the same for the 10,000-note synthetic vault (about 31,000
   sections: most of an hour here), and ``--interrupt-after S`` runs that index for S seconds
   and stops it with Ctrl-C (SIGINT): peak memory in steady state, and a clean stop;
3. in-process hybrid search p50 / p95 at about 50,000 sections: the synthetic vault indexed
   lexically, its vectors synthesized (random unit vectors, as many windows per section as its
   length asks for), queries embedded by the real model through its ONNX export (what `search`
   uses once `index` has written it); plus where the time goes.

``--notes N`` limits the throughput runs to the first N notes of the corpus (default: all);
``--threads N`` is ``[model] threads`` for the index and torch's threads for bare encode.
``--write`` puts the tables into bench/RESULTS.md between ``<!-- semantic-speed -->`` markers
(inside the ``<!-- semantic -->`` section).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)

CORPUS = common.CORPORA / "obsidian-tasks-docs"
WORK = Path(tempfile.gettempdir()) / "vault-engine-bench"
SEARCH_QUERIES = 120


# -- 0. sections per second inside `vault-engine index`, against bare encode ---------------------

BARE_ENCODE = """
import json, sys, time
from pathlib import Path
started = time.perf_counter()
import torch
from sentence_transformers import SentenceTransformer
from vault_engine.stores.embedder import bundled_model_path
torch.set_num_threads(int(sys.argv[2]))
model = SentenceTransformer(bundled_model_path(), device="cpu")
model.max_seq_length = 256
texts = json.loads(Path(sys.argv[1]).read_text())
loaded, cpu = time.perf_counter(), time.process_time()
model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
print(json.dumps({"load_s": loaded - started, "encode_s": time.perf_counter() - loaded,
                  "encode_cpu_s": time.process_time() - cpu}))
"""


def section_texts(root: Path) -> list[str]:
    """Each section as the issue's bare baseline embeds it: title and heading path, then the
    body, one text per section (the model truncates at 256 tokens)."""
    from vault_engine.indexing.embedding import section_prefix
    from vault_engine.parsing.sections import section_body
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        rows = vault.ledger.texts_to_embed([sid for sid, _ in vault.ledger.sections_to_embed()])
    return [f"{section_prefix(title, path)}\n{section_body(text, path[-1] if path else None).strip()}"
            for _, _, title, path, text in rows]


def bare_encode(texts: list[str], threads: int, work: Path) -> dict:
    """``SentenceTransformer.encode`` of ``texts`` in a fresh process: load and encode seconds."""
    listing = work / "bare-texts.json"
    listing.write_text(json.dumps(texts))
    done = subprocess.run([sys.executable, "-c", BARE_ENCODE, str(listing), str(threads)],
                          capture_output=True, text=True, timeout=6 * 3600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def words_only_copy(source: Path, work: Path, name: str, threads: int) -> Path:
    """A fresh copy with ``[model] threads`` set and its words indexed: what is left is embedding."""
    root = common.fresh_copy(source, work, name)
    (root / "vault-engine.toml").write_text(f"[model]\nthreads = {threads}\n")
    run = common.run_cli(["--vault", str(root), "index", "--no-embed", "--json"])
    if run.returncode != 0:
        raise RuntimeError(f"index --no-embed failed: {run.stderr.strip()}")
    return root


def embedding_run(root: Path, *extra: str, user_cache: Path | None = None) -> common.CliRun:
    """A cold ``vault-engine index`` of a vault whose words are indexed: its embedding phase,
    process start and model load included; ``user_cache`` is the user's export cache."""
    env = None if user_cache is None else {"VAULT_ENGINE_CACHE": str(user_cache)}
    run = common.run_cli(["--vault", str(root), "index", "--json", *extra], sample_memory=True, env=env,
                         timeout=6 * 3600)
    if run.returncode != 0:
        raise RuntimeError(f"index failed: {run.stderr.strip()}")
    return run


def index_vs_bare(source: Path, work: Path, threads: int, repeats: int) -> dict:
    """Sections/s inside ``vault-engine index`` against bare encode of the same sections,
    alternated ``repeats`` times, best of each: cold on a machine that never exported the
    model (an empty user cache: torch loads to export), then a new vault on a machine that has
    (the export taken from the user's cache, as every vault after the first)."""
    texts = section_texts(words_only_copy(source, work, "texts", threads))
    bare, cold, warm = [], [], []
    for repeat in range(repeats):
        bare.append(bare_encode(texts, threads, work))
        user_cache = work / f"user-cache{repeat}"
        shutil.rmtree(user_cache, ignore_errors=True)
        root = words_only_copy(source, work, f"cold{repeat}", threads)
        cold.append(embedding_run(root, "--vector-cache", str(work / f"shared{repeat}"), user_cache=user_cache))
        root = words_only_copy(source, work, f"warm{repeat}", threads)
        warm.append(embedding_run(root, user_cache=user_cache))
    encode_s = min(b["encode_s"] for b in bare)
    best = lambda runs: min(runs, key=lambda r: r.seconds)  # noqa: E731
    return {"sections": len(texts), "threads": threads, "repeats": repeats,
            "bare_s": encode_s, "bare_load_s": min(b["load_s"] for b in bare),
            "bare_cpu_s": min(b["encode_cpu_s"] for b in bare),
            "cold": best(cold), "warm": best(warm), "bare_sps": len(texts) / encode_s,
            "cold_sps": len(texts) / best(cold).seconds, "warm_sps": len(texts) / best(warm).seconds,
            "runtime": json.loads(best(warm).stdout).get("embedded") and _runtime(root)}


def _runtime(root: Path) -> str:
    run = common.run_cli(["--vault", str(root), "status", "--json"])
    return (json.loads(run.stdout)["semantic"]["last_run"] or {}).get("runtime") or "?"


def edit_runs(root: Path, runs: int = 3) -> dict:
    """One note edited, then a cold ``vault-engine index``: with its embedding, and words only."""
    notes = sorted(p for p in root.rglob("*.md") if ".vault-engine" not in p.parts)
    seconds: dict[str, list[float]] = {"embed": [], "words": []}
    for run in range(runs):
        for mode, extra in (("embed", []), ("words", ["--no-embed"])):
            note = notes[(2 * run + len(seconds[mode]) + (mode == "words")) % len(notes)]
            note.write_text(note.read_text() + f"\n\nEdited for the bench, run {run} {mode}.\n")
            done = common.run_cli(["--vault", str(root), "index", "--json", *extra])
            if done.returncode != 0:
                raise RuntimeError(f"index failed: {done.stderr.strip()}")
            seconds[mode].append(done.seconds)
    embedded = json.loads(done.stdout)  # the last words-only run: nothing embedded
    return {"embed_s": common.median(seconds["embed"]), "words_s": common.median(seconds["words"]),
            "runs": runs, "last": embedded}


def clone_with_cache(source: Path, work: Path, shared: Path) -> dict:
    """A second clone indexed with the shared cache, against a words-only index of a third."""
    clone = common.fresh_copy(source, work, "clone")
    with_cache = common.run_cli(["--vault", str(clone), "index", "--vector-cache", str(shared), "--json"])
    words = common.run_cli(["--vault", str(common.fresh_copy(source, work, "words")), "index", "--no-embed", "--json"])
    status = json.loads(common.run_cli(["--vault", str(clone), "status", "--json"]).stdout)["semantic"]
    return {"clone_s": with_cache.seconds, "words_s": words.seconds, "last_run": status["last_run"],
            "coverage": status["coverage"]}


def index_table(r: dict, edit: dict, clone: dict) -> str:
    cold, warm = r["cold"], r["warm"]
    rows = [["bare `SentenceTransformer.encode` (model loaded: "
             f"{r['bare_load_s']:.1f} s not counted)", f"{r['bare_s']:.1f}", f"{r['bare_cpu_s']:.1f}",
             f"{r['bare_sps']:.1f}", "1.00x", ""],
            ["`vault-engine index`, cold: torch loaded once to export", f"{cold.seconds:.1f}",
             f"{cold.cpu_seconds:.1f}", f"{r['cold_sps']:.1f}", f"**{r['cold_sps'] / r['bare_sps']:.2f}x**",
             f"{cold.max_rss_mb:.0f}"],
            ["`vault-engine index` of a new vault, the export in the user's cache (no torch)", f"{warm.seconds:.1f}",
             f"{warm.cpu_seconds:.1f}", f"{r['warm_sps']:.1f}", f"**{r['warm_sps'] / r['bare_sps']:.2f}x**",
             f"{warm.max_rss_mb:.0f}"]]
    table = common.markdown_table(["embedding the sections", "wall s", "CPU s", "sections/s",
                                   "vs bare (target >= 1.5x)", "peak RSS MB, largest process"], rows)
    last = clone["last_run"] or {}
    return "\n".join([
        table, "",
        f"One edited note, cold `vault-engine index` with its embedding: **{edit['embed_s']:.2f} s** "
        f"(median of {edit['runs']}; target <= 1 s), against {edit['words_s']:.2f} s words only (`--no-embed`).",
        "",
        f"A second clone indexed with `--vector-cache` (computed {last.get('computed')}, "
        f"{last.get('shared_cache')} from the shared cache, coverage {clone['coverage']:.0%}): "
        f"**{clone['clone_s']:.2f} s** against {clone['words_s']:.2f} s for a words-only index "
        f"(**{clone['clone_s'] / clone['words_s']:.2f}x**, target <= 2x)."])


# -- 1. throughput -----------------------------------------------------------------------

def corpus_subset(target: Path, notes: int | None) -> Path:
    """A copy of the corpus holding its first ``notes`` notes by path (all when None)."""
    shutil.rmtree(target, ignore_errors=True)
    paths = sorted(p for p in CORPUS.rglob("*.md"))
    for path in paths[:notes] if notes else paths:
        dest = target / path.relative_to(CORPUS)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    return target


def throughput(embedder, root: Path, repeats: int) -> dict:
    """Windows per second: the embedding phase of ``index`` vs bare encode of its texts,
    alternated ``repeats`` times; the fastest of each counts (the least disturbed by load)."""
    from vault_engine.indexing.embedding import BATCH_SIZE, EmbeddingPhase
    from vault_engine.layout import VECTOR_CACHE_FILE as CACHE_FILE
    from vault_engine.stores.vector_state import model_key
    from vault_engine.stores.vectors import VectorCache
    from vault_engine.vault import Vault

    with Vault(root, embedder=embedder) as vault:
        vault.index(embed=False)
        embedder.query_dir = vault.config.index_dir
        if embedder.save_query_model() is not None:  # as `index` does before it embeds
            raise RuntimeError("the ONNX export failed")
        rows = vault.ledger.texts_to_embed([sid for sid, _ in vault.ledger.sections_to_embed()])
        cache_path = vault.config.index_dir / CACHE_FILE
        cache = VectorCache(cache_path, model_key(embedder))
        texts = [w.text for w in EmbeddingPhase(vault.ledger, vault.vectors, cache, embedder).window_texts(rows)]
        cache.close()
        embedder.embed(texts[:8])  # warm: weights paged in, kernels chosen
        bare, phase = [], []
        for _ in range(repeats):
            bare.append(common.timed(lambda: embedder.model.encode(
                texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False))[0])
            vault.ledger.unmark_embedded()  # start the phase from nothing, cache included
            vault.vectors.reset()
            for leftover in cache_path.parent.glob(cache_path.name + "*"):
                leftover.unlink()
            seconds, report = common.timed(lambda: vault.embed_pending())
            if report.embedded != len(rows):
                raise RuntimeError(f"the phase embedded {report.embedded} of {len(rows)} sections")
            phase.append(seconds)
    bare_s, phase_s = min(bare), min(phase)
    return {"sections": len(rows), "windows": len(texts), "bare_s": bare_s, "phase_s": phase_s,
            "bare_wps": len(texts) / bare_s, "phase_wps": len(texts) / phase_s,
            "ratio": bare_s / phase_s, "sections_per_s": len(rows) / phase_s, "repeats": repeats,
            "threads": _torch_threads(), "runtime": embedder.runtime}


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def throughput_table(results: dict[int, dict]) -> str:
    rows = []
    for window, r in results.items():
        rows.append([f"{window} ({r['runtime']})", f"{r['sections']}", f"{r['windows']}",
                     f"{r['bare_wps']:.1f} ({r['bare_s']:.1f} s)",
                     f"{r['phase_wps']:.1f} ({r['phase_s']:.1f} s)",
                     f"{r['sections_per_s']:.1f}", f"**{r['ratio']:.0%}**"])
    return common.markdown_table(
        ["window tokens (runtime inside)", "sections", "windows", "bare encode, windows/s",
         "inside index, windows/s", "sections/s inside index", "inside / bare"], rows)


# -- 2. full index ------------------------------------------------------------------------

def full_index(source: Path, work: Path, name: str, threads: int) -> common.CliRun:
    """A cold ``vault-engine index`` of a fresh copy with ``[model] threads``: no vectors cached;
    the export comes from the user's cache (``VAULT_ENGINE_CACHE``, set for the whole run) once
    an earlier step wrote it."""
    root = common.fresh_copy(source, work, name)
    config = root / "vault-engine.toml"
    kept = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(f"{kept}\n[model]\nthreads = {threads}\n", encoding="utf-8")
    run = common.run_cli(["--vault", str(root), "index", "--json"], sample_memory=True, timeout=6 * 3600)
    if run.returncode != 0:
        raise RuntimeError(f"index failed: {run.stderr.strip()}")
    return run


def interrupted_index(source: Path, work: Path, seconds: float) -> dict:
    """A cold ``vault-engine index`` stopped by SIGINT (Ctrl-C) after ``seconds``: its peak RSS
    so far (lexical phase done, embedding in steady state), how fast it stops, what it kept."""
    root = common.fresh_copy(source, work, "interrupted")
    started = time.perf_counter()
    proc = subprocess.Popen([*common.cli_command(), "--vault", str(root), "index", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    peak_kb = 0
    while proc.poll() is None and time.perf_counter() - started < seconds:
        peak_kb = max(peak_kb, _vm_hwm_kb(proc.pid))
        time.sleep(0.5)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    report = json.loads(out)
    return {"seconds": sent - started, "stop_s": time.perf_counter() - sent, "code": proc.returncode,
            "peak_mb": peak_kb / 1024, "embedded": report["embedded"], "sections": report["sections"],
            "notice": err.strip().splitlines()[-1] if err.strip() else ""}


def _vm_hwm_kb(pid: int) -> int:
    """Peak resident memory of a running process (Linux)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        return 0


# -- 3. hybrid search at ~50,000 sections -----------------------------------------------------

def synthesize_vectors(vault, embedder, seed: int = 3) -> int:
    """Random unit vectors for every section (windows by length, like real sections), marked
    embedded for this model, so search runs exactly as after a real embedding phase."""
    import numpy as np

    from vault_engine.stores.vector_state import MODEL_META, model_key

    rng = np.random.default_rng(seed)
    rows = vault.ledger.db.execute("SELECT id, length(text) FROM sections ORDER BY id").fetchall()
    ids = [sid for sid, length in rows for _ in range(min(4, 1 + length // 1200))]
    vectors = rng.standard_normal((len(ids), embedder.dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vault.vectors.reset()
    vault.vectors.index(ids, vectors)
    vault.vectors.save()
    vault.ledger.unmark_embedded()
    counts: dict[int, int] = {}
    for sid in ids:
        counts[sid] = counts.get(sid, 0) + 1
    vault.ledger.mark_embedded(counts.items())
    with vault.ledger.transaction():
        vault.ledger.set_meta(MODEL_META, model_key(embedder))
    return len(ids)


def search_speed(source: Path, work: Path) -> dict:
    """Hybrid and lexical p50/p95 in-process, and a breakdown of one hybrid query's parts."""
    import bench_core

    from vault_engine.vault import Vault

    root = common.fresh_copy(source, work, "search50k")
    queries = [q.text for q in bench_core.build_queries(source, SEARCH_QUERIES)]
    with Vault(root) as vault:
        vault.index(embed=False)
        embedder = vault.embedder()
        windows = synthesize_vectors(vault, embedder)
        if embedder.save_query_model() is not None:  # as `index` does after embedding
            raise RuntimeError("the query model was not exported")
        vault.search("warm up", k=10)
        hybrid = [common.timed(lambda: vault.search(q, k=10))[0] * 1000 for q in queries]
        lexical = [common.timed(lambda: vault.search(q, k=10, lexical_only=True))[0] * 1000 for q in queries]
        parts = breakdown(vault, embedder, queries)
        sections = vault.ledger.section_count()
    return {"sections": sections, "windows": windows, "queries": len(queries),
            "hybrid_p50": common.percentile(hybrid, 50), "hybrid_p95": common.percentile(hybrid, 95),
            "lexical_p50": common.percentile(lexical, 50), "parts": parts}


def breakdown(vault, embedder, queries: list[str]) -> dict[str, float]:
    """Median milliseconds of each step of a hybrid search, timed on its own."""
    from vault_engine.retrieval.coverage import section_coverage, term_weights
    from vault_engine.retrieval.search import ARM_DEPTH, COVERAGE_DEPTH
    from vault_engine.stores.lexical import analyze

    def coverage_of(query: str, section_ids: list[int]) -> list[float]:
        """Each section's term coverage, its rows read from the ledger, as a search reads them."""
        weights = term_weights(vault.lexical, analyze(query))
        sections = vault.ledger.sections_by_ids(section_ids)
        notes = vault.ledger.notes_by_ids(s.note_id for s in sections.values())
        tags = vault.ledger.tags_of(notes)
        return [section_coverage(weights, [(notes[s.note_id], s, tags.get(s.note_id, ()))]) for s in sections.values()]

    steps: dict[str, list[float]] = {f"Whoosh BM25 (top {ARM_DEPTH})": [], "query embedding (ONNX export)": [],
                                     "(query embedding through sentence-transformers)": [],
                                     f"FAISS search (top {ARM_DEPTH})": [], "exact cosines of lexical hits": [],
                                     f"term coverage of the best {COVERAGE_DEPTH}": []}
    for q in queries:
        ms = lambda fn: common.timed(fn)[0] * 1000  # noqa: E731
        lexical = vault.lexical.search(q, ARM_DEPTH)
        ids = [i for i, _ in lexical]
        steps[f"Whoosh BM25 (top {ARM_DEPTH})"].append(ms(lambda: vault.lexical.search(q, ARM_DEPTH)))
        steps["query embedding (ONNX export)"].append(ms(lambda: embedder.embed_queries([q])))
        steps["(query embedding through sentence-transformers)"].append(ms(lambda: embedder.embed([q])))
        vector = embedder.embed_queries([q])[0]
        steps[f"FAISS search (top {ARM_DEPTH})"].append(ms(lambda: vault.vectors.search(vector, ARM_DEPTH)))
        steps["exact cosines of lexical hits"].append(ms(lambda: vault.vectors.similarities(vector, ids)))
        steps[f"term coverage of the best {COVERAGE_DEPTH}"].append(
            ms(lambda: coverage_of(q, ids[:COVERAGE_DEPTH])))
    return {name: common.median(values) for name, values in steps.items()}


def search_table(r: dict) -> str:
    rows = [["hybrid `Vault.search(k=10)`", f"**{r['hybrid_p50']:.1f}**", f"{r['hybrid_p95']:.1f}", "<= 30"],
            ["lexical only (for comparison)", f"{r['lexical_p50']:.1f}", "", ""]]
    rows += [[f"  of which: {name}", f"{value:.1f}", "", ""] for name, value in r["parts"].items()]
    return common.markdown_table(["in-process search, ms", "p50", "p95", "target"], rows)


# -- command line -----------------------------------------------------------------------------

def render(machine: str, speeds: dict[int, dict], full: dict[str, common.CliRun], search: dict | None,
           interrupted: dict | None = None, inside: tuple | None = None) -> str:
    parts = ["### Speed and memory (bench/bench_embed.py)", "", machine + ".", ""]
    if inside:
        r = inside[0]
        parts += [f"**Sections per second inside `vault-engine index`** ({r['sections']} sections, "
                  f"{r['threads']} thread(s) on both sides, runs alternated {r['repeats']} times, the fastest "
                  "of each counts; `index` times a new process embedding a vault whose words are indexed: "
                  "imports, model load, windows, encode, cache, FAISS, ledger; the runtime inside "
                  f"is {r['runtime']}):", "", index_table(*inside), ""]
    parts += [] if not speeds else [
             f"**Embedding throughput** (threads: {next(iter(speeds.values()))['threads']}, "
             "the default `max(1, cpu_count - 1)`; "
             "same window texts, same loaded model; `inside index` is `Vault.embed_pending()`: "
             "tokenizing into windows, encoding, cache, FAISS and ledger writes; bare and inside runs "
             "alternate, the fastest of each counts):", "",
             throughput_table(speeds), "",
             "The 256-token window stays the default: 128 tokens embeds only a few percent more sections "
             "a second (more, shorter windows) and loses recall (see the window table above). Batches of "
             "16 windows: in a one-off measurement (128 texts of 256 tokens, one thread) they took 9.6 s "
             "against 10.1 s for 32 and peaked at 627 MB instead of 784 MB.", ""]
    if full:
        rows = [[name, f"{run.seconds:.1f}", f"{run.max_rss_mb:.0f}", f"{run.tree_peak_mb or 0:.0f}"]
                for name, run in full.items()]
        parts += ["**Full cold index with embeddings** (`vault-engine index`, empty vector cache; the "
                  "model's ONNX export taken from the user's cache, where the first part of this run "
                  "wrote it, as on any machine after its first vault: no torch):", "",
                  common.markdown_table(["vault", "seconds", "peak RSS MB (target <= 1024)",
                                         "peak tree PSS MB"], rows), ""]
    if interrupted:
        i = interrupted
        parts += [f"**Synthetic 10,000-note vault, cold `vault-engine index` stopped with Ctrl-C after "
                  f"{i['seconds']:.0f} s** (lexical phase done, embedding in steady state): peak RSS "
                  f"**{i['peak_mb']:.0f} MB** (target <= 1536); it stopped {i['stop_s']:.1f} s after the "
                  f"signal, exit {i['code']}, keeping {i['embedded']:,} of {i['sections']:,} sections embedded "
                  f"(\"{i['notice'].replace('`', '')}\").", ""]
    if search:
        parts += [f"**Hybrid search at {search['sections']:,} sections** ({search['windows']:,} synthesized "
                  f"vectors, {search['queries']} queries from bench_core, each embedded by the model's "
                  "ONNX export as `search` does once `index` has written it):",
                  "", search_table(search), ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=None, help="throughput on the first N notes only")
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs per throughput figure")
    parser.add_argument("--threads", type=int, default=0,
                        help="[model] threads for index and torch threads for bare encode (0: cpu_count - 1)")
    parser.add_argument("--no-windows", action="store_true",
                        help="skip the windows/s comparison for the 256- and 128-token windows")
    parser.add_argument("--full", action=argparse.BooleanOptionalAction, default=True,
                        help="also time a full cold CLI index of the corpus (default: on)")
    parser.add_argument("--interrupt-after", type=float, default=0, metavar="S",
                        help="also index the 10,000-note synthetic vault and Ctrl-C it after S seconds")
    parser.add_argument("--synthetic-index", action="store_true",
                        help="also a full cold index of the 10,000-note synthetic vault (slow)")
    parser.add_argument("--no-search", action="store_true", help="skip the 50,000-section search")
    parser.add_argument("--search-notes", type=int, default=16_300,
                        help="synthetic vault for search (16,300 notes: about 50,000 sections)")
    parser.add_argument("--write", action="store_true", help="write into bench/RESULTS.md")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 1
    machine = common.machine_line()
    from vault_engine.stores.embedder import ModelSpec, SentenceTransformerEmbedder

    WORK.mkdir(parents=True, exist_ok=True)
    from vault_engine.stores.embedder import thread_count

    with tempfile.TemporaryDirectory(dir=WORK, prefix="embed-") as scratch:
        work = Path(scratch)
        os.environ["VAULT_ENGINE_CACHE"] = str(work / "user-cache")  # never the real ~/.cache
        source = corpus_subset(work / "subset", args.notes)
        threads = thread_count(args.threads)
        r = index_vs_bare(source, work, threads, args.repeats)
        inside = (r, edit_runs(work / "cold0"), clone_with_cache(source, work, work / "shared0"))
        print(f"inside index: {inside}", file=sys.stderr)
        speeds = {}
        for window in () if args.no_windows else (256, 128):
            embedder = SentenceTransformerEmbedder(ModelSpec(window_tokens=window))
            speeds[window] = throughput(embedder, corpus_subset(work / f"w{window}", args.notes), args.repeats)
            print(f"window {window}: {speeds[window]}", file=sys.stderr)
        full = {}
        if args.full:
            full["obsidian-tasks-docs (118 notes)"] = full_index(CORPUS, work, "full", threads)
        if args.synthetic_index:
            import bench_core

            full["synthetic, 10,000 notes"] = full_index(bench_core.synthetic_vault(10_000, 1), work, "full10k", threads)
        interrupted = None
        if args.interrupt_after:
            import bench_core

            interrupted = interrupted_index(bench_core.synthetic_vault(10_000, 1), work, args.interrupt_after)
        search = None
        if not args.no_search:
            import bench_core

            search = search_speed(bench_core.synthetic_vault(args.search_notes, 1), work)
    text = render(machine, speeds, full, search, interrupted, inside)
    print(text)
    if args.write:
        common.write_section("semantic-speed", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
