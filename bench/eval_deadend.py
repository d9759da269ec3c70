"""Evaluate ``deadend check``: recall@3 on paraphrased dead ends, false alarms on accepted designs.

    .venv/bin/python bench/eval_deadend.py            # the configured defaults, per arm
    .venv/bin/python bench/eval_deadend.py --sweep    # grid over thresholds (calibration sets)
    .venv/bin/python bench/eval_deadend.py --write    # also rewrite its section of RESULTS.md

Two vaults, each with a proposals file (one JSON object a line: ``set`` calibration | holdout,
``proposal``, ``target``: a unique piece of the ruling it paraphrases, or null for a negative,
mostly the accepted design next to a rejected one):

- ``bench/data/deadend-vault``: six projects, 48 dead ends with reasons, accepted designs in
  checkpoint summaries and specs; proposals in ``deadend_proposals.jsonl``;
- ``sample-vault``: the project's demo vault; proposals in ``deadend_proposals_sample_vault.jsonl``.

Thresholds are chosen on the calibration sets only; the hold-out sets are reported, never
tuned on. Every number comes from the real stack: a copy of each vault indexed into SQLite and
Whoosh, the ledger's dead ends, and the real embedding model.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import EVAL, write_memory_part  # noqa: E402
from common import REPO, fresh_copy, machine_line, markdown_table  # noqa: E402

DATA = REPO / "bench" / "data"
DATASETS = (
    ("deadend-vault", DATA / "deadend-vault", DATA / "deadend_proposals.jsonl"),
    ("sample-vault", REPO / "sample-vault", DATA / "deadend_proposals_sample_vault.jsonl"),
)
ARMS = ("lexical", "semantic", "combined")
SETS = ("calibration", "holdout")
MAX_FALSE_ALARM_RATE = 0.2  # the target: at most 1 false alarm in 5 negatives


@dataclass(frozen=True)
class Case:
    set: str
    proposal: str
    target: str | None


@dataclass
class Dataset:
    """One vault, its proposals, and the evidence of every (proposal, ruling) pair, measured
    with the vault's accepted designs and without them (decisions never written down)."""

    name: str
    cases: list[Case]
    rulings: list = field(default_factory=list)
    tables: dict[str, list] = field(default_factory=dict)  # "with" | "without" -> evidence


@dataclass
class Score:
    positives: int = 0
    found: int = 0  # target among the top 3 raised
    negatives: int = 0
    false_alarms: int = 0
    missed: list = field(default_factory=list)
    alarms: list = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.positives if self.positives else 0.0

    def add(self, other: Score) -> Score:
        return Score(self.positives + other.positives, self.found + other.found,
                     self.negatives + other.negatives, self.false_alarms + other.false_alarms,
                     self.missed + other.missed, self.alarms + other.alarms)

    def line(self) -> str:
        return (f"recall@3 {self.recall:.2f} ({self.found}/{self.positives}), "
                f"false alarms {self.false_alarms}/{self.negatives}")


def load_cases(path: Path) -> list[Case]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Case(row["set"], row["proposal"], row["target"]) for row in rows]


def measure(name: str, source: Path, proposals: Path, workdir: Path, settings) -> Dataset:
    """Index a fresh copy of the vault and gather the evidence of every pair, with the semantic
    arm measured for every ruling, so any thresholds can be applied without the model."""
    from vault_engine.memory.accepted import AcceptedDesigns
    from vault_engine.memory.deadends import gather_evidence, load_rulings
    from vault_engine.memory.ruling_vectors import CACHE_FILE, RulingEmbeddings
    from vault_engine.vault import Vault

    data = Dataset(name, load_cases(proposals))
    with Vault(fresh_copy(source, workdir, name)) as vault:
        vault.index(embed=False)  # dead ends need no section vectors
        data.rulings = load_rulings(vault.ledger)
        semantic = RulingEmbeddings(vault.embedder(), vault.config.index_dir / CACHE_FILE)
        wide = replace(settings, semantic_min=0.0, candidates=len(data.rulings))
        accepted = AcceptedDesigns(vault.ledger, vault.lexical, settings.accepted_share)
        for scenario, lookup in (("with", accepted), ("without", None)):
            data.tables[scenario] = [gather_evidence(c.proposal, data.rulings, wide, semantic, [], lookup)[0]
                                     for c in data.cases]
    return data


def target_index(data: Dataset, target: str) -> int:
    found = [i for i, r in enumerate(data.rulings) if target in r.text]
    if len(found) != 1:
        raise SystemExit(f"{data.name}: target {target!r} matches {len(found)} rulings: "
                         "the vault changed or the target is not unique; fix the proposals file")
    return found[0]


def raised_top3(evidence, settings, arm: str) -> list[int]:
    """Ruling indexes the arm(s) raise, best first, at most 3 (as ``deadend check -k 3``)."""
    from vault_engine.memory.matching import lexical_match, semantic_match

    raised = []
    for i, e in enumerate(evidence):
        lex = arm != "semantic" and lexical_match(e, settings)
        sem = arm != "lexical" and semantic_match(e, settings)
        if lex or sem:
            raised.append((max(e.lexical_score if lex else 0.0, e.cosine if sem else 0.0), i))
    return [i for _, i in sorted(raised, reverse=True)[:3]]


def evaluate(data: Dataset, scenario: str, settings, arm: str, which: str) -> Score:
    """Recall@3 and false alarms of one arm (or both) on one set of one vault."""
    score = Score()
    for case, evidence in zip(data.cases, data.tables[scenario]):
        if case.set != which:
            continue
        top = raised_top3(evidence, settings, arm)
        if case.target is None:
            score.negatives += 1
            if top:
                score.false_alarms += 1
                score.alarms.append((data.name, case.proposal, data.rulings[top[0]].text))
        else:
            score.positives += 1
            if target_index(data, case.target) in top:
                score.found += 1
            else:
                score.missed.append((data.name, case.proposal))
    return score


def evaluate_all(datasets, scenario, settings, arm, which) -> Score:
    total = Score()
    for data in datasets:
        total = total.add(evaluate(data, scenario, settings, arm, which))
    return total


def sweep(datasets, base) -> list[tuple]:
    """Every combination of the grid, ranked on the calibration sets: first the settings whose
    false-alarm rate with the vaults' accepted designs stays within the target, then by
    recall@3 with them minus the false-alarm rate without them (what a vault recording its
    decisions gains, against what one that does not suffers), then the stricter setting.
    The hold-out is printed, never used to choose."""
    grid = {
        "lexical_min": [0.8, 0.85, 0.9, 0.95],
        "coverage_floor": [0.5, 0.6, 0.65, 0.7, 0.8],
        "semantic_min": [0.45, 0.5, 0.55, 0.6, 0.65],
        "residual_min": [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
    }
    results = []
    for values in itertools.product(*grid.values()):
        settings = replace(base, **dict(zip(grid, values)))
        cals = [evaluate_all(datasets, s, settings, "combined", "calibration") for s in ("with", "without")]
        holds = [evaluate_all(datasets, s, settings, "combined", "holdout") for s in ("with", "without")]
        with_, without = cals
        feasible = with_.false_alarms <= MAX_FALSE_ALARM_RATE * with_.negatives
        objective = with_.recall - without.false_alarms / max(1, without.negatives)
        results.append(((feasible, round(objective, 4)), values, cals, holds))
    results.sort(key=lambda r: (r[0], list(r[1])), reverse=True)
    return results


def report(datasets, scenario: str, settings) -> str:
    """One Markdown table: per vault and both together, per set, per arm."""
    rows = []
    for which in SETS:
        for arm in ARMS:
            parts = [evaluate(d, scenario, settings, arm, which) for d in datasets]
            total = evaluate_all(datasets, scenario, settings, arm, which)
            rows.append([which, arm] + [f"{s.recall:.2f} ({s.found}/{s.positives}), {s.false_alarms}/{s.negatives}"
                                        for s in (*parts, total)])
    header = ["set", "arm"] + [f"{d.name}: recall@3, false alarms" for d in datasets] + ["both"]
    return markdown_table(header, rows)


def print_failures(datasets, settings) -> None:
    for scenario in ("with", "without"):
        for which in SETS:
            s = evaluate_all(datasets, scenario, settings, "combined", which)
            for name, proposal in s.missed:
                print(f"  missed ({name}, {which}, {scenario} accepted designs): {proposal}")
            for name, proposal, ruling in s.alarms:
                print(f"  false alarm ({name}, {which}, {scenario} accepted designs): "
                      f"{proposal!r} raised {ruling!r}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="grid-search the thresholds")
    parser.add_argument("--write", action="store_true", help="rewrite the memory-eval section of RESULTS.md")
    args = parser.parse_args(argv)

    from vault_engine.memory.matching import DeadendSettings

    settings = DeadendSettings()
    with tempfile.TemporaryDirectory() as tmp:
        datasets = [measure(name, vault, proposals, Path(tmp), settings)
                    for name, vault, proposals in DATASETS]
    for d in datasets:
        print(f"{d.name}: {len(d.rulings)} dead ends, {sum(c.target is not None for c in d.cases)} "
              f"positive and {sum(c.target is None for c in d.cases)} negative proposals")
    if args.sweep:
        print("\n(within target, objective) (lexical_min, coverage_floor, semantic_min, residual_min):"
              " calibration with | without accepted designs || hold-out with | without")
        for rank, values, cals, holds in sweep(datasets, settings)[:20]:
            print(f"{rank} {values}: {cals[0].line()} | {cals[1].line()} || "
                  f"{holds[0].line()} | {holds[1].line()}")
        return 0
    with_md, without_md = report(datasets, "with", settings), report(datasets, "without", settings)
    print(f"\nsettings: {settings}\n\nwith the vaults' accepted designs:\n{with_md}\n\n"
          f"without them (as if no decision were written down):\n{without_md}\n")
    print_failures(datasets, settings)
    if args.write:
        write_memory_part(EVAL, "### Dead-end check evaluation (bench/eval_deadend.py)\n\n"
                      f"{machine_line()}\n\nSettings: {settings}.\n\n"
                      f"With the vaults' accepted designs:\n\n{with_md}\n\n"
                      f"Without them (as if no decision were written down):\n\n{without_md}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
