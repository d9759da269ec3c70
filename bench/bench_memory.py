"""Agent-memory speed (issue 6): ``bench_memory.py [--notes 10000] [--runs 11] [--write]``.

Cold CLI medians, each run a fresh ``vault-engine`` process (what an agent's hook pays):
``resume --project P --json``, ``deadend check PROPOSAL --lexical --json`` (a hit and a miss)
and ``deadend list --json``, on a fresh indexed copy of sample-vault/ and of the synthetic
vault (bench/gen_vault.py, cached in /tmp). Also whether any of them imported torch (from
``python -X importtime``). Targets: ``resume`` and ``deadend check --lexical`` <= 300 ms
median, ``deadend list`` on 10,000 notes <= 1 s. ``--write`` puts the table into
bench/RESULTS.md between ``<!-- memory -->`` markers.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)
from bench_core import CACHE, synthetic_vault  # noqa: E402

MARKER = "memory"
SPEED, EVAL = "memory-speed", "memory-eval"  # the two parts of the memory section
ROWS = (  # (key, label, target ms)
    ("resume", "`resume --project P --json`", 300.0),
    ("check_hit", "`deadend check --lexical --json`, a hit", 300.0),
    ("check_hit_project", "`deadend check --lexical --project P --json`, a hit (its folder scanned for changes)", 300.0),
    ("check_miss", "`deadend check --lexical --json`, a miss", 300.0),
    ("list", "`deadend list --json` (whole vault)", 1000.0),
    ("help", "`--help` (interpreter and CLI start alone, for reference)", None),
)
MISS = "add a dark mode toggle to the settings screen"


@dataclass(slots=True)
class Figures:
    label: str
    notes: int = 0
    dead_ends: int = 0
    medians: dict[str, float] = field(default_factory=dict)
    torch: list[str] = field(default_factory=list)  # commands that imported torch


def commands(root: Path, project: str, hit: str) -> dict[str, list[str]]:
    base = ["--vault", str(root)]
    return {
        "resume": [*base, "resume", "--project", project, "--json"],
        "check_hit": [*base, "deadend", "check", hit, "--lexical", "--json"],
        "check_hit_project": [*base, "deadend", "check", hit, "--lexical", "--project", project, "--json"],
        "check_miss": [*base, "deadend", "check", MISS, "--lexical", "--json"],
        "list": [*base, "deadend", "list", "--json"],
        "help": ["--help"],
    }


def measure(source: Path, label: str, work: Path, runs: int) -> Figures:
    """Copy, index (lexical), then time each command ``runs`` times cold."""
    root = common.fresh_copy(source, work, label.replace(" ", "-"))
    indexed = common.run_cli(["--vault", str(root), "index", "--no-embed"])
    if indexed.returncode != 0:
        raise SystemExit(f"indexing {label} failed: {indexed.stderr.strip()}")
    project, hit, notes, dead_ends = vault_facts(root)
    figures = Figures(label, notes, dead_ends)
    for key, args in commands(root, project, hit).items():
        figures.medians[key] = common.cold_median_ms(args, runs)
        if imports_torch(args):
            figures.torch.append(key)
    return figures


def vault_facts(root: Path) -> tuple[str, str, int, int]:
    """A project with a checkpoint, a ruling text to propose (a hit), note and dead-end counts."""
    from vault_engine.vault import Vault

    with Vault(root) as vault:
        rulings = vault.deadend_list()
        checkpoints = sorted((n for n in vault.ledger.notes(kinds=("checkpoint",)) if n.project),
                             key=lambda n: n.path)
        notes = vault.ledger.counts()["notes"]
    if not rulings or not checkpoints:
        raise SystemExit(f"{root}: no dead ends or checkpoints to measure")
    return checkpoints[0].project, rulings[len(rulings) // 2].text, notes, len(rulings)


def imports_torch(args: list[str]) -> bool:
    """Run once under ``-X importtime`` and look for torch among the imports."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "vault_engine", *args],
                          capture_output=True, text=True, timeout=300)
    return any(line.rsplit("|", 1)[-1].strip().split(".")[0] == "torch" for line in done.stderr.splitlines())


def write_memory_part(part: str, body: str) -> None:
    """Rewrite one part (speed or eval) inside bench/RESULTS.md's ``<!-- memory -->`` section,
    creating the section with both parts when it is absent; nothing else is touched."""
    text = common.RESULTS.read_text(encoding="utf-8") if common.RESULTS.exists() else ""
    if f"<!-- {MARKER} -->" not in text:
        empty = "\n".join(f"<!-- {p} -->\n(not measured yet)\n<!-- /{p} -->" for p in (SPEED, EVAL))
        common.write_section(MARKER, f"## Agent memory\n\n{empty}")
    common.write_section(part, body)


def render(results: list[Figures], machine: str, runs: int) -> str:
    header = [f"measure (cold CLI, median of {runs})"] + [
        f"{f.label} ({f.notes:,} notes, {f.dead_ends:,} dead ends)" for f in results] + ["target"]
    rows = []
    for key, label, target in ROWS:
        cells = [f"{f.medians[key]:.0f} ms" for f in results]
        rows.append([label, *cells, f"<= {target:.0f} ms" if target else ""])
    rows.append(["imports torch", *[", ".join(f.torch) or "no" for f in results], "no"])
    return (f"### Speed (bench/bench_memory.py)\n\n{machine}; unless that load average is near 0, "
            "other processes shared the cores (compare the `--help` row).\n\n"
            + common.markdown_table(header, rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="synthetic vault size (default 10000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=11, help="cold runs per command (default 11)")
    parser.add_argument("--write", action="store_true", help="rewrite the memory section of RESULTS.md")
    args = parser.parse_args(argv)

    machine = common.machine_line()
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE, prefix="memory-") as work:
        results = [measure(common.REPO / "sample-vault", "sample-vault", Path(work), args.runs),
                   measure(synthetic_vault(args.notes, args.seed), f"synthetic {args.notes}", Path(work), args.runs)]
    table = render(results, machine, args.runs)
    print(table)
    if args.write:
        write_memory_part(SPEED, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
