"""Search quality on obsidian-tasks-docs (issue 3): ``eval_search.py [--write] [--compare-window 128]``.

Reports recall@5 and MRR@10 of the lexical arm, the semantic arm and hybrid search, the share
of unanswerable questions answered with a miss, the fusion schemes compared on the same two
ranked lists, and the miss-rule grid the default thresholds were chosen from.

Questions live in bench/data/search_eval.jsonl: a plugin user's wording, the notes that answer
it (``expected``; empty when the vault cannot answer) and a split. All were written before any
tuning; ``dev`` was then used to choose the fusion weight and the miss thresholds, ``holdout``
was kept aside and is reported separately. A question is found at k when a section of an
expected note is among the first k hits; a miss on an answerable question counts as not found.

The corpus is copied to a work folder (never into the project) and indexed with the real model
once; later runs reuse the vectors through the cache. ``--write`` puts the tables into
bench/RESULTS.md between ``<!-- semantic-quality -->`` markers (inside ``<!-- semantic -->``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)

CORPUS = common.CORPORA / "obsidian-tasks-docs"
QUESTIONS = common.BENCH_DIR / "data" / "search_eval.jsonl"
WORKDIR = Path("/tmp/vault-engine-eval")
ARMS = ("lexical", "semantic", "hybrid")
SPLITS = ("dev", "holdout", "all")


@dataclass
class Question:
    id: str
    question: str
    expected: list[str]
    split: str

    @property
    def answerable(self) -> bool:
        return bool(self.expected)


@dataclass
class Score:
    """Sums over answerable questions, and misses over unanswerable ones."""

    found5: int = 0
    rr: float = 0.0
    answerable: int = 0
    false_misses: int = 0
    misses: int = 0
    unanswerable: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found5 / max(1, self.answerable)

    @property
    def mrr(self) -> float:
        return self.rr / max(1, self.answerable)

    def cells(self) -> list[str]:
        miss = f"{self.misses}/{self.unanswerable}" if self.unanswerable else "-"
        return [f"{self.recall:.3f} ({self.found5}/{self.answerable})", f"{self.mrr:.3f}", miss,
                str(self.false_misses)]


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    return [Question(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def prepare_vault(workdir: Path) -> Path:
    """A private copy of the corpus (made once; its index and vector cache are reused)."""
    vault = workdir / "obsidian-tasks-docs"
    if not vault.is_dir():
        shutil.copytree(CORPUS, vault, ignore=shutil.ignore_patterns(".vault-engine"))
    return vault


def open_vault(root: Path, embedder, search_table: dict | None = None):
    from vault_engine.config import load_config, parse_config
    from vault_engine.vault import Vault

    raw = dict(load_config(root).raw)
    if search_table is not None:
        raw["search"] = search_table
    return Vault(root, parse_config(root, raw), embedder=embedder)


# -- the product: Vault.search per arm --------------------------------------------------------

def ranked_paths(vault, question: str, arm: str, k: int = 10) -> list[str] | None:
    """Note paths of the top-k hits (one per section, in order); None for a miss."""
    result = vault.search(question, k=k, lexical_only=arm == "lexical",
                          semantic_only=arm == "semantic", decay=False)
    return None if result.status == "miss" else [hit.path for hit in result.hits]


def score_answers(score: Score, q: Question, paths: list[str] | None) -> None:
    if not q.answerable:
        score.unanswerable += 1
        score.misses += paths is None
        return
    score.answerable += 1
    if paths is None:
        score.false_misses += 1
        score.failures.append(f"{q.id} (miss): {q.question}")
        return
    rank = next((i for i, p in enumerate(paths, 1) if p in q.expected), None)
    score.found5 += rank is not None and rank <= 5
    score.rr += 1.0 / rank if rank else 0.0
    if rank is None or rank > 5:
        score.failures.append(f"{q.id} (rank {rank or '>10'}, first hit {paths[0] if paths else '-'}): {q.question}")


def evaluate(vault, questions: list[Question]) -> dict[tuple[str, str], Score]:
    scores: dict[tuple[str, str], Score] = {}
    for q in questions:
        for arm in ARMS:
            paths = ranked_paths(vault, q.question, arm)
            for split in (q.split, "all"):
                score_answers(scores.setdefault((arm, split), Score()), q, paths)
    return scores


def quality_table(scores: dict[tuple[str, str], Score]) -> str:
    rows = [[arm, split, *scores[(arm, split)].cells()] for arm in ARMS for split in SPLITS]
    return common.markdown_table(["arm", "split", "recall@5", "MRR@10", "unanswerable -> miss",
                                  "answerable -> miss"], rows)


# -- fusion schemes on the same two lists -----------------------------------------------------

def arm_lists(vault, questions: list[Question]) -> dict[str, tuple]:
    """Per question: BM25 top 50, exact cosines (top 50 + every lexical candidate), coverage."""
    from vault_engine.retrieval.semantic import SemanticSearcher, lexical_coverage

    semantic = SemanticSearcher(vault.embedder(), vault.vectors, vault.ledger)
    lists = {}
    for q in questions:
        lexical = vault.lexical.search(q.question, 50)
        ids = [i for i, _ in lexical]
        cosine = semantic.search(q.question, 50, include=ids)
        lists[q.id] = (lexical, dict(cosine), lexical_coverage(vault.ledger, vault.lexical, q.question, ids))
    return lists


def fusion_schemes():
    from vault_engine.retrieval.fusion import LEXICAL_WEIGHT, fuse, fuse_calibrated

    def by_cosine(lexical, cosine):
        return sorted(cosine.items(), key=lambda p: -p[1])

    def convex(weight):  # BM25 scaled by the query's best BM25: scores, but not calibrated
        def fused(lexical, cosine, coverage):
            top = lexical[0][1] if lexical else 1.0
            total = {i: (1 - weight) * c for i, c in by_cosine(lexical, cosine)[:50]}
            for i, s in lexical:
                total[i] = total.get(i, 0.0) + weight * s / top
            return sorted(total, key=lambda i: -total[i])
        return fused

    schemes = {
        "RRF k=60": lambda lex, cos, cov: [f.id for f in fuse(lex, by_cosine(lex, cos)[:50])],
        "RRF k=5": lambda lex, cos, cov: [f.id for f in fuse(lex, by_cosine(lex, cos)[:50], k=5)],
        "0.3 x BM25/max + 0.7 x cosine": convex(0.3),
        "cosine only": lambda lex, cos, cov: [i for i, _ in by_cosine(lex, cos)],
    }
    for weight in (0.05, LEXICAL_WEIGHT, 0.2, 0.3):
        chosen = " (chosen)" if weight == LEXICAL_WEIGHT else ""
        schemes[f"cosine + {weight} x coverage{chosen}"] = (
            lambda lex, cos, cov, w=weight: [f.id for f in fuse_calibrated(lex, cov, cos, weight=w)])
    return schemes


def fusion_table(vault, questions: list[Question], lists: dict[str, tuple]) -> str:
    """Each scheme over the same lists, no miss rule, no decay."""
    answerable = [q for q in questions if q.answerable]
    rows = []
    for name, scheme in fusion_schemes().items():
        cells = []
        for split in SPLITS:
            score = Score()
            for q in answerable:
                if split in ("all", q.split):
                    ids = scheme(*lists[q.id])[:10]
                    score_answers(score, q, _paths(vault, ids))
            cells.append(f"{score.recall:.3f} / {score.mrr:.3f}")
        rows.append([name, *cells])
    return common.markdown_table(["fusion", "dev recall@5 / MRR", "holdout", "all"], rows)


def _paths(vault, ids: list[int]) -> list[str]:
    sections = vault.ledger.sections_by_ids(ids)
    notes = vault.ledger.notes_by_ids(s.note_id for s in sections.values())
    return [notes[sections[i].note_id].path for i in ids]


# -- the miss rule ------------------------------------------------------------------------------

def miss_grid(questions: list[Question], lists: dict[str, tuple]) -> str:
    """For thresholds around the defaults: answerable questions lost / unanswerable caught."""
    features = {q.id: (max(lists[q.id][2].values(), default=0.0), max(lists[q.id][1].values(), default=0.0))
                for q in questions}
    rows = []
    for floor in (0.45, 0.50, 0.54, 0.56, 0.58, 0.60):
        for needed in (0.30, 0.40, 0.50):
            cells = []
            for split in ("dev", "holdout"):
                for answerable in (True, False):
                    group = [q for q in questions if q.split == split and q.answerable == answerable]
                    missed = sum(features[q.id][0] < needed and features[q.id][1] < floor for q in group)
                    cells.append(f"{missed}/{len(group)}")
            rows.append([f"{floor:.2f}", f"{needed:.2f}", *cells])
    return common.markdown_table(["cosine floor", "term coverage", "dev answerable -> miss",
                                  "dev unanswerable -> miss", "holdout answerable -> miss",
                                  "holdout unanswerable -> miss"], rows)


# -- command line -----------------------------------------------------------------------------

def run(window: int, workdir: Path, questions: list[Question]) -> tuple:
    from vault_engine.config import load_config
    from vault_engine.stores.embedder import ModelSpec, SentenceTransformerEmbedder

    root = prepare_vault(workdir)
    # Queries through the ONNX export, as `search` embeds them once `index` has written it.
    embedder = SentenceTransformerEmbedder(ModelSpec(window_tokens=window), query_dir=load_config(root).index_dir)
    with open_vault(root, embedder) as vault:
        report = vault.index()
        print(f"window {embedder.max_tokens}: {report.embedded} sections embedded by this run", file=sys.stderr)
        scores = evaluate(vault, questions)
        lists = arm_lists(vault, questions)
        return embedder.max_tokens, scores, fusion_table(vault, questions, lists), miss_grid(questions, lists)


def render(machine: str, questions: list[Question], main_run: tuple, other: tuple | None) -> str:
    from vault_engine.retrieval.semantic import DEFAULT_COSINE_FLOOR, DEFAULT_TERM_COVERAGE

    window, scores, fusions, grid = main_run
    count = {s: sum(q.split == s and q.answerable for q in questions) for s in ("dev", "holdout")}
    unanswerable = {s: sum(q.split == s and not q.answerable for q in questions) for s in ("dev", "holdout")}
    parts = [
        "### Quality (bench/eval_search.py)", "", machine + ".", "",
        f"{len(questions)} questions about `obsidian-tasks-docs` in bench/data/search_eval.jsonl: "
        f"{count['dev']} answerable + {unanswerable['dev']} unanswerable in `dev` (used to choose the "
        f"fusion weight and the miss thresholds), {count['holdout']} + {unanswerable['holdout']} in "
        "`holdout` (written with the others, never tuned on). Each arm as `vault-engine search` runs it "
        f"(k=10, no decay; the miss rule `miss_cosine_floor = {DEFAULT_COSINE_FLOOR}`, "
        f"`miss_term_coverage = {DEFAULT_TERM_COVERAGE}` applies whenever the semantic arm runs; "
        f"window {window} tokens):", "", quality_table(scores), "",
        "Not in the hybrid top 5:", "", *[f"- {f}" for f in scores[("hybrid", "all")].failures], "",
        "**Fusion schemes** over the same two lists per question (BM25 top 50; cosines of the "
        "semantic top 50 and of every lexical candidate; no miss rule):", "", fusions, "",
        "**Miss rule**: a search is a miss when the best term coverage < `miss_term_coverage` and "
        "the best cosine < `miss_cosine_floor`. Chosen on `dev`: the most unanswerable questions "
        "caught without losing an answerable one, in the middle of the plateau:", "", grid, "",
    ]
    if other is not None:
        o_window, o_scores = other[0], other[1]
        rows = [[f"{w} tokens", *s[("hybrid", split)].cells()[:3]]
                for w, s in ((window, scores), (o_window, o_scores)) for split in ("all",)]
        parts += ["**Window length** (hybrid, all questions; speed in the next section):", "",
                  common.markdown_table(["window", "recall@5", "MRR@10", "unanswerable -> miss"], rows), ""]
    return "\n".join(parts)


def write_semantic(marker: str, body: str) -> None:
    """Write one sub-section inside ``<!-- semantic -->`` (created once, with all three slots)."""
    text = common.RESULTS.read_text(encoding="utf-8") if common.RESULTS.exists() else ""
    if "<!-- semantic -->" not in text:
        common.write_section("semantic", "## Semantic search\n\n<!-- semantic-quality -->\n"
                             "<!-- /semantic-quality -->\n\n<!-- semantic-speed -->\n<!-- /semantic-speed -->\n\n"
                             "<!-- semantic-cold -->\n<!-- /semantic-cold -->")
    common.write_section(marker, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=WORKDIR, help="where the corpus copy lives")
    parser.add_argument("--window", type=int, default=0, help="[model] window_tokens (0: the model's)")
    parser.add_argument("--compare-window", type=int, default=0, help="also evaluate this window")
    parser.add_argument("--write", action="store_true", help="write into bench/RESULTS.md")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 1
    machine = common.machine_line()
    questions = load_questions()
    main_run = run(args.window, args.workdir, questions)
    other = None
    if args.compare_window:
        other = run(args.compare_window, args.workdir.with_name(f"{args.workdir.name}-w{args.compare_window}"),
                    questions)
    text = render(machine, questions, main_run, other)
    print(text)
    if args.write:
        write_semantic("semantic-quality", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
