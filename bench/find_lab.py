"""Choosing find's thresholds without fitting them to the answers: ``find_lab.py``.

Two choices, each made on items that are then not used to report it:

- the fuzzy tier's :class:`SuggestRule` (edits allowed by query length, the fzf score per
  character a dropped-letter match must reach): leave one corpus out. The rule is chosen on
  the fuzzy and code-shaped miss queries of one repository (click or zustand) and scored on
  the other's; the shipped rule is the one chosen most often, ties to the stricter.
- the memory tier's coverage floor and ranking: chosen on the ``dev`` half (by id hash,
  bench/evalsets.py) of the memory questions and prose misses, scored on the ``test`` half.
  (Only click has memory notes, so there is no second corpus to leave out.)

Every candidate runs the real router (retrieval/find/router.py) on the indexed evaluation
vault of bench/eval_find.py.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))
import common  # noqa: E402
from eval_find import FIND_SET, judge, prepare_vault  # noqa: E402
from evalsets import load_jsonl  # noqa: E402

from vault_engine.retrieval.find.router import find  # noqa: E402
from vault_engine.retrieval.find.suggest import SuggestRule, looks_like_code  # noqa: E402

RULES = [SuggestRule(short, long_, long_from, per_char)
         for short, long_, long_from, per_char in itertools.product((0, 1, 2), (1, 2, 3), (7, 9, 12), (18.0, 22.0, 26.0))
         if short <= long_]
COVERAGES = (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)
RANKINGS = ("bm25", "coverage")


def score(vault, items, **params) -> int:
    code, ledger, lexical = vault._code_queries(), vault.ledger, vault.lexical
    return sum(judge(i, find(i["query"], code=code, ledger=ledger, lexical=lexical, k=20, **params)) for i in items)


PRIOR = SuggestRule(1, 2, 9, 22.0)  # written before anything was measured (Lucene's AUTO, roughly)


def strictness(rule: SuggestRule) -> tuple:
    """Among rules that score alike, the one nearest the prior, then the stricter: a small
    set leaves many ties, and "strictest" alone would refuse every short typo."""
    distance = (abs(rule.max_edits_short - PRIOR.max_edits_short) + abs(rule.max_edits_long - PRIOR.max_edits_long)
                + abs(rule.long_from - PRIOR.long_from) / 3 + abs(rule.min_fuzzy_per_char - PRIOR.min_fuzzy_per_char) / 4)
    return (distance, rule.max_edits_short, rule.max_edits_long, -rule.long_from, -rule.min_fuzzy_per_char)


def fuzzy_lab(vault, items) -> tuple[list[str], SuggestRule]:
    pool = [i for i in items if i["tier"] == "fuzzy" or (i["tier"] == "miss" and looks_like_code(i["query"]))]
    lines, chosen = [], []
    for held in ("click", "zustand"):
        train = [i for i in pool if i["repo"] != held]
        test = [i for i in pool if i["repo"] == held]
        scored = [(score(vault, train, rule=r), r) for r in RULES]
        best = max(s for s, _ in scored)
        rule = min((r for s, r in scored if s == best), key=strictness)
        chosen.append(rule)
        lines.append(f"| {held} | {best}/{len(train)} | {_rule_text(rule)} | {score(vault, test, rule=rule)}/{len(test)} |")
    counts = Counter(chosen)
    top = max(counts.values())
    shipped = min((r for r, n in counts.items() if n == top), key=strictness)
    return lines, shipped


def memory_lab(vault, items) -> tuple[list[str], tuple[float, str]]:
    pool = [i for i in items if i["tier"] == "memory" or (i["tier"] == "miss" and not looks_like_code(i["query"]))]
    dev = [i for i in pool if i["split"] == "dev"]
    test = [i for i in pool if i["split"] == "test"]
    scored = [(score(vault, dev, min_coverage=c, rank_by=r), c, r) for c in COVERAGES for r in RANKINGS]
    best = max(s for s, _, _ in scored)
    _, coverage, ranking = min((t for t in scored if t[0] == best), key=lambda t: (abs(t[1] - 0.45), t[2]))
    lines = [f"| {c:.2f} | {r} | {s}/{len(dev)} |" for s, c, r in scored if r == ranking or s == best]
    lines.append(f"\nChosen on dev: coverage >= {coverage:.2f}, ranked by {ranking}: dev {best}/{len(dev)}, "
                 f"test {score(vault, test, min_coverage=coverage, rank_by=ranking)}/{len(test)}.")
    return lines, (coverage, ranking)


def _rule_text(rule: SuggestRule) -> str:
    return (f"edits {rule.max_edits_short} below {rule.long_from} chars, {rule.max_edits_long} from there; "
            f"fzf >= {rule.min_fuzzy_per_char:g}/char")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    args = parser.parse_args()
    from vault_engine.vault import Vault

    items = load_jsonl(FIND_SET)
    with Vault(prepare_vault()) as vault:
        fuzzy_lines, rule = fuzzy_lab(vault, items)
        memory_lines, (coverage, ranking) = memory_lab(vault, items)
    body = "\n".join([
        "## find's thresholds (`bench/find_lab.py`)", "", f"{common.machine_line()}.", "",
        f"Fuzzy tier, leave one corpus out over {len(RULES)} rules (fuzzy + code-shaped miss queries):", "",
        "| held out | best on the other | rule chosen | on the held-out corpus |", "|---|---|---|---|",
        *fuzzy_lines, "", f"Shipped: {_rule_text(rule)}.", "",
        f"Ties are broken toward the prior rule written before measuring ({_rule_text(PRIOR)}).", "",
        "Memory tier (memory questions + prose misses), dev half:", "",
        "| coverage floor | ranking | dev right |", "|---|---|---|", *memory_lines,
    ])
    print(body)
    if args.write:
        common.write_section("find-lab", body)


if __name__ == "__main__":
    main()
