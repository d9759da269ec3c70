"""Run every benchmark in bench/, one after the other: ``run_all.py [--no-write] [--only NAME]``.

A benchmark is a ``bench/*.py`` file with a top-level ``def main`` (found by reading the
source, so nothing heavy is imported here); the helpers below are not benchmarks. Each one
runs in its own fresh interpreter, so one script's imports, caches and memory never colour the
next one's numbers. Scripts that have a ``--write`` option get it (unless ``--no-write``) and
rewrite their own section of bench/RESULTS.md. ``make bench`` calls this.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
HELPERS = frozenset({"common", "gen_vault", "gen_notes", "run_all", "evalsets", "ast_callgraph"})
FIRST = frozenset({"bench_core"})  # the foundation's numbers first; the rest by name

# Runs one script's main() in a fresh interpreter, with argv as if it had been run by path.
_RUNNER = """
import importlib, inspect, sys
sys.path.insert(0, sys.argv[1])
module = importlib.import_module(sys.argv[2])
args = sys.argv[3:]
sys.argv = [module.__file__, *args]
takes_args = bool(inspect.signature(module.main).parameters)
sys.exit(module.main(args) if takes_args else module.main())
"""


def find_benchmarks(folder: Path = BENCH_DIR) -> list[Path]:
    """Scripts in ``folder`` with a top-level ``main`` function, in run order."""
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.stem in HELPERS or path.stem.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            found.append(path)
    return sorted(found, key=lambda p: (p.stem not in FIRST, p.stem))


def has_write_option(path: Path) -> bool:
    """Whether the script defines a ``--write`` option (read from its source)."""
    return '"--write"' in path.read_text(encoding="utf-8")


def run_one(path: Path, write: bool) -> tuple[int, float]:
    """Run one benchmark; its output goes straight to ours. Returns (exit code, seconds)."""
    args = ["--write"] if write and has_write_option(path) else []
    print(f"\n=== {path.name} {' '.join(args)}".rstrip(), flush=True)
    started = time.perf_counter()
    code = subprocess.call([sys.executable, "-c", _RUNNER, str(path.parent), path.stem, *args])
    return code, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks in sequence; exit 1 when any of them failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--only", action="append", metavar="NAME", help="run only this script (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    scripts = find_benchmarks(BENCH_DIR)
    if args.only:
        unknown = set(args.only) - {p.stem for p in scripts}
        if unknown:
            parser.error(f"no benchmark named {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(p.stem for p in scripts)}")
        scripts = [p for p in scripts if p.stem in args.only]
    if args.list:
        print("\n".join(p.stem for p in scripts))
        return 0
    results = [(path.stem, *run_one(path, not args.no_write)) for path in scripts]
    print("\n=== summary")
    for name, code, seconds in results:
        print(f"{name:20s} {'ok' if code == 0 else f'exit {code}':8s} {seconds:7.1f} s")
    return 1 if any(code for _, code, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
