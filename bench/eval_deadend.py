"""``deadend check`` through the product: ``eval_deadend.py [--write]``.

Every proposal of the blind dead-end sets (bench/data/eval/README.md: Kubernetes KEPs, MADR
records, checkpoints written from 24 real design documents, sample-vault; 232 proposals in five
styles) goes through ``Vault.deadend_check`` with both arms and with words only (``--lexical``),
as an agent's call runs it (k=3). Reported per corpus and split (``dev`` chose the thresholds
in bench/deadend_lab.py leaving one corpus out; ``test`` was never tuned on) and per style,
with the first round's two sets (bench/data/deadend_proposals*.jsonl) beside them.

A positive is found when a raised ruling is from the document it restates (recall@3); a
negative is a false alarm when anything at all is raised. ``--write`` puts the tables into
bench/RESULTS.md between ``<!-- memory-eval -->`` markers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import deadend_lab as lab  # noqa: E402
import evalsets  # noqa: E402
from bench_memory import EVAL, write_memory_part  # noqa: E402

STYLES = ("paraphrase", "near-verbatim", "other-project", "accepted", "unrelated")
MODES = ("both arms", "words only")
OLD_SETS = (("deadend-vault", evalsets.common.BENCH_DIR / "data" / "deadend-vault",
             evalsets.common.BENCH_DIR / "data" / "deadend_proposals.jsonl"),
            ("sample-vault", evalsets.common.REPO / "sample-vault",
             evalsets.common.BENCH_DIR / "data" / "deadend_proposals_sample_vault.jsonl"))


def checked(vault, proposal: str, mode: str) -> list[str]:
    """The paths of the rulings ``deadend check`` raises (empty: a miss)."""
    result = vault.deadend_check(proposal, k=3, lexical_only=mode == "words only")
    return [r.path for r in result.rulings]


def evaluate() -> dict:
    from vault_engine.vault import Vault

    tallies: dict[tuple, lab.Tally] = defaultdict(lab.Tally)
    for name in lab.SETS:
        if not evalsets.CORPORA[name].available:
            continue
        with Vault(lab.prepare_vault(name)) as vault:
            vault.index(embed=False)
            for p in lab.load_proposals(name):
                for mode in MODES:
                    raised = checked(vault, p.text, mode)
                    for key in ((mode, name, p.split, p.style), (mode, name, p.split, "*"),
                                (mode, "*", p.split, p.style), (mode, "*", p.split, "*")):
                        add(tallies[key], p.positive, any(path in p.expected for path in raised), bool(raised))
    for name, source, proposals in OLD_SETS:
        with Vault(evalsets.prepare(evalsets.Corpus(name, source), layout="first-round")) as vault:
            vault.index(embed=False)
            rulings = {r.text: r.path for r in vault.deadend_list()}
            for line in proposals.read_text(encoding="utf-8").splitlines():
                case = json.loads(line)
                target = next((path for text, path in rulings.items() if case["target"] and case["target"] in text),
                              None)
                for mode in MODES:
                    raised = vault.deadend_check(case["proposal"], k=3, lexical_only=mode == "words only").rulings
                    hit = any(case["target"] and case["target"] in r.text for r in raised)
                    add(tallies[(mode, name, "old", case["set"])], target is not None, hit, bool(raised))
    return tallies


def add(x: lab.Tally, positive: bool, found: bool, raised: bool) -> None:
    if positive:
        x.positives += 1
        x.found += found
    else:
        x.negatives += 1
        x.alarms += raised


def render(t: dict) -> str:
    from vault_engine.memory.matching import DeadendSettings

    common = evalsets.common
    corpora = [n for n in lab.SETS if (MODES[0], n, "test", "*") in t]
    lines = ["### Dead-end check evaluation (bench/eval_deadend.py)", "", common.machine_line() + ".", "",
             f"Settings: {DeadendSettings()}. Cells: recall@3 (found/positives) · false alarms/negatives.", ""]
    for split in ("test", "dev"):
        rows = [[n, *[t[(m, n, split, "*")].cell() for m in MODES]] for n in [*corpora, "*"]]
        lines += [f"**{split} split**:", "", common.markdown_table(["corpus", *MODES], rows), ""]
    rows = [[n, *[t[(m, n, "agent", "*")].cell() for m in MODES]] for n in [*corpora, "*"]
            if (MODES[0], n, "agent", "*") in t]
    if rows:
        lines += ["**Agent messages** (split `agent`, qa116: the scene, then what the agent will do; "
                  "they shaped the rule that the meaning arm reads the latter, so they are no hold-out):", "",
                  common.markdown_table(["corpus", *MODES], rows), ""]
    rows = [[s, *[t[(m, "*", split, s)].cell() for m in MODES for split in ("test", "dev")]] for s in STYLES]
    lines += ["**Per style**, every corpus:", "",
              common.markdown_table(["style", "both arms, test", "both arms, dev", "words only, test",
                                     "words only, dev"], rows), ""]
    rows = [[f"{name}, {which}", *[t[(m, name, "old", which)].cell() for m in MODES]]
            for name, _, _ in OLD_SETS for which in ("calibration", "holdout") if (MODES[0], name, "old", which) in t]
    lines += ["**The first round's sets** (own vaults, own phrasing):", "",
              common.markdown_table(["vault, set", *MODES], rows), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the memory-eval section of RESULTS.md")
    args = parser.parse_args(argv)
    text = render(evaluate())
    print(text)
    if args.write:
        write_memory_part(EVAL, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
