"""Search quality through the product: ``eval_search.py [--write] [--corpus NAME]``.

Every question of the blind evaluation sets (bench/data/eval/README.md: four real corpora,
220 questions in six styles, 16% unanswerable) and the 63 questions of the first round goes
through ``Vault.search`` as ``vault-engine search`` runs it (k=10, no decay), once per arm:
words only, meaning only, and hybrid (the default). Reported per corpus and split (``dev``,
used to choose parameters by bench/search_lab.py; ``test``, never tuned on), per style, and
against plain baselines built here from the same sections (BM25 over the section text,
MiniLM cosine of the section text, and reciprocal rank fusion of the two).

A question is found at k when a hit of an expected note is among the first k; a miss on an
answerable question counts as not found. A second table asks for the expected section itself. Also checked: that the first 5 hits of ``-k 5`` are
the first 5 of ``-k 50`` for every question, and how often ``confidence: high`` is right.
``--write`` puts the tables into bench/RESULTS.md between ``<!-- semantic-quality -->`` markers.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import search_lab as lab  # noqa: E402

ARMS = ("lexical", "semantic", "hybrid")
BASELINES = ("plain-bm25", "plain-cosine", "plain-rrf")
STYLES = ("long-personal", "keyword", "synonym", "typo", "deep-heading", "unanswerable")


def product_run(t: lab.Table, q: lab.Question, arm: str, k: int = 10):
    result = t.vault.search(q.question, k=k, lexical_only=arm == "lexical",
                            semantic_only=arm == "semantic", decay=False)
    index_of = {sid: i for i, sid in enumerate(t.ids)}
    ranking = None if result.status == "miss" else [index_of[h.section_id] for h in result.hits]
    return ranking, result


def evaluate(tabs: dict[str, lab.Table], questions: dict[str, list[lab.Question]]) -> dict:
    """Tallies keyed by (system, corpus, split, style) and the two checks."""
    tallies: dict[tuple, lab.Tally] = defaultdict(lab.Tally)
    confidence = defaultdict(lambda: [0, 0, 0])  # level -> [searches, first hit right, answerable]
    unstable = []
    for name, qs in questions.items():
        t = tabs[name]
        base = {q.id: r for q, r in zip(qs, baseline_rankings(t, qs))}
        for q in qs:
            outcomes = {}
            for arm in ARMS:
                ranking, result = product_run(t, q, arm)
                outcomes[arm] = ranking
                if arm == "hybrid":
                    rank = lab.judge(t, q, ranking, lab.Tally())
                    level = confidence[result.confidence]
                    level[0] += 1
                    level[1] += rank == 1
                    level[2] += q.answerable
                    deep, _ = product_run(t, q, arm, k=50)
                    if (ranking or [])[:5] != (deep or [])[:5]:
                        unstable.append(q.id)
            outcomes.update(zip(BASELINES, base[q.id]))
            for system, ranking in outcomes.items():
                for key in ((system, name, q.split, q.style), (system, name, q.split, "*"),
                            (system, "*", q.split, q.style), (system, "*", q.split, "*")):
                    lab.judge(t, q, ranking, tallies[key])
                    if q.sections:  # the section itself, not only its note
                        lab.judge(t, q, ranking, tallies[("section", *key)], lab.section_matches)
    return {"tallies": tallies, "confidence": dict(confidence), "unstable": unstable}


def baseline_rankings(t: lab.Table, qs: list[lab.Question]) -> list[tuple]:
    """(plain BM25, plain cosine, plain RRF) rankings per question, as an outsider would build
    them: plain word tokens, the section's heading and text, the model's own truncation."""
    import numpy as np

    docs = [lab.plain_tokens(" ".join(t.heading_path[i][-1:]) + " " + t.body[i]) for i in range(len(t.ids))]
    bm25 = lab.BM25(docs)
    vectors = lab.plain_vectors(t)
    out = []
    for q in qs:
        words = lab.ranked(bm25.scores(lab.plain_tokens(q.question)))
        meaning = [int(i) for i in np.argsort(-(vectors @ t.query_vectors([q.question])[0]), kind="stable")]
        out.append((words, meaning, lab.rrf(words, meaning)))
    return out


# -- report -------------------------------------------------------------------------------------

def cell(x: lab.Tally) -> str:
    return f"{x.recall:.2f} / {x.mrr:.2f}" if x.n else "-"


def misses(x: lab.Tally) -> str:
    return f"{x.false_miss}/{x.n} · {x.caught}/{x.unanswerable}"


def render(report: dict, corpora: list[str], counts: dict[str, dict]) -> str:
    t = report["tallies"]
    systems = [*ARMS, *BASELINES]
    lines = ["### Quality (bench/eval_search.py)", "", common.machine_line() + ".", "",
             "Questions written blind before any result (bench/data/eval/README.md), through `Vault.search` "
             "as `vault-engine search` runs it (k=10, no decay). Cells: recall@5 / MRR@10. `test` was never "
             "tuned on; `dev` chose the parameters (bench/search_lab.py, next section).", ""]
    for split in ("test", "dev"):
        rows = []
        for name in [*corpora, "*"]:
            label = "all corpora" if name == "*" else f"{name} ({counts[name][split]})"
            rows.append([label, *[cell(t[(s, name, split, "*")]) for s in systems],
                         misses(t[("hybrid", name, split, "*")])])
        lines += [f"**{split} split**, per corpus:", "",
                  common.markdown_table(["corpus (questions)", *systems, "hybrid: answerable -> miss · "
                                         "unanswerable -> miss"], rows), ""]
    rows = [[f"{name} ({split})" if name != "*" else f"all corpora ({split})",
             *[cell(t[("section", s, name, split, "*")]) for s in systems]]
            for split in ("test", "dev") for name in [*corpora, "*"]]
    lines += ["**The section itself**: found when a hit is one of the sections the question names as its answer "
              "(a hit of another section of the right note is not), where the question names one:", "",
              common.markdown_table(["corpus (split)", *systems], rows), ""]
    rows = [[style, *[cell(t[(s, "*", "test", style)]) for s in systems]] for style in STYLES[:-1]]
    rows.append(["unanswerable -> miss", *[f"{t[(s, '*', 'test', 'unanswerable')].caught}/"
                                            f"{t[(s, '*', 'test', 'unanswerable')].unanswerable}" for s in systems]])
    lines += ["**Per style**, test split of every corpus:", "",
              common.markdown_table(["style", *systems], rows), ""]
    old = t[("hybrid", "obsidian-tasks-docs", "old", "*")]
    if old.n:
        rows = [[s, cell(t[(s, "obsidian-tasks-docs", "old", "*")]),
                 misses(t[(s, "obsidian-tasks-docs", "old", "*")])] for s in ARMS]
        lines += ["**The first round's 63 questions** (obsidian-tasks-docs; bench/data/search_eval.jsonl):", "",
                  common.markdown_table(["arm", "recall@5 / MRR@10", "answerable -> miss · unanswerable -> miss"],
                                        rows), ""]
    conf = report["confidence"]
    rows = [[level, str(n), f"{right}/{n} ({right / n:.0%})" if n else "-", str(n - answerable)]
            for level, (n, right, answerable) in sorted(conf.items())]
    lines += ["**Confidence** (hybrid, every question of every split):", "",
              common.markdown_table(["confidence", "searches", "first hit right", "unanswerable among them"], rows),
              "", f"**Answers independent of k**: the first 5 hits of `-k 10` and `-k 50` differ for "
              f"{len(report['unstable'])} questions{': ' + ', '.join(report['unstable']) if report['unstable'] else ''}.",
              ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", help="only these corpora")
    parser.add_argument("--write", action="store_true", help="write into bench/RESULTS.md")
    args = parser.parse_args(argv)
    tabs = lab.tables(args.corpus or list(lab.SEARCH_SETS))
    if not tabs:
        print("no corpus found under ../shared/corpora", file=sys.stderr)
        return 1
    questions = {n: lab.load_questions(n, with_old=True) for n in tabs}
    counts = {n: {s: sum(q.split == s for q in qs) for s in ("dev", "test")} for n, qs in questions.items()}
    text = render(evaluate(tabs, questions), list(tabs), counts)
    print(text)
    if args.write:
        common.write_section("semantic-quality", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
