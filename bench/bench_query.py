"""Cold queries with the model (issue 3): ``bench_query.py [--runs 11] [--write]``.

What an agent pays for one ``vault-engine search`` (hybrid) or ``deadend check`` in a fresh
process, now that queries are embedded by the model's ONNX export instead of through torch:
cold CLI medians on a fresh copy of ../shared/corpora/obsidian-tasks-docs (search) and of
sample-vault/ (search and the dead-end check), each indexed with embeddings first; then the
same hybrid search with the export deleted (queries through sentence-transformers, torch
imported: the path every search took before, and still the fallback); and whether each
command imported torch (from ``python -X importtime``). ``--write`` puts the table into
bench/RESULTS.md between ``<!-- semantic-cold -->`` markers (inside ``<!-- semantic -->``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)
from bench_memory import imports_torch  # noqa: E402

CORPUS = common.CORPORA / "obsidian-tasks-docs"
SAMPLE = common.REPO / "sample-vault"
WORK = Path(tempfile.gettempdir()) / "vault-engine-bench"
QUESTION = "how do I stop a task from repeating"  # a paraphrase: meaning has to find it
PROPOSAL = "run the beamforming on the microcontroller"  # sample-vault ruled this out


def indexed_copy(source: Path, work: Path, name: str) -> Path:
    root = common.fresh_copy(source, work, name)
    run = common.run_cli(["--vault", str(root), "index", "--json"], timeout=3600)
    if run.returncode != 0:
        raise SystemExit(f"indexing {name} failed: {run.stderr.strip()}")
    if not list((root / ".vault-engine/index/current").glob("query-model-*.onnx")):
        raise SystemExit(f"{name}: index wrote no query model ({run.stderr.strip()})")
    return root


def measure(runs: int, work: Path) -> list[list[str]]:
    rows = []
    tasks = indexed_copy(CORPUS, work, "tasks-docs")
    sample = indexed_copy(SAMPLE, work, "sample")
    cases = [
        ("`search Q --json` (hybrid), obsidian-tasks-docs", ["--vault", str(tasks), "search", QUESTION, "--json"]),
        ("`search Q --semantic --json`, obsidian-tasks-docs",
         ["--vault", str(tasks), "search", QUESTION, "--semantic", "--json"]),
        ("`search Q --lexical --json` (for comparison)",
         ["--vault", str(tasks), "search", QUESTION, "--lexical", "--json"]),
        ("`deadend check P --json` (both arms), sample-vault",
         ["--vault", str(sample), "deadend", "check", PROPOSAL, "--json"]),
    ]
    for label, args in cases:
        rows.append([label, f"**{common.cold_median_ms(args, runs):.0f}**", "yes" if imports_torch(args) else "no"])
    for export in (tasks / ".vault-engine/index/current").glob("query-model-*.onnx"):
        export.unlink()  # the fallback: queries through sentence-transformers
    args = cases[0][1]
    rows.append(["`search Q --json` (hybrid) without the export (the fallback; before)",
                 f"{common.cold_median_ms(args, max(3, runs // 3)):.0f}", "yes" if imports_torch(args) else "no"])
    return rows


def render(machine: str, rows: list[list[str]], runs: int) -> str:
    table = common.markdown_table([f"cold CLI, median of {runs} fresh processes", "ms", "imports torch"], rows)
    return (f"### Cold queries with the model (bench/bench_query.py)\n\n{machine}. Each vault indexed "
            f"with embeddings first (`vault-engine index`, which writes the query model); Q = "
            f"\"{QUESTION}\", P = \"{PROPOSAL}\". The fallback row has fewer runs (each imports "
            f"torch).\n\n{table}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="cold runs per command (default 11)")
    parser.add_argument("--write", action="store_true", help="write into bench/RESULTS.md")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 1
    machine = common.machine_line()
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK, prefix="query-") as scratch:
        rows = measure(args.runs, Path(scratch))
    text = render(machine, rows, args.runs)
    print(text)
    if args.write:
        common.write_section("semantic-cold", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
