"""``find`` and ``callers``/``callees`` through the product, on the blind evaluation sets.

The vault: ``../shared/corpora/code/click`` and ``zustand`` copied to ``src/click/`` and
``src/zustand/``, ``click-memory`` to ``memory/``, one code tap over ``src/**`` (the layout
the hold-out uses), indexed words only. Queries: ``bench/data/eval/find_eval.jsonl`` (80,
written blind: 24 symbol, 16 path, 14 fuzzy, 14 memory, 12 misses) and
``callgraph_cases.jsonl`` (16 cases). Scoring, per item:

- symbol / path: ``hit`` from that tier with exactly the expected refs (all of them, no more);
- fuzzy: ``junction`` whose ``suggestion`` is the expected ref or path;
- memory: ``hit`` from the memory tier whose first hit is the expected note;
- miss: ``miss``;
- call graph: precision / recall / F1 of the node refs.

    .venv/bin/python bench/eval_find.py            # prints; --write updates RESULTS.md
    .venv/bin/python bench/eval_find.py --show     # every wrong answer
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))
import common  # noqa: E402
from evalsets import EVAL_DIR, WORKDIR, load_jsonl  # noqa: E402

CODE = BENCH.parent.parent / "shared" / "corpora" / "code"
FIND_SET = EVAL_DIR / "find_eval.jsonl"
CASES = EVAL_DIR / "callgraph_cases.jsonl"
CONFIG = '[taps.code]\nsource = "code"\npaths = ["src/**"]\n'


def prepare_vault(root: Path = WORKDIR / "find") -> Path:
    """The evaluation vault (made once, indexed words only; ``index`` keeps it current)."""
    from vault_engine.vault import Vault

    if not (root / "vault-engine.toml").exists():
        shutil.rmtree(root, ignore_errors=True)
        (root / "src").mkdir(parents=True)
        shutil.copytree(CODE / "click", root / "src" / "click")
        shutil.copytree(CODE / "zustand", root / "src" / "zustand")
        shutil.copytree(CODE / "click-memory", root / "memory")
        (root / "vault-engine.toml").write_text(CONFIG, encoding="utf-8")
    with Vault(root) as vault:
        vault.index(embed=False)
    return root


def judge(item: dict, result) -> bool:
    """Whether ``result`` (a FindResult) is the right answer to ``item``."""
    expected = item.get("expected") or []
    if item["status"] == "miss":
        return result.status == "miss"
    if item["status"] == "junction":
        return result.status == "junction" and result.suggestion == expected[0]
    if item["tier"] == "memory":
        return result.status == "hit" and result.tier == "memory" and result.hits[0].ref == expected[0]
    return (result.status == "hit" and result.tier == item["tier"]
            and {h.ref for h in result.hits} == set(expected))


def run_find(vault, items: list[dict], **find_args) -> list[tuple[dict, object, bool, float]]:
    rows = []
    for item in items:
        t0 = time.perf_counter()
        result = vault.find(item["query"], k=20, **find_args)
        rows.append((item, result, judge(item, result), (time.perf_counter() - t0) * 1000))
    return rows


def run_cases(vault, cases: list[dict]) -> list[tuple[dict, set, float, float]]:
    rows = []
    for case in cases:
        answer = vault.calls(case["symbol"], direction=case["direction"], depth=case["depth"],
                             exclude_tests=case["exclude_tests"])
        got, want = {n.ref for n in answer.nodes}, set(case["expected"])
        precision = len(got & want) / len(got) if got else float(not want)
        recall = len(got & want) / len(want) if want else 1.0
        rows.append((case, got, precision, recall))
    return rows


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def report(rows, cases) -> str:
    by_tier: dict[str, list[bool]] = defaultdict(list)
    by_split: dict[str, list[bool]] = defaultdict(list)
    for item, _, ok, _ in rows:
        by_tier[item["tier"]].append(ok)
        by_split[item["split"]].append(ok)
    table = [[tier, f"{sum(v)}/{len(v)}", f"{sum(v) / len(v):.2f}"] for tier, v in by_tier.items()]
    table.append(["all", f"{sum(map(sum, by_tier.values()))}/{len(rows)}",
                  f"{sum(map(sum, by_tier.values())) / len(rows):.2f}"])
    split = ", ".join(f"{s} {sum(v)}/{len(v)}" for s, v in sorted(by_split.items()))
    precision = sum(c[2] for c in cases) / len(cases)
    recall = sum(c[3] for c in cases) / len(cases)
    mean_f1 = sum(f1(c[2], c[3]) for c in cases) / len(cases)
    exact = sum(c[2] == 1 and c[3] == 1 for c in cases)
    return "\n".join([
        common.markdown_table(["tier", "right", "accuracy"], table), "",
        f"By split: {split}.", "",
        f"Call graph (`callers`/`callees`, {len(cases)} blind cases): mean precision {precision:.3f}, "
        f"mean recall {recall:.3f}, mean F1 {mean_f1:.3f}; {exact} cases exactly right.",
    ])


def wrong(rows, cases) -> str:
    lines = []
    for item, result, ok, _ in rows:
        if not ok:
            got = result.suggestion or [h.ref for h in result.hits][:4]
            lines.append(f"- {item['id']} {item['tier']} {item['query']!r}: expected {item['status']} "
                         f"{item.get('expected')}, got {result.status}/{result.tier} {got}")
    for case, got, p, r in cases:
        if p < 1 or r < 1:
            lines.append(f"- {case['id']} {case['symbol']} {case['direction']} d{case['depth']}: "
                         f"missing {sorted(set(case['expected']) - got)}, extra {sorted(got - set(case['expected']))}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    parser.add_argument("--show", action="store_true", help="print every wrong answer")
    args = parser.parse_args()
    from vault_engine.vault import Vault

    if not CODE.is_dir():
        sys.exit(f"the code corpora are not at {CODE}")
    root = prepare_vault()
    with Vault(root) as vault:
        rows = run_find(vault, load_jsonl(FIND_SET))
        cases = run_cases(vault, load_jsonl(CASES))
    body = "\n".join([
        "## find and the call graph on the blind sets (`bench/eval_find.py`)", "",
        f"{common.machine_line()}. `bench/data/eval/find_eval.jsonl` ({len(rows)} queries) and "
        "`callgraph_cases.jsonl`, through `Vault.find` / `Vault.calls` on click + zustand under `src/` "
        "and click's six memory notes under `memory/` (words only). Thresholds as shipped "
        "(chosen by `bench/find_lab.py`).", "",
        report(rows, cases), "", "Wrong answers:", "", wrong(rows, cases) or "none",
    ])
    print(body)
    if args.write:
        common.write_section("find-eval", body)


if __name__ == "__main__":
    main()
